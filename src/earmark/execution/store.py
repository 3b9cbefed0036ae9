"""The crash-safe, append-only prediction store behind `earmark run`'s resume.

Each row is one JSON line written whole, flushed and fsynced before the next clip, so a
`kill -9` loses at most the row being written. Opening the store repairs a torn last
line (truncates to the last complete newline) and reports it. Finished rows are keyed by
(arm, utterance id, repeat); a row is reused only when its cache key (audio hash, model
file hashes, runtime version, settings) matches the current arm, so a changed setting is
never served from a stale row. A row goes through `rundir.bounds.fit_store_row`, so what
is written is always a line every reader accepts (an over-long or non-Unicode answer
becomes the clip's reason code, not a row that makes the folder unreadable).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from earmark.records import finite_json
from earmark.rundir.bounds import fit_store_row
from earmark.rundir.predictions import (
    ArmRowKey,
    RunRow,
    arm_row_key,
    read_run_rows,
    torn_tail_bytes,
)


@dataclass
class RepairReport:
    torn_bytes: int = 0
    invalid_lines: int = 0


class PredictionStore:
    """Append-only JSONL of prediction rows; the last row written for a key wins."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.repair = self._repair()
        self._handle: IO[bytes] | None = None

    def _repair(self) -> RepairReport:
        """Truncate a torn last line (a row a killed run did not finish) and say how long."""
        report = RepairReport()
        torn = torn_tail_bytes(self.path)
        if torn:
            report.torn_bytes = torn
            with open(self.path, "r+b") as handle:
                handle.truncate(self.path.stat().st_size - torn)
                handle.flush()
                os.fsync(handle.fileno())
        return report

    def rows(self) -> Iterator[RunRow]:
        """Every complete, valid row in write order (invalid lines are counted, skipped)."""
        yield from read_run_rows(self.path, self.repair)

    def latest(self) -> dict[ArmRowKey, RunRow]:
        """The last row written for each key (arm, utterance id, repeat)."""
        out: dict[ArmRowKey, RunRow] = {}
        for row in self.rows():
            out[arm_row_key(row)] = row
        return out

    def append(self, row: RunRow) -> None:
        if self._handle is None:
            self._handle = open(self.path, "ab")  # noqa: SIM115 - closed by close()
        row, replaced = finite_json(row)
        if replaced:
            row["non_finite"] = replaced  # NaN/inf an engine returned, written as null
        self._handle.write(fit_store_row(row))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> PredictionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
