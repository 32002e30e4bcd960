"""`waymark-batch status DIR`: where a running or finished batch stands, from its files alone."""

import json
from collections import Counter
from pathlib import Path

from .layout import BatchLayout
from .summary import last_line, read_statuses


class NotABatch(Exception):
    pass


def batch_status(folder: Path) -> dict:
    layout = BatchLayout(folder)
    if not layout.inputs.is_file():
        raise NotABatch(f"{folder}: not a batch folder (no inputs.json; `waymark-batch run` writes it)")
    plan = json.loads(layout.inputs.read_text())
    identities = [entry["id"] for entry in plan["inputs"]]
    statuses = {status["id"]: status for status in read_statuses(layout)}
    attempts = layout.attempts_by_input()
    finished = [statuses[identity] for identity in identities if identity in statuses]
    started = [identity for identity in identities if identity not in statuses and attempts.get(identity)]
    counts = Counter(status["status"] for status in finished)
    return {
        "total": len(identities), "finished": len(finished), "counts": dict(sorted(counts.items())),
        "startedNotFinished": len(started), "notStarted": len(identities) - len(finished) - len(started),
        "frames": sum(status.get("frames") or 0 for status in finished),
        "taskSeconds": round(sum(status.get("seconds") or 0 for status in finished), 3),
        "retried": sum(1 for status in finished if (status.get("attempt") or 1) > 1),
        "failures": [{"input": status["input"], "status": status["status"], "exitCode": status.get("exitCode"),
                      "reason": last_line(status.get("stderrTail"))} for status in finished if status["status"] != "done"],
        "startedAt": plan.get("startedAt"), "waymarkVersion": plan.get("waymarkVersion"),
    }


def format_status(summary: dict, folder: Path) -> str:
    counts = ", ".join(f"{count} {name}" for name, count in summary["counts"].items()) or "none finished"
    lines = [
        f"{folder}: {summary['finished']}/{summary['total']} inputs finished ({counts}); "
        f"{summary['startedNotFinished']} started and not finished (running, or stopped with their driver), "
        f"{summary['notStarted']} not started",
        f"{summary['frames']} frames in {summary['taskSeconds']:.1f} task-seconds; {summary['retried']} finished after a retry; "
        f"started {summary['startedAt']}, {summary['waymarkVersion']}",
    ]
    for failure in summary["failures"]:
        code = failure["exitCode"]
        lines.append(f"  {failure['status']}{'' if code is None else f' (exit {code})'}: {failure['input']}: {failure['reason']}")
    return "\n".join(lines)
