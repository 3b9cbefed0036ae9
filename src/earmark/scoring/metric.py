"""The results-schema metric object, computed from per-row counts.

One function shared by `earmark score`, `earmark run` and `earmark compare`, so a figure
means the same thing (same aggregation, same null rules, same bootstrap) wherever it
appears. The scorer keeps the typed `MetricResult`; compare still takes its JSON form.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from earmark.metrics.counts import ErrorCounts
from earmark.results.codec import JSONValue
from earmark.results.metric import MetricResult
from earmark.stats.bootstrap import bootstrap_ci
from earmark.stats.settings import DEFAULT_GENERATOR

METRIC_FOR_UNIT = {"word": "wer", "char": "cer"}
#: The mixed unit's metric (CJK characters + other words; SpeechIO's "MER"). Not `mer`:
#: that key already means the match error rate inside every metric object.
MIXED_METRIC = "mixed_er"
#: The optional figures a scorer computes only when asked (`ScoringOptions.extra_metrics`,
#: `earmark score --metrics`): each adds a key beside MER and WIL, so results without it
#: keep their bytes.
EXTRA_METRICS: tuple[str, ...] = ("wip",)


@dataclass(frozen=True)
class MetricSettings:
    """How every metric of a scoring run is drawn: aggregate, bootstrap and extra figures."""

    aggregate: str
    resamples: int
    seed: int
    level: float
    #: Word information preserved (jiwer's `wip`) beside MER and WIL.
    wip: bool = False
    #: The bootstrap's random stream (`earmark.stats.settings.GENERATORS`).
    generator: str = DEFAULT_GENERATOR


def metric_result(
    counts: np.ndarray,
    clusters: ArrayLike | None,
    settings: MetricSettings,
    *,
    null_reasons: Counter[str] | None = None,
    n_rows: int | None = None,
) -> MetricResult:
    """Value, CI, S/D/I/hits and unit totals of the rows in `counts` (n x 4: S, D, I, hits).

    `counts` holds only the rows where the view is available; `n_rows` counts all rows of
    the scope, so `n_unavailable` says how many were left out and why. A value that cannot
    be computed is None with a `null_reason`. `key_order` names the keys written, null
    ones included (a median that cannot be taken is `null`, not absent).
    """
    null_reasons = null_reasons or Counter()
    n_rows = len(counts) if n_rows is None else n_rows
    s, d, i, h = (int(x) for x in counts.sum(axis=0)) if len(counts) else (0, 0, 0, 0)
    totals = ErrorCounts(s, d, i, h)
    median, median_n, median_null = median_utterance(counts)
    keys = [*_COUNT_KEYS]
    if null_reasons:
        keys.append("unavailable_reasons")
    keys += ["median_per_utterance", _MEDIAN_SECOND[median_null is None]]
    value, null_reason = _value(counts, totals, settings.aggregate, null_reasons)
    ci = mer = wil = wip = ser = None
    if value is None:
        keys.append("null_reason")
    else:
        errors = counts[:, 0] + counts[:, 1] + counts[:, 2]
        keys += ["mer", "wil", *(["wip"] if settings.wip else []), "ser"]
        mer, wil = totals.match_error_rate(), totals.word_information_lost()
        wip = totals.word_information_preserved() if settings.wip else None
        ser = float(np.mean(errors > 0))
        if settings.resamples > 0:
            drawn = bootstrap_ci(
                errors,
                counts[:, 0] + counts[:, 1] + counts[:, 3],
                clusters=clusters,
                resamples=settings.resamples,
                seed=settings.seed,
                level=settings.level,
                aggregate="macro" if settings.aggregate == "macro" else "micro",
                generator=settings.generator,
            )
            if drawn.low is not None and drawn.high is not None:
                ci = (float(drawn.low), float(drawn.high))
    return MetricResult(
        value=value,
        ci=ci,
        substitutions=s,
        deletions=d,
        insertions=i,
        hits=h,
        ref_units=totals.ref_units,
        hyp_units=totals.hyp_units,
        aggregate=settings.aggregate,
        n_scored=int(len(counts)),
        n_unavailable=int(n_rows - len(counts)),
        unavailable_reasons=dict(sorted(null_reasons.items())) if null_reasons else None,
        median_per_utterance=median,
        median_per_utterance_n=median_n,
        median_per_utterance_null_reason=median_null,
        null_reason=null_reason,
        mer=mer,
        wil=wil,
        wip=wip,
        ser=ser,
        key_order=tuple(keys),
    )


def metric_object(
    counts: np.ndarray,
    clusters: ArrayLike | None,
    *,
    aggregate: str,
    resamples: int,
    seed: int,
    level: float,
    null_reasons: Counter[str] | None = None,
    n_rows: int | None = None,
) -> dict[str, JSONValue]:
    """`metric_result` as results.json's JSON object (what compare.json's blocks hold)."""
    settings = MetricSettings(aggregate, resamples, seed, level)
    return metric_result(
        counts, clusters, settings, null_reasons=null_reasons, n_rows=n_rows
    ).to_dict()


_COUNT_KEYS = (
    "value",
    "ci95",
    "substitutions",
    "deletions",
    "insertions",
    "hits",
    "ref_units",
    "hyp_units",
    "aggregate",
    "n_scored",
    "n_unavailable",
)
#: The median's second key: its row count when it was taken, else why not.
_MEDIAN_SECOND = {True: "median_per_utterance_n", False: "median_per_utterance_null_reason"}


def _value(
    counts: np.ndarray, totals: ErrorCounts, aggregate: str, null_reasons: Counter[str]
) -> tuple[float | None, str | None]:
    """The scope's rate (micro: summed counts; macro: mean per-row rate), or why none."""
    if len(counts) == 0:
        reasons = ", ".join(sorted(null_reasons))
        return None, f"no row has this view: {reasons}" if null_reasons else "no rows"
    if aggregate == "micro":
        value = totals.error_rate()
        if value is None:
            return None, "no reference units (every reference is empty)"
        return value, None
    errors = counts[:, 0] + counts[:, 1] + counts[:, 2]
    ref_units = counts[:, 0] + counts[:, 1] + counts[:, 3]
    hyp_units = counts[:, 0] + counts[:, 2] + counts[:, 3]
    rates = np.where(
        ref_units > 0,
        errors / np.maximum(ref_units, 1),
        np.where(hyp_units > 0, 1.0, 0.0),
    )
    return float(rates.mean()), None


def median_utterance(counts: np.ndarray) -> tuple[float | None, int | None, str | None]:
    """The median per-utterance rate beside the corpus rate (with its row count, or why it
    is null): a few long, badly decoded clips move the corpus rate, the median shows the
    typical clip. Only rows with reference units count (a rate over an empty reference is
    undefined)."""
    if len(counts) == 0:
        return None, None, "no rows"
    ref_units = counts[:, 0] + counts[:, 1] + counts[:, 3]
    keep = ref_units > 0
    if not keep.any():
        return None, None, "no row has reference units"
    errors = counts[keep, 0] + counts[keep, 1] + counts[keep, 2]
    return float(np.median(errors / ref_units[keep])), int(keep.sum()), None
