"""The light's colour as a competent OpenCV user would estimate it, for `waymark-bench light`.

Task on stdin: {"images": [PATH, ...], "repeats": N}. Answer on stdout: {"opencv": VERSION,
"estimates": {METHOD: [{"illuminant": [R, G, B] | null, "ms": MEDIAN}, ...]}}, one entry per image
in order, the illuminant in linear sRGB (green 1), the time the median of N runs on one thread.

Methods:
- gray-world: the mean linear colour of the pixels no channel of which is clipped (>= 250) and
  whose luminance is over 0.01 (the same pixels Waymark reads, all of them, not one in 16);
- shades-of-gray: the same pixels' Minkowski mean with p = 6 (Finlayson and Trezzi, 2004);
- learning-based: OpenCV contrib's xphoto LearningBasedWB (its built-in model, trained on the
  Gehler-Shi set); the illuminant is what it removed: the per-channel ratio of the input's to
  the balanced output's mean linear light over the input's unclipped pixels.
"""
import json
import sys
import time

import cv2
import numpy as np

CLIPPED = 250
DARKEST = 0.01


def linear(coded):
    c = coded.astype(np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def usable(bgr):
    """Linear RGB of the unclipped, not dark pixels, one row each."""
    flat = bgr.reshape(-1, 3)
    rgb = linear(flat[:, ::-1])
    luminance = rgb @ np.array([0.2126, 0.7152, 0.0722])
    keep = (flat.max(axis=1) < CLIPPED) & (luminance >= DARKEST)
    return rgb[keep]


def normalised(rgb):
    if not np.all(np.isfinite(rgb)) or rgb[1] <= 0 or np.any(rgb <= 0):
        return None
    return [float(v) for v in rgb / rgb[1]]


def gray_world(bgr):
    pixels = usable(bgr)
    return normalised(pixels.mean(axis=0)) if len(pixels) else None


def shades_of_gray(bgr, p=6):
    pixels = usable(bgr)
    return normalised((pixels ** p).mean(axis=0) ** (1.0 / p)) if len(pixels) else None


LEARNED = cv2.xphoto.createLearningBasedWB()


def learning_based(bgr):
    balanced = LEARNED.balanceWhite(bgr)
    keep = bgr.reshape(-1, 3).max(axis=1) < CLIPPED
    before = linear(bgr.reshape(-1, 3)[keep][:, ::-1]).mean(axis=0)
    after = linear(balanced.reshape(-1, 3)[keep][:, ::-1]).mean(axis=0)
    return normalised(before / np.maximum(after, 1e-9))


METHODS = {"gray-world": gray_world, "shades-of-gray": shades_of_gray, "learning-based": learning_based}


def main():
    cv2.setNumThreads(1)
    task = json.load(sys.stdin)
    repeats = max(1, int(task.get("repeats", 1)))
    estimates = {name: [] for name in METHODS}
    for path in task["images"]:
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        if bgr is None:
            raise SystemExit(f"cannot read {path}")
        for name, method in METHODS.items():
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                illuminant = method(bgr)
                times.append((time.perf_counter() - start) * 1000)
            estimates[name].append({"illuminant": illuminant, "ms": float(np.median(times))})
    json.dump({"opencv": cv2.__version__, "estimates": estimates}, sys.stdout)


if __name__ == "__main__":
    main()
