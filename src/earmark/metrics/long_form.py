"""Long recordings (seed 000, 30-120+ min): error rate by interval, omissions and repeats.

A long recording's reference comes as timed segments `[start, end, text]`; so does a
hypothesis that carries timestamps. One corpus-level rate hides the failures long-form
decoding is known for: a stretch of speech with no output (an *omission*), the same
segment emitted again and again (a *repeat*), and accuracy drifting over the hour. This
module attributes hypothesis text to reference intervals by time, scores each interval,
and bins the counts by time so stability over the recording can be plotted.

Attribution, not alignment: the sum of per-interval counts is *not* the count of aligning
the whole recording's text at once. Text attributed to the wrong interval (timestamp
drift) costs a deletion in one interval and an insertion in its neighbour, where a whole
alignment would match it. `LongFormResult.whole` carries the whole-text counts beside
the attributed ones so the gap is visible.

Rules (deterministic; see `docs/long_form.md`):

- **midpoint** (default): a hypothesis segment belongs to the reference interval
  `[start, end)` containing its time midpoint. Intervals are half-open, so a midpoint
  exactly on a shared boundary goes to the *later* interval; where reference intervals
  overlap, the containing interval that starts latest wins (then the later index).
- **overlap**: the interval sharing the most time with the segment; ties go to the later
  interval; a zero-length segment falls back to the midpoint rule.
- A segment attributed to no interval is a **gap output**. `gaps="nearest"` (default)
  appends its text to the nearest interval by time (ties: the later one), where it is
  aligned with everything else; `gaps="separate"` keeps it out of every interval and
  counts all its units as insertions of the recording (`LongFormResult.gap_counts`).
- An interval is **omitted** when its normalised reference has units and its normalised
  attributed hypothesis has none.
- A **repeat** is a hypothesis segment whose normalised text is non-empty and equal to
  that of the previous hypothesis segment in time order (`consecutive_duplicate`), or a
  segment whose units hold an n-gram loop (`loop`, `hallucination.repetition_loop`).

Units are the normaliser's primary view and first unit: characters for `zh-eval-v1`,
words for the others.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from earmark.errors import EarmarkError
from earmark.metrics.alignment import count_errors, count_errors_array
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.hallucination import repetition_loop
from earmark.text import Normalizer, get_normalizer

Rule = Literal["midpoint", "overlap"]
GapPolicy = Literal["nearest", "separate"]
RepeatKind = Literal["consecutive_duplicate", "loop"]

#: Above this many alignment cells (reference units x hypothesis units) the whole-text
#: alignment is skipped (its backtrace matrix would need ~cells/8 bytes).
MAX_WHOLE_CELLS = 2_000_000_000
WHOLE_TOO_LARGE = "alignment_too_large"

__all__ = [
    "MAX_WHOLE_CELLS",
    "WHOLE_TOO_LARGE",
    "GapOutput",
    "IntervalAssignment",
    "IntervalResult",
    "LongFormResult",
    "Repeat",
    "TimeBin",
    "TimedText",
    "assign_to_intervals",
    "error_rate_by_time",
    "find_repeats",
    "interval_counts",
    "parse_segments",
]


@dataclass(frozen=True, slots=True)
class TimedText:
    """One validated segment: `start <= end`, both finite and non-negative seconds."""

    start: float
    end: float
    text: str

    @property
    def midpoint(self) -> float:
        return (self.start + self.end) / 2.0


#: A timed segment as manifests and predictions carry it: `[start_seconds, end_seconds, text]`
#: (or an already validated `TimedText`).
Segment = Sequence[object] | TimedText


def parse_segments(segments: Sequence[Segment], *, field: str = "segments") -> list[TimedText]:
    """Validate `[start, end, text]` lists (as JSON gives them) into `TimedText`s, in order.

    A malformed segment is a user error (the manifest or the engine output is wrong), so
    it raises `EarmarkError` naming the segment, not a bare `ValueError` deep inside.

    >>> parse_segments([[0, 1.5, "hi"]])
    [TimedText(start=0.0, end=1.5, text='hi')]
    """
    parsed: list[TimedText] = []
    for index, segment in enumerate(segments):
        where = f"{field}[{index}]"
        if isinstance(segment, TimedText):
            parsed.append(segment)
            continue
        if isinstance(segment, str | bytes) or len(segment) != 3:
            raise EarmarkError(
                f"segment must be [start, end, text], got {segment!r}",
                field=where,
                hint="write each segment as [start_seconds, end_seconds, text]",
            )
        start, end, text = segment[0], segment[1], segment[2]
        if not isinstance(text, str):
            raise EarmarkError(f"segment text must be a string, got {text!r}", field=where)
        times: list[float] = []
        for value in (start, end):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise EarmarkError(f"segment time must be a number, got {value!r}", field=where)
            if not math.isfinite(value) or value < 0:
                raise EarmarkError(
                    f"segment time must be finite and >= 0, got {value!r}", field=where
                )
            times.append(float(value))
        if times[1] < times[0]:
            raise EarmarkError(
                f"segment ends before it starts ({times[0]} > {times[1]})",
                field=where,
                hint="segments are [start_seconds, end_seconds, text]",
            )
        parsed.append(TimedText(times[0], times[1], text))
    return parsed


@dataclass(frozen=True, slots=True)
class IntervalAssignment:
    """Which reference interval each hypothesis segment went to.

    `texts[i]` is the hypothesis text attributed to reference interval i (segments joined
    by a space in time order); `owner[j]` is the interval of hypothesis segment j (input
    order), or None for a gap output; `unassigned` lists the gap outputs' indices, in
    time order. Under `gaps="nearest"` gap outputs also appear in `texts` (and `owner`
    then names the nearest interval) while `unassigned` still lists them.
    """

    texts: tuple[str, ...]
    owner: tuple[int | None, ...]
    unassigned: tuple[int, ...]


class _IntervalIndex:
    """Reference intervals sorted by start, for O(log n) midpoint and nearest look-ups."""

    def __init__(self, intervals: Sequence[TimedText]) -> None:
        self.intervals = intervals
        self.order = sorted(range(len(intervals)), key=lambda i: (intervals[i].start, i))
        self.starts = [intervals[i].start for i in self.order]
        # Running maximum of ends (and the later interval achieving it) over the sorted order.
        self.max_end: list[float] = []
        self.max_end_at: list[int] = []
        best, best_at = -math.inf, -1
        for i in self.order:
            if intervals[i].end >= best:
                best, best_at = intervals[i].end, i
            self.max_end.append(best)
            self.max_end_at.append(best_at)

    def containing(self, time: float) -> int | None:
        """The interval whose [start, end) holds `time`, latest start first; None if none."""
        k = bisect_right(self.starts, time) - 1
        while k >= 0 and self.max_end[k] > time:
            i = self.order[k]
            if time < self.intervals[i].end:
                return i
            k -= 1
        return None

    def nearest(self, time: float) -> int | None:
        """The interval closest to `time` (a gap point); ties go to the later interval."""
        if not self.order:
            return None
        k = bisect_right(self.starts, time) - 1
        left = self.max_end_at[k] if k >= 0 else None
        right = self.order[k + 1] if k + 1 < len(self.order) else None
        if left is None:
            return right
        if right is None:
            return left
        left_gap = time - self.intervals[left].end
        right_gap = self.intervals[right].start - time
        return right if right_gap <= left_gap else left

    def most_overlap(self, segment: TimedText) -> int | None:
        """The interval sharing the most time with `segment`; ties to the later interval."""
        best, best_key = None, (0.0, -math.inf, -1)
        k = bisect_right(self.starts, segment.end) - 1
        # Every interval starting before the segment's end may overlap it; stop once the
        # running maximum end cannot reach the segment's start.
        while k >= 0 and self.max_end[k] > segment.start:
            i = self.order[k]
            interval = self.intervals[i]
            shared = min(interval.end, segment.end) - max(interval.start, segment.start)
            key = (shared, interval.start, i)
            if shared > 0 and key > best_key:
                best, best_key = i, key
            k -= 1
        return best


def _time_order(segments: Sequence[TimedText]) -> list[int]:
    return sorted(range(len(segments)), key=lambda j: (segments[j].start, segments[j].end, j))


def assign_to_intervals(
    reference_segments: Sequence[Segment],
    hypothesis_segments: Sequence[Segment],
    *,
    rule: Rule = "midpoint",
    gaps: GapPolicy = "nearest",
) -> IntervalAssignment:
    """Attribute each hypothesis segment to one reference interval by time.

    Whole segments are attributed (text is never split by time: word timings inside a
    segment are not known). See the module docstring for the tie rules.

    >>> ref = [[0, 10, "a b"], [10, 20, "c d"]]
    >>> assign_to_intervals(ref, [[8, 12, "x"], [2, 4, "y"]]).texts
    ('y', 'x')
    >>> a = assign_to_intervals([[0, 5, "a"], [10, 15, "b"]], [[6, 7, "z"]], gaps="separate")
    >>> a.texts, a.unassigned
    (('', ''), (0,))
    """
    if rule not in ("midpoint", "overlap"):
        raise EarmarkError(f"unknown rule {rule!r}", field="rule", hint="midpoint or overlap")
    if gaps not in ("nearest", "separate"):
        raise EarmarkError(
            f"unknown gaps policy {gaps!r}", field="gaps", hint="nearest or separate"
        )
    reference = parse_segments(reference_segments, field="reference_segments")
    hypothesis = parse_segments(hypothesis_segments, field="hypothesis_segments")
    index = _IntervalIndex(reference)
    owner: list[int | None] = [None] * len(hypothesis)
    unassigned: list[int] = []
    parts: list[list[str]] = [[] for _ in reference]
    for j in _time_order(hypothesis):
        segment = hypothesis[j]
        if rule == "overlap" and segment.end > segment.start:
            target = index.most_overlap(segment)
        else:
            target = index.containing(segment.midpoint)
        if target is None:
            unassigned.append(j)
            if gaps == "nearest":
                target = index.nearest(segment.midpoint)
        owner[j] = target
        if target is not None:
            parts[target].append(segment.text)
    texts = tuple(" ".join(p for p in chunk if p.strip()) for chunk in parts)
    if gaps == "separate":
        for j in unassigned:
            owner[j] = None
    return IntervalAssignment(texts, tuple(owner), tuple(unassigned))


@dataclass(frozen=True, slots=True)
class IntervalResult:
    """One reference interval: its time span, its counts, and whether output was absent."""

    index: int
    start: float
    end: float
    reference: str
    hypothesis: str
    counts: ErrorCounts
    omitted: bool


@dataclass(frozen=True, slots=True)
class GapOutput:
    """A hypothesis segment attributed to no interval by the rule (output in a gap)."""

    segment_index: int
    start: float
    end: float
    text: str
    units: int
    assigned_to: int | None
    """The nearest interval it was appended to (`gaps="nearest"`), else None."""


@dataclass(frozen=True, slots=True)
class Repeat:
    """A repeated hypothesis segment (`consecutive_duplicate`) or one holding a loop."""

    kind: RepeatKind
    segment_index: int
    start: float
    end: float
    text: str


@dataclass(frozen=True, slots=True)
class LongFormResult:
    """Interval-attributed counts of one recording, plus omissions, gap outputs, repeats.

    `total` is the attributed total: the sum of interval counts plus `gap_counts`
    (insertions of gap outputs that joined no interval: all of them under
    `gaps="separate"`; under `"nearest"` only when the recording has no interval). `whole`
    aligns the whole recording's text at once (None with `whole_null_reason` when too
    large); `total.errors >= whole.errors` usually, as attribution cannot match text
    across interval boundaries.
    """

    normalizer: str
    view: str
    unit: str
    rule: str
    gaps: str
    intervals: tuple[IntervalResult, ...]
    gap_outputs: tuple[GapOutput, ...]
    gap_counts: ErrorCounts
    repeats: tuple[Repeat, ...]
    whole: ErrorCounts | None
    whole_null_reason: str | None = None

    @property
    def total(self) -> ErrorCounts:
        return sum((i.counts for i in self.intervals), ErrorCounts.zero()) + self.gap_counts

    @property
    def omitted_intervals(self) -> int:
        return sum(1 for i in self.intervals if i.omitted)

    @property
    def speech_intervals(self) -> int:
        """Intervals whose normalised reference has units (the denominator of omissions)."""
        return sum(1 for i in self.intervals if i.counts.ref_units > 0)

    def error_rate(self) -> float | None:
        """Attributed (S + D + I) / N_ref over the recording; None without reference units."""
        return self.total.error_rate()


def _primary_view_pairs(
    normalizer: Normalizer, pairs: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    view = normalizer.primary_view
    rendered: list[tuple[str, str]] = []
    for reference, hypothesis in pairs:
        pair = normalizer.normalize_pair(reference, hypothesis)[view]
        if pair.reference is None or pair.hypothesis is None:
            raise EarmarkError(
                f"normaliser {normalizer.name!r} gave no {view!r} view: {pair.null_reason}",
                field="normalizer",
                hint="long-form scoring needs a primary view that is always available",
            )
        rendered.append((pair.reference, pair.hypothesis))
    return rendered


def _tokens(text: str, unit: str) -> list[str]:
    return text.split() if unit == "word" else list(text)


def find_repeats(
    hypothesis_segments: Sequence[Segment],
    normalizer_name: str,
    *,
    max_n: int | None = None,
    min_repeats: int = 4,
) -> list[Repeat]:
    """Consecutive duplicate segments and in-segment n-gram loops, in time order.

    Texts are compared after the normaliser's primary view, so `Thank you.` repeated as
    `thank you` counts. Empty normalised segments are never duplicates of each other.
    One segment can be reported under both kinds.

    >>> [r.kind for r in find_repeats([[0, 1, "Hi there."], [1, 2, "hi there"]], "en-v1")]
    ['consecutive_duplicate']
    """
    normalizer = get_normalizer(normalizer_name)
    unit = normalizer.units[0]
    segments = parse_segments(hypothesis_segments, field="hypothesis_segments")
    order = _time_order(segments)
    rendered = _primary_view_pairs(normalizer, [(segments[j].text, "") for j in order])
    repeats: list[Repeat] = []
    previous: str | None = None
    for j, (text, _) in zip(order, rendered, strict=True):
        segment = segments[j]
        # Compare token sequences so whitespace differences never hide a duplicate.
        key = " ".join(_tokens(text, unit))
        if key and key == previous:
            repeats.append(
                Repeat("consecutive_duplicate", j, segment.start, segment.end, segment.text)
            )
        if repetition_loop(_tokens(text, unit), max_n=max_n, min_repeats=min_repeats):
            repeats.append(Repeat("loop", j, segment.start, segment.end, segment.text))
        previous = key
    return repeats


def interval_counts(
    reference_segments: Sequence[Segment],
    hypothesis_segments: Sequence[Segment],
    normalizer_name: str,
    *,
    rule: Rule = "midpoint",
    gaps: GapPolicy = "nearest",
    whole_text: bool = True,
) -> LongFormResult:
    """Score one recording interval by interval in the normaliser's primary view and unit.

    Each interval's reference and attributed hypothesis are normalised as a pair and
    aligned (`count_errors_array`). `whole_text=False` skips the whole-recording
    alignment (then `whole` is None with reason `not_requested`).

    >>> ref = [[0, 5, "good morning"], [5, 10, "dear friends"], [10, 15, "welcome back"]]
    >>> hyp = [[0, 5, "good morning"], [10, 15, "welcome back"]]
    >>> r = interval_counts(ref, hyp, "en-v1")
    >>> r.omitted_intervals, r.total.deletions, r.error_rate()
    (1, 2, 0.3333333333333333)
    """
    normalizer = get_normalizer(normalizer_name)
    unit = normalizer.units[0]
    reference = parse_segments(reference_segments, field="reference_segments")
    hypothesis = parse_segments(hypothesis_segments, field="hypothesis_segments")
    assignment = assign_to_intervals(reference, hypothesis, rule=rule, gaps=gaps)

    pairs = _primary_view_pairs(
        normalizer, [(r.text, h) for r, h in zip(reference, assignment.texts, strict=True)]
    )
    rows = count_errors_array(pairs, units="words" if unit == "word" else "given").tolist()
    intervals = tuple(
        IntervalResult(
            index=i,
            start=segment.start,
            end=segment.end,
            reference=segment.text,
            hypothesis=assignment.texts[i],
            counts=(counts := ErrorCounts(*row)),
            omitted=counts.ref_units > 0 and counts.hyp_units == 0,
        )
        for i, (segment, row) in enumerate(zip(reference, rows, strict=True))
    )

    gap_texts = _primary_view_pairs(
        normalizer, [("", hypothesis[j].text) for j in assignment.unassigned]
    )
    gap_outputs = tuple(
        GapOutput(
            segment_index=j,
            start=hypothesis[j].start,
            end=hypothesis[j].end,
            text=hypothesis[j].text,
            units=len(_tokens(hyp_view, unit)),
            assigned_to=assignment.owner[j],
        )
        for j, (_, hyp_view) in zip(assignment.unassigned, gap_texts, strict=True)
    )
    # Gap outputs that joined no interval (`gaps="separate"`, or a recording with no
    # reference interval at all) are insertions of the recording: no unit goes unscored.
    gap_counts = ErrorCounts(insertions=sum(g.units for g in gap_outputs if g.assigned_to is None))

    whole: ErrorCounts | None = None
    whole_reason: str | None = "not_requested"
    if whole_text:
        whole, whole_reason = _whole_counts(normalizer, unit, reference, hypothesis)

    return LongFormResult(
        normalizer=normalizer.name,
        view=normalizer.primary_view,
        unit=unit,
        rule=rule,
        gaps=gaps,
        intervals=intervals,
        gap_outputs=gap_outputs,
        gap_counts=gap_counts,
        repeats=tuple(find_repeats(hypothesis, normalizer_name)),
        whole=whole,
        whole_null_reason=whole_reason,
    )


def _whole_counts(
    normalizer: Normalizer,
    unit: str,
    reference: Sequence[TimedText],
    hypothesis: Sequence[TimedText],
) -> tuple[ErrorCounts | None, str | None]:
    """Counts of aligning the whole recording's text (segments joined in time order)."""
    ref_text = " ".join(reference[i].text for i in _time_order(reference))
    hyp_text = " ".join(hypothesis[j].text for j in _time_order(hypothesis))
    [(ref_view, hyp_view)] = _primary_view_pairs(normalizer, [(ref_text, hyp_text)])
    ref_tokens, hyp_tokens = _tokens(ref_view, unit), _tokens(hyp_view, unit)
    if len(ref_tokens) * len(hyp_tokens) > MAX_WHOLE_CELLS:
        return None, WHOLE_TOO_LARGE
    return count_errors(ref_tokens, hyp_tokens), None


@dataclass(frozen=True, slots=True)
class TimeBin:
    """Counts of the intervals whose midpoint falls in `[start, end)` (and gap outputs)."""

    start: float
    end: float
    counts: ErrorCounts
    intervals: int
    omitted: int

    def error_rate(self) -> float | None:
        return self.counts.error_rate()

    def as_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "end": self.end,
            "intervals": self.intervals,
            "omitted": self.omitted,
            "error_rate": self.error_rate(),
            **self.counts.as_dict(),
        }


def error_rate_by_time(
    results: LongFormResult | Sequence[LongFormResult], bin_seconds: float
) -> list[TimeBin]:
    """Counts and rate per time bin `[k*b, (k+1)*b)` from the start of the recording.

    An interval goes to the bin holding its midpoint (like segments to intervals); gap
    outputs that joined no interval add insertions to the bin holding their midpoint. Several
    recordings pool by offset (minute 10-20 of every recording together), rates from
    summed counts. Bins run from 0 to the last occupied bin; an empty bin has rate None.

    >>> r = interval_counts([[0, 5, "a b"], [12, 14, "c d"]], [[0, 5, "a b"]], "en-v1")
    >>> [b.error_rate() for b in error_rate_by_time(r, 10)]
    [0.0, 1.0]
    """
    if isinstance(bin_seconds, bool) or not bin_seconds > 0 or not math.isfinite(bin_seconds):
        raise EarmarkError(
            f"bin width must be a positive number of seconds, got {bin_seconds!r}",
            field="bin_seconds",
            hint="e.g. 600 for 10-minute bins",
        )
    recordings = [results] if isinstance(results, LongFormResult) else list(results)
    counts: dict[int, ErrorCounts] = {}
    n_intervals: dict[int, int] = {}
    n_omitted: dict[int, int] = {}

    def bin_of(start: float, end: float) -> int:
        return int(((start + end) / 2.0) // bin_seconds)

    for result in recordings:
        for interval in result.intervals:
            k = bin_of(interval.start, interval.end)
            counts[k] = counts.get(k, ErrorCounts.zero()) + interval.counts
            n_intervals[k] = n_intervals.get(k, 0) + 1
            n_omitted[k] = n_omitted.get(k, 0) + int(interval.omitted)
        for gap in result.gap_outputs:
            if gap.assigned_to is None:
                k = bin_of(gap.start, gap.end)
                counts[k] = counts.get(k, ErrorCounts.zero()) + ErrorCounts(insertions=gap.units)
    if not counts:
        return []
    return [
        TimeBin(
            start=k * bin_seconds,
            end=(k + 1) * bin_seconds,
            counts=counts.get(k, ErrorCounts.zero()),
            intervals=n_intervals.get(k, 0),
            omitted=n_omitted.get(k, 0),
        )
        for k in range(max(counts) + 1)
    ]
