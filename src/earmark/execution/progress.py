"""Telling the user how far an arm has got: a live bar on a terminal, plain lines in a log."""

from __future__ import annotations

import time
from typing import Any


class ClipProgress:
    """A rich progress bar with clips/s and ETA on a terminal; nothing in quiet mode.

    Where output is not a terminal (a CI log, `| tee`) a live bar shows nothing until the
    arm ends, so plain lines are printed instead: `arm: 40/200 clips (20%), 1.52 clips/s,
    ETA 0:01:45`, every `interval_s` seconds or every tenth of the clips, whichever comes
    first, and when the arm is done. Both executors use it: a local arm advances per clip,
    the Ray driver per clip of each shard that comes back.
    """

    def __init__(
        self,
        name: str,
        total: int,
        quiet: bool,
        *,
        stream: Any = None,
        interval_s: float = 10.0,
        clock: Any = time.monotonic,
    ) -> None:
        self.name, self.total, self.quiet = name, total, quiet
        self.stream, self.interval_s, self.clock = stream, interval_s, clock
        self._progress: Any = None
        self._task: Any = None
        self._done = 0
        self._start = self._last = 0.0
        self._next_count = 0
        self._plain = False
        self._reported = 0

    def __enter__(self) -> Any:
        if self.quiet or self.total == 0:
            return lambda: None
        import sys

        from rich.console import Console

        stream = self.stream if self.stream is not None else sys.stdout
        console = Console(file=stream)
        if not console.is_terminal:
            self.stream, self._plain = stream, True
            self._start = self._last = self.clock()
            self._next_count = self._tenth()
            self._line(f"{self.name}: decoding {self.total} clips")
            return self._advance_plain
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        class _Rate(TextColumn):
            def render(self, task: Any) -> Any:
                from rich.text import Text

                speed = task.finished_speed or task.speed
                return Text(f"{speed:.2f} clips/s" if speed else "… clips/s")

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _Rate(""),
            TimeRemainingColumn(),
            transient=False,
            console=console,
        )
        self._progress.__enter__()
        self._task = self._progress.add_task(self.name, total=self.total)
        return lambda: self._progress.advance(self._task)

    def _tenth(self) -> int:
        """The next clip count at a multiple of a tenth of the total."""
        step = max(1, -(-self.total // 10))
        return min(self.total, (self._done // step + 1) * step)

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _advance_plain(self) -> None:
        self._done += 1
        now = self.clock()
        if (
            self._done >= self.total
            or self._done >= self._next_count
            or now - self._last >= self.interval_s
        ):
            self._report(now)

    def _report(self, now: float) -> None:
        self._last, self._reported = now, self._done
        self._next_count = self._tenth()
        elapsed = now - self._start
        rate = self._done / elapsed if elapsed > 0 else None
        text = (
            f"{self.name}: {self._done}/{self.total} clips "
            f"({100 * self._done / self.total:.0f}%), "
            + (f"{rate:.2f} clips/s" if rate else "… clips/s")
        )
        if self._done >= self.total:
            text += f", done in {_clock(elapsed)}"
        elif rate:
            text += f", ETA {_clock((self.total - self._done) / rate)}"
        self._line(text)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
        elif self._plain and self._reported != self._done:
            self._report(self.clock())  # stopped early (an error): where it stopped


def _clock(seconds: float) -> str:
    """`0:01:45`: hours, minutes, seconds, as rich's live bar shows its ETA."""
    whole = int(round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
