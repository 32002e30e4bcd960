"""The batch's driver: finds the inputs, skips those with a status file, runs the rest as Ray
tasks (a window of them at a time), records the ones Ray gave up on, and rebuilds the
tables. Stopped at any moment, the same command resumes it."""

import datetime
import fcntl
import json
import os
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from .inputs import InputError, discover, references_hash
from .layout import BatchLayout
from .progress import Progress
from .publish import publish_json
from .summary import read_statuses, rebuild
from .task import STDERR_TAIL_BYTES, CrashedAttempt, Job, run_job, status_record, waymark_version

# Options of `waymark process` that name an output file: every input would write the same one.
OUTPUT_OPTIONS = {"--output", "--annotate", "--report", "--trajectory", "--save-map"}


class BatchError(Exception):
    """The batch itself cannot run (exit 1)."""


@dataclass(frozen=True)
class BatchSettings:
    inputs: list[str]
    output: Path
    waymark: str
    references: str | None = None
    address: str | None = None
    process_arguments: tuple[str, ...] = ()
    cpus_per_task: float = 1.0
    timeout_seconds: float = 4 * 3600.0
    retries: int = 3
    retry_failed: bool = False
    quiet: bool = False


def run_batch(settings: BatchSettings) -> int:
    """0 when every input is done, 2 when some failed; raises BatchError when it cannot run."""
    named = OUTPUT_OPTIONS.intersection(argument.split("=")[0] for argument in settings.process_arguments)
    if named:
        raise BatchError(f"--process-args may not name output files ({', '.join(sorted(named))}): "
                         "the batch writes each input's records to results/<id>.jsonl")
    layout = BatchLayout(settings.output.absolute())
    try:
        layout.create()
        lock = open(layout.lock, "w")
    except OSError as error:
        raise BatchError(f"cannot create the batch's folders in {settings.output}: {error}") from error
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchError(f"another waymark-batch run is using {settings.output}") from None
        jobs = _jobs(settings, layout)
        if settings.retry_failed:
            for status in read_statuses(layout):
                if status.get("status") != "done" and status.get("id") in jobs:
                    layout.status_file(status["id"]).unlink(missing_ok=True)
        finished = {status["id"]: status for status in read_statuses(layout) if status.get("id") in jobs}
        pending = [job for identity, job in jobs.items() if identity not in finished]
        progress = Progress(
            total=len(jobs), already_finished=len(finished),
            already_failed=sum(status.get("status") != "done" for status in finished.values()), quiet=settings.quiet)
        if not settings.quiet and finished:
            print(f"waymark-batch: {len(finished)} of {len(jobs)} inputs already have a status; "
                  f"running the other {len(pending)}", file=sys.stderr)
        layout.clear_partial()  # attempts of a stopped driver: Ray stopped them with it
        if pending:
            _run_on_ray(pending, settings, layout, progress)
            layout.clear_partial()  # attempts lost with their worker or node
        statuses = {status["id"]: status for status in rebuild(layout)}
        progress.tick(final=True)
        outcome = [statuses.get(identity, {}).get("status") for identity in jobs]
        return 0 if all(status == "done" for status in outcome) else 2


def _jobs(settings: BatchSettings, layout: BatchLayout) -> dict[str, Job]:
    try:
        inputs = discover(settings.inputs)
        references = str(Path(settings.references).absolute()) if settings.references else None
        if references and not Path(references).exists():
            raise InputError(f"{settings.references}: no such file or folder")
        reference_hash = references_hash(references)
    except (InputError, OSError) as error:
        raise BatchError(str(error)) from error
    if not os.access(settings.waymark, os.X_OK):
        raise BatchError(f"{settings.waymark}: not an executable waymark binary")
    salt = "\0".join([reference_hash, *settings.process_arguments])
    jobs = {}
    for found in inputs:
        job = Job(
            identity=found.identity(salt), input=str(found.path), relative=found.relative, output_folder=str(layout.root),
            waymark=settings.waymark, references=references, references_hash=reference_hash,
            process_arguments=settings.process_arguments, timeout_seconds=settings.timeout_seconds)
        jobs[job.identity] = job
    publish_json({
        "inputs": [{"id": job.identity, "input": job.input} for job in jobs.values()],
        "references": references, "referencesHash": reference_hash, "processArguments": list(settings.process_arguments),
        "waymark": settings.waymark, "waymarkVersion": waymark_version(settings.waymark),
        "startedAt": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }, layout.inputs)
    return jobs


def _run_on_ray(pending: list[Job], settings: BatchSettings, layout: BatchLayout, progress: Progress) -> None:
    import ray

    try:
        if settings.address:
            ray.init(address=settings.address, log_to_driver=False, logging_level="ERROR")
        else:
            ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    except Exception as error:  # Ray raises several kinds (ConnectionError, RuntimeError, ValueError)
        raise BatchError(f"cannot start or reach Ray{' at ' + settings.address if settings.address else ''}: {error}") from error
    try:
        task = ray.remote(_ray_job).options(
            num_cpus=settings.cpus_per_task, max_retries=settings.retries, retry_exceptions=[CrashedAttempt])
        # Enough queued to keep every CPU busy, few enough that a stopped driver has little in flight.
        window = max(2, 2 * int(ray.cluster_resources().get("CPU", 0) / settings.cpus_per_task))
        queue, running = deque(pending), {}
        while queue or running:
            while queue and len(running) < window:
                job = queue.popleft()
                running[task.remote(job)] = job
            ready, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
            for reference in ready:
                job = running.pop(reference)
                try:
                    status = ray.get(reference)
                except (CrashedAttempt, ray.exceptions.RayError) as error:
                    status = _record_error(job, layout, error)
                progress.record(status)
            progress.tick()
    finally:
        ray.shutdown()


def _ray_job(job: Job) -> dict:
    import ray

    return run_job(job, node=ray.get_runtime_context().get_node_id())


def _record_error(job: Job, layout: BatchLayout, error: Exception) -> dict:
    """An input Ray gave up on: every attempt crashed, or killed its worker or node."""
    path = layout.status_file(job.identity)
    if path.exists():  # an attempt finished after all
        return json.loads(path.read_text())
    status = status_record(job, layout, status="error", attempt=layout.attempts_started(job.identity),
                           stderr_tail=str(error).strip()[-STDERR_TAIL_BYTES:])
    publish_json(status, path)
    return status
