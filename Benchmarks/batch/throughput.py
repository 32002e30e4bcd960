"""Batch throughput (issue 17): the same 20 inputs run by `waymark-batch run` on a loopback Ray
cluster of a head without CPUs and two one-CPU workers, by `waymark-batch run` starting its own
Ray, and one after another by a shell loop, interleaved over rounds; then the cluster's start-up
time and idle memory. `make bench-batch` runs it inside a loopback-only network namespace."""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "batch" / "tests"))
from samples import batch_command, loopback_cluster, make_inputs, process_family  # noqa: E402

WORKERS = 2


def descendants_rss_megabytes() -> float:
    """Resident memory of every process this one started, and theirs (the Ray cluster)."""
    total_kb = 0
    for pid in process_family(os.getpid()) - {os.getpid()}:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            total_kb += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total_kb / 1024


def timed(command: list[str]) -> float:
    started = time.monotonic()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def task_seconds(out: Path) -> tuple[float, int]:
    records = [json.loads(path.read_text()) for path in (out / "status").glob("*.json")]
    return sum(record["seconds"] for record in records), sum(record["status"] == "done" for record in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    build = REPOSITORY / ".build" / ("release" if (REPOSITORY / ".build/release/waymark").exists() else "debug")
    parser.add_argument("--build", type=Path, default=build, help="folder with waymark and waymark-bench")
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--fps", default="10")
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    waymark = arguments.build / "waymark"
    work = Path(tempfile.mkdtemp(prefix="waymark-batch-bench-"))
    inputs = make_inputs(work, bench=arguments.build / "waymark-bench", size=arguments.size, fps=arguments.fps)
    loop = " ; ".join(shlex.join(inputs.plain_command(path, work / f"loop-{number}.jsonl", waymark))
                      for number, path in enumerate(inputs.inputs))
    started = time.monotonic()
    with loopback_cluster(workers=WORKERS) as (cluster, _):
        startup = time.monotonic() - started
        time.sleep(5)
        idle_memory = descendants_rss_megabytes()
        runs = {"loop": [], "cluster": [], "local": []}
        busy = []
        for round_number in range(arguments.rounds):
            runs["loop"].append(timed(["sh", "-c", loop]))
            out = work / f"cluster-{round_number}"
            runs["cluster"].append(timed(batch_command(
                "run", str(inputs.archive), "--references", str(inputs.references), "--out", str(out),
                "--address", cluster.address, "--waymark", str(waymark), "--quiet")))
            seconds, done = task_seconds(out)
            assert done == 20, f"{done} of 20 done in {out}"
            busy.append(seconds)
    for round_number in range(arguments.rounds):  # the cluster above is down: two CPUs for its own Ray
        runs["local"].append(timed(batch_command(
            "run", str(inputs.archive), "--references", str(inputs.references), "--out", str(work / f"local-{round_number}"),
            "--waymark", str(waymark), "--quiet")))
    loop_time = statistics.median(runs["loop"])
    print(f"inputs: 20 ({arguments.size} at {arguments.fps} frames/s), binaries {arguments.build}, {arguments.rounds} rounds")
    print(f"cluster start-up (head + {WORKERS} workers, until all registered): {startup:.1f} s; "
          f"idle resident memory after 5 s: {idle_memory:.0f} MB")
    print("| run | seconds per round | median | / loop |")
    print("|---|---|---|---|")
    for name, label in (("loop", "shell loop, one after another"), ("cluster", f"waymark-batch, loopback cluster of {WORKERS} workers"),
                        ("local", "waymark-batch, its own local Ray (2 CPUs)")):
        median = statistics.median(runs[name])
        print(f"| {label} | {', '.join(f'{t:.1f}' for t in runs[name])} | {median:.1f} | {median / loop_time:.2f} |")
    cluster_time = statistics.median(runs["cluster"])
    print(f"task-seconds (waymark process inside the tasks) per cluster round: {', '.join(f'{s:.1f}' for s in busy)}; "
          f"overhead per task, ({WORKERS} x wall - task-seconds) / 20: "
          f"{(WORKERS * cluster_time - statistics.median(busy)) / 20:.2f} s; "
          f"the loop's mean per input: {loop_time / 20:.2f} s")


if __name__ == "__main__":
    main()
