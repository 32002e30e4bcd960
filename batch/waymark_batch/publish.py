"""Files that appear whole or not at all: written beside their final name, flushed to disk,
then renamed over it, and the folder's entry flushed too, so a crash at any moment leaves
either the old file or the new one, never part of one."""

import json
import os
from pathlib import Path


def fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def publish_file(written: Path, final: Path) -> None:
    """Moves an already written file (on the same filesystem) to its final name."""
    with open(written, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(written, final)
    fsync_folder(final.parent)


def publish_bytes(data: bytes, final: Path) -> None:
    temporary = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        publish_file(temporary, final)
    finally:
        temporary.unlink(missing_ok=True)


def publish_json(value, final: Path) -> None:
    publish_bytes((json.dumps(value, indent=1, sort_keys=True) + "\n").encode(), final)


def publish_json_lines(values, final: Path) -> None:
    publish_bytes("".join(json.dumps(value, sort_keys=True) + "\n" for value in values).encode(), final)
