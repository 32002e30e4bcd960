#!/usr/bin/python3
"""Composite poster scenes for the `posters` part of the detection benchmark.

Each scene is a 640x480 frame of real video (or a real photograph of a room) with one or two
reference images pasted in as posters seen through a pinhole camera, or none (a distractor
scene, which shows pictures that are not references). Every random choice comes from one
seeded generator, so the same seed and inputs give the same scenes, byte for byte, on one
machine. The two splits use different reference images, backgrounds and distractor
pictures: `development` is for tuning, `validation` is only ever measured.

Distributions (per target): coverage of the frame uniform in [3 %, 60 %] on a log scale;
view angle (between the poster's normal and the ray to its centre) uniform in [0, 75] deg
with the tilt's axis at a uniform angle; in-plane rotation uniform in [0, 360) deg; poster
light gain uniform in [0.55, 1.35] with an offset in [-25, 25] grey levels, a colour cast of
up to 8 % per channel and a linear shading of up to 25 % across the poster. Per scene:
Gaussian blur with sigma uniform in [0, 1.5] px (none in a third of the scenes), sensor
noise sigma uniform in [0, 6] grey levels, JPEG quality uniform in [40, 95].

Ground truth (`truth.json`, schema `waymark.posters/1`): per target its reference and the
homography from reference pixels to frame pixels, both with (0,0) at the top-left corner of
the top-left pixel (Waymark's convention; OpenCV's integer-centred one differs by half a
pixel), and the coverage, view angle and rotation it was drawn with.

Usage: generate-posters.py DATASETS OUT [--seed N] [--scenes N] [--distractors N]
Writes OUT/development and OUT/validation, each with references/, manifest.json (a Waymark
reference library), scenes/*.jpg and truth.json.
"""
import argparse
import json
import math
import os
import sys

import cv2
import numpy as np

WIDTH, HEIGHT = 640, 480
FOCAL = 525.0
OPENCV_DATA = "/usr/share/doc/opencv-doc/examples/data"

# Per split: (name, kind, path relative to DATASETS, or "opencv:" for opencv-doc's data).
SPLITS = {
    "development": {
        "references": [
            ("graf", "painting", "oxford_affine/graf/img1.png"),
            ("starry-night", "painting", "opencv:starry_night.jpg"),
            ("adam", "low-contrast painting", "evd_extreme_view/1/adam.png"),
            ("boat", "photograph", "oxford_affine/boat/img1.png"),
            ("home", "low-contrast photograph (plain sky)", "opencv:home.jpg"),
            ("face", "graffiti", "evd_extreme_view/1/face.png"),
            ("shop", "poster with text", "evd_extreme_view/1/shop.png"),
            ("index", "sign with text", "evd_extreme_view/1/index.png"),
            ("wall", "repetitive", "oxford_affine/wall/img1.png"),
            ("building", "repetitive", "opencv:building.jpg"),
        ],
        "backgrounds": ["frames:tum_fr3_office_frames/rgb", "video:opencv_samples/box.mp4", "video:opencv_samples/cup.mp4"],
        "distractors": [f"evd_extreme_view/1/{n}.png" for n in ("cat", "dum", "fox", "girl", "pkk", "there", "vin", "grand", "cafe")],
    },
    "validation": {
        "references": [
            ("happy-fish", "drawing (large plain areas)", "opencv:HappyFish.jpg"),
            ("venus", "posters with text", "middlebury_stereo/venus/refImage.png"),
            ("cones", "photograph", "middlebury_stereo/conesQuarterSize/refImage.png"),
            ("messi", "photograph", "opencv:messi5.jpg"),
            ("butterfly", "photograph", "opencv:butterfly.jpg"),
            ("aerial", "low-contrast photograph (haze)", "opencv:aero1.jpg"),
            ("fountain", "low-contrast facade", "strecha_mvs_gt_cameras/fountain-P11/images_half/0000.jpg"),
            ("text", "page of text", "opencv:imageTextN.png"),
            ("sudoku", "repetitive with text", "opencv:sudoku.png"),
            ("circuit", "repetitive", "opencv:board.jpg"),
        ],
        "backgrounds": [
            "frames:tum_fr1_xyz_excerpt/rgb", "frames:pcl_pointclouds/mOSD", "video:opencv_samples/Megamind.avi",
            "video:opencv_samples/tree.avi", "video:opencv:vtest.avi",
        ],
        "distractors": [f"opencv:{n}" for n in (
            "smarties.png", "stuff.jpg", "blox.jpg", "basketball1.png", "rubberwhale1.png", "orange.jpg",
            "chicky_512.png", "Blender_Suzanne1.jpg", "squirrel_cls.jpg", "left01.jpg")],
    },
}


def resolve(datasets, path):
    if path.startswith("opencv:"):
        return os.path.join(OPENCV_DATA, path[len("opencv:"):])
    return os.path.join(datasets, path)


def read(path):
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise SystemExit(f"generate-posters: cannot read {path}")
    return image


def background_frames(datasets, sources):
    """Every source's frames, resized to fill 640x480 (centre crop); videos give every 10th frame."""
    frames = []
    for source in sources:
        kind, path = source.split(":", 1)
        if kind == "frames":
            folder = resolve(datasets, path)
            names = sorted(n for n in os.listdir(folder) if n.endswith((".png", ".jpg")) and "depth" not in n and "label" not in n and "mask" not in n)
            images = [read(os.path.join(folder, n)) for n in names]
        else:
            capture = cv2.VideoCapture(resolve(datasets, path))
            if not capture.isOpened():
                raise SystemExit(f"generate-posters: cannot open {path}")
            images, index = [], 0
            while True:
                ok, image = capture.read()
                if not ok:
                    break
                if index % 10 == 0:
                    images.append(image)
                index += 1
        frames.extend(fill(image) for image in images)
    return frames


def fill(image):
    h, w = image.shape[:2]
    scale = max(WIDTH / w, HEIGHT / h)
    resized = cv2.resize(image, (max(WIDTH, round(w * scale)), max(HEIGHT, round(h * scale))), interpolation=cv2.INTER_AREA)
    y = (resized.shape[0] - HEIGHT) // 2
    x = (resized.shape[1] - WIDTH) // 2
    return resized[y:y + HEIGHT, x:x + WIDTH].copy()


def rotation(axis, angle):
    return cv2.Rodrigues(np.asarray(axis, np.float64) * angle)[0]


def poster_homography(width, height, distance, tilt, tilt_axis, spin):
    """Reference pixels (corner origin) -> frame pixels of a poster one unit wide at its longer
    side, turned by `spin` in its plane, tilted by `tilt` about an in-plane axis at `tilt_axis`,
    with its centre on the optical axis at `distance`."""
    unit = 1.0 / max(width, height)
    to_plane = np.array([[unit, 0, -width * unit / 2], [0, unit, -height * unit / 2], [0, 0, 1]])
    r = rotation((math.cos(tilt_axis), math.sin(tilt_axis), 0), tilt) @ rotation((0, 0, 1), spin)
    k = np.array([[FOCAL, 0, WIDTH / 2], [0, FOCAL, HEIGHT / 2], [0, 0, 1]])
    h = k @ np.column_stack([r[:, 0], r[:, 1], [0, 0, distance]]) @ to_plane
    return h / h[2, 2]


def project(h, points):
    p = np.column_stack([points, np.ones(len(points))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def corners(width, height):
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)


def quad_area(q):
    x, y = q[:, 0], q[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def place(rng, width, height, occupied):
    """A homography that shows a width x height poster with the drawn coverage and angles,
    entirely inside the frame and clear of `occupied` (a mask), or None after 50 draws."""
    for _ in range(50):
        coverage = math.exp(rng.uniform(math.log(0.03), math.log(0.60)))
        tilt = math.radians(rng.uniform(0, 75))
        tilt_axis = rng.uniform(0, math.pi)
        spin = rng.uniform(0, 2 * math.pi)
        distance = 2.0
        for _ in range(6):  # the area goes roughly as 1/distance^2
            h = poster_homography(width, height, distance, tilt, tilt_axis, spin)
            area = quad_area(project(h, corners(width, height))) / (WIDTH * HEIGHT)
            distance *= math.sqrt(area / coverage)
        h = poster_homography(width, height, distance, tilt, tilt_axis, spin)
        quad = project(h, corners(width, height))
        low, high = quad.min(axis=0), quad.max(axis=0)
        span = high - low
        if span[0] > WIDTH - 4 or span[1] > HEIGHT - 4:
            continue
        shift = np.array([rng.uniform(2 - low[0], WIDTH - 2 - high[0]), rng.uniform(2 - low[1], HEIGHT - 2 - high[1])])
        h = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]]) @ h
        quad = quad + shift
        mask = np.zeros((HEIGHT, WIDTH), np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        if (mask & occupied).any():
            continue
        area = quad_area(quad) / (WIDTH * HEIGHT)
        return h / h[2, 2], mask, {"coverage": area, "viewAngle": math.degrees(tilt), "rotation": math.degrees(spin)}
    return None


def integer_centred(h):
    """The same mapping for OpenCV, whose pixel centres sit at integers."""
    to_corner = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    back = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])
    return back @ h @ to_corner


def lit(rng, picture):
    """The picture under its own light: gain, offset, colour cast and a linear shading."""
    h, w = picture.shape[:2]
    gain = rng.uniform(0.55, 1.35)
    offset = rng.uniform(-25, 25)
    cast = rng.uniform(0.92, 1.08, 3)
    direction = rng.uniform(0, 2 * math.pi)
    shading = rng.uniform(0, 0.25)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = ((xs / w - 0.5) * math.cos(direction) + (ys / h - 0.5) * math.sin(direction)) * shading
    out = picture.astype(np.float32) * (gain * (1 + ramp))[..., None] * cast[None, None, :] + offset
    return np.clip(out, 0, 255)


def paste(rng, frame, picture, h):
    """Warps the lit picture into the frame with anti-aliased edges; minified pictures are
    shrunk first (area averaging) so the warp does not alias."""
    ph, pw = picture.shape[:2]
    scale = math.sqrt(quad_area(project(h, corners(pw, ph))) / (pw * ph))
    source, mapping = picture, h
    if scale < 0.6:
        factor = min(1.0, 1.5 * scale)
        size = (max(2, round(pw * factor)), max(2, round(ph * factor)))
        source = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
        mapping = h @ np.diag([pw / size[0], ph / size[1], 1.0])
    source = lit(rng, source)
    warp = integer_centred(mapping)
    colour = cv2.warpPerspective(source, warp, (WIDTH, HEIGHT), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(np.ones(source.shape[:2], np.float32), warp, (WIDTH, HEIGHT), flags=cv2.INTER_LINEAR)
    return frame * (1 - alpha[..., None]) + colour * alpha[..., None]


def degrade(rng, frame):
    settings = {}
    sigma = 0.0 if rng.uniform() < 1 / 3 else rng.uniform(0, 1.5)
    if sigma > 0.05:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    noise = rng.uniform(0, 6)
    frame = frame + rng.normal(0, noise, frame.shape)
    quality = int(rng.integers(40, 96))
    settings.update(blur=round(sigma, 3), noise=round(noise, 3), jpeg=quality)
    return np.clip(np.round(frame), 0, 255).astype(np.uint8), settings


def generate_split(datasets, out, split, seed, scene_count, distractor_count):
    spec = SPLITS[split]
    rng = np.random.default_rng([seed, list(SPLITS).index(split)])
    folder = os.path.join(out, split)
    os.makedirs(os.path.join(folder, "references"), exist_ok=True)
    os.makedirs(os.path.join(folder, "scenes"), exist_ok=True)
    references = []
    for name, kind, path in spec["references"]:
        image = read(resolve(datasets, path))
        cv2.imwrite(os.path.join(folder, "references", f"{name}.png"), image)
        references.append({"name": name, "kind": kind, "source": path, "image": image})
    distractors = [read(resolve(datasets, p)) for p in spec["distractors"]]
    backgrounds = background_frames(datasets, spec["backgrounds"])
    scenes = []
    for index in range(scene_count + distractor_count):
        frame = backgrounds[int(rng.integers(len(backgrounds)))].astype(np.float32)
        shows_references = index < scene_count
        wanted = (1 if rng.uniform() < 0.6 else 2) if shows_references else int(rng.integers(1, 3))
        pool = references if shows_references else distractors
        chosen = rng.choice(len(pool), size=wanted, replace=False)
        occupied = np.zeros((HEIGHT, WIDTH), np.uint8)
        targets = []
        for choice in chosen:
            picture = pool[choice]["image"] if shows_references else pool[choice]
            ph, pw = picture.shape[:2]
            placed = place(rng, pw, ph, occupied)
            if placed is None:
                continue
            h, mask, drawn = placed
            occupied |= mask
            frame = paste(rng, frame, picture, h)
            if shows_references:
                targets.append({"reference": int(choice), "homography": h.flatten().tolist(), **drawn})
        image, settings = degrade(rng, frame)
        file = f"scenes/{index:04d}.jpg"
        cv2.imwrite(os.path.join(folder, file), image, [cv2.IMWRITE_JPEG_QUALITY, settings["jpeg"]])
        scenes.append({"file": file, "targets": targets, "distractors": 0 if shows_references else len(chosen), **settings})
    manifest = {"images": [{"name": r["name"], "path": f"references/{r['name']}.png"} for r in references]}
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    truth = {
        "schema": "waymark.posters/1", "split": split, "seed": seed, "width": WIDTH, "height": HEIGHT,
        "references": [{"name": r["name"], "kind": r["kind"], "source": r["source"], "path": f"references/{r['name']}.png",
                        "width": r["image"].shape[1], "height": r["image"].shape[0]} for r in references],
        "scenes": scenes,
    }
    with open(os.path.join(folder, "truth.json"), "w") as f:
        json.dump(truth, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--scenes", type=int, default=160, help="scenes that show references, per split")
    parser.add_argument("--distractors", type=int, default=40, help="scenes that show none, per split")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    for split in SPLITS:
        generate_split(args.datasets, args.out, split, args.seed, args.scenes, args.distractors)


if __name__ == "__main__":
    sys.exit(main())
