"""Corpus rates from per-utterance counts: micro by default, macro only when asked and labelled.

WER/CER is Σ(S+D+I) / Σ N_ref over the whole corpus (micro). The mean of per-utterance
rates (macro) answers a different question and is never reported under the plain name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from earmark.metrics.counts import ErrorCounts

Aggregate = Literal["micro", "macro"]

__all__ = [
    "Aggregate",
    "RateSummary",
    "macro_rate",
    "micro_rate",
    "sentence_error_rate",
    "summarize",
]


def micro_rate(counts: Iterable[ErrorCounts]) -> float | None:
    """Σ(S+D+I) / Σ N_ref; None when the corpus has no reference unit.

    >>> micro_rate([ErrorCounts(substitutions=1, hits=1), ErrorCounts(hits=8)])
    0.1
    """
    return sum(counts, ErrorCounts.zero()).error_rate()


def macro_rate(counts: Iterable[ErrorCounts]) -> float | None:
    """Mean of `ErrorCounts.utterance_rate()` (empty reference: 0 if hyp empty, else 1).

    None when there are no utterances.

    >>> macro_rate([ErrorCounts(substitutions=1, hits=1), ErrorCounts(hits=8)])
    0.25
    """
    total = 0.0
    n = 0
    for row in counts:
        total += row.utterance_rate()
        n += 1
    return total / n if n else None


def sentence_error_rate(counts: Iterable[ErrorCounts]) -> float | None:
    """Share of utterances with at least one error (S+D+I > 0); None for no utterances."""
    wrong = 0
    n = 0
    for row in counts:
        wrong += row.errors > 0
        n += 1
    return wrong / n if n else None


@dataclass(frozen=True, slots=True)
class RateSummary:
    """A corpus rate with the totals it came from, so any figure can be re-derived.

    `value` is the micro rate or, when `aggregate == "macro"`, the macro mean; `label`
    names which. `reason` says why `value` is None.
    """

    value: float | None
    aggregate: Aggregate
    totals: ErrorCounts
    n_utterances: int
    mer: float | None
    wil: float | None
    ser: float | None
    reason: str | None = None

    @property
    def label(self) -> str:
        if self.aggregate == "micro":
            return "micro (corpus) rate"
        return "macro mean of per-utterance rates"


def summarize(counts: Iterable[ErrorCounts], aggregate: Aggregate = "micro") -> RateSummary:
    """One pass over the counts: the headline rate plus MER, WIL and SER from the totals.

    >>> s = summarize([ErrorCounts(substitutions=1, hits=1), ErrorCounts(hits=8)], "macro")
    >>> s.value, s.label, s.totals.ref_units
    (0.25, 'macro mean of per-utterance rates', 10)
    """
    if aggregate not in ("micro", "macro"):
        raise ValueError(f"aggregate must be 'micro' or 'macro', not {aggregate!r}")
    totals = ErrorCounts.zero()
    macro_sum = 0.0
    wrong = 0
    n = 0
    for row in counts:
        totals = totals + row
        macro_sum += row.utterance_rate()
        wrong += row.errors > 0
        n += 1
    reason: str | None = None
    if aggregate == "micro":
        value = totals.error_rate()
        if value is None:
            reason = "no utterances" if n == 0 else "no reference units (every reference empty)"
    else:
        value = macro_sum / n if n else None
        if value is None:
            reason = "no utterances"
    return RateSummary(
        value=value,
        aggregate=aggregate,
        totals=totals,
        n_utterances=n,
        mer=totals.match_error_rate(),
        wil=totals.word_information_lost(),
        ser=wrong / n if n else None,
        reason=reason,
    )
