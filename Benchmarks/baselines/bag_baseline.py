#!/usr/bin/env python3
"""What a robotics user would write in Python to get a bag's frames as arrays, beside reading
the same frames' PNG files with OpenCV: the `bags` suite's baselines.

Task (JSON on standard input): {"bag": BAG, "color_topic": T, "depth_topic": T,
"folder": TUM folder, "pairs": [[colour png, depth png], ...], "repeats": N}.
Answer (JSON on standard output): {"methods": {name: {"frames": n, "ms": [per-pass ms]}}}:
- rosbags: rosbags' AnyReader over the bag, its colour and depth messages deserialized and
  made numpy images (rgb8 turned BGR, 16UC1 as uint16), one thread;
- opencv-png: cv2.imread of each pair's colour and depth PNG (IMREAD_UNCHANGED for depth).
"""
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from rosbags.highlevel import AnyReader


def read_bag(task):
    frames = 0
    with AnyReader([Path(task['bag'])]) as reader:
        wanted = [c for c in reader.connections if c.topic in (task['color_topic'], task['depth_topic'])]
        for connection, _, raw in reader.messages(connections=wanted):
            message = reader.deserialize(raw, connection.msgtype)
            if message.encoding == 'rgb8':
                image = message.data.reshape(message.height, message.width, 3)[:, :, ::-1].copy()
            elif message.encoding == '16UC1':
                image = message.data.view('<u2').reshape(message.height, message.width).copy()
            else:
                raise SystemExit(f'bag_baseline: {message.encoding} is not read here')
            frames += connection.topic == task['color_topic']
            assert image.size > 0
    return frames


def read_pngs(task):
    for colour, depth in task['pairs']:
        c = cv2.imread(colour, cv2.IMREAD_COLOR)
        d = cv2.imread(depth, cv2.IMREAD_UNCHANGED)
        assert c is not None and d is not None
    return len(task['pairs'])


def main():
    cv2.setNumThreads(1)
    task = json.load(sys.stdin)
    methods = {}
    for name, read in (('rosbags', read_bag), ('opencv-png', read_pngs)):
        times, frames = [], 0
        for _ in range(task.get('repeats', 5)):
            start = time.perf_counter()
            frames = read(task)
            times.append((time.perf_counter() - start) * 1000)
        methods[name] = {'frames': frames, 'ms': times}
    json.dump({'methods': methods, 'numpy': np.__version__}, sys.stdout)


if __name__ == '__main__':
    main()
