#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (Tests/Fuzz), cut from ../shared/datasets.

usage: fuzz-seeds.py DATASETS OUT WAYMARK

Writes OUT/<target>/<seed> for manifest, ply, pcd, image, tum and waymap. Seeds are small
(a few hundred points, 16x12 pixels, twenty list lines) so that each execution is fast; the
fuzzer grows them. WAYMARK is the waymark binary, used to build a world map from two frames
of the TUM excerpt.
"""
import os
import struct
import subprocess
import sys
import tempfile

import cv2
import numpy as np


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def lzf_decompress(data, size):
    out = bytearray()
    i = 0
    while i < len(data) and len(out) < size:
        control = data[i]
        i += 1
        if control < 32:
            out += data[i:i + control + 1]
            i += control + 1
        else:
            length = control >> 5
            if length == 7:
                length += data[i]
                i += 1
            back = len(out) - ((control & 31) << 8) - data[i] - 1
            i += 1
            for _ in range(length + 2):
                out.append(out[back])
                back += 1
    return bytes(out)


def lzf_literals(data):
    """LZF's literal runs only: valid input for any LZF decoder, which the fuzzer mutates."""
    out = bytearray()
    for start in range(0, len(data), 32):
        chunk = data[start:start + 32]
        out.append(len(chunk) - 1)
        out += chunk
    return bytes(out)


def read_pcd(path):
    """The header lines and the fields as a structured numpy array (organized clouds keep WIDTH)."""
    raw = open(path, "rb").read()
    header, offset = {}, 0
    while True:
        end = raw.index(b"\n", offset)
        line = raw[offset:end].decode().strip()
        offset = end + 1
        if line.startswith("#") or not line:
            continue
        key, *values = line.split()
        header[key] = values
        if key == "DATA":
            break
    fields, sizes, types = header["FIELDS"], [int(s) for s in header["SIZE"]], header["TYPE"]
    dtype = np.dtype([(name, {"F": "f", "U": "u", "I": "i"}[t] + str(s)) for name, s, t in zip(fields, sizes, types)])
    count = int(header["POINTS"][0])
    kind = header["DATA"][0]
    if kind == "ascii":
        rows = raw[offset:].decode().split("\n")[:count]
        values = np.array([[float(v) for v in r.split()] for r in rows if r.strip()])
        points = np.zeros(len(values), dtype=dtype)
        for k, name in enumerate(fields):
            points[name] = values[:, k]
    elif kind == "binary":
        points = np.frombuffer(raw[offset:offset + count * dtype.itemsize], dtype=dtype)
    else:
        compressed, size = struct.unpack("<II", raw[offset:offset + 8])
        plain = lzf_decompress(raw[offset + 8:offset + 8 + compressed], size)
        points = np.zeros(count, dtype=dtype)
        position = 0
        for name in fields:  # binary_compressed stores each field's column in turn
            column = np.frombuffer(plain[position:position + count * dtype[name].itemsize], dtype=dtype[name])
            points[name] = column
            position += count * dtype[name].itemsize
    return points, int(header["WIDTH"][0]), int(header["HEIGHT"][0])


def pcd_bytes(points, width, height, kind):
    names = points.dtype.names
    header = ("# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\n"
              f"FIELDS {' '.join(names)}\n"
              f"SIZE {' '.join(str(points.dtype[n].itemsize) for n in names)}\n"
              f"TYPE {' '.join(points.dtype[n].kind.upper() for n in names)}\n"
              f"COUNT {' '.join('1' for _ in names)}\nWIDTH {width}\nHEIGHT {height}\n"
              f"VIEWPOINT 0 0 0 1 0 0 0\nPOINTS {len(points)}\nDATA {kind}\n").encode()
    if kind == "ascii":
        return header + "".join(" ".join(repr(v.item()) for v in p) + "\n" for p in points).encode()
    if kind == "binary":
        return header + points.tobytes()
    columns = b"".join(np.ascontiguousarray(points[n]).tobytes() for n in names)
    compressed = lzf_literals(columns)
    return header + struct.pack("<II", len(compressed), len(columns)) + compressed


def ply_bytes(xyz, kind, extra=False):
    header = f"ply\nformat {kind} 1.0\ncomment cut from a PCL test cloud\nelement vertex {len(xyz)}\n"
    header += "property float x\nproperty float y\nproperty float z\n"
    if extra:
        header += "property uchar red\nproperty uchar green\nproperty uchar blue\n"
        header += "element face 1\nproperty list uchar int vertex_indices\n"
    header += "end_header\n"
    if kind == "ascii":
        body = "".join(f"{x} {y} {z}" + (" 200 100 50" if extra else "") + "\n" for x, y, z in xyz)
        if extra:
            body += "3 0 1 2\n"
        return (header + body).encode()
    order = "<" if kind == "binary_little_endian" else ">"
    body = b"".join(struct.pack(order + "fff", *p) + (bytes([200, 100, 50]) if extra else b"") for p in xyz)
    if extra:
        body += bytes([3]) + struct.pack(order + "iii", 0, 1, 2)
    return header.encode() + body


def clouds(datasets, out):
    plane, _, _ = read_pcd(os.path.join(datasets, "pcl_pointclouds/sac_plane_test.pcd"))
    sample = plane[:200]
    xyz = np.stack([sample["x"], sample["y"], sample["z"]], axis=1)
    for kind in ["ascii", "binary_little_endian", "binary_big_endian"]:
        write(out + "/ply", f"plane-{kind}.ply", ply_bytes(xyz, kind))
        write(out + "/ply", f"plane-{kind}-colour-face.ply", ply_bytes(xyz[:20], kind, extra=True))
    for kind in ["ascii", "binary", "binary_compressed"]:
        write(out + "/pcd", f"plane-{kind}.pcd", pcd_bytes(sample, len(sample), 1, kind))
    for name in ["office1", "table_scene_mug_stereo_textured", "mOSD/test16"]:
        points, width, height = read_pcd(os.path.join(datasets, "pcl_pointclouds", name + ".pcd"))
        grid = points.reshape(height, width)[height // 2:height // 2 + 12, width // 2:width // 2 + 16].reshape(-1)
        for kind in ["binary", "binary_compressed"]:
            write(out + "/pcd", f"{os.path.basename(name)}-16x12-{kind}.pcd", pcd_bytes(grid, 16, 12, kind))


def images(datasets, out):
    folder = out + "/image"
    tum = os.path.join(datasets, "tum_fr1_xyz_excerpt")
    depth = cv2.imread(os.path.join(tum, "depth", sorted(os.listdir(os.path.join(tum, "depth")))[0]), cv2.IMREAD_UNCHANGED)
    crop = depth[200:212, 300:316]
    write(folder, "depth16.png", cv2.imencode(".png", crop)[1].tobytes())
    write(folder, "depth16.tiff", cv2.imencode(".tiff", crop)[1].tobytes())
    write(folder, "depth16.pgm", cv2.imencode(".pgm", crop)[1].tobytes())
    disparity = cv2.imread(os.path.join(datasets, "middlebury_stereo/venus/groundTruthDisparity.png"), cv2.IMREAD_UNCHANGED)
    if disparity.ndim == 3:
        disparity = disparity[:, :, 0]
    values = disparity[100:112, 100:116].astype(np.float32)
    # PFM: bottom row first; a negative scale means little-endian.
    write(folder, "disparity.pfm", b"Pf\n16 12\n-1.0\n" + np.flipud(values).astype("<f4").tobytes())
    write(folder, "disparity-big-endian.pfm", b"Pf\n16 12\n1.0\n" + np.flipud(values).astype(">f4").tobytes())
    write(folder, "disparity-float.tiff", cv2.imencode(".tiff", values)[1].tobytes())
    colour = cv2.imread(os.path.join(tum, "rgb", sorted(os.listdir(os.path.join(tum, "rgb")))[0]))[200:212, 300:316]
    for extension in [".png", ".jpg", ".bmp", ".webp", ".ppm"]:
        write(folder, "colour" + extension, cv2.imencode(extension, colour)[1].tobytes())


def lists(datasets, out):
    tum = os.path.join(datasets, "tum_fr1_xyz_excerpt")

    start = float(open(os.path.join(tum, "depth.txt")).read().splitlines()[3].split()[0]) - 0.05

    def head(name, path, lines):
        rows = [r for r in open(os.path.join(tum, name)).read().splitlines() if r.startswith("#") or float(r.split()[0]) > start]
        rows = rows[:lines]
        return "\n".join(r if r.startswith("#") or path is None else f"{r.split()[0]} {path}" for r in rows) + "\n"

    depth, rgb, truth = head("depth.txt", "d.png", 20), head("rgb.txt", "c.png", 20), head("groundtruth.txt", None, 30)
    intrinsics = "517.3 516.5 318.6 255.3\n"
    write(out + "/tum", "recording", "\n%%\n".join([depth, rgb, truth, intrinsics]))
    write(out + "/tum", "depth-only", "\n%%\n".join([depth, "", truth]))
    write(out + "/tum", "kitti-poses", "\n%%\n".join([depth, rgb, "1 0 0 0.5 0 1 0 0 0 0 1 2\n" * 3]))


def manifests(datasets, out):
    oxford = os.path.join(datasets, "oxford_affine")
    scenes = sorted(d for d in os.listdir(oxford) if os.path.isdir(os.path.join(oxford, d)))
    entries = [f'{{"name": "{s}", "path": "{oxford}/{s}/img1.png", "physicalWidth": 0.{k + 3}, "group": "g{k % 2}"}}'
               for k, s in enumerate(scenes)]
    write(out + "/manifest", "oxford.json", '{"images": [' + ", ".join(entries) + "]}\n")
    write(out + "/manifest", "one.json", '{"images": [{"name": "graf", "path": "graf.png"}]}\n')


def world_map(datasets, out, waymark):
    tum = os.path.join(datasets, "tum_fr1_xyz_excerpt")
    with tempfile.TemporaryDirectory() as scratch:
        for name, lines in [("depth.txt", 5), ("rgb.txt", 5), ("groundtruth.txt", None)]:
            write(scratch, name, "\n".join(open(os.path.join(tum, name)).read().splitlines()[:lines]) + "\n")
        for images in ["depth", "rgb"]:
            os.symlink(os.path.abspath(os.path.join(tum, images)), os.path.join(scratch, images))
        path = os.path.join(scratch, "two-frames.waymap")
        subprocess.run([waymark, "map", "build", scratch, "--output", path, "--quiet", "--intrinsics", "517.3,516.5,318.6,255.3"], check=True, stdout=subprocess.DEVNULL)
        write(out + "/waymap", "tum-excerpt", b"\0" + open(path, "rb").read())


def main():
    datasets, out, waymark = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    clouds(datasets, out)
    images(datasets, out)
    lists(datasets, out)
    manifests(datasets, out)
    world_map(datasets, out, waymark)


if __name__ == "__main__":
    main()
