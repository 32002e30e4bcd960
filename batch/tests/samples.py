"""What the batch tests and the batch benchmark share: small inputs made by `waymark-bench`
(synthetic walk-throughs as RGB-D sequences, colour-only sequences and image folders, and the
demo's sample video), and Ray clusters on loopback."""

import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("WAYMARK_BUILD", REPOSITORY / ".build" / "debug"))
WAYMARK = BUILD / "waymark"
BENCH = BUILD / "waymark-bench"

@dataclass(frozen=True)
class InputSet:
    archive: Path  # the folder holding the 20 inputs
    references: Path  # the sample's manifest
    inputs: list[Path]

    def plain_command(self, path: Path, output: Path, waymark: Path = WAYMARK) -> list[str]:
        return [str(waymark), "process", str(path), "--references", str(self.references), "--output", str(output), "--quiet"]


def make_inputs(root: Path, bench: Path = BENCH, size: str = "160x120", fps: str = "5") -> InputSet:
    """20 inputs in root/archive: 8 RGB-D walk-throughs (three scripts, six seeds), 3 of them as
    colour alone, 3 as image folders, and 6 copies of the sample video."""

    def bench_run(*arguments: str) -> None:
        subprocess.run([str(bench), *arguments], check=True, stdout=subprocess.DEVNULL)

    sample = root / "sample"
    bench_run("sample-video", "--output", str(sample))
    archive = root / "archive"
    small = ["--size", size, "--fps", fps]
    sequences = [("walk", "standard", seed) for seed in range(1, 7)] + [("coaching", "coaching", 1), ("table", "table-top", 1)]
    for name, script, seed in sequences:
        bench_run("walkthrough", "--output", str(archive / f"{name}-{seed}"), "--script", script, "--seed", str(seed), *small)
    for seed in range(1, 4):  # TUM colour alone: tracked from the images
        colour = archive / f"colour-{seed}"
        colour.mkdir()
        for part in ("rgb", "rgb.txt", "intrinsics.txt"):
            source = archive / f"walk-{seed}" / part
            (shutil.copytree if source.is_dir() else shutil.copy)(source, colour / part)
    for seed in range(4, 7):  # a folder of images, frames in name order
        shutil.copytree(archive / f"walk-{seed}" / "rgb", archive / f"frames-{seed}")
    videos = archive / "videos"
    videos.mkdir()
    for number in range(1, 7):
        shutil.copy(sample / "sample.mp4", videos / f"clip-{number}.mp4")
    inputs = sorted([path for path in archive.iterdir() if path.is_dir() and path != videos] + list(videos.iterdir()))
    assert len(inputs) == 20
    return InputSet(archive=archive, references=sample / "references" / "references.json", inputs=inputs)


@contextmanager
def loopback_cluster(workers: int):
    """A head without CPUs and `workers` one-CPU nodes; a lost node is declared dead in ~3 s."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "_system_config": {"health_check_period_ms": 1000, "health_check_failure_threshold": 3}})
    try:
        nodes = [cluster.add_node(num_cpus=1) for _ in range(workers)]
        cluster.wait_for_nodes()
        yield cluster, nodes
    finally:
        cluster.shutdown()


def process_family(root: int) -> set[int]:
    """`root` and every process it started, and theirs, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
    family, grew = {root}, True
    while grew:
        grown = family | {pid for pid, parent in parents.items() if parent in family}
        grew, family = grown != family, grown
    return family


def batch_command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "waymark_batch", *arguments]
