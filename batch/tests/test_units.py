"""The parts that need no cluster: inputs and their ids, one attempt's outcome, the command line."""

import fcntl
import json
import os
import stat
from pathlib import Path

import pytest

from waymark_batch.cli import main
from waymark_batch.inputs import InputError, discover
from waymark_batch.task import CrashedAttempt, Job, run_job


def executable(path: Path, script: str) -> Path:
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def make_archive(root: Path) -> Path:
    archive = root / "archive"
    (archive / "2024" / "visits").mkdir(parents=True)
    (archive / "2024" / "visits" / "a.mp4").write_bytes(b"a")
    (archive / "2024" / "notes.md").write_text("not an input")
    tum = archive / "robot" / "run1"
    tum.mkdir(parents=True)
    (tum / "rgb.txt").write_text("# empty\n")
    (tum / "rgb").mkdir()
    frames = archive / "frames"
    frames.mkdir()
    (frames / "0001.png").write_bytes(b"p")
    (archive / ".hidden.mp4").write_bytes(b"h")
    return archive


def test_folders_are_searched_for_videos_and_recordings_and_lists_name_inputs(tmp_path):
    archive = make_archive(tmp_path)
    found = discover([str(archive)])
    assert [item.relative for item in found] == ["2024/visits/a.mp4", "frames", "robot/run1"]
    listed = tmp_path / "inputs.txt"
    listed.write_text("# chosen\n\narchive/robot/run1\narchive/2024/visits/a.mp4\n")
    assert [item.relative for item in discover([str(listed), str(archive / "robot" / "run1")])] == [
        "archive/robot/run1", "archive/2024/visits/a.mp4"]  # each input once, in the order given
    listed.write_text("archive/frames\narchive/missing.mp4\n")
    with pytest.raises(InputError, match="inputs.txt:2: archive/missing.mp4"):
        discover([str(listed)])
    (archive / "2024" / "visits" / "loop").symlink_to(archive / "2024")
    assert len(discover([str(archive)])) == 3
    listed.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(InputError, match="not a readable list of inputs"):
        discover([str(listed)])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no inputs"):
        discover([str(tmp_path / "empty")])


def test_an_inputs_id_changes_with_its_content_and_with_the_salt(tmp_path):
    archive = make_archive(tmp_path)
    video = archive / "2024" / "visits" / "a.mp4"
    first = discover([str(video)])[0].identity("references")
    assert first.startswith("a.mp4-") and first == discover([str(video)])[0].identity("references")
    assert discover([str(video)])[0].identity("other references") != first
    os.utime(video, ns=(0, 10**18))
    assert discover([str(video)])[0].identity("references") != first
    frames = archive / "frames"
    folder_id = discover([str(frames)])[0].identity("")
    (frames / "0002.png").write_bytes(b"q")
    assert discover([str(frames)])[0].identity("") != folder_id


def job_for(tmp_path: Path, waymark: Path, timeout: float = 30) -> Job:
    for folder in ("results", "status", "attempts", "partial"):
        (tmp_path / "out" / folder).mkdir(parents=True, exist_ok=True)
    return Job(identity="clip-0123", input=str(tmp_path / "clip.mp4"), relative="clip.mp4",
               output_folder=str(tmp_path / "out"), waymark=str(waymark), references=None, references_hash="none",
               process_arguments=("--fov", "60"), timeout_seconds=timeout)


# A stand-in for `waymark process`: writes a header, two frames and a summary to --output, then
# exits as the test asks.
FAKE = """[ "$1" = --version ] && { echo "waymark test"; exit 0; }
out=""; while [ $# -gt 0 ]; do [ "$1" = --output ] && out="$2"; shift; done
printf '{"type":"header"}\\n{"type":"frame"}\\n{"type":"frame"}\\n{"type":"summary","frames":2}\\n' > "$out"
echo "waymark: what went wrong" >&2
"""


def test_an_attempt_publishes_its_records_then_its_status(tmp_path):
    record = run_job(job_for(tmp_path, executable(tmp_path / "waymark", FAKE + "exit 0\n")), node="n1")
    assert (record["status"], record["exitCode"], record["frames"], record["attempt"]) == ("done", 0, 2, 1)
    assert record["command"][-3:] == ["--output", str(tmp_path / "out" / "results" / "clip-0123.jsonl"), "--quiet"]
    assert record["command"][3:5] == ["--fov", "60"]
    assert json.loads((tmp_path / "out" / "status" / "clip-0123.json").read_text()) == record
    assert (tmp_path / "out" / "results" / "clip-0123.jsonl").read_text().count("\n") == 4
    assert not list((tmp_path / "out" / "partial").iterdir())


def test_a_rejected_input_fails_without_retry_and_keeps_its_records(tmp_path):
    record = run_job(job_for(tmp_path, executable(tmp_path / "waymark", FAKE + "exit 65\n")), node="n1")
    assert (record["status"], record["exitCode"], record["frames"]) == ("failed", 65, 2)
    assert record["stderrTail"] == "waymark: what went wrong\n"


def test_a_crash_is_retried_and_a_hang_times_out(tmp_path):
    with pytest.raises(CrashedAttempt, match="killed by signal 9 on attempt 1"):
        run_job(job_for(tmp_path, executable(tmp_path / "waymark", FAKE + "kill -9 $$\n")), node="n1")
    assert not (tmp_path / "out" / "status" / "clip-0123.json").exists()
    record = run_job(job_for(tmp_path, executable(tmp_path / "slow", FAKE + "sleep 30\n"), timeout=0.5), node="n1")
    assert (record["status"], record["exitCode"], record["attempt"], record["results"]) == ("timeout", None, 2, None)


def test_options_naming_one_output_file_for_every_input_are_refused(tmp_path, capsys):
    video = tmp_path / "a.mp4"
    video.write_bytes(b"a")
    waymark = executable(tmp_path / "waymark", FAKE)
    code = main(["run", str(video), "--out", str(tmp_path / "out"), "--waymark", str(waymark),
                 "--process-args", "--fov 60 --annotate all.mp4"])
    assert code == 1
    assert "--process-args may not name output files (--annotate)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # argparse's own 2 would mean "some inputs failed"
        main(["run", str(video), "--out", str(tmp_path / "out"), "--timeout", "0"])
    assert usage.value.code == 1


def test_status_of_a_folder_that_is_no_batch_is_an_error(tmp_path, capsys):
    assert main(["status", str(tmp_path)]) == 1
    assert "not a batch folder" in capsys.readouterr().err


def test_a_second_driver_on_the_same_folder_is_refused(tmp_path, capsys):
    video = tmp_path / "a.mp4"
    video.write_bytes(b"a")
    (tmp_path / "out").mkdir()
    with open(tmp_path / "out" / ".driver.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code = main(["run", str(video), "--out", str(tmp_path / "out"),
                     "--waymark", str(executable(tmp_path / "waymark", FAKE))])
    assert code == 1
    assert "another waymark-batch run is using" in capsys.readouterr().err
