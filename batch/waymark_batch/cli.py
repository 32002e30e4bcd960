"""The `waymark-batch` command."""

import argparse
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from .driver import BatchError, BatchSettings, run_batch
from .status import NotABatch, batch_status, format_status

EXIT_DONE, EXIT_BATCH_FAILED, EXIT_SOME_FAILED = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code 2 means "some inputs failed" here
        self.print_usage(sys.stderr)
        self.exit(EXIT_BATCH_FAILED, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="waymark-batch", description="Runs `waymark process` over many inputs as Ray tasks.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser(
        "run", help="process every input once; run it again to resume",
        description="Each input (a video file, an image folder, an RGB-D sequence; folders are searched, *.txt "
                    "files are lists) is one task running `waymark process` on a worker. Exit code: 0 all done, "
                    "2 some inputs failed, 1 the batch itself could not run.")
    run.add_argument("inputs", nargs="+", metavar="INPUT")
    run.add_argument("--references", metavar="M", help="a manifest (.json), a folder of images, or one image")
    run.add_argument("--out", required=True, metavar="DIR", help="results/, status/, summary.* and failed.txt go here")
    run.add_argument("--address", metavar="ADDR", help="a running Ray cluster (default: start one on this machine)")
    run.add_argument("--process-args", default="", metavar='"..."', help="more `waymark process` options, as one string")
    run.add_argument("--waymark", metavar="PATH", help="the waymark binary, at the same path on every node "
                     "(default: $WAYMARK_BINARY, else `waymark` on the PATH)")
    run.add_argument("--cpus-per-task", type=float, default=1.0, metavar="N", help="CPUs Ray reserves a task (default 1)")
    run.add_argument("--timeout", type=float, default=4 * 3600.0, metavar="SECONDS",
                     help="give one input up after this long, status timeout (default 14400)")
    run.add_argument("--retries", type=int, default=3, metavar="N",
                     help="tries after a crash or a lost worker or node, before status error (default 3)")
    run.add_argument("--retry-failed", action="store_true", help="run inputs that failed, timed out or errored again")
    run.add_argument("--quiet", action="store_true", help="no progress on standard error")
    status = commands.add_parser("status", help="where a running or finished batch stands")
    status.add_argument("folder", metavar="DIR")
    status.add_argument("--json", action="store_true", help="as one JSON object")
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "status":
            summary = batch_status(Path(arguments.folder))
            print(json.dumps(summary, indent=1) if arguments.json else format_status(summary, Path(arguments.folder)))
            return EXIT_DONE
        return run_batch(_settings(arguments, parser))
    except (BatchError, NotABatch) as error:
        print(f"waymark-batch: {error}", file=sys.stderr)
        return EXIT_BATCH_FAILED
    except KeyboardInterrupt:
        print("waymark-batch: interrupted; the same command resumes the batch", file=sys.stderr)
        return EXIT_BATCH_FAILED


def _settings(arguments, parser) -> BatchSettings:
    if arguments.cpus_per_task <= 0 or arguments.timeout <= 0 or arguments.retries < 0:
        parser.error("--cpus-per-task and --timeout must be positive and --retries at least 0")
    try:
        process_arguments = tuple(shlex.split(arguments.process_args))
    except ValueError as error:
        parser.error(f"--process-args: {error}")
    waymark = arguments.waymark or os.environ.get("WAYMARK_BINARY") or shutil.which("waymark")
    if not waymark:
        raise BatchError("no waymark binary: pass --waymark PATH, set WAYMARK_BINARY, or put waymark on the PATH")
    return BatchSettings(
        inputs=arguments.inputs, output=Path(arguments.out), waymark=str(Path(waymark).absolute()),
        references=arguments.references, address=arguments.address, process_arguments=process_arguments,
        cpus_per_task=arguments.cpus_per_task, timeout_seconds=arguments.timeout, retries=arguments.retries,
        retry_failed=arguments.retry_failed, quiet=arguments.quiet)
