"""Progress on standard error: a bar redrawn in place on a terminal, a line every so often
otherwise (a log file), and every failure as it happens."""

import sys
import time

LOG_INTERVAL_SECONDS = 10.0


class Progress:
    def __init__(self, total: int, already_finished: int, already_failed: int, quiet: bool = False, stream=sys.stderr):
        self.total = total
        self.finished = already_finished
        self.finished_now = 0
        self.failures = already_failed
        self.quiet = quiet
        self.stream = stream
        self.terminal = stream.isatty()
        self.started = time.monotonic()
        self.last_drawn = 0.0

    def record(self, status: dict) -> None:
        self.finished += 1
        self.finished_now += 1
        if status.get("status") != "done":
            self.failures += 1
            if not self.quiet:
                self._clear()
                code = status.get("exitCode")
                self.stream.write(f"waymark-batch: {status.get('status')}{'' if code is None else f' (exit {code})'}: "
                                  f"{status.get('input')}\n")
        self.tick()

    def tick(self, final: bool = False) -> None:
        now = time.monotonic()
        if self.quiet or not (final or now - self.last_drawn >= (0.2 if self.terminal else LOG_INTERVAL_SECONDS)):
            return
        self.last_drawn = now
        line = self.line(now)
        if self.terminal:
            filled = round(30 * self.finished / max(self.total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {line}\033[K" + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def line(self, now: float) -> str:
        elapsed = now - self.started
        rate = self.finished_now / elapsed if elapsed > 0 else 0.0
        remaining = self.total - self.finished
        eta = _duration(remaining / rate) if rate > 0 else "unknown"
        return (f"{self.finished}/{self.total} inputs, {self.failures} failed, {rate:.2f} inputs/s, "
                f"ETA {eta if remaining else 'none'}")

    def _clear(self) -> None:
        if self.terminal:
            self.stream.write("\r\033[K")


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"
