#!/usr/bin/env python3
"""What a user would otherwise assemble from OpenCV to relocalize a camera in a map of RGB-D
keyframes, run on the same keyframes and frames as waymark-bench's relocalization suite:

- map: ORB (1000 features) per keyframe, each keypoint's depth back-projected into the world
  with the keyframe's pose;
- query: ORB on the frame, a brute-force Hamming knnMatch (k = 2, ratio 0.8) against every
  keyframe, the keyframe with the most matches kept, cv2.solvePnPRansac (its defaults:
  100 iterations, 8 px, confidence 0.99) on its 2D-3D matches, accepted with >= 50 inliers
  (ORB-SLAM2's bar, as Waymark).

Reads a task as JSON on stdin: {"K": [fx, fy, cx, cy] (OpenCV convention), "scale": metres per
depth unit, "maps": [{"keyframes": [{"image", "depth", "pose": 16 numbers row-major
camera-to-world}], "queries": [{"image"}]}]}. Prints JSON: per map, per query {"pose": 16
numbers or null, "inliers", "ms"}, ms being the attempt alone (ORB, matching, PnP; the image is
read before the clock starts), measured with time.perf_counter on one thread."""
import json
import sys
import time

import cv2
import numpy as np

cv2.setNumThreads(1)
ORB = cv2.ORB_create(1000)
MATCHER = cv2.BFMatcher(cv2.NORM_HAMMING)


def keyframe(entry, k, scale):
    gray = cv2.imread(entry["image"], cv2.IMREAD_GRAYSCALE)
    depth = cv2.imread(entry["depth"], cv2.IMREAD_UNCHANGED).astype(np.float32) * scale
    keypoints, descriptors = ORB.detectAndCompute(gray, None)
    pose = np.array(entry["pose"], dtype=np.float64).reshape(4, 4)
    points, kept = [], []
    for i, kp in enumerate(keypoints):
        x, y = int(round(kp.pt[0])), int(round(kp.pt[1]))
        if not (0 <= x < depth.shape[1] and 0 <= y < depth.shape[0]):
            continue
        z = float(depth[y, x])
        if z <= 0:
            continue
        camera = np.array([(kp.pt[0] - k[0, 2]) / k[0, 0] * z, (kp.pt[1] - k[1, 2]) / k[1, 1] * z, z, 1.0])
        points.append((pose @ camera)[:3])
        kept.append(i)
    if not kept:
        return None
    return descriptors[kept], np.array(points, dtype=np.float64)


def relocalize(gray, keyframes, k):
    keypoints, descriptors = ORB.detectAndCompute(gray, None)
    if descriptors is None or len(keypoints) < 6:
        return None, 0
    best = None
    for train, points in keyframes:
        good = [m for m, n in (p for p in MATCHER.knnMatch(descriptors, train, k=2) if len(p) == 2)
                if m.distance < 0.8 * n.distance]
        if best is None or len(good) > len(best[0]):
            best = (good, points)
    if best is None or len(best[0]) < 6:
        return None, 0
    good, points = best
    image = np.array([keypoints[m.queryIdx].pt for m in good], dtype=np.float64)
    world = np.array([points[m.trainIdx] for m in good], dtype=np.float64)
    ok, rvec, tvec, inliers = cv2.solvePnPRansac(world, image, k, None)
    count = 0 if inliers is None else len(inliers)
    if not ok or count < 50:
        return None, count
    r, _ = cv2.Rodrigues(rvec)
    pose = np.eye(4)
    pose[:3, :3] = r.T
    pose[:3, 3] = (-r.T @ tvec).ravel()
    return pose.ravel().tolist(), count


def main():
    task = json.load(sys.stdin)
    fx, fy, cx, cy = task["K"]
    k = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
    answer = {"opencv": cv2.__version__, "maps": []}
    for entry in task["maps"]:
        keyframes = [kf for kf in (keyframe(e, k, task["scale"]) for e in entry["keyframes"]) if kf is not None]
        results = []
        for query in entry["queries"]:
            gray = cv2.imread(query["image"], cv2.IMREAD_GRAYSCALE)
            start = time.perf_counter()
            pose, inliers = relocalize(gray, keyframes, k)
            results.append({"pose": pose, "inliers": inliers, "ms": (time.perf_counter() - start) * 1000})
        answer["maps"].append(results)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
