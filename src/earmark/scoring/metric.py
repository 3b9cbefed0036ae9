"""The results-schema metric object, computed from per-row counts.

One function shared by `earmark score`, `earmark run` and `earmark compare`, so a figure
means the same thing (same aggregation, same null rules, same bootstrap) wherever it
appears. The scorer keeps the typed `MetricResult`; compare still takes its JSON form.

numpy is imported inside the functions that need it: a block of a few rows (a small file,
each speaker of a corpus of one-utterance speakers) is figured in plain Python, with the
same floats numpy gives (see `_row_figures`), so `--bootstrap 0` on a small file runs
without it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, Union

from earmark.metrics.counts import (
    ErrorCounts,
    match_error_rate,
    word_information_lost,
    word_information_preserved,
)
from earmark.results.codec import JSONValue
from earmark.results.metric import MetricResult
from earmark.stats.settings import DEFAULT_GENERATOR

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike

#: A scope's per-row counts: an (n x 4) array or rows of (S, D, I, hits).
Counts = Union["np.ndarray", Sequence[Sequence[int]]]  # noqa: UP007 - a quoted name

METRIC_FOR_UNIT = {"word": "wer", "char": "cer"}
#: The mixed unit's metric (CJK characters + other words; SpeechIO's "MER"). Not `mer`:
#: that key already means the match error rate inside every metric object.
MIXED_METRIC = "mixed_er"
#: The optional figures a scorer computes only when asked (`ScoringOptions.extra_metrics`,
#: `earmark score --metrics`): each adds a key beside MER and WIL, so results without it
#: keep their bytes.
EXTRA_METRICS: tuple[str, ...] = ("wip",)
#: Fewer rows than this are figured in Python: numpy sums fewer than 8 floats one after
#: the other (its pairwise sum starts at 8), so a macro mean comes out the same.
SMALL = 8
#: No row left out (shared, never changed).
_NO_REASONS: Counter[str] = Counter()


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


class _Figures(NamedTuple):
    """What a scope's rows give before any resampling."""

    totals: ErrorCounts
    median: tuple[float | None, int | None, str | None]
    value: float | None
    null_reason: str | None
    #: Share of rows with an error (None when there is no value).
    ser: float | None
    #: Whether every resample gives the value itself (see `_fixed`); asked only when
    #: drawing.
    alike: bool


def metric_result(
    counts: Counts,
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
    null_reasons = null_reasons or _NO_REASONS
    n_scored = len(counts)
    n_rows = n_scored if n_rows is None else n_rows
    if n_scored == 1:
        row = counts.tolist()[0] if hasattr(counts, "tolist") else list(counts[0])
        return one_row_result(row, settings, null_reasons, n_rows)
    return _block_result(counts, clusters, settings, null_reasons, n_rows)


def _block_result(
    counts: Counts,
    clusters: ArrayLike | None,
    settings: MetricSettings,
    null_reasons: Counter[str],
    n_rows: int,
) -> MetricResult:
    """`metric_result` of any number of rows: its figures in Python below `SMALL` rows,
    by numpy above."""
    n_scored = len(counts)
    if n_scored < SMALL:
        rows = counts.tolist() if hasattr(counts, "tolist") else [list(r) for r in counts]
        figures = _row_figures(rows, clusters, settings.aggregate, null_reasons)
    else:
        figures = _array_figures(counts, clusters, settings.aggregate, null_reasons)
    totals, (median, median_n, median_null) = figures.totals, figures.median
    value = figures.value
    keys = _key_order(bool(null_reasons), median_null is not None, value is None, settings.wip)
    ci = mer = wil = wip = None
    if value is not None:
        mer, wil = totals.match_error_rate(), totals.word_information_lost()
        wip = totals.word_information_preserved() if settings.wip else None
        if settings.resamples > 0:
            fixed = figures.alike or _fixed(counts, clusters, settings.aggregate)
            ci = _interval(counts, clusters, settings, (value, value) if fixed else None)
    return MetricResult.built(
        {
            "extra": {},
            "key_order": keys,
            "value": value,
            "ci": ci,
            "substitutions": totals.substitutions,
            "deletions": totals.deletions,
            "insertions": totals.insertions,
            "hits": totals.hits,
            "ref_units": totals.ref_units,
            "hyp_units": totals.hyp_units,
            "aggregate": settings.aggregate,
            "n_scored": n_scored,
            "n_unavailable": n_rows - n_scored,
            "unavailable_reasons": dict(sorted(null_reasons.items())) if null_reasons else None,
            "median_per_utterance": median,
            "median_per_utterance_n": median_n,
            "median_per_utterance_null_reason": median_null,
            "null_reason": figures.null_reason,
            "mer": mer,
            "wil": wil,
            "wip": wip,
            "ser": figures.ser if value is not None else None,
        }
    )


def _interval(
    counts: Counts,
    clusters: ArrayLike | None,
    settings: MetricSettings,
    fixed: tuple[float, float] | None,
) -> tuple[float, float] | None:
    """The bootstrap interval; `fixed` when the rows decide it (no draw, no quantile)."""
    if fixed is not None:
        _check_bootstrap(settings)  # bad settings are refused whether or not they draw
        return fixed
    import numpy as np

    from earmark.stats.bootstrap import bootstrap_ci

    arr = np.asarray(counts)
    drawn = bootstrap_ci(
        arr[:, 0] + arr[:, 1] + arr[:, 2],
        arr[:, 0] + arr[:, 1] + arr[:, 3],
        clusters=clusters,
        resamples=settings.resamples,
        seed=settings.seed,
        level=settings.level,
        aggregate="macro" if settings.aggregate == "macro" else "micro",
        generator=settings.generator,
    )
    if drawn.low is None or drawn.high is None:
        return None
    return (float(drawn.low), float(drawn.high))


@lru_cache(maxsize=64)
def _check_bootstrap(settings: MetricSettings) -> None:
    """Refuse settings the bootstrap would refuse (checked by the bootstrap itself, on one
    row, once per settings: a refusal is not cached, so it is raised every time)."""
    from earmark.stats.bootstrap import bootstrap_ci

    bootstrap_ci(
        [0],
        [1],
        resamples=settings.resamples,
        seed=settings.seed,
        level=settings.level,
        generator=settings.generator,
    )


def _row_figures(
    rows: list[list[int]],
    clusters: ArrayLike | None,
    aggregate: str,
    null_reasons: Counter[str],
) -> _Figures:
    """`_array_figures` of a few rows in plain Python, float for float.

    numpy divides two int64s as two float64s (`float(e) / float(r)` here), takes a median
    as the middle value or the mean of the two middle ones (`(a + b) / 2`), and sums fewer
    than 8 floats left to right (the mean of the per-row rates); a share of rows is
    `count / n`. Counts are exact integers far below 2**53.
    """
    s = d = i = h = 0
    errors: list[int] = []
    refs: list[int] = []
    for row in rows:
        s, d, i, h = s + row[0], d + row[1], i + row[2], h + row[3]
        errors.append(row[0] + row[1] + row[2])
        refs.append(row[0] + row[1] + row[3])
    totals = ErrorCounts(int(s), int(d), int(i), int(h))
    n = len(rows)
    rates = sorted(float(e) / float(r) for e, r in zip(errors, refs, strict=True) if r > 0)
    median: tuple[float | None, int | None, str | None]
    if not n:
        median = (None, None, "no rows")
    elif not rates:
        median = (None, None, "no row has reference units")
    else:
        mid = len(rates) // 2
        middle = rates[mid] if len(rates) % 2 else (rates[mid - 1] + rates[mid]) / 2
        median = (middle, len(rates), None)
    value: float | None
    why: str | None
    if not n:
        value, why = _no_value(null_reasons)
    elif aggregate == "micro":
        value, why = _micro(totals)
    else:
        total = 0.0
        for e, r, row in zip(errors, refs, rows, strict=True):
            total += float(e) / float(r) if r > 0 else (1.0 if row[0] + row[2] + row[3] else 0.0)
        value, why = total / n, None
    ser = float(sum(1 for e in errors if e > 0)) / float(n) if n else None
    alike = n == 1 or (aggregate == "micro" and len(set(zip(errors, refs, strict=True))) == 1)
    return _Figures(totals, median, value, why, ser, alike)


def one_row_result(
    row: Sequence[int],
    settings: MetricSettings,
    null_reasons: Counter[str] = _NO_REASONS,
    n_rows: int = 1,
) -> MetricResult:
    """`metric_result` of one row (each speaker of a corpus of one-utterance speakers),
    its record built directly: ~3x cheaper than the general path, number for number (the
    median is the row's rate, a mean of one rate is that rate (`0.0 + x` and `x / 1` are
    `x`), the share of rows with an error is 1.0 or 0.0, and the row resamples to itself:
    the interval is [value, value] under every generator, no draw)."""
    s, d, i, h = int(row[0]), int(row[1]), int(row[2]), int(row[3])
    if min(s, d, i, h) < 0:
        ErrorCounts(s, d, i, h)  # refuses them, as every other path does
    errors, ref, hyp = s + d + i, s + d + h, s + i + h
    rate = float(errors) / float(ref) if ref > 0 else None
    value: float | None
    if settings.aggregate == "micro":
        # `_micro`'s figure: the error rate of the row's counts is its rate.
        value, why = rate, None if rate is not None else _NO_REFERENCE_UNITS
    else:
        value, why = (rate if rate is not None else 1.0 if hyp else 0.0), None
    keys = _ONE_ROW_KEYS[(bool(null_reasons), rate is None, value is None, settings.wip)]
    ci = mer = wil = wip = ser = None
    if value is not None:
        mer, wil = match_error_rate(errors, h), word_information_lost(h, ref, hyp)
        wip = word_information_preserved(h, ref, hyp) if settings.wip else None
        ser = 1.0 if errors > 0 else 0.0
        if settings.resamples > 0:
            _check_bootstrap(settings)  # bad settings are refused whether or not they draw
            ci = (value, value)
    return MetricResult.built(
        {
            "extra": {},
            "key_order": keys,
            "value": value,
            "ci": ci,
            "substitutions": s,
            "deletions": d,
            "insertions": i,
            "hits": h,
            "ref_units": ref,
            "hyp_units": hyp,
            "aggregate": settings.aggregate,
            "n_scored": 1,
            "n_unavailable": n_rows - 1,
            "unavailable_reasons": dict(sorted(null_reasons.items())) if null_reasons else None,
            "median_per_utterance": rate,
            "median_per_utterance_n": 1 if rate is not None else None,
            "median_per_utterance_null_reason": (
                "no row has reference units" if rate is None else None
            ),
            "null_reason": why,
            "mer": mer,
            "wil": wil,
            "wip": wip,
            "ser": ser,
        }
    )


def _key_order(reasons: bool, no_median: bool, no_value: bool, wip: bool) -> tuple[str, ...]:
    """The keys `metric_result` writes, in order, for these circumstances."""
    keys = [*_COUNT_KEYS]
    if reasons:
        keys.append("unavailable_reasons")
    keys += ["median_per_utterance", _MEDIAN_SECOND[not no_median]]
    if no_value:
        keys.append("null_reason")
    else:
        keys += ["mer", "wil", *(["wip"] if wip else []), "ser"]
    return tuple(keys)


def _array_figures(
    counts: Counts,
    clusters: ArrayLike | None,
    aggregate: str,
    null_reasons: Counter[str],
) -> _Figures:
    """The figures of an (n x 4) array of at least `SMALL` rows."""
    import numpy as np

    arr = np.asarray(counts)
    s, d, i, h = (int(x) for x in arr.sum(axis=0))
    totals = ErrorCounts(s, d, i, h)
    errors = arr[:, 0] + arr[:, 1] + arr[:, 2]
    ref_units = arr[:, 0] + arr[:, 1] + arr[:, 3]
    keep = ref_units > 0
    median: tuple[float | None, int | None, str | None]
    if not keep.any():
        median = (None, None, "no row has reference units")
    else:
        rates = errors[keep] / ref_units[keep]
        median = (float(np.median(rates)), int(keep.sum()), None)
    if aggregate == "micro":
        value, why = _micro(totals)
    else:
        hyp_units = arr[:, 0] + arr[:, 2] + arr[:, 3]
        per_row = np.where(
            ref_units > 0,
            errors / np.maximum(ref_units, 1),
            np.where(hyp_units > 0, 1.0, 0.0),
        )
        value, why = float(per_row.mean()), None
    ser = float(np.mean(errors > 0))
    alike = bool(
        aggregate == "micro" and errors.min() == errors.max() and ref_units.min() == ref_units.max()
    )
    return _Figures(totals, median, value, why, ser, alike)


def _micro(totals: ErrorCounts) -> tuple[float | None, str | None]:
    value = totals.error_rate()
    if value is None:
        return None, _NO_REFERENCE_UNITS
    return value, None


#: Why a micro rate has no value.
_NO_REFERENCE_UNITS = "no reference units (every reference is empty)"


def _no_value(null_reasons: Counter[str]) -> tuple[None, str]:
    reasons = ", ".join(sorted(null_reasons))
    return None, f"no row has this view: {reasons}" if null_reasons else "no rows"


def _fixed(counts: Counts, clusters: ArrayLike | None, aggregate: str) -> bool:
    """Whether every resample gives the value itself, so the interval is [value, value]
    exactly, under every generator, with no draw and no quantile.

    A block of one row (or, for a micro rate, one cluster) resamples to itself: both
    generators repeat a lone cluster's totals. A micro rate of rows that are all alike
    (`alike`) is `k*e / k*r` for every draw of `k` rows, the same float as `e / r`: sums
    of integers below 2**53 are exact and a quotient is rounded once. The quantiles of
    equal values are that value, and the value (`e / r` of Python ints) is that float.
    A macro mean over several rows sums floats in the draw's order, so it always draws.
    """
    if aggregate != "micro" or clusters is None or len(counts) == 0:
        return False
    import numpy as np

    codes = np.asarray(clusters)
    return bool(codes.size) and bool((codes == codes.flat[0]).all())


def metric_object(
    counts: Counts,
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
#: `_key_order` of every circumstance, for the one-row path (a tuple per block otherwise).
_ONE_ROW_KEYS = {
    (reasons, no_median, no_value, wip): _key_order(reasons, no_median, no_value, wip)
    for reasons in (False, True)
    for no_median in (False, True)
    for no_value in (False, True)
    for wip in (False, True)
}


def median_utterance(counts: Counts) -> tuple[float | None, int | None, str | None]:
    """The median per-utterance rate beside the corpus rate (with its row count, or why it
    is null): a few long, badly decoded clips move the corpus rate, the median shows the
    typical clip. Only rows with reference units count (a rate over an empty reference is
    undefined)."""
    if len(counts) < SMALL:
        rows = counts.tolist() if hasattr(counts, "tolist") else [list(r) for r in counts]
        return _row_figures(rows, None, "micro", Counter()).median
    return _array_figures(counts, None, "micro", Counter()).median
