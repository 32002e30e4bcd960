#!/usr/bin/env python3
"""The pipelines a user would otherwise write with OpenCV's Python bindings. Per pair or per
reference (`pairs`, `references`): ORB (or SIFT) features, brute-force matching with Lowe's
ratio test, and findHomography with RANSAC, one reference at a time (kept as the historical
row). Over a library (`library`, kinds `orb-lsh` and `sift-l2`): what a competent engineer
writes for many references: ORB 1000 in one FLANN LSH index (or SIFT in one brute-force L2
index) over every reference's descriptors, Lowe's ratio test across all references at once,
then RANSAC per reference with at least 15 matches. For pairs with a ground truth, kind
`ecc-from-truth` is not a pipeline but a check of the truth: OpenCV's ECC alignment (a
homography maximising the images' correlation) started from the true homography, so its answer
is the homography the two images themselves agree on nearest the truth. Reads a task as JSON on stdin, prints results as JSON on stdout.
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


def aligned_from_truth(pair):
    """ECC from the ground truth (H1toNp: reference -> frame), or None where it does not converge.
    The frame is ECC's template and the reference its input, which converges on more pairs than
    the other way round (in Oxford's leuven series the darker frames fail either way)."""
    reference = cv2.imread(pair["reference"], cv2.IMREAD_GRAYSCALE).astype(np.float32)
    frame = cv2.imread(pair["frame"], cv2.IMREAD_GRAYSCALE).astype(np.float32)
    truth = np.loadtxt(pair["truth"])
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 300, 1e-7)
    start = time.perf_counter()
    try:
        _, frame_to_reference = cv2.findTransformECC(
            frame, reference, np.linalg.inv(truth).astype(np.float32), cv2.MOTION_HOMOGRAPHY, criteria, None, 5)
        h = np.linalg.inv(frame_to_reference.astype(np.float64))
    except cv2.error:
        h = None
    elapsed = (time.perf_counter() - start) * 1000
    return {"homography": None if h is None else (h / h[2, 2]).flatten().tolist(), "ms": elapsed}


def pairs(task, kind):
    if kind == "ecc-from-truth":
        return [aligned_from_truth(pair) for pair in task["pairs"]]
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


LIBRARY_MIN_MATCHES = 15
LIBRARY_KINDS = ("orb-lsh", "sift-l2")


class LibraryIndex:
    """Every reference's descriptors in one matcher; a match's image index names its reference."""

    def __init__(self, kind, paths):
        if kind not in LIBRARY_KINDS:
            raise SystemExit(f"unknown library kind {kind}")
        if kind == "orb-lsh":
            self.detector = cv2.ORB_create(nfeatures=1000)
            # FLANN's LSH parameters from OpenCV's own feature-matching tutorial.
            self.matcher = cv2.FlannBasedMatcher(dict(algorithm=6, table_number=6, key_size=12, multi_probe_level=1), dict(checks=50))
        else:
            self.detector = cv2.SIFT_create()
            self.matcher = cv2.BFMatcher(cv2.NORM_L2)
        self.keypoints = []
        for path in paths:
            keypoints, descriptors = features(self.detector, path)
            self.keypoints.append(keypoints)
            self.matcher.add([descriptors])
        self.matcher.train()

    def detect(self, image):
        keypoints, descriptors = self.detector.detectAndCompute(image, None)
        if descriptors is None or len(keypoints) < 2:
            return []
        per_reference = {}
        for pair in self.matcher.knnMatch(descriptors, k=2):
            if len(pair) == 2 and pair[0].distance < RATIO * pair[1].distance:
                m = pair[0]
                per_reference.setdefault(m.imgIdx, []).append((self.keypoints[m.imgIdx][m.trainIdx].pt, keypoints[m.queryIdx].pt))
        found = []
        for reference, matches in sorted(per_reference.items()):
            if len(matches) < LIBRARY_MIN_MATCHES:
                continue
            src = np.float32([a for a, _ in matches])
            dst = np.float32([b for _, b in matches])
            h, mask = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_THRESHOLD)
            if h is not None and int(mask.sum()) >= LIBRARY_MIN_MATCHES:
                found.append({"reference": int(reference), "homography": h.flatten().tolist()})
        return found


def library(task, kind):
    index = LibraryIndex(kind, task["library"])
    results = []
    for position, path in enumerate(task["frames"]):
        image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if image is None:
            raise SystemExit(f"cannot read {path}")
        if position == 0:
            index.detect(image)  # warm-up
        start = time.perf_counter()
        found = index.detect(image)
        results.append({"detections": found, "ms": (time.perf_counter() - start) * 1000})
    return results


def main():
    task = json.load(sys.stdin)
    out = {"opencv": cv2.__version__}
    for kind in task.get("kinds", ["orb", "sift"]):
        if kind in LIBRARY_KINDS:
            if "library" in task:
                out.setdefault("library", {})[kind] = library(task, kind)
            continue
        if "pairs" in task:
            out.setdefault("pairs", {})[kind] = pairs(task, kind)
        if "references" in task:
            out.setdefault("many", {})[kind] = many(task, kind)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
