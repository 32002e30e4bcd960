#!/usr/bin/env python3
"""Camera tracking as a user would assemble it from OpenCV: cv2.rgbd.RgbdICPOdometry (photometric
and ICP terms, OpenCV's defaults) between each frame and the one before, chained, at full size,
on the same frames as waymark-bench's tracking suite.

Reads a task as JSON on stdin: {"sequences": [{"name", "K": [fx, fy, cx, cy] (OpenCV convention),
"scale": metres per depth unit, "frames": [{"timestamp", "image", "depth"}]}]}. Prints JSON:
{"opencv", "sequences": {name: {"poses": [[timestamp, 16 numbers row-major camera-to-world] or
null for a frame the odometry lost (the pose is kept)], "ms": [per frame]}}}, ms being the
odometry's call alone (the images are read and converted before the clock starts), measured with
time.perf_counter on one thread."""
import json
import sys
import time

import cv2
import numpy as np

cv2.setNumThreads(1)


def track(sequence):
    fx, fy, cx, cy = sequence["K"]
    camera = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
    odometry = cv2.rgbd.RgbdICPOdometry_create(camera)
    pose = np.eye(4)
    previous = None
    poses, times = [], []
    for frame in sequence["frames"]:
        gray = cv2.imread(frame["image"], cv2.IMREAD_GRAYSCALE)
        depth = cv2.imread(frame["depth"], cv2.IMREAD_UNCHANGED).astype(np.float32) * sequence["scale"]
        mask = (depth > 0).astype(np.uint8)
        current = cv2.rgbd.OdometryFrame_create(gray, depth, mask)
        start = time.perf_counter()
        found = True
        if previous is not None:
            # Rt maps points of the source (this frame) into the previous frame's camera.
            found, step = odometry.compute2(current, previous)
            if found and np.all(np.isfinite(step)):
                pose = pose @ step
            else:
                found = False
        times.append((time.perf_counter() - start) * 1000)
        poses.append([frame["timestamp"]] + pose.reshape(-1).tolist() if found else None)
        previous = current
    return {"poses": poses, "ms": times}


def main():
    task = json.load(sys.stdin)
    json.dump({"opencv": cv2.__version__, "sequences": {s["name"]: track(s) for s in task["sequences"]}}, sys.stdout)


if __name__ == "__main__":
    main()
