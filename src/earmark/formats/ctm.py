"""sclite's ctm hypotheses (`file channel start duration word [confidence]`, `;;`
comments), read and assigned to stm reference segments by time.

sclite aligns each recording's words to its segments by time. earmark assigns every ctm
word to one segment of the same file and channel, by the word's midpoint (start +
duration / 2): the segment with start <= midpoint < end (the last segment of a channel
includes its end); a midpoint inside an ignored segment drops the word; a midpoint in a
gap between segments goes to the nearest segment in time (the earlier one on a tie) and
is counted in the row's `ctm_words_outside`. The words of a segment then align to its
reference as a trn pair. Where sclite's time-mediated alignment would split a word
straddling two segments differently, counts can differ; words well inside segments
score identically (tested against `sctk sclite`).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from sys import intern

import numpy as np

from earmark.errors import EarmarkError
from earmark.formats.rows import OK, ReadResult, ScoringRow
from earmark.formats.sclite import content_lines, read_time
from earmark.formats.stm import StmLine, no_segments, stm_lines
from earmark.formats.stream import PairStream
from earmark.results.codec import JSONValue

_plain = ScoringRow.plain


@dataclass(frozen=True)
class CtmWord:
    line: int
    file: str
    channel: str
    start: float
    duration: float
    word: str
    confidence: float | None

    @property
    def midpoint(self) -> float:
        return self.start + self.duration / 2


def read_ctm(path: Path) -> list[CtmWord]:
    """Every word of a ctm file, in file order (comments and blank lines skipped)."""
    out = [
        CtmWord(number, *ctm_fields(parts, path, number)) for number, parts in content_lines(path)
    ]
    if not out:
        raise no_words(path)
    return out


def ctm_fields(
    parts: list[str], path: Path, number: int
) -> tuple[str, str, float, float, str, float | None]:
    """A ctm line's (file, channel, start, duration, word, confidence); a bad one raises."""
    if len(parts) < 5:
        raise EarmarkError(
            f"a ctm line has at least 5 fields, found {len(parts)}",
            file=str(path),
            line=number,
            hint="expected `file channel start duration word [confidence]`",
        )
    start = read_time(parts[2], path, number, "start")
    duration = read_time(parts[3], path, number, "duration")
    confidence = None
    if len(parts) > 5 and parts[5].upper() != "NA":
        try:
            confidence = float(parts[5])
        except ValueError:
            raise EarmarkError(
                f"expected a confidence or NA, got {parts[5]!r}",
                file=str(path),
                line=number,
                field="confidence",
            ) from None
    return parts[0], parts[1], start, duration, parts[4], confidence


def no_words(path: Path) -> EarmarkError:
    """A ctm file without a single word."""
    return EarmarkError("no records (the file has no ctm words)", file=str(path))


@dataclass(slots=True)
class _Channel:
    """One file and channel's segments sorted by start, for midpoint look-ups."""

    order: list[int]
    starts: list[float]
    ends: list[float]
    longest: float
    #: Per sorted position: the position, at or before it, of the latest-ending segment.
    latest_end: list[int]
    #: The last segment found inside, and the midpoints [lo, hi) it is the answer for.
    hit: int = -1
    lo: float = math.inf
    hi: float = -math.inf

    @classmethod
    def build(cls, starts: list[float], ends: list[float], indices: list[int]) -> _Channel:
        order = sorted(indices, key=lambda k: (starts[k], ends[k]))
        starts = [starts[k] for k in order]
        ends = [ends[k] for k in order]
        latest_end: list[int] = []
        for pos, end in enumerate(ends):
            latest_end.append(
                pos if not latest_end or end >= ends[latest_end[-1]] else latest_end[-1]
            )
        longest = max((e - s for s, e in zip(starts, ends, strict=True)), default=0.0)
        return cls(order, starts, ends, longest, latest_end)

    def segment_for(self, mid: float) -> tuple[int, bool]:
        """(segment index, inside?) for a word midpoint.

        Inside: the covering segment that starts latest (start <= mid < end; the
        channel's last segment also takes mid == end). Outside: the nearest segment in
        time, the earlier one on a tie. A segment found inside at sorted position `pos`
        is the answer for every midpoint from its start up to its end and the next
        start: kept, so a segment's later words skip the search.
        """
        if self.lo <= mid < self.hi:
            return self.hit, True
        at = bisect_right(self.starts, mid) - 1
        last = len(self.order) - 1
        pos = at
        while pos >= 0 and self.starts[pos] >= mid - self.longest:
            if mid < self.ends[pos] or (pos == last and mid == self.ends[pos]):
                self.hit, self.lo = self.order[pos], self.starts[pos]
                self.hi = (
                    self.ends[pos] if pos == last else min(self.ends[pos], self.starts[pos + 1])
                )
                return self.hit, True
            pos -= 1
        if at < 0:
            return self.order[0], False
        before = self.latest_end[at]
        if at == last or mid - self.ends[before] <= self.starts[at + 1] - mid:
            return self.order[before], False
        return self.order[at + 1], False


def pair_stm_ctm(ctm_path: Path, stm_path: Path, *, allow_extra: bool = False) -> ReadResult:
    """Assign ctm words to stm segments by midpoint (see the module docstring)."""
    stream = stream_stm_ctm(ctm_path, stm_path, allow_extra=allow_extra)
    return ReadResult(list(stream.rows), stream.excluded, stream.source_files, stream.formats)


def stream_stm_ctm(ctm_path: Path, stm_path: Path, *, allow_extra: bool = False) -> PairStream:
    """`pair_stm_ctm` as a stream: both files are read and every word assigned (each
    error met) before it returns, but each row is built only when it is asked for, from
    the segments and the words kept compactly (no object per word: 1.5 million words
    took 1.4 GB as rows built up front)."""
    segments = list(stm_lines(stm_path))
    if not segments:
        raise no_segments(stm_path)
    words = _assign(ctm_path, segments, allow_extra)
    if all(seg[8] for seg in segments):
        raise EarmarkError("every stm segment is ignored: nothing to score", file=str(stm_path))
    return PairStream(
        rows=words.rows(segments),
        excluded=words.excluded(segments),
        source_files=[str(ctm_path), str(stm_path)],
        formats=["ctm", "stm"],
        _reread=lambda: words.rows(segments),
    )


@dataclass
class _Words:
    """Every assigned ctm word in file order: its segment, start and spelling, and per
    segment how many fell outside it; the words of a file and channel without segments
    are only counted."""

    segment: array[int] = field(default_factory=lambda: array("l"))
    start: array[float] = field(default_factory=lambda: array("d"))
    word: list[str] = field(default_factory=list)
    outside: dict[int, int] = field(default_factory=dict)
    unmatched: dict[tuple[str, str], int] = field(default_factory=dict)

    def by_segment(self, n: int) -> tuple[list[str], list[int]]:
        """The words sorted by (segment, start, line), and where each segment's begin."""
        segment = (
            np.frombuffer(self.segment, dtype=np.int_)
            if self.segment
            else np.zeros(0, dtype=np.int_)
        )
        start = np.frombuffer(self.start, dtype=np.float64) if self.start else np.zeros(0)
        words = self.word
        in_order = bool(
            (
                (segment[1:] > segment[:-1])
                | ((segment[1:] == segment[:-1]) & (start[1:] >= start[:-1]))
            ).all()
        )
        if not in_order:  # lexsort is stable: equal starts keep their lines' order
            order = np.lexsort((start, segment))
            words = np.array(words, dtype=object)[order].tolist()
        bounds = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(segment, minlength=n), out=bounds[1:])
        return words, bounds.tolist()

    def rows(self, segments: list[StmLine]) -> Iterator[ScoringRow]:
        words, bounds = self.by_segment(len(segments))
        outside = self.outside
        for k, (_, file, channel, speaker, start, end, label, text, ignored) in enumerate(segments):
            if ignored:
                continue
            extra: dict[str, JSONValue] = {
                "speaker": speaker,
                "file": file,
                "channel": channel,
                "start": start,
                "end": end,
            }
            if label is not None:
                extra["label"] = label
            if outside.get(k):
                extra["ctm_words_outside"] = outside[k]
            yield _plain(
                f"{speaker}-{file}-{channel}-{start:.2f}-{end:.2f}",
                text,
                " ".join(words[bounds[k] : bounds[k + 1]]),
                OK,
                extra,
            )

    def excluded(self, segments: list[StmLine]) -> list[dict[str, str]]:
        """Ignored segments (with the words they dropped), then unmatched files and channels."""
        counts = (
            np.bincount(np.frombuffer(self.segment, dtype=np.int_), minlength=len(segments))
            if self.segment
            else np.zeros(len(segments), dtype=np.int_)
        )
        out = [
            {
                "id": f"{speaker}-{file}-{channel}-{start:.2f}-{end:.2f}",
                "reason": "ignore_time_segment_in_scoring",
                "hypothesis_words_dropped": str(int(counts[k])),
            }
            for k, (_, file, channel, speaker, start, end, _, _, ignored) in enumerate(segments)
            if ignored
        ]
        for (file, channel), n in sorted(self.unmatched.items()):
            out.append(
                {"id": f"{file}-{channel}", "reason": "no_reference", "hypothesis_words": str(n)}
            )
        return out


def _assign(ctm_path: Path, segments: list[StmLine], allow_extra: bool) -> _Words:
    """Every ctm word assigned to its segment (see the module docstring). A word of a
    file and channel without segments is an error unless allowed, reported once the
    whole file is read (a bad line further down is the error a whole read meets first)."""
    indices: dict[tuple[str, str], list[int]] = {}
    for k, seg in enumerate(segments):
        indices.setdefault((seg[1], seg[2]), []).append(k)
    starts = [seg[4] for seg in segments]
    ends = [seg[5] for seg in segments]
    by_channel = {key: _Channel.build(starts, ends, ks) for key, ks in indices.items()}
    out = _Words()
    add_segment, add_start, add_word = out.segment.append, out.start.append, out.word.append
    outside, unmatched = out.outside, out.unmatched
    unknown: EarmarkError | None = None
    key: tuple[str, str] = ("", "")
    channel = None
    inf = math.inf
    for number, parts in content_lines(ctm_path):
        # The common line checked inline; any other takes `ctm_fields`, for its error.
        try:
            start, duration = float(parts[2]), float(parts[3])
            if len(parts) > 5 and parts[5].upper() != "NA":
                float(parts[5])
            plain = len(parts) >= 5 and 0.0 <= start < inf and 0.0 <= duration < inf
        except (ValueError, IndexError):
            plain = False
        if not plain:
            _, _, start, duration, _, _ = ctm_fields(parts, ctm_path, number)
        if parts[0] != key[0] or parts[1] != key[1]:
            key = (parts[0], parts[1])
            channel = by_channel.get(key)
        if channel is None:
            if not allow_extra:
                unknown = unknown or EarmarkError(
                    f"no stm segment for file {key[0]!r} channel {key[1]!r}",
                    file=str(ctm_path),
                    line=number,
                    field="file",
                    hint="fix the names, or pass --exclude-unmatched to list and skip them",
                )
            unmatched[key] = unmatched.get(key, 0) + 1
            continue
        chosen, inside = channel.segment_for(start + duration / 2)
        if not inside:
            outside[chosen] = outside.get(chosen, 0) + 1
        add_segment(chosen)
        add_start(start)
        add_word(intern(parts[4]))
    if not out.word and not unmatched and unknown is None:
        raise no_words(ctm_path)
    if unknown is not None:
        raise unknown
    return out
