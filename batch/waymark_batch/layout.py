"""Where a batch keeps what it has done, under its output folder:

    results/<id>.jsonl   the records `waymark process` wrote for the input
    status/<id>.json     the done marker: what became of the input (written last)
    attempts/<id>.<n>    one empty file per attempt started, so retries count across drivers
    partial/             a running attempt's records and standard error, until published
    inputs.json          the last run's inputs and settings, for `waymark-batch status`
    summary.jsonl, summary.parquet, failed.txt   rebuilt from status/ at the end of a run
"""

import os
from pathlib import Path


class BatchLayout:
    def __init__(self, root: Path):
        self.root = root
        self.results = root / "results"
        self.status = root / "status"
        self.attempts = root / "attempts"
        self.partial = root / "partial"
        self.inputs = root / "inputs.json"
        self.summary_lines = root / "summary.jsonl"
        self.summary_table = root / "summary.parquet"
        self.failed = root / "failed.txt"
        self.lock = root / ".driver.lock"

    def create(self) -> None:
        for folder in (self.results, self.status, self.attempts, self.partial):
            folder.mkdir(parents=True, exist_ok=True)

    def status_file(self, identity: str) -> Path:
        return self.status / f"{identity}.json"

    def finished(self) -> set[str]:
        return {path.stem for path in self.status.glob("*.json")}

    def claim_attempt(self, identity: str) -> int:
        """The next attempt's number, claimed by creating its marker: two workers never share one."""
        number = self.attempts_started(identity) + 1
        while True:
            try:
                os.close(os.open(self.attempts / f"{identity}.{number}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                return number
            except FileExistsError:
                number += 1

    def attempts_started(self, identity: str) -> int:
        return sum(1 for _ in self.attempts.glob(f"{identity}.*"))

    def clear_partial(self) -> None:
        for leftover in self.partial.iterdir():
            leftover.unlink(missing_ok=True)

    def attempts_by_input(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for marker in self.attempts.iterdir():
            identity = marker.name.rpartition(".")[0]
            counts[identity] = counts.get(identity, 0) + 1
        return counts
