#!/usr/bin/env python3
"""What a user would otherwise reach for to find planes in a depth frame, run on the same
frames as waymark-bench's planes suite:

- OpenCV's rgbd contrib module: cv2.rgbd.depthTo3d, then cv2.rgbd.RgbdPlane (its defaults:
  40-pixel blocks, 1600-pixel planes, 1 cm);
- Open3D: back-project the valid pixels with numpy, then segment_plane looped over up to 5
  planes (distance 1 cm, 3-point samples, 1000 iterations), removing each plane's inliers.

Reads a task as JSON on stdin: {"scratch": DIR, "repeats": N, "frames": [{"name", "depth",
"kind": "png" | "disparity", "scale" | "focal_times_baseline", "K": [fx, fy, cx, cy]}]} with K
in OpenCV's convention (integer pixel centres). Writes per-pixel labels of each method as
16-bit PNGs to DIR (0 = none, k = k-th plane) and prints JSON: per frame and method, the
median milliseconds over N runs after one warm-up, measured with time.perf_counter on one
thread (cv2.setNumThreads(1); OMP_NUM_THREADS=1 is set before Open3D is imported)."""
import json
import os
import statistics
import sys
import time

os.environ["OMP_NUM_THREADS"] = "1"
import cv2  # noqa: E402
import numpy as np  # noqa: E402

try:
    import open3d as o3d  # noqa: E402
    o3d.utility.set_verbosity_level(o3d.utility.VerbosityLevel.Error)
except ImportError:
    o3d = None

cv2.setNumThreads(1)


def load(frame):
    raw = cv2.imread(frame["depth"], cv2.IMREAD_UNCHANGED)
    if raw is None:
        raise SystemExit(f"cannot read {frame['depth']}")
    raw = raw.astype(np.float32)
    if frame["kind"] == "disparity":
        d = raw / 8.0
        return np.where(d > 0, frame["focal_times_baseline"] / np.maximum(d, 1e-6), 0).astype(np.float32)
    return raw * frame["scale"]


def camera(frame):
    fx, fy, cx, cy = frame["K"]
    return np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float32)


def rgbd_plane(depth, k):
    points = cv2.rgbd.depthTo3d(depth, k)
    # OpenCV's defaults; the sensor error 0.0075 its documentation gives "for a Kinect" found
    # the mOSD tables less well (IoU 0.94 against 0.96 on learn0).
    finder = cv2.rgbd.RgbdPlane_create(cv2.rgbd.RgbdPlane_RGBD_PLANE_METHOD_DEFAULT, 40, 1600, 0.01, 0, 0, 0)
    mask, _ = finder.apply(points)
    return mask


def rgbd_labels(mask):
    labels = np.where(mask == 255, 0, mask.astype(np.int32) + 1)
    return labels.astype(np.uint16)


def open3d_planes(depth, k):
    v, u = np.nonzero(depth > 0)
    z = depth[v, u].astype(np.float64)
    points = np.stack([(u - k[0, 2]) / k[0, 0] * z, (v - k[1, 2]) / k[1, 1] * z, z], axis=1)
    cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points))
    remaining = np.arange(len(points))
    planes = []
    for _ in range(5):
        if len(remaining) < 3:
            break
        _, inliers = cloud.segment_plane(distance_threshold=0.01, ransac_n=3, num_iterations=1000)
        if len(inliers) < 3:
            break
        planes.append(remaining[np.asarray(inliers)])
        keep = np.ones(len(remaining), dtype=bool)
        keep[np.asarray(inliers)] = False
        remaining = remaining[keep]
        cloud = cloud.select_by_index(np.asarray(inliers), invert=True)
    return v, u, planes


def open3d_labels(shape, result):
    v, u, planes = result
    labels = np.zeros(shape, dtype=np.uint16)
    for index, members in enumerate(planes):
        labels[v[members], u[members]] = index + 1
    return labels


def timed(run, repeats):
    run()  # warm-up
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append((time.perf_counter() - start) * 1000)
    return result, statistics.median(times)


def main():
    task = json.load(sys.stdin)
    answer = {"opencv": cv2.__version__, "open3d": o3d.__version__ if o3d else None, "frames": []}
    for frame in task["frames"]:
        depth = load(frame)
        k = camera(frame)
        entry = {"name": frame["name"]}
        mask, ms = timed(lambda: rgbd_plane(depth, k), task["repeats"])
        path = os.path.join(task["scratch"], frame["name"] + "_rgbdplane.png")
        cv2.imwrite(path, rgbd_labels(mask))
        entry["rgbdplane"] = {"ms": ms, "labels": path}
        if o3d is not None:
            result, ms = timed(lambda: open3d_planes(depth, k), max(1, task["repeats"] // 4))
            path = os.path.join(task["scratch"], frame["name"] + "_open3d.png")
            cv2.imwrite(path, open3d_labels(depth.shape, result))
            entry["open3d"] = {"ms": ms, "labels": path}
        answer["frames"].append(entry)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
