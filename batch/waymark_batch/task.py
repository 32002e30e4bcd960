"""One input on one worker: `waymark process` on it, then its records published, then its
status, the done marker. Knows nothing of Ray; the driver wraps it in a Ray task."""

import datetime
import functools
import json
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .layout import BatchLayout
from .publish import publish_file, publish_json

REJECTED_EXIT_CODES = range(64, 75)  # sysexits: the CLI refused the input or its output
STDERR_TAIL_BYTES = 4000


@dataclass(frozen=True)
class Job:
    identity: str
    input: str  # absolute path
    relative: str
    output_folder: str  # absolute path, the same on every node
    waymark: str  # absolute path of the binary, the same on every node
    references: str | None
    references_hash: str
    process_arguments: tuple[str, ...]
    timeout_seconds: float

    def command(self, records: Path) -> list[str]:
        """The `waymark process` command line; `--output` is the batch's, all else the user's."""
        references = ["--references", self.references] if self.references else []
        return [self.waymark, "process", self.input, *references, *self.process_arguments, "--output", str(records), "--quiet"]


class CrashedAttempt(Exception):
    """`waymark process` ended by a signal or with an exit code it does not give for bad input:
    the machine's fault as likely as the input's, so Ray tries again."""


def run_job(job: Job, node: str) -> dict:
    layout = BatchLayout(Path(job.output_folder))
    attempt = layout.claim_attempt(job.identity)
    records = layout.partial / f"{job.identity}.{attempt}.jsonl"
    errors = layout.partial / f"{job.identity}.{attempt}.stderr"
    command = job.command(records)
    started = time.monotonic()
    try:
        with open(errors, "wb") as stderr:
            try:
                completed = subprocess.run(
                    _dying_with_parent(command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                    timeout=job.timeout_seconds)
                exit_code = completed.returncode
            except subprocess.TimeoutExpired:
                exit_code = None
        seconds = time.monotonic() - started
        tail = _tail(errors)
        if exit_code is not None and exit_code != 0 and exit_code not in REJECTED_EXIT_CODES:
            raise CrashedAttempt(
                f"waymark process {'was killed by signal ' + str(-exit_code) if exit_code < 0 else 'exited with ' + str(exit_code)}"
                f" on attempt {attempt}: {tail[-500:]}")
        if exit_code == 0 and not records.exists():  # a new driver cleared partial/ under a stopped one's attempt
            raise CrashedAttempt(f"the records of attempt {attempt} were removed before they were published")
        status = "timeout" if exit_code is None else "done" if exit_code == 0 else "failed"
        published = None
        if exit_code is not None and records.exists():
            # A rejected input keeps the records the CLI wrote before it stopped, as it would alone.
            published = layout.results / f"{job.identity}.jsonl"
            publish_file(records, published)
        record = status_record(
            job, layout, status=status, exit_code=exit_code, frames=_frames(published), seconds=round(seconds, 3),
            attempt=attempt, node=node, host=socket.gethostname(), stderr_tail=tail, results=published)
        publish_json(record, layout.status_file(job.identity))
        return record
    finally:
        records.unlink(missing_ok=True)
        errors.unlink(missing_ok=True)


def status_record(job: Job, layout: BatchLayout, *, status: str, attempt: int, stderr_tail: str, exit_code: int | None = None,
                  frames: int | None = None, seconds: float | None = None, node: str | None = None,
                  host: str | None = None, results: Path | None = None) -> dict:
    """An input's done marker (docs/BATCH.md lists the fields)."""
    return {
        "id": job.identity, "input": job.input, "relative": job.relative, "status": status, "exitCode": exit_code,
        "frames": frames, "seconds": seconds, "attempt": attempt, "node": node, "host": host, "stderrTail": stderr_tail,
        "waymarkVersion": waymark_version(job.waymark), "referencesHash": job.references_hash,
        "command": job.command(layout.results / f"{job.identity}.jsonl"),
        "results": str(results.relative_to(layout.root)) if results else None,
        "finishedAt": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _dying_with_parent(command: list[str]) -> list[str]:
    """If the worker is killed (a node lost without grace), its `waymark process` must not run on
    as an orphan: util-linux's setpriv sets the parent-death signal and then runs the command."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *command] if setpriv else command


def _tail(path: Path) -> str:
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - STDERR_TAIL_BYTES))
        return handle.read().decode(errors="replace")


def _frames(records: Path | None) -> int | None:
    """The frames the run read: its summary's count, else its frame records so far."""
    if records is None:
        return None
    frames = 0
    with open(records) as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("type") == "summary" and isinstance(record.get("frames"), int):
                return record["frames"]
            frames += record.get("type") == "frame"
    return frames


@functools.cache
def waymark_version(binary: str) -> str:
    try:
        return subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"unknown ({error})"
