"""Rows handed out a chunk at a time, and read again only from files that did not change.

A scorer that keeps each id as a digest reads the rows a second time on the rare match of
two digests; a file that changed between the two reads would be scored as one corpus of
two contents, so the second read refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.rows import ReadResult, ScoringRow

#: A file's (path, size, modification time in ns) when a stream first read it.
Stamp = tuple[Path, int, int]


def stamps(paths: list[Path]) -> list[Stamp]:
    """Each readable file's size and modification time, to compare with on a reread."""
    out = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:  # the reader reports a missing file itself
            continue
        out.append((path, info.st_size, info.st_mtime_ns))
    return out


def unchanged(stamped: list[Stamp]) -> None:
    """Refuse to read a file again if it changed since the stream first read it: rows read
    in two passes of different contents would be scored as one corpus."""
    for path, size, mtime in stamped:
        try:
            info = path.stat()
            now: tuple[int, int] | None = (info.st_size, info.st_mtime_ns)
        except OSError:
            now = None
        if now != (size, mtime):
            raise EarmarkError(
                "the file changed (or went away) while it was being scored",
                file=str(path),
                hint="score it again once nothing is writing to it",
            )


@dataclass
class PairStream:
    """`read_pairs`' rows a chunk at a time, with what it says about the files.

    A file holding references and hypotheses (JSONL, CSV, TSV; an earmark run's
    predictions) is read as the chunks are asked for, so a scorer consuming them never
    holds the whole corpus; a pair of files (hypotheses joined to references, sclite,
    lines) is joined in memory first and then handed out in chunks. `excluded` is
    complete once the chunks are exhausted.
    """

    rows: Iterator[ScoringRow]
    excluded: list[dict[str, str]] = field(default_factory=list)
    source_files: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    #: Reads the file again with every check (`stream_pairs(check_ids=False)` only).
    _recheck: Callable[[], None] | None = None
    #: Reads the rows again from the first.
    _reread: Callable[[], Iterator[ScoringRow]] | None = None

    def reread(self) -> Iterator[ScoringRow]:
        """The same rows again from the first, read anew from the files: what a scorer
        that keeps each id only as a digest reads on the rare match of two digests
        (`scoring.scorer.CorpusScorer`'s `reread`). Ids are not checked (`recheck` does).
        """
        if self._reread is None:
            raise RuntimeError("this stream cannot read its rows again")
        return self._reread()

    def recheck(self) -> None:
        """Raise the error a full, checking read of the input meets first, if any.

        A stream opened with `check_ids=False` leaves repeated ids to its consumer and
        reads as the chunks are asked for; call this when anything fails, so the error
        is the one `read_pairs` gives (a repeated id with both its lines, or whatever
        comes first in the file), as when the whole file was read before scoring.
        """
        if self._recheck is not None:
            self._recheck()

    def chunks(self, size: int) -> Iterator[list[ScoringRow]]:
        """Lists of `size` rows (the last one shorter), in file order."""
        if size < 1:
            raise ValueError(f"chunk size must be at least 1, not {size}")
        rows = self.rows
        while True:
            chunk = list(islice(rows, size))
            if not chunk:
                return
            yield chunk


def whole(read: Callable[[], ReadResult]) -> PairStream:
    """Rows read (and joined) in full by `read`, handed out as a stream; `read` runs
    again for `PairStream.reread` (holding on to the rows instead would keep every row
    alive while the stream is scored)."""
    result = read()
    stamped = stamps([Path(name) for name in result.source_files])

    def reread() -> Iterator[ScoringRow]:
        unchanged(stamped)
        return iter(read().rows)

    return PairStream(
        rows=iter(result.rows),
        excluded=result.excluded,
        source_files=result.source_files,
        formats=result.formats,
        _reread=reread,
    )
