#!/usr/bin/env python3
"""Reruns every case of issue 14 against a waymark binary and prints a Markdown table: the
exit code, the first line of stderr, whether any file the case started with changed, and
the peak resident memory.

usage: rerun.py [WAYMARK] [DATASETS]     (defaults: .build/release/waymark, ../shared/datasets)

It needs root for one case (a read-only folder is a read-only tmpfs mount, since root may
write into any folder whose mode says read-only). Scratch files go to a temporary folder
that is removed at the end. Exit status 1 if any case crashed (exit >= 128), gave 70, or
changed a file it was given.
"""
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import cv2
import numpy as np

WAYMARK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/waymark")
DATASETS = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("WAYMARK_DATASETS", "../shared/datasets"))
TUM = os.path.join(DATASETS, "tum_fr1_xyz_excerpt")
INTRINSICS = "517.3,516.5,318.6,255.3"
rows = []


def digest_tree(paths):
    """Content hashes of every file under `paths` (files or folders), by path."""
    digests = {}
    for root in paths:
        if os.path.isfile(root) and not stat_is_fifo(root):
            digests[root] = hashlib.sha1(open(root, "rb").read()).hexdigest()
        elif os.path.isdir(root):
            for folder, _, names in os.walk(root):
                for name in names:
                    path = os.path.join(folder, name)
                    if os.path.isfile(path) and not stat_is_fifo(path):
                        digests[path] = hashlib.sha1(open(path, "rb").read()).hexdigest()
    return digests


def stat_is_fifo(path):
    import stat
    return stat.S_ISFIFO(os.stat(path).st_mode)


def run(arguments, timeout=600, stdout_path=None):
    """Exit status, stderr and peak resident memory (MB) of one waymark run. GNU time measures
    the memory: a child forked from this script would count the script's own pages."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    with tempfile.NamedTemporaryFile() as peak:
        # A run killed at the timeout exits 137; GNU time passes on 128 + N for signal N.
        process = subprocess.run(["/usr/bin/time", "-q", "-f", "%M", "-o", peak.name, "timeout", "-s", "KILL", str(timeout), WAYMARK]
                                 + arguments, stdout=out, stderr=subprocess.PIPE)
        kilobytes = open(peak.name).read().split()
    return process.returncode, process.stderr.decode(errors="replace"), int(kilobytes[-1]) / 1024 if kilobytes else 0
def case(group, name, arguments, inputs=(), expect=None, stdout_path=None, timeout=600):
    before = digest_tree(inputs)
    code, stderr, peak = run(arguments, timeout=timeout, stdout_path=stdout_path)
    after = digest_tree(inputs)
    changed = sorted(p for p in before if before.get(p) != after.get(p))
    first = next((line for line in stderr.splitlines() if line.strip()), "")
    rows.append((group, name, code, first, changed, peak, expect))


def png(path, image):
    cv2.imwrite(path, image)
    return path


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write(path, text):
    with open(path, "w" if isinstance(text, str) else "wb") as f:
        f.write(text)
    return path


def tum_copy(folder, depth_rows=None, rgb_rows=None, groundtruth=True):
    """A TUM recording that shares the excerpt's images; lists replaced when given."""
    os.makedirs(folder)
    for images in ["depth", "rgb"]:
        os.symlink(os.path.join(TUM, images), os.path.join(folder, images))
    lines = {name: [r for r in open(os.path.join(TUM, name)).read().splitlines() if not r.startswith("#")]
             for name in ["depth.txt", "rgb.txt"]}
    write(os.path.join(folder, "depth.txt"), "\n".join(depth_rows(lines["depth.txt"]) if depth_rows else lines["depth.txt"]) + "\n")
    write(os.path.join(folder, "rgb.txt"), "\n".join(rgb_rows(lines["rgb.txt"]) if rgb_rows else lines["rgb.txt"]) + "\n")
    if groundtruth:
        shutil.copy(os.path.join(TUM, "groundtruth.txt"), folder)
    write(os.path.join(folder, "intrinsics.txt"), INTRINSICS.replace(",", " ") + "\n")
    return folder


def retime(rows, times):
    return [f"{t} {r.split()[1]}" for r, t in zip(rows, times)]


def sectioned_map(path, anchors):
    """A .waymap with no keyframes and the given anchors (id, kind, name, 12 transform values)."""
    def string(s):
        return struct.pack("<I", len(s.encode())) + s.encode()
    anchor_bytes = struct.pack("<I", len(anchors)) + b"".join(
        struct.pack("<q", i) + string(kind) + string(name) + struct.pack("<12d", *transform) + struct.pack("<2d", 1, 1)
        for i, kind, name, transform in anchors)
    body = b"WAYMARK\0WMAP" + struct.pack("<II", 1, 2)
    for tag, data in [(b"KEYF", struct.pack("<I", 0)), (b"ANCH", anchor_bytes)]:
        body += tag + struct.pack("<Q", len(data)) + data
    write(path, body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF))
    return path


def main():
    scratch = tempfile.mkdtemp(prefix="waymark-hostile-")
    p = lambda *names: os.path.join(scratch, *names)
    try:
        cases(scratch, p)
    finally:
        subprocess.run(["umount", p("ro")], stderr=subprocess.DEVNULL)
        shutil.rmtree(scratch, ignore_errors=True)
    print("| case | command | exit | first line of stderr | files changed | peak MB |")
    print("|---|---|---|---|---|---|")
    failed = False
    for group, name, code, first, changed, peak, expect in rows:
        bad = code >= 128 or code == 70 or bool(changed) or (expect is not None and code not in expect)
        failed |= bad
        first = first.replace("|", "\\|").replace(scratch, "…")
        name = name.replace("|", "\\|").replace(scratch, "…")
        print(f"| {group} | `{name}` | {code}{' **!**' if bad else ''} | {first[:160]} | {', '.join(changed) or 'none'} | {peak:.0f} |")
    sys.exit(1 if failed else 0)


def cases(scratch, p):
    reference = shutil.copy(os.path.join(DATASETS, "opencv_samples/box.png"), p("box.png"))
    colour = cv2.imread(os.path.join(TUM, "rgb", sorted(os.listdir(os.path.join(TUM, "rgb")))[0]))
    frames = p("frames")
    os.makedirs(frames)
    for k, name in enumerate(sorted(os.listdir(os.path.join(TUM, "rgb")))[:3]):
        shutil.copy(os.path.join(TUM, "rgb", name), os.path.join(frames, f"{k}.png"))
    seq = tum_copy(p("seq"))
    video = shutil.copy(os.path.join(DATASETS, "opencv_samples/box.mp4"), p("in.mp4"))

    # Crashes
    thin = [png(p(f"thin{w}x{h}.png"), np.full((h, w, 3), 128, np.uint8)) for w, h in [(1, 1), (2000, 1), (1, 2000)]]
    case("crash", "detect --references R 1x1.png 2000x1.png 1x2000.png", ["detect", "--references", reference] + thin, thin, {0})
    os.makedirs(p("thin"))
    png(p("thin", "a.png"), np.full((1, 1, 3), 128, np.uint8))
    case("crash", "process FOLDER-of-1x1 --references R", ["process", p("thin"), "--references", reference], [p("thin")], {0})
    thin_seq = p("thinseq")
    os.makedirs(thin_seq + "/rgb")
    os.makedirs(thin_seq + "/depth")
    for k in range(3):
        png(f"{thin_seq}/rgb/{k}.png", np.full((1, 1, 3), 128, np.uint8))
        png(f"{thin_seq}/depth/{k}.png", np.full((1, 1), 5000, np.uint16))
    case("crash", "process SEQ-of-1x1 --intrinsics …", ["process", thin_seq, "--intrinsics", "1,1,0.5,0.5"], [thin_seq], {0, 65})
    case("crash", "map build SEQ-of-1x1", ["map", "build", thin_seq, "--output", p("thin.waymap"), "--intrinsics", "1,1,0.5,0.5", "--quiet"],
         [thin_seq], {0, 65})
    world = p("seq.waymap")
    run(["map", "build", seq, "--output", world, "--quiet"])
    case("crash", "relocalize --map M 1x1.png", ["relocalize", "--map", world, thin[0], "--intrinsics", INTRINSICS], [world], {0})
    write(p("huge.ply"), "ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n4 5 6\n7 8 9\n")
    case("crash", "planes huge.ply (element vertex 4000000000, 3 rows)", ["planes", p("huge.ply")], [p("huge.ply")], {65})
    write(p("huge.pcd"), "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 100000\nHEIGHT 100000\nPOINTS 10000000000\nDATA binary\n" + "\0" * 36)
    case("crash", "planes huge.pcd (WIDTH 100000 HEIGHT 100000)", ["planes", p("huge.pcd")], [p("huge.pcd")], {65})
    rng = np.random.default_rng(1)
    cloud = np.column_stack([rng.uniform(-1, 1, 10000), rng.uniform(-1, 1, 10000), np.full(10000, 2.0)]).astype(np.float32)
    cloud[0, 0] = 1e9
    write(p("far.ply"), f"ply\nformat binary_little_endian 1.0\nelement vertex {len(cloud)}\nproperty float x\nproperty float y\nproperty float z\nend_header\n".encode() + cloud.tobytes())
    case("crash", "planes far.ply (x = 1e9 among 10,000 points at 2 m)", ["planes", p("far.ply")], [p("far.ply")], {0})
    write(p("uuu.pcd"), "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE U U U\nCOUNT 1 1 1\nWIDTH 10000\nHEIGHT 1\nPOINTS 10000\nDATA binary\n".encode()
          + rng.integers(0, 2**32, 30000, dtype=np.uint32).tobytes())
    case("crash", "planes uuu.pcd (TYPE U U U)", ["planes", p("uuu.pcd")], [p("uuu.pcd")], {0, 65})
    case("crash", "process SEQ --place lamp:5:nan,nan", ["process", seq, "--place", "lamp:5:nan,nan"], [seq], {64})
    case("crash", "demo --size 100000x100000", ["demo", "--size", "100000x100000", "--output", p("demo1")], [], {64})

    # Memory and hangs
    case("memory", "demo --fps 1e9", ["demo", "--fps", "1e9", "--output", p("demo2")], [], {64})
    big = np.zeros((20000, 20000), np.uint16)
    big[::97, ::89] = 1000
    png(p("big.png"), big)
    del big
    case("memory", "planes big.png (20000² 16-bit PNG)", ["planes", p("big.png"), "--intrinsics", "500,500,10000,10000"], [p("big.png")], {65})
    os.makedirs(p("bigfolder"))
    os.link(p("big.png"), p("bigfolder", "0.png"))
    shutil.copy(os.path.join(frames, "1.png"), p("bigfolder", "1.png"))
    case("memory", "process FOLDER (first image 20000²) --references R", ["process", p("bigfolder"), "--references", reference, "--quiet"], [p("bigfolder")], {65})
    case("memory", "detect --references R big.png", ["detect", "--references", reference, p("big.png")], [p("big.png")], {65})
    case("memory", "relocalize --map M big.png", ["relocalize", "--map", world, p("big.png"), "--intrinsics", INTRINSICS], [p("big.png")], {65})
    limit = np.zeros((10000, 10000), np.uint16)
    limit[:, :] = 2000 + (np.arange(10000, dtype=np.uint16) // 20)[:, None]
    png(p("100mp.png"), limit)
    del limit
    case("memory", "planes 100mp.png (10000², at the default 100 MP limit)", ["planes", p("100mp.png"), "--intrinsics", "5000,5000,5000,5000"],
         [p("100mp.png")], {0})
    os.mkfifo(p("fifo.png"))
    case("memory", "detect --references R fifo.png (a FIFO)", ["detect", "--references", reference, p("fifo.png")], [], {65, 66}, timeout=60)

    # Outputs that destroy inputs or each other
    case("outputs", "process in.mp4 --references R --output in.mp4", ["process", video, "--references", reference, "--output", video], [video], {64})
    case("outputs", "process SEQ --output a --trajectory a", ["process", seq, "--output", p("a"), "--trajectory", p("a")], [seq], {64})
    case("outputs", "process in.mp4 --output v.mp4 --annotate v.mp4", ["process", video, "--references", reference, "--output", p("v.mp4"), "--annotate", p("v.mp4")],
         [video], {64})
    os.makedirs(p("dir"))
    depth = shutil.copy(os.path.join(TUM, "depth", sorted(os.listdir(os.path.join(TUM, "depth")))[0]), p("dir", "x.png"))
    case("outputs", "planes dir/x.png --labels dir", ["planes", depth, "--labels", p("dir"), "--intrinsics", INTRINSICS], [p("dir")], {64})
    for folder in ["a", "b"]:
        os.makedirs(p(folder))
        shutil.copy(depth, p(folder, "d.png"))
    case("outputs", "planes a/d.png b/d.png --labels out", ["planes", p("a", "d.png"), p("b", "d.png"), "--labels", p("out"), "--intrinsics", INTRINSICS],
         [p("a"), p("b")], {64})

    # Silently wrong answers
    for width in ["1e308", "1e-300"]:
        manifest = write(p(f"width{width}.json"), f'{{"images": [{{"name": "box", "path": "{reference}", "physicalWidth": {width}}}]}}')
        case("wrong", f"detect --references (physicalWidth {width}) IMG", ["detect", "--references", manifest, os.path.join(frames, "0.png")], [manifest], {65})
    for where in ["99999,99999", "-10,-10", "640,480"]:
        case("wrong", f"process SEQ --place lamp:5:{where}", ["process", seq, "--place", f"lamp:5:{where}"], [seq], {64})
    depth_rows = [r for r in open(os.path.join(TUM, "depth.txt")).read().splitlines() if not r.startswith("#")]
    n = len(depth_rows)
    for label, times in [("NaN timestamps", ["nan"] * n), ("descending timestamps", [1000 - k for k in range(n)]),
                         ("1e308 timestamps", ["1e308"] * n)]:
        s = tum_copy(p(label.replace(" ", "-")), depth_rows=lambda r, t=times: retime(r, t), rgb_rows=lambda r, t=times: retime(r, t), groundtruth=False)
        case("wrong", f"process SEQ ({label})", ["process", s], [s], {0, 65})
    s = tum_copy(p("shuffled"), depth_rows=lambda r: list(reversed(r)), rgb_rows=lambda r: r[1::2] + r[0::2])
    case("wrong", "process SEQ (shuffled rgb.txt and depth.txt)", ["process", s, "--output", p("shuffled.jsonl")], [s], {0})
    s = tum_copy(p("one-depth"), depth_rows=lambda r: r[:1])
    case("wrong", f"process SEQ (1 depth line, {n} colour lines)", ["process", s], [s], {0})
    s = tum_copy(p("half-depth"), depth_rows=lambda r: r[::2])
    case("wrong", f"process SEQ ({(n + 1) // 2} depth lines, {n} colour lines)", ["process", s], [s], {0})
    s = tum_copy(p("one-time"), depth_rows=lambda r: retime(r, [r[0].split()[0]] * len(r)), rgb_rows=lambda r: retime(r, [r[0].split()[0]] * len(r)))
    case("wrong", "process SEQ (all frames share one timestamp)", ["process", s], [s], {0, 65})
    os.makedirs(p("copies"))
    for k in range(30):
        shutil.copy(reference, p("copies", f"copy{k:02}.png"))
    case("wrong", "references check FOLDER (30 copies of one image)", ["references", "check", p("copies")], [p("copies")], {0, 65})
    zero = png(p("zero-depth.png"), np.zeros((480, 640), np.uint16))
    nan = write(p("nan-depth.pfm"), b"Pf\n640 480\n-1.0\n" + np.full((480, 640), np.nan, "<f4").tobytes())
    image = os.path.join(TUM, "rgb", sorted(os.listdir(os.path.join(TUM, "rgb")))[5])
    case("wrong", "relocalize --map M IMG --depth all-zero.png", ["relocalize", "--map", world, image, "--depth", zero, "--intrinsics", INTRINSICS], [world, zero], {65})
    case("wrong", "relocalize --map M IMG --depth all-nan.pfm", ["relocalize", "--map", world, image, "--depth", nan, "--intrinsics", INTRINSICS], [world, nan], {65})
    identity = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]
    nan_map = sectioned_map(p("nan.waymap"), [(1, "named", "lamp", [float("nan")] * 12)])
    duplicate_map = sectioned_map(p("duplicate.waymap"), [(1, "named", "lamp", identity), (1, "named", "chair", identity)])
    for label, path in [("NaN anchor transform", nan_map), ("duplicate anchor ids", duplicate_map)]:
        case("wrong", f"process SEQ --load-map M ({label}, checksum valid)", ["process", seq, "--load-map", path], [seq, path], {65})
    case("wrong", "process in.mp4 --references R --save-map m.waymap", ["process", video, "--references", reference, "--save-map", p("m.waymap")], [video], {64})
    case("wrong", "process in.mp4 --references R --interrupt 5:3", ["process", video, "--references", reference, "--interrupt", "5:3"], [video], {64})
    case("wrong", "process SEQ --group g (no --references)", ["process", seq, "--group", "g"], [seq], {64})

    # Found by fuzzing (Tests/Fuzz/Regressions): each input its reader once crashed or hung on.
    regressions = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fuzz", "Regressions")
    dicom = shutil.copy(os.path.join(regressions, "image", "abort-gdcm-dicom-decoder"), p("dicom-abort.png"))
    case("fuzzing", "detect --references R dicom-abort.png (OpenCV's GDCM aborted)", ["detect", "--references", reference, dicom], [dicom], {65})
    for name in sorted(os.listdir(os.path.join(regressions, "ply"))):
        ply = shutil.copy(os.path.join(regressions, "ply", name), p(name + ".ply"))
        case("fuzzing", f"planes {name}.ply", ["planes", ply], [ply], {0, 65})

    # Unclear messages, late failures
    header = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 0, 0, 0, 0))
    huge_png = write(p("60000.png"), header + png_chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + png_chunk(b"IEND", b""))
    case("messages", "detect --references R 60000².png (header only)", ["detect", "--references", reference, huge_png], [huge_png], {65})
    for label, size in [("100000²", "100000 100000"), ("0×0", "0 0"), ("negative", "-640 480")]:
        pfm = write(p(f"pfm-{label}.pfm"), f"Pf\n{size}\n-1.0\n".encode() + b"\0" * 64)
        case("messages", f"planes {label}.pfm", ["planes", pfm, "--intrinsics", INTRINSICS], [pfm], {65})
    corrupt = bytearray(open(os.path.join(frames, "0.png"), "rb").read())
    for k in range(200, 400, 7):
        corrupt[k] ^= 0x5A
    corrupt_png = write(p("corrupt.png"), bytes(corrupt))
    case("messages", "detect --references R corrupt.png", ["detect", "--references", reference, corrupt_png], [corrupt_png], {65})
    case("messages", "process in.mp4 --references R --annotate out.txt", ["process", video, "--references", reference, "--annotate", p("out.txt")], [video], {64})
    icc = open(reference, "rb").read()
    iccp = icc[:33] + png_chunk(b"iCCP", b"bad profile\0\0" + zlib.compress(b"not an ICC profile" * 8)) + icc[33:]
    os.makedirs(p("iccp"))
    write(p("iccp", "poster.png"), iccp)
    shutil.copy(os.path.join(DATASETS, "opencv_samples/graf1.png"), p("iccp", "graf.png"))
    case("messages", "references check FOLDER (a PNG with a bad iCCP profile)", ["references", "check", p("iccp")], [p("iccp")], {0})
    os.makedirs(p("ro"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", p("ro")], check=True)
    for option in ["--output", "--report", "--save-map", "--trajectory"]:
        for label, target in [("a folder", p("dir")), ("a read-only folder", p("ro", "x")), ("a missing folder", p("missing", "x"))]:
            case("messages", f"process SEQ {option} ({label})", ["process", seq, option, target, "--quiet"], [seq], {73})
    for label, target in [("a folder", p("dir")), ("a read-only folder", p("ro", "x")), ("a missing folder", p("missing", "x"))]:
        case("messages", f"map build SEQ --output ({label})", ["map", "build", seq, "--output", target, "--quiet"], [seq], {73})
    os.makedirs(p("empty"))
    case("messages", "detect --references EMPTY-FOLDER IMG", ["detect", "--references", p("empty"), os.path.join(frames, "0.png")], [], {65, 66})
    case("messages", "process EMPTY-FOLDER --references R", ["process", p("empty"), "--references", reference], [], {65, 66})
    os.symlink(p("loop"), p("loop"))
    case("messages", "detect --references R LOOP (a symlink loop)", ["detect", "--references", reference, p("loop")], [], {65, 66})
    s = tum_copy(p("nan-map"), depth_rows=lambda r: retime(r, ["nan"] * len(r)), rgb_rows=lambda r: retime(r, ["nan"] * len(r)))
    case("messages", "map build SEQ (NaN timestamps)", ["map", "build", s, "--output", p("nan-times.waymap"), "--quiet"], [s], {65})
    with open("/dev/full", "wb") as full:
        status = subprocess.run([WAYMARK, "--help"], stdout=full, stderr=subprocess.PIPE)
    rows.append(("messages", "waymark --help > /dev/full", status.returncode, status.stderr.decode().splitlines()[0] if status.stderr else "",
                 [], 0, {74}))
    shared = p("shared.waymap")
    runs = [subprocess.Popen([WAYMARK, "process", seq, "--save-map", shared, "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(2)]
    results = [(r.wait(), r.stderr.read().decode()) for r in runs]
    rows.append(("messages", "two runs at once: process SEQ --save-map shared.waymap", max(code for code, _ in results),
                 next((e.splitlines()[0] for _, e in results if e.strip()), ""), [], 0, {0}))


if __name__ == "__main__":
    main()
