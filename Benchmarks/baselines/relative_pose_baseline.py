#!/usr/bin/env python3
"""An independent estimate of how a camera moved between two frames, for checking a
reconstruction that has no ground truth (waymark-bench relocalization, part tum): SIFT (4000
features), a brute-force L2 knnMatch (k = 2, ratio 0.75), cv2.findEssentialMat (five-point
RANSAC, 0.5 px, confidence 0.9999) and cv2.recoverPose. It shares nothing with Waymark's
reconstruction but the images: other features, two views instead of all, no depth (so the
direction of travel, not its length).

Reads a task as JSON on stdin: {"K": [fx, fy, cx, cy] (OpenCV convention), "images": [paths],
"pairs": [[i, j], ...]}. Prints JSON: {"opencv": version, "pairs": [{"rotation": 9 numbers
row-major, "direction": 3 numbers, "inliers": n} or null]}, each the motion from frame i's
camera to frame j's (X_j = R X_i + t, t = direction up to scale)."""
import json
import sys

import cv2
import numpy as np

cv2.setNumThreads(1)
SIFT = cv2.SIFT_create(4000)
MATCHER = cv2.BFMatcher(cv2.NORM_L2)


def relative_pose(a, b, K):
    (ka, da), (kb, db) = a, b
    if da is None or db is None or len(ka) < 8 or len(kb) < 8:
        return None
    good = [m for m, n in (p for p in MATCHER.knnMatch(da, db, k=2) if len(p) == 2) if m.distance < 0.75 * n.distance]
    if len(good) < 8:
        return None
    p = np.float64([ka[m.queryIdx].pt for m in good])
    q = np.float64([kb[m.trainIdx].pt for m in good])
    E, mask = cv2.findEssentialMat(p, q, K, cv2.RANSAC, 0.9999, 0.5)
    if E is None or E.shape != (3, 3):
        return None
    inliers, R, t, _ = cv2.recoverPose(E, p, q, K, mask=mask)
    return {"rotation": R.ravel().tolist(), "direction": t.ravel().tolist(), "inliers": int(inliers)}


def main():
    task = json.load(sys.stdin)
    fx, fy, cx, cy = task["K"]
    K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]])
    features = [SIFT.detectAndCompute(cv2.imread(path, cv2.IMREAD_GRAYSCALE), None) for path in task["images"]]
    pairs = [relative_pose(features[i], features[j], K) for i, j in task["pairs"]]
    json.dump({"opencv": cv2.__version__, "pairs": pairs}, sys.stdout)


if __name__ == "__main__":
    main()
