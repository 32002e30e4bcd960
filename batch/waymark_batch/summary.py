"""The batch's tables, rebuilt from the status files alone, so they are right after any crash."""

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from .layout import BatchLayout
from .publish import publish_bytes, publish_file, publish_json_lines

SCHEMA = pa.schema([
    ("id", pa.string()), ("input", pa.string()), ("relative", pa.string()), ("status", pa.string()),
    ("exitCode", pa.int32()), ("frames", pa.int64()), ("seconds", pa.float64()), ("attempt", pa.int32()),
    ("node", pa.string()), ("host", pa.string()), ("waymarkVersion", pa.string()), ("referencesHash", pa.string()),
    ("results", pa.string()), ("finishedAt", pa.string()), ("stderrTail", pa.string()),
])


def read_statuses(layout: BatchLayout) -> list[dict]:
    statuses = []
    for path in sorted(layout.status.glob("*.json")):
        try:
            statuses.append(json.loads(path.read_text()))
        except (OSError, ValueError) as error:  # status files are published whole; this one is foreign
            print(f"waymark-batch: skipped {path}: {error}", file=sys.stderr)
    return statuses


def rebuild(layout: BatchLayout) -> list[dict]:
    statuses = read_statuses(layout)
    publish_json_lines(statuses, layout.summary_lines)
    table = pa.Table.from_pylist([{field: status.get(field) for field in SCHEMA.names} for status in statuses], schema=SCHEMA)
    temporary = layout.summary_table.with_name(".summary.parquet.tmp")
    pq.write_table(table, temporary)
    publish_file(temporary, layout.summary_table)
    publish_bytes(failed_list(statuses).encode(), layout.failed)
    return statuses


def failed_list(statuses: list[dict]) -> str:
    """A list file of the inputs that did not finish well, each after a comment saying why;
    `waymark-batch run DIR/failed.txt --retry-failed` runs them again."""
    lines = []
    for status in statuses:
        if status.get("status") == "done":
            continue
        code = status.get("exitCode")
        lines.append(f"# {status.get('status')}{'' if code is None else f' (exit {code})'}: {last_line(status.get('stderrTail'))}")
        lines.append(status["input"])
    return "".join(line + "\n" for line in lines)


def last_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[-1] if lines else ""
