"""What a batch runs over: each input is a video file or a recording folder (an image folder,
a TUM or plain RGB-D sequence), found in the paths given on the command line, and named by
an id that changes whenever its bytes, the references or the arguments could change its
result."""

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".m4v", ".webm", ".mpg", ".mpeg"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"}
LIST_SUFFIXES = {".txt", ".list", ".lst"}


class InputError(Exception):
    """The inputs as given cannot be run (a path that does not exist, an empty list)."""


@dataclass(frozen=True)
class Input:
    path: Path  # absolute
    relative: str  # to the folder it was found in, or its own folder
    size: int  # bytes, all files of a folder
    modified_ns: int  # the newest file of a folder

    def identity(self, salt: str) -> str:
        """A file name: readable from the input's path, unique by its content's stamp and salt."""
        digest = hashlib.sha256(f"{self.relative}\0{self.size}\0{self.modified_ns}\0{salt}".encode()).hexdigest()
        readable = re.sub(r"[^A-Za-z0-9._-]+", "_", self.relative)[-60:].strip("._") or "input"
        return f"{readable}-{digest[:16]}"


def is_recording_folder(folder: Path) -> bool:
    """A folder `waymark process` takes as one input: a TUM folder (rgb.txt), a plain RGB-D
    folder (depth/ beside rgb/ or color/), or a folder of images taken as frames."""
    if (folder / "rgb.txt").is_file():
        return True
    if (folder / "depth").is_dir() and ((folder / "rgb").is_dir() or (folder / "color").is_dir()):
        return True
    return any(entry.is_file() and entry.suffix.lower() in IMAGE_SUFFIXES for entry in _visible(folder))


def discover(arguments: list[str]) -> list[Input]:
    """Every input named by `arguments`, each once, in the order given (folders in name order).

    A file named *.txt, *.list or *.lst is a list of inputs, one path a line (relative to the
    list's folder; blank lines and lines starting with # are skipped). Any other file is an
    input. A recording folder is an input; any other folder is searched for videos and
    recording folders below it."""
    found: dict[Path, Input] = {}
    for argument in arguments:
        path = Path(argument).absolute()
        if not path.exists():
            raise InputError(f"{argument}: no such file or folder")
        if path.is_file() and path.suffix.lower() in LIST_SUFFIXES:
            for line_path in _list_entries(path):
                _add(found, line_path, root=_root_for(line_path, path.parent))
        elif path.is_file() or is_recording_folder(path):
            _add(found, path, root=path.parent)
        else:
            for inner in _search(path, searched=set()):
                _add(found, inner, root=path)
    if not found:
        raise InputError("no inputs: no video file or recording folder in " + ", ".join(arguments))
    return list(found.values())


def _list_entries(list_file: Path) -> list[Path]:
    try:
        lines = list_file.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{list_file}: not a readable list of inputs ({error})") from error
    entries = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        entry = (list_file.parent / text).absolute()
        if not entry.exists():
            raise InputError(f"{list_file}:{number}: {text}: no such file or folder")
        entries.append(entry)
    return entries


def _root_for(path: Path, preferred: Path) -> Path:
    return preferred if path.is_relative_to(preferred) and path != preferred else path.parent


def _search(folder: Path, searched: set[Path]):
    searched.add(folder.resolve())
    for entry in _visible(folder):
        if entry.is_dir():
            if is_recording_folder(entry):
                yield entry
            elif entry.resolve() not in searched:  # a link back up the tree is searched once
                yield from _search(entry, searched)
        elif entry.suffix.lower() in VIDEO_SUFFIXES:
            yield entry


def _visible(folder: Path) -> list[Path]:
    return sorted(entry for entry in folder.iterdir() if not entry.name.startswith("."))


def _add(found: dict[Path, Input], path: Path, root: Path) -> None:
    resolved = path.resolve()
    if resolved in found:
        return
    size, modified_ns = _stamp(path)
    found[resolved] = Input(path=path, relative=str(path.relative_to(root)), size=size, modified_ns=modified_ns)


def _stamp(path: Path) -> tuple[int, int]:
    if path.is_file():
        status = path.stat()
        return status.st_size, status.st_mtime_ns
    size, newest = 0, path.stat().st_mtime_ns
    for folder, _, files in os.walk(path):
        for name in files:
            status = os.stat(os.path.join(folder, name))
            size += status.st_size
            newest = max(newest, status.st_mtime_ns)
    return size, newest


def references_hash(references: str | None) -> str:
    """A hash of the reference images' bytes: a folder's files, or a manifest and the images it
    lists, or one image. "none" without references."""
    if references is None:
        return "none"
    path = Path(references)
    digest = hashlib.sha256()
    if path.is_dir():
        for file in sorted(file for file in path.rglob("*") if file.is_file()):
            digest.update(str(file.relative_to(path)).encode() + b"\0")
            _hash_file(digest, file)
    else:
        _hash_file(digest, path)
        for image in _manifest_images(path):
            digest.update(str(image).encode() + b"\0")
            if image.is_file():
                _hash_file(digest, image)
    return digest.hexdigest()


def _manifest_images(path: Path) -> list[Path]:
    if path.suffix.lower() != ".json":
        return []
    try:
        entries = json.loads(path.read_text()).get("images", [])
        return [path.parent / entry["path"] for entry in entries if isinstance(entry, dict) and "path" in entry]
    except (ValueError, AttributeError, UnicodeDecodeError):
        return []  # the CLI says what is wrong with the manifest, on the first task


def _hash_file(digest, file: Path) -> None:
    with open(file, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
