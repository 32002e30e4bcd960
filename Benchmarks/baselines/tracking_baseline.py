#!/usr/bin/env python3
"""Camera tracking as a user would assemble it from OpenCV: cv2.rgbd.RgbdICPOdometry (photometric
and ICP terms, OpenCV's defaults) between each frame and the one before, chained, at full size,
on the same frames as waymark-bench's tracking suite.

Reads a task as JSON on stdin: {"sequences": [{"name", "K": [fx, fy, cx, cy] (OpenCV convention),
"scale": metres per depth unit, "frames": [{"timestamp", "image", "depth"}]}]}. Prints JSON:
{"opencv", "sequences": {name: {"poses": [[timestamp, 16 numbers row-major camera-to-world] or
null for a frame the odometry lost (the pose is kept)], "ms": [per frame]}}}, ms being the
odometry's call alone (the images are read and converted before the clock starts), measured with
time.perf_counter on one thread.

With "monocular": true the frames have no depth and each sequence carries "steps" (the truth's
distance between consecutive frames): ORB features matched to the previous frame, an essential
matrix (cv2.findEssentialMat, RANSAC) and cv2.recoverPose, chained. A step's translation has no
scale; "firstStep" scales every step by the truth's first step, "everyStep" each by its own true
length. "ms" is the whole per-frame work (features, matching, the two calls)."""
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


def track_monocular(sequence):
    fx, fy, cx, cy = sequence["K"]
    camera = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
    orb = cv2.ORB_create(2000)
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    steps = sequence["steps"]
    first_scale = steps[0] if steps else 0.0
    pose_first, pose_every = np.eye(4), np.eye(4)
    previous = None
    first, every, times = [], [], []
    for k, frame in enumerate(sequence["frames"]):
        gray = cv2.imread(frame["image"], cv2.IMREAD_GRAYSCALE)
        start = time.perf_counter()
        keypoints, descriptors = orb.detectAndCompute(gray, None)
        found = previous is None
        if previous is not None and descriptors is not None and previous[1] is not None:
            pairs = matcher.knnMatch(descriptors, previous[1], k=2)
            good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
            if len(good) >= 8:
                current_points = np.float64([keypoints[m.queryIdx].pt for m in good])
                previous_points = np.float64([previous[0][m.trainIdx].pt for m in good])
                essential, mask = cv2.findEssentialMat(current_points, previous_points, camera, cv2.RANSAC, 0.999, 1.0)
                if essential is not None and essential.shape == (3, 3):
                    # R, t map this frame's camera coordinates into the previous frame's.
                    inliers, rotation, translation, _ = cv2.recoverPose(essential, current_points, previous_points,
                                                                       camera, mask=mask)
                    if inliers >= 8:
                        for pose, scale in ((pose_first, first_scale), (pose_every, steps[k - 1])):
                            step = np.eye(4)
                            step[:3, :3] = rotation
                            step[:3, 3] = translation.ravel() * scale
                            pose[:] = pose @ step
                        found = True
        times.append((time.perf_counter() - start) * 1000)
        first.append([frame["timestamp"]] + pose_first.reshape(-1).tolist() if found else None)
        every.append([frame["timestamp"]] + pose_every.reshape(-1).tolist() if found else None)
        previous = (keypoints, descriptors)
    return {"firstStep": first, "everyStep": every, "ms": times}


def main():
    task = json.load(sys.stdin)
    run = track_monocular if task.get("monocular") else track
    json.dump({"opencv": cv2.__version__, "sequences": {s["name"]: run(s) for s in task["sequences"]}}, sys.stdout)


if __name__ == "__main__":
    main()
