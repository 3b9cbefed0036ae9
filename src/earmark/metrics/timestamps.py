"""Timestamp accuracy: how far hypothesis word and segment boundaries sit from the reference's.

Seed 000 records timestamps but a transcript can be word-perfect with every boundary a
second late (subtitles out of sync, a forced aligner that drifted). This module pairs
hypothesis units with reference units and measures the start and end offsets of each pair,
in seconds, `hypothesis - reference` (positive: the hypothesis is late).

Pairing rules (deterministic; see `docs/long_form.md`, "Timestamp accuracy"):

- **words** are paired by the text alignment earmark already computes (`metrics.align`),
  never by time: only correctly recognised words (alignment hits) are paired, so a
  boundary error is never confused with a recognition error. Each timed word is
  normalised on its own with the normaliser's primary view (so cross-word rewrites such
  as en-v1's `one two` -> `12` do not apply) and compared whole; a word that normalises
  to nothing (punctuation) is left out and counted as `dropped`.
- **segments** are paired one-to-one by **maximal overlap** (default): among all
  (reference, hypothesis) pairs sharing time (> 0 s), the pair sharing the most is taken
  first, then the next among unpaired segments, and so on (ties: earlier reference, then
  earlier hypothesis). The named alternative, `rule="midpoint"`, pairs a hypothesis
  segment only with a reference segment `[start, end)` holding its midpoint, closest
  midpoints first. Overlap is the default because segmenters cut differently: a
  hypothesis segment covering most of a reference sentence is its counterpart even when
  its midpoint slipped past the reference's end. Segment text is not compared.

Summaries are of absolute offsets (mean, median, share within 100 ms and 200 ms, both
inclusive), plus the signed mean (a systematic lead or lag). Offsets travel as tuples
that only concatenate (`a + b`), so a corpus median is taken over every pair, never a
median of per-recording medians.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from earmark.errors import EarmarkError
from earmark.metrics.alignment import align
from earmark.metrics.long_form import Segment, TimedText, parse_segments
from earmark.text import Normalizer, get_normalizer

SegmentRule = Literal["overlap", "midpoint"]

#: Thresholds of the `within` shares, in seconds (inclusive).
THRESHOLDS = (0.1, 0.2)
#: Offsets are measured in float seconds; `1.1 - 1.0` is 0.10000000000000009, so a
#: threshold is compared with this much slack (a nanosecond, far below any clock).
_SLACK = 1e-9

__all__ = [
    "THRESHOLDS",
    "BoundaryOffsets",
    "OffsetSummary",
    "match_segments",
    "match_words",
    "segment_offsets",
    "word_offsets",
]


@dataclass(frozen=True, slots=True)
class OffsetSummary:
    """Absolute offsets of one boundary (start or end) over the paired units, in seconds.

    Every figure is None when nothing was paired (an empty mean is not 0)."""

    mean: float | None
    median: float | None
    mean_signed: float | None
    within_100ms: float | None
    within_200ms: float | None

    @classmethod
    def of(cls, offsets: Sequence[float]) -> OffsetSummary:
        if not offsets:
            return cls(None, None, None, None, None)
        absolute = [abs(d) for d in offsets]
        n = len(absolute)
        within = [sum(1 for d in absolute if d <= t + _SLACK) / n for t in THRESHOLDS]
        return cls(
            mean=math.fsum(absolute) / n,
            median=statistics.median(absolute),
            mean_signed=math.fsum(offsets) / n,
            within_100ms=within[0],
            within_200ms=within[1],
        )

    def as_dict(self) -> dict[str, float | None]:
        return {
            "mean": self.mean,
            "median": self.median,
            "mean_signed": self.mean_signed,
            "within_100ms": self.within_100ms,
            "within_200ms": self.within_200ms,
        }


@dataclass(frozen=True, slots=True)
class BoundaryOffsets:
    """Signed start and end offsets of paired units and the counts of unpaired ones.

    Only adds (`a + b` concatenates offsets and sums counts), like `ErrorCounts`, so
    recordings pool into one corpus figure without averaging averages.
    """

    start: tuple[float, ...] = ()
    end: tuple[float, ...] = ()
    unmatched_reference: int = 0
    unmatched_hypothesis: int = 0
    #: Timed words left out because they normalise to nothing (words only).
    dropped_reference: int = 0
    dropped_hypothesis: int = 0

    @classmethod
    def zero(cls) -> BoundaryOffsets:
        return cls()

    def __add__(self, other: BoundaryOffsets) -> BoundaryOffsets:
        if not isinstance(other, BoundaryOffsets):
            return NotImplemented
        return BoundaryOffsets(
            self.start + other.start,
            self.end + other.end,
            self.unmatched_reference + other.unmatched_reference,
            self.unmatched_hypothesis + other.unmatched_hypothesis,
            self.dropped_reference + other.dropped_reference,
            self.dropped_hypothesis + other.dropped_hypothesis,
        )

    @property
    def matched(self) -> int:
        return len(self.start)

    def as_dict(self) -> dict[str, object]:
        return {
            "matched": self.matched,
            "unmatched_reference": self.unmatched_reference,
            "unmatched_hypothesis": self.unmatched_hypothesis,
            "dropped_reference": self.dropped_reference,
            "dropped_hypothesis": self.dropped_hypothesis,
            "start": OffsetSummary.of(self.start).as_dict(),
            "end": OffsetSummary.of(self.end).as_dict(),
        }


def _offsets(
    reference: Sequence[TimedText],
    hypothesis: Sequence[TimedText],
    pairs: Sequence[tuple[int, int]],
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    start = tuple(hypothesis[j].start - reference[i].start for i, j in pairs)
    end = tuple(hypothesis[j].end - reference[i].end for i, j in pairs)
    return start, end


def _word_keys(normalizer: Normalizer, words: Sequence[TimedText], side: str) -> list[str]:
    """Each word normalised alone in the primary view, whitespace collapsed ("" = dropped)."""
    view = normalizer.primary_view
    keys = []
    for word in words:
        pair = normalizer.normalize_pair(word.text, word.text)[view]
        text = pair.reference if side == "reference" else pair.hypothesis
        if text is None:
            raise EarmarkError(
                f"normaliser {normalizer.name!r} gave no {view!r} view: {pair.null_reason}",
                field="normalizer",
                hint="timestamp scoring needs a primary view that is always available",
            )
        keys.append(" ".join(text.split()))
    return keys


def match_words(
    reference_words: Sequence[Segment],
    hypothesis_words: Sequence[Segment],
    normalizer_name: str,
) -> tuple[list[tuple[int, int]], int, int]:
    """Pairs `(reference index, hypothesis index)` of correctly recognised words.

    Returns the pairs in alignment order and the numbers of reference and hypothesis words
    dropped because they normalise to nothing. Words are taken in the order given (the
    order they are spoken); their times play no part in the pairing.

    >>> match_words([[0, .5, "Hello,"], [.5, 1, "big"], [1, 2, "world"]],
    ...             [[0, .4, "hello"], [.6, 1.1, "bag"], [1.1, 2, "world!"]], "en-v1")
    ([(0, 0), (2, 2)], 0, 0)
    """
    normalizer = get_normalizer(normalizer_name)
    reference = parse_segments(reference_words, field="reference_words")
    hypothesis = parse_segments(hypothesis_words, field="hypothesis_words")
    ref_keys = _word_keys(normalizer, reference, "reference")
    hyp_keys = _word_keys(normalizer, hypothesis, "hypothesis")
    ref_kept = [i for i, k in enumerate(ref_keys) if k]
    hyp_kept = [j for j, k in enumerate(hyp_keys) if k]
    alignment = align([ref_keys[i] for i in ref_kept], [hyp_keys[j] for j in hyp_kept])
    pairs = [
        (ref_kept[op.ref_index], hyp_kept[op.hyp_index])
        for op in alignment.ops
        if op.kind == "equal" and op.ref_index is not None and op.hyp_index is not None
    ]
    return pairs, len(reference) - len(ref_kept), len(hypothesis) - len(hyp_kept)


def word_offsets(
    reference_words: Sequence[Segment],
    hypothesis_words: Sequence[Segment],
    normalizer_name: str,
) -> BoundaryOffsets:
    """Start/end offsets of every correctly recognised word; unpaired words counted.

    `unmatched_*` counts kept words that are not hits (substituted, deleted, inserted).

    >>> w = word_offsets([[0, .5, "a"], [.5, 1, "b"]], [[.1, .5, "a"], [.5, .8, "c"]], "en-v1")
    >>> w.start, w.end, w.unmatched_reference, w.unmatched_hypothesis
    ((0.1,), (0.0,), 1, 1)
    """
    reference = parse_segments(reference_words, field="reference_words")
    hypothesis = parse_segments(hypothesis_words, field="hypothesis_words")
    pairs, dropped_ref, dropped_hyp = match_words(reference, hypothesis, normalizer_name)
    start, end = _offsets(reference, hypothesis, pairs)
    return BoundaryOffsets(
        start,
        end,
        unmatched_reference=len(reference) - dropped_ref - len(pairs),
        unmatched_hypothesis=len(hypothesis) - dropped_hyp - len(pairs),
        dropped_reference=dropped_ref,
        dropped_hypothesis=dropped_hyp,
    )


def _candidates(
    reference: Sequence[TimedText], hypothesis: Sequence[TimedText], rule: SegmentRule
) -> list[tuple[tuple[float, ...], int, int]]:
    """(sort key, i, j) for every pairable couple; the smallest key is paired first."""
    order = sorted(range(len(hypothesis)), key=lambda j: (hypothesis[j].start, j))
    starts = [hypothesis[j].start for j in order]
    max_end: list[float] = []
    running = -math.inf
    for j in order:
        running = max(running, hypothesis[j].end)
        max_end.append(running)
    found: list[tuple[tuple[float, ...], int, int]] = []
    for i, ref in enumerate(reference):
        # Hypothesis segments starting at or before the reference's end, scanned back while
        # some of them can still reach its start.
        k = bisect_right(starts, ref.end) - 1
        while k >= 0 and max_end[k] >= ref.start:
            j = order[k]
            hyp = hypothesis[j]
            if rule == "overlap":
                shared = min(ref.end, hyp.end) - max(ref.start, hyp.start)
                if shared > 0:
                    found.append(((-shared, i, j), i, j))
            elif ref.start <= hyp.midpoint < ref.end:
                found.append(((abs(hyp.midpoint - ref.midpoint), i, j), i, j))
            k -= 1
    return found


def match_segments(
    reference_segments: Sequence[Segment],
    hypothesis_segments: Sequence[Segment],
    *,
    rule: SegmentRule = "overlap",
) -> list[tuple[int, int]]:
    """One-to-one pairs `(reference index, hypothesis index)`, sorted by reference index.

    `overlap` (default): most shared time first; `midpoint`: a hypothesis segment whose
    midpoint lies in the reference's `[start, end)`, closest midpoints first. Greedy, so
    each segment is paired at most once (a long hypothesis segment spanning two reference
    sentences is the counterpart of the one it covers more).

    >>> match_segments([[0, 5, "a"], [5, 10, "b"]], [[0, 6, "x"], [6, 10, "y"]])
    [(0, 0), (1, 1)]
    >>> match_segments([[0, 5, "a"], [5, 10, "b"]], [[3, 10, "x"]])
    [(1, 0)]
    """
    if rule not in ("overlap", "midpoint"):
        raise EarmarkError(f"unknown rule {rule!r}", field="rule", hint="overlap or midpoint")
    reference = parse_segments(reference_segments, field="reference_segments")
    hypothesis = parse_segments(hypothesis_segments, field="hypothesis_segments")
    used_ref: set[int] = set()
    used_hyp: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for _, i, j in sorted(_candidates(reference, hypothesis, rule)):
        if i not in used_ref and j not in used_hyp:
            used_ref.add(i)
            used_hyp.add(j)
            pairs.append((i, j))
    return sorted(pairs)


def segment_offsets(
    reference_segments: Sequence[Segment],
    hypothesis_segments: Sequence[Segment],
    *,
    rule: SegmentRule = "overlap",
) -> BoundaryOffsets:
    """Start/end offsets of paired segments; segments left unpaired are counted.

    >>> s = segment_offsets([[0, 5, "a"], [5, 10, "b"]], [[0.25, 5.5, "a"]])
    >>> s.start, s.end, s.unmatched_reference, s.unmatched_hypothesis
    ((0.25,), (0.5,), 1, 0)
    """
    reference = parse_segments(reference_segments, field="reference_segments")
    hypothesis = parse_segments(hypothesis_segments, field="hypothesis_segments")
    pairs = match_segments(reference, hypothesis, rule=rule)
    start, end = _offsets(reference, hypothesis, pairs)
    return BoundaryOffsets(
        start,
        end,
        unmatched_reference=len(reference) - len(pairs),
        unmatched_hypothesis=len(hypothesis) - len(pairs),
    )
