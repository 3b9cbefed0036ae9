"""Streaming figures of one clip: time to first token, final latency, churn and stability.

A streaming recogniser shows partial results while audio is still arriving and a final
result once the audio has ended. What a user of a live caption sees is how soon the first
word appears, how long the final result takes after they stop speaking, and how much the
text on screen is rewritten on the way. This module turns one clip's record of partials
(`StreamTrace`) into those figures (`StreamFigures`), and sums clips into a
`StreamingTally` whose counts only add, so corpus churn and stability are ratios of summed
counts, never means of per-clip ratios. Pure: no clock, no I/O.

Definitions (docs/streaming.md gives worked examples):

- **Updates.** Only partials whose text differs from the partial before are counted: an
  engine polled every 10 ms and one polled every 160 ms show the same updates, so neither
  looks more stable for being asked more often. The final result is the last observation.
- **Units.** Raw engine text (no normaliser: a rewrite of casing is a rewrite on screen),
  split on whitespace (`word`), or every non-space character (`char`, for languages
  written without spaces between words).
- **Time to first token** (TTFT): the wall time from the start of the stream, and the
  audio time fed, of the first update (or else the final) holding at least one unit;
  None when nothing was ever said.
- **Final latency**: wall time from the moment the last audio chunk was sent (end of
  speech) to the final result; None when the engine did not say when input ended.
- **Kept.** A result keeps the units of an earlier one that it repeats at the start, in
  order; an earlier result's last unit also counts as kept when the later one only
  completes it (`hel` -> `hello`), since a partial cut mid-word is growth, not a rewrite.
- **Churn** (`consecutive`, the default): the units of each result that the next result
  does not keep (removed or changed), summed over the updates and the final, divided by
  the final's units. An append-only stream has churn 0; a stream that shows
  "a b c", then "a x c", then final "a x c d" revised 2 units ("b", "c") of a 4-unit final:
  0.5. The named alternative `against_final` counts, for each update, its units that the
  final does not keep (how much wrong text was shown, update by update), over the same
  denominator.
- **Stability**: the share of non-empty updates whose every unit the final keeps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

ChurnMode = Literal["consecutive", "against_final"]
Unit = Literal["word", "char"]
CHURN_MODES: tuple[ChurnMode, ...] = ("consecutive", "against_final")
UNITS: tuple[Unit, ...] = ("word", "char")
#: Updates a clip's record keeps by default (the first half and the last half of them).
MAX_RECORDED = 64


@dataclass(frozen=True)
class PartialResult:
    """One partial result: how much audio had been fed, when it arrived, what it said."""

    audio_seconds: float
    wall_seconds: float
    text: str

    def to_json(self) -> list[Any]:
        return [round(self.audio_seconds, 6), round(self.wall_seconds, 6), self.text]

    @classmethod
    def from_json(cls, value: Sequence[Any]) -> PartialResult:
        audio, wall, text = value
        return cls(float(audio), float(wall), str(text))


def updates(partials: Iterable[PartialResult]) -> tuple[PartialResult, ...]:
    """The partials whose text differs from the one before (the first of each run)."""
    kept: list[PartialResult] = []
    for partial in partials:
        if not kept or partial.text != kept[-1].text:
            kept.append(partial)
    return tuple(kept)


@dataclass(frozen=True)
class StreamTrace:
    """One clip's stream as the engine saw it. Times are seconds from the stream's start.

    `partials` are the updates (see `updates`); `updates_total` counts them all when the
    record keeps fewer (`max_recorded`), and `figures` then come from the full stream.
    """

    partials: tuple[PartialResult, ...]
    final_text: str
    final_wall_seconds: float
    #: When the last audio chunk was sent (end of speech); None when the engine cannot say.
    last_chunk_wall_seconds: float | None
    audio_seconds: float
    chunk_seconds: float | None = None
    max_recorded: int = MAX_RECORDED

    def __post_init__(self) -> None:
        last = self.last_chunk_wall_seconds
        if last is not None and last > self.final_wall_seconds:
            raise ValueError(
                f"the final result ({self.final_wall_seconds}) precedes the last chunk ({last})"
            )
        if self.max_recorded < 2:
            raise ValueError("max_recorded must keep at least the first and the last update")

    def to_json(self) -> dict[str, object]:
        """The clip's `stream` record: figures over every update, updates bounded."""
        every = updates(self.partials)
        kept = list(every)
        record: dict[str, object] = {
            "audio_seconds": round(self.audio_seconds, 6),
            "chunk_seconds": self.chunk_seconds,
            "last_chunk_wall_seconds": _rounded(self.last_chunk_wall_seconds),
            "final_wall_seconds": round(self.final_wall_seconds, 6),
            "final_text": self.final_text,
            "updates_total": len(every),
        }
        if len(every) > self.max_recorded:
            head = self.max_recorded - self.max_recorded // 2
            tail = self.max_recorded // 2
            kept = [*every[:head], *every[len(every) - tail :]]
            record["updates_omitted"] = {"after": head, "count": len(every) - head - tail}
        record["partials"] = [p.to_json() for p in kept]
        record["figures"] = {unit: stream_figures(self, unit=unit).to_json() for unit in UNITS}
        return record

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> StreamTrace:
        """Read back a record; its `partials` may be the bounded list (see `figures`)."""
        return cls(
            partials=tuple(PartialResult.from_json(p) for p in record.get("partials") or ()),
            final_text=str(record.get("final_text") or ""),
            final_wall_seconds=float(record["final_wall_seconds"]),
            last_chunk_wall_seconds=_optional_float(record.get("last_chunk_wall_seconds")),
            audio_seconds=float(record.get("audio_seconds") or 0.0),
            chunk_seconds=_optional_float(record.get("chunk_seconds")),
        )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def units_of(text: str, unit: Unit = "word") -> list[str]:
    """Whitespace-separated words, or every non-space character."""
    if unit == "word":
        return text.split()
    return [c for c in text if not c.isspace()]


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """How many leading units `a` and `b` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def kept(earlier: Sequence[str], later: Sequence[str]) -> int:
    """How many of `earlier`'s units `later` keeps: the common prefix, plus `earlier`'s
    last unit when `later` only completes it (`["a", "hel"]` -> `["a", "hello"]`: 2)."""
    n = common_prefix(earlier, later)
    if n == len(earlier) - 1 and n < len(later) and later[n].startswith(earlier[n]):
        n += 1
    return n


class _ChurnAndStability:
    """Churn and stability from the counts a clip's figures and a corpus tally both hold:
    rates at the edge, from summed counts (never a mean of per-clip rates)."""

    revised_units: int
    final_units: int
    prefix_updates: int
    nonempty_updates: int

    @property
    def churn(self) -> float | None:
        return self.revised_units / self.final_units if self.final_units else None

    @property
    def stability(self) -> float | None:
        return self.prefix_updates / self.nonempty_updates if self.nonempty_updates else None


@dataclass(frozen=True)
class StreamFigures(_ChurnAndStability):
    """One clip's streaming figures; the counts add across clips (`StreamingTally`)."""

    ttft_wall_seconds: float | None
    ttft_audio_seconds: float | None
    final_latency_seconds: float | None
    #: Units shown and later removed or changed (by the churn mode).
    revised_units: int
    final_units: int
    #: Non-empty updates that are a prefix of the final, of all non-empty updates.
    prefix_updates: int
    nonempty_updates: int

    def to_json(self) -> dict[str, object]:
        return {
            "ttft_wall_seconds": _rounded(self.ttft_wall_seconds),
            "ttft_audio_seconds": _rounded(self.ttft_audio_seconds),
            "final_latency_seconds": _rounded(self.final_latency_seconds),
            "revised_units": self.revised_units,
            "final_units": self.final_units,
            "prefix_updates": self.prefix_updates,
            "nonempty_updates": self.nonempty_updates,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> StreamFigures:
        return cls(
            ttft_wall_seconds=_optional_float(record.get("ttft_wall_seconds")),
            ttft_audio_seconds=_optional_float(record.get("ttft_audio_seconds")),
            final_latency_seconds=_optional_float(record.get("final_latency_seconds")),
            revised_units=int(record["revised_units"]),
            final_units=int(record["final_units"]),
            prefix_updates=int(record["prefix_updates"]),
            nonempty_updates=int(record["nonempty_updates"]),
        )


def stream_figures(
    trace: StreamTrace, *, churn: ChurnMode = "consecutive", unit: Unit = "word"
) -> StreamFigures:
    """The figures of one clip (definitions in the module docstring).

    >>> t = StreamTrace(
    ...     partials=(
    ...         PartialResult(0.16, 0.02, ""),
    ...         PartialResult(0.32, 0.05, "a b c"),
    ...         PartialResult(0.48, 0.07, "a x c"),
    ...     ),
    ...     final_text="a x c d",
    ...     final_wall_seconds=0.30,
    ...     last_chunk_wall_seconds=0.10,
    ...     audio_seconds=0.5,
    ... )
    >>> f = stream_figures(t)
    >>> (f.ttft_wall_seconds, f.ttft_audio_seconds, round(f.final_latency_seconds, 6))
    (0.05, 0.32, 0.2)
    >>> (f.revised_units, f.final_units, f.churn, f.stability)
    (2, 4, 0.5, 0.5)
    """
    if churn not in CHURN_MODES:
        raise ValueError(f"churn mode {churn!r} is not one of {', '.join(CHURN_MODES)}")
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r} is not one of {', '.join(UNITS)}")
    shown = updates(trace.partials)
    final = units_of(trace.final_text, unit)
    seen = [units_of(p.text, unit) for p in shown]
    ttft_wall: float | None = None
    ttft_audio: float | None = None
    for partial, words in zip(shown, seen, strict=True):
        if words:
            ttft_wall, ttft_audio = partial.wall_seconds, partial.audio_seconds
            break
    else:
        if final:
            ttft_wall, ttft_audio = trace.final_wall_seconds, trace.audio_seconds
    if churn == "consecutive":
        chain = [*seen, final]
        revised = sum(len(a) - kept(a, b) for a, b in zip(chain, chain[1:], strict=False))
    else:
        revised = sum(len(words) - kept(words, final) for words in seen)
    nonempty = [words for words in seen if words]
    prefix = sum(1 for words in nonempty if kept(words, final) == len(words))
    last = trace.last_chunk_wall_seconds
    return StreamFigures(
        ttft_wall_seconds=ttft_wall,
        ttft_audio_seconds=ttft_audio,
        final_latency_seconds=None if last is None else trace.final_wall_seconds - last,
        revised_units=revised,
        final_units=len(final),
        prefix_updates=prefix,
        nonempty_updates=len(nonempty),
    )


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolation percentile (numpy's default method); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class StreamingTally(_ChurnAndStability):
    """Streaming figures of many clips: latencies kept as samples, counts summed.

    Only adds (`a + b`, `zero()`), so a language's tally is the sum of its clips' and
    corpus churn is summed revisions over summed final units (micro), never a mean of
    per-clip churn.
    """

    clips: int = 0
    #: Clips that never showed a unit (no TTFT).
    silent_clips: int = 0
    ttft_wall_seconds: tuple[float, ...] = ()
    ttft_audio_seconds: tuple[float, ...] = ()
    final_latency_seconds: tuple[float, ...] = ()
    revised_units: int = 0
    final_units: int = 0
    prefix_updates: int = 0
    nonempty_updates: int = 0

    @classmethod
    def zero(cls) -> StreamingTally:
        return cls()

    @classmethod
    def of(cls, figures: StreamFigures) -> StreamingTally:
        def one(value: float | None) -> tuple[float, ...]:
            return () if value is None else (value,)

        return cls(
            clips=1,
            silent_clips=int(figures.ttft_wall_seconds is None),
            ttft_wall_seconds=one(figures.ttft_wall_seconds),
            ttft_audio_seconds=one(figures.ttft_audio_seconds),
            final_latency_seconds=one(figures.final_latency_seconds),
            revised_units=figures.revised_units,
            final_units=figures.final_units,
            prefix_updates=figures.prefix_updates,
            nonempty_updates=figures.nonempty_updates,
        )

    def __add__(self, other: StreamingTally) -> StreamingTally:
        if not isinstance(other, StreamingTally):
            return NotImplemented
        return StreamingTally(
            clips=self.clips + other.clips,
            silent_clips=self.silent_clips + other.silent_clips,
            ttft_wall_seconds=self.ttft_wall_seconds + other.ttft_wall_seconds,
            ttft_audio_seconds=self.ttft_audio_seconds + other.ttft_audio_seconds,
            final_latency_seconds=self.final_latency_seconds + other.final_latency_seconds,
            revised_units=self.revised_units + other.revised_units,
            final_units=self.final_units + other.final_units,
            prefix_updates=self.prefix_updates + other.prefix_updates,
            nonempty_updates=self.nonempty_updates + other.nonempty_updates,
        )

    def to_json(self) -> dict[str, object]:
        """Percentiles of the latencies, rates from the summed counts, and the counts."""

        def quantiles(name: str, values: tuple[float, ...]) -> dict[str, object]:
            return {
                f"{name}_p50_seconds": _rounded(percentile(values, 50)),
                f"{name}_p95_seconds": _rounded(percentile(values, 95)),
                f"{name}_clips": len(values),
            }

        return {
            "clips": self.clips,
            "silent_clips": self.silent_clips,
            **quantiles("ttft_wall", self.ttft_wall_seconds),
            **quantiles("ttft_audio", self.ttft_audio_seconds),
            **quantiles("final_latency", self.final_latency_seconds),
            "churn": self.churn,
            "revised_units": self.revised_units,
            "final_units": self.final_units,
            "stability": self.stability,
            "prefix_updates": self.prefix_updates,
            "nonempty_updates": self.nonempty_updates,
        }
