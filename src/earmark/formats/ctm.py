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

from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.rows import OK, ReadResult, ScoringRow
from earmark.formats.sclite import content_lines, read_time
from earmark.formats.stm import StmSegment, read_stm
from earmark.results.codec import JSONValue


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
    out: list[CtmWord] = []
    for number, parts in content_lines(path):
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
        out.append(CtmWord(number, parts[0], parts[1], start, duration, parts[4], confidence))
    if not out:
        raise EarmarkError("no records (the file has no ctm words)", file=str(path))
    return out


@dataclass(frozen=True)
class _Channel:
    """One file and channel's segments sorted by start, for midpoint look-ups."""

    order: list[int]
    starts: list[float]
    ends: list[float]
    longest: float
    #: Per sorted position: the position, at or before it, of the latest-ending segment.
    latest_end: list[int]

    @classmethod
    def build(cls, segments: list[StmSegment], indices: list[int]) -> _Channel:
        order = sorted(indices, key=lambda k: (segments[k].start, segments[k].end))
        starts = [segments[k].start for k in order]
        ends = [segments[k].end for k in order]
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
        time, the earlier one on a tie.
        """
        at = bisect_right(self.starts, mid) - 1
        last = len(self.order) - 1
        pos = at
        while pos >= 0 and self.starts[pos] >= mid - self.longest:
            if mid < self.ends[pos] or (pos == last and mid == self.ends[pos]):
                return self.order[pos], True
            pos -= 1
        if at < 0:
            return self.order[0], False
        before = self.latest_end[at]
        if at == last or mid - self.ends[before] <= self.starts[at + 1] - mid:
            return self.order[before], False
        return self.order[at + 1], False


def pair_stm_ctm(ctm_path: Path, stm_path: Path, *, allow_extra: bool = False) -> ReadResult:
    """Assign ctm words to stm segments by midpoint (see the module docstring)."""
    segments = read_stm(stm_path)
    words = read_ctm(ctm_path)
    indices: dict[tuple[str, str], list[int]] = {}
    for k, seg in enumerate(segments):
        indices.setdefault((seg.file, seg.channel), []).append(k)
    by_channel = {key: _Channel.build(segments, ks) for key, ks in indices.items()}
    assigned: dict[int, list[CtmWord]] = {k: [] for k in range(len(segments))}
    outside: dict[int, int] = {}
    unmatched: dict[tuple[str, str], int] = {}
    for w in words:
        key = (w.file, w.channel)
        if key not in by_channel:
            if not allow_extra:
                raise EarmarkError(
                    f"no stm segment for file {w.file!r} channel {w.channel!r}",
                    file=str(ctm_path),
                    line=w.line,
                    field="file",
                    hint="fix the names, or pass --exclude-unmatched to list and skip them",
                )
            unmatched[key] = unmatched.get(key, 0) + 1
            continue
        chosen, inside = by_channel[key].segment_for(w.midpoint)
        if not inside:
            outside[chosen] = outside.get(chosen, 0) + 1
        assigned[chosen].append(w)
    rows: list[ScoringRow] = []
    excluded: list[dict[str, str]] = []
    for k, seg in enumerate(segments):
        seg_words = sorted(assigned[k], key=lambda w: (w.start, w.line))
        if seg.ignored:
            excluded.append(
                {
                    "id": seg.id,
                    "reason": "ignore_time_segment_in_scoring",
                    "hypothesis_words_dropped": str(len(seg_words)),
                }
            )
            continue
        extra: dict[str, JSONValue] = {
            "speaker": seg.speaker,
            "file": seg.file,
            "channel": seg.channel,
            "start": seg.start,
            "end": seg.end,
        }
        if seg.label is not None:
            extra["label"] = seg.label
        if outside.get(k):
            extra["ctm_words_outside"] = outside[k]
        rows.append(
            ScoringRow(
                id=seg.id,
                reference=" ".join(seg.words),
                hypothesis=" ".join(w.word for w in seg_words),
                status=OK,
                extra=extra,
            )
        )
    for (file, channel), n in sorted(unmatched.items()):
        excluded.append(
            {"id": f"{file}-{channel}", "reason": "no_reference", "hypothesis_words": str(n)}
        )
    if not rows:
        raise EarmarkError("every stm segment is ignored: nothing to score", file=str(stm_path))
    return ReadResult(
        rows, excluded, source_files=[str(ctm_path), str(stm_path)], formats=["ctm", "stm"]
    )
