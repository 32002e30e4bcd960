#!/usr/bin/env python3
"""The pipeline a user would otherwise write with OpenCV's Python bindings: ORB (or SIFT)
features, brute-force matching with Lowe's ratio test, and findHomography with RANSAC, one
reference at a time. Reads a task as JSON on stdin, prints results as JSON on stdout.
Times are measured inside this process, after one warm-up run, with time.perf_counter."""
import json
import sys
import time

import cv2
import numpy as np

cv2.setNumThreads(1)
RATIO = 0.75
MIN_MATCHES = 10
RANSAC_THRESHOLD = 5.0


def make(kind):
    if kind == "orb":
        return cv2.ORB_create(nfeatures=1000), cv2.BFMatcher(cv2.NORM_HAMMING)
    return cv2.SIFT_create(), cv2.BFMatcher(cv2.NORM_L2)


def features(detector, path):
    image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise SystemExit(f"cannot read {path}")
    return detector.detectAndCompute(image, None)


def locate(matcher, reference, frame):
    """Homography reference -> frame (pixel centres at integers), or None."""
    (kr, dr), (kf, df) = reference, frame
    if dr is None or df is None or len(kr) < 2 or len(kf) < 2:
        return None
    good = [m for m, n in (p for p in matcher.knnMatch(dr, df, k=2) if len(p) == 2) if m.distance < RATIO * n.distance]
    if len(good) < MIN_MATCHES:
        return None
    src = np.float32([kr[m.queryIdx].pt for m in good])
    dst = np.float32([kf[m.trainIdx].pt for m in good])
    h, mask = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_THRESHOLD)
    if h is None or int(mask.sum()) < MIN_MATCHES:
        return None
    return h


def pairs(task, kind):
    detector, matcher = make(kind)
    results = []
    for pair in task["pairs"]:
        reference = features(detector, pair["reference"])
        frame_image = cv2.imread(pair["frame"], cv2.IMREAD_GRAYSCALE)
        detector.detectAndCompute(frame_image, None)  # warm-up
        start = time.perf_counter()
        frame = detector.detectAndCompute(frame_image, None)
        h = locate(matcher, reference, frame)
        elapsed = (time.perf_counter() - start) * 1000
        results.append({"homography": None if h is None else h.flatten().tolist(), "ms": elapsed})
    return results


def many(task, kind):
    """Every reference searched in every frame, as a user would loop over them."""
    detector, matcher = make(kind)
    references = [features(detector, path) for path in task["references"]]
    frames = []
    for path in task["frames"]:
        frames.append(cv2.imread(path, cv2.IMREAD_GRAYSCALE))
    results = []
    for index, image in enumerate(frames):
        if index == 0:
            frame = detector.detectAndCompute(image, None)
            [locate(matcher, r, frame) for r in references]  # warm-up
        start = time.perf_counter()
        frame = detector.detectAndCompute(image, None)
        found = []
        for r, reference in enumerate(references):
            h = locate(matcher, reference, frame)
            if h is not None:
                found.append({"reference": r, "homography": h.flatten().tolist()})
        elapsed = (time.perf_counter() - start) * 1000
        results.append({"detections": found, "ms": elapsed})
    return results


def main():
    task = json.load(sys.stdin)
    out = {"opencv": cv2.__version__}
    for kind in task.get("kinds", ["orb", "sift"]):
        if "pairs" in task:
            out.setdefault("pairs", {})[kind] = pairs(task, kind)
        if "references" in task:
            out.setdefault("many", {})[kind] = many(task, kind)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
