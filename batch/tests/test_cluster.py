"""Batches on real Ray clusters over loopback: every result as plain `waymark process` writes
it, a bad input failing alone, a node lost mid-batch, a driver killed and restarted."""

import json
import os
import re
import signal
import stat
import subprocess
import time
from pathlib import Path

from conftest import binaries_built, loopback_only
from samples import WAYMARK, batch_command, loopback_cluster, process_family

pytestmark = [binaries_built, loopback_only]
BATCH_SECONDS = 600  # a generous bound on one batch; none here takes a tenth of it


def run_arguments(input_set, out: Path, address: str, *extra: str) -> list[str]:
    return batch_command("run", str(input_set.archive), "--references", str(input_set.references), "--out", str(out),
                         "--address", address, "--waymark", str(WAYMARK), *extra)


def statuses(out: Path) -> dict[str, dict]:
    """Input path -> its status record."""
    return {record["input"]: record for record in map(json.loads, map(Path.read_text, (out / "status").glob("*.json")))}


def assert_results_equal_plain(out: Path, plain_results: dict[str, bytes], inputs) -> None:
    records = statuses(out)
    assert sorted(records) == sorted(plain_results)
    for path in inputs:
        record = records[str(path)]
        assert record["status"] == "done", record
        assert (out / record["results"]).read_bytes() == plain_results[str(path)], f"records differ for {path}"
    assert sorted(p.name for p in (out / "results").iterdir()) == sorted(f"{r['id']}.jsonl" for r in records.values())
    assert not list((out / "partial").iterdir()), "a killed attempt's files were left behind"


def wait_for_statuses(out: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + BATCH_SECONDS
    while len(list((out / "status").glob("*.json"))) < count:
        assert process.poll() is None, "the batch ended before it got that far"
        assert time.monotonic() < deadline
        time.sleep(0.1)


def crash(cluster, node) -> None:
    """A machine that dies: its Ray worker processes and what they run killed first (removing a
    node kills its raylet, and a worker in the middle of a task can still finish it), then the
    node removed without grace."""
    raylet = node.all_processes["raylet"][0].process.pid
    for pid in process_family(raylet) - {raylet}:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    cluster.remove_node(node, allow_graceful=False)


def wait_for_attempts_in_flight(out: Path, count: int, process: subprocess.Popen) -> None:
    """Until `count` attempts have started and not finished (markers without a status)."""
    deadline = time.monotonic() + BATCH_SECONDS
    while len(list((out / "attempts").iterdir())) - len(list((out / "status").glob("*.json"))) < count:
        assert process.poll() is None, "the batch ended before it got that far"
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_every_result_equals_plain_waymark_process(input_set, plain_results, tmp_path):
    out = tmp_path / "batch"
    with loopback_cluster(workers=3) as (cluster, _):
        finished = subprocess.run(run_arguments(input_set, out, cluster.address), capture_output=True, text=True,
                                  timeout=BATCH_SECONDS)
    assert finished.returncode == 0, finished.stderr
    assert_results_equal_plain(out, plain_results, input_set.inputs)
    records = statuses(out).values()
    assert len({record["node"] for record in records}) == 3  # the head has no CPUs: all ran on the workers
    assert all(record["attempt"] == 1 and record["exitCode"] == 0 for record in records)
    summary = [json.loads(line) for line in (out / "summary.jsonl").read_text().splitlines()]
    assert sorted(row["input"] for row in summary) == sorted(plain_results)
    import pyarrow.parquet as pq
    assert pq.read_table(out / "summary.parquet").num_rows == 20
    assert (out / "failed.txt").read_text() == ""


def test_a_bad_input_fails_alone_and_one_that_kills_its_worker_ends_as_error(input_set, plain_results, tmp_path):
    corrupt = next(path for path in input_set.inputs if path.suffix == ".mp4")  # to be cut to its first 100 kB
    poison = next(path for path in input_set.inputs if path.name.startswith("walk"))  # kills its Ray worker
    cut = tmp_path / corrupt.name
    cut.write_bytes(corrupt.read_bytes()[:100_000])
    listed = tmp_path / "inputs.txt"  # a list file: the inputs, the corrupt video in its place
    listed.write_text("# the archive, one video cut short\n" + "".join(
        f"{cut if path == corrupt else path}\n" for path in input_set.inputs))
    wrapper = tmp_path / "waymark"
    wrapper.write_text(f'#!/bin/sh\ncase "$2" in *{poison.name}*) kill -9 $PPID; sleep 60;; esac\nexec {WAYMARK} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "batch"
    with loopback_cluster(workers=2) as (cluster, _):
        finished = subprocess.run(
            batch_command("run", str(listed), "--references", str(input_set.references), "--out", str(out),
                          "--address", cluster.address, "--waymark", str(wrapper), "--retries", "1"),
            capture_output=True, text=True, timeout=BATCH_SECONDS)
    assert finished.returncode == 2, finished.stderr
    records = {Path(path).name: record for path, record in statuses(out).items()}
    bad = records[corrupt.name]
    assert (bad["status"], bad["exitCode"], bad["attempt"]) == ("failed", 65, 1)
    assert "not a readable video" in bad["stderrTail"]
    killer = records[poison.name]
    assert (killer["status"], killer["attempt"]) == ("error", 2), killer
    good = [path for path in input_set.inputs if path not in (corrupt, poison)]
    for path in good:
        record = records[path.name]
        assert record["status"] == "done"
        assert (out / record["results"]).read_bytes() == plain_results[str(path)]
    failed = [line for line in (out / "failed.txt").read_text().splitlines() if not line.startswith("#")]
    assert sorted(failed) == sorted([str(cut), str(poison)])
    summary = json.loads(subprocess.run(batch_command("status", str(out), "--json"), capture_output=True, text=True,
                                        check=True).stdout)
    assert (summary["total"], summary["counts"], summary["notStarted"]) == (20, {"done": 18, "error": 1, "failed": 1}, 0)


def test_a_node_removed_without_grace_loses_nothing_and_duplicates_nothing(input_set, plain_results, tmp_path):
    out = tmp_path / "batch"
    # Each attempt takes a second longer, so that a node is seldom between two of them.
    slower = tmp_path / "waymark"
    slower.write_text(f'#!/bin/sh\nsleep 1\nexec {WAYMARK} "$@"\n')
    slower.chmod(slower.stat().st_mode | stat.S_IXUSR)
    with loopback_cluster(workers=3) as (cluster, nodes):
        process = subprocess.Popen(run_arguments(input_set, out, cluster.address, "--waymark", str(slower)),
                                   stderr=subprocess.PIPE, text=True)
        wait_for_statuses(out, 4, process)
        wait_for_attempts_in_flight(out, 3, process)  # one on every node
        crash(cluster, nodes[0])
        _, stderr = process.communicate(timeout=BATCH_SECONDS)
    assert process.returncode == 0, stderr
    assert_results_equal_plain(out, plain_results, input_set.inputs)
    started = len(list((out / "attempts").iterdir()))
    assert started > 20, "no attempt was lost with the node"
    assert sum(record["attempt"] > 1 for record in statuses(out).values()) >= 1


def test_a_killed_driver_resumes_with_the_remainder_and_a_finished_batch_runs_nothing(input_set, plain_results, tmp_path):
    out = tmp_path / "batch"
    with loopback_cluster(workers=2) as (cluster, _):
        first = subprocess.Popen(run_arguments(input_set, out, cluster.address), stderr=subprocess.DEVNULL)
        wait_for_statuses(out, 6, first)
        first.send_signal(signal.SIGKILL)
        first.wait()
        time.sleep(2)  # Ray stops the dead driver's tasks
        before = {path.name: path.stat().st_mtime_ns for path in (out / "status").iterdir()}
        second = subprocess.run(run_arguments(input_set, out, cluster.address), capture_output=True, text=True,
                                timeout=BATCH_SECONDS)
        assert second.returncode == 0, second.stderr
        # Statuses may still arrive between the kill and the restart, never after it.
        skipped, remainder = map(int, re.search(r"(\d+) of 20 inputs already have a status; running the other (\d+)",
                                                second.stderr).groups())
        assert len(before) <= skipped < 20 and skipped + remainder == 20
        assert {name: (out / "status" / name).stat().st_mtime_ns for name in before} == before
        assert_results_equal_plain(out, plain_results, input_set.inputs)
        attempts = sorted(path.name for path in (out / "attempts").iterdir())
        third = subprocess.run(run_arguments(input_set, out, cluster.address), capture_output=True, text=True,
                               timeout=BATCH_SECONDS)
    assert third.returncode == 0, third.stderr
    assert "20 of 20 inputs already have a status; running the other 0" in third.stderr
    assert sorted(path.name for path in (out / "attempts").iterdir()) == attempts
