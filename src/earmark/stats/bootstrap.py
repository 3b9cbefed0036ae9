"""Percentile bootstrap confidence intervals for corpus-level (micro) rates.

Counts travel, not rates: each replicate re-sums the per-row counts of the resampled
clusters and recomputes the statistic from those totals, e.g. WER = sum(errors) /
sum(ref_units). Averaging per-utterance rates happens only when `aggregate="macro"` is
asked for, and the result says so.

Resampling unit: the *cluster* (`clusters=`, e.g. the clip id), so repeats of one clip
stay together; without clusters every row is its own cluster. `generator` names the draws
(`earmark.stats.settings.GENERATORS`): by default `earmark.stats.poisson_resampling`, or
the exact index stream of `earmark.stats.resampling` (`"numpy-pcg64"`, every result that
names no generator); both are numpy PCG64 streams from `SeedSequence(seed)`.

Several statistics of the same rows (`bootstrap_statistics`, `bootstrap_cis`) are computed
from one set of resamples: the intervals of one scope are jointly consistent (replicate
`i` of WER and of CER saw the same clips) and the draws are paid once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from earmark.errors import EarmarkError
from earmark.stats.poisson_resampling import poisson_resample_totals
from earmark.stats.resampling import (
    as_count_columns,
    cluster_index,
    cluster_totals,
    resample_totals,
)
from earmark.stats.settings import (
    DEFAULT_GENERATOR,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    GENERATORS,
    UNNAMED_GENERATOR,
    StatRecord,
)

Aggregate = Literal["micro", "macro"]
Key = TypeVar("Key", bound=Hashable)
FloatArray = NDArray[np.float64]
Statistic = Callable[..., Any]
"""A vectorised function of summed column totals: `statistic(*totals) -> array`.

Each argument is a float64 array of totals (one entry per replicate, or a 0-d array for
the point estimate). Return NaN (or inf) where the statistic is undefined, e.g. 0/0.
"""


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    """A point estimate and its percentile bootstrap interval.

    `estimate` is the statistic on the full data; `None` when it is undefined (e.g. no
    reference units at all), and then `low`/`high` are `None` too. Replicates whose
    statistic is undefined (a resample with a zero denominator) are dropped from the
    interval and counted in `dropped_resamples`.
    """

    estimate: float | None
    low: float | None
    high: float | None
    level: float
    resamples: int
    seed: int
    n_clusters: int
    n_rows: int
    standard_error: float | None
    """Standard deviation (ddof=1) of the kept replicates."""
    dropped_resamples: int = 0
    method: str = "percentile"
    aggregate: str = "micro"

    def to_dict(self) -> StatRecord:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class PairedBootstrapResult:
    """Difference `rate_b - rate_a` of two systems scored on the same rows.

    Both systems are evaluated on the *same* resampled clusters in every replicate, so the
    interval reflects the paired design. `share_b_better` is the share of kept replicates
    with rate_b < rate_a (lower error is better), `share_tied` those with rate_b == rate_a.
    """

    rate_a: float | None
    rate_b: float | None
    difference: float | None
    low: float | None
    high: float | None
    share_b_better: float | None
    share_tied: float | None
    level: float
    resamples: int
    seed: int
    n_clusters: int
    n_rows: int
    standard_error: float | None
    dropped_resamples: int = 0
    method: str = "percentile"
    aggregate: str = "micro"

    def to_dict(self) -> StatRecord:
        return asdict(self)


def ratio_of_sums(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    """sum(numerators) / sum(denominators); NaN where the denominator total is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        result: FloatArray = np.where(denominator > 0, numerator / denominator, np.nan)
    return result


def utterance_rates(errors: ArrayLike, ref_units: ArrayLike) -> FloatArray:
    """Per-row error rates for macro averaging, with `ErrorCounts.utterance_rate`'s rule.

    An empty reference has no substitutions, deletions or hits, so its errors are all
    insertions: errors > 0 exactly when the hypothesis is non-empty. The rate is then 1.0
    (0.0 when both are empty) instead of an unbounded insertion rate.
    """
    columns = as_count_columns([errors, ref_units], ["errors", "ref_units"])
    err, ref = columns[:, 0], columns[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rates: FloatArray = np.where(ref > 0, err / ref, np.where(err > 0, 1.0, 0.0))
    return rates


def _check_generator(generator: str) -> None:
    if generator not in GENERATORS:
        raise EarmarkError(
            f"unknown generator {generator!r}",
            field="generator",
            hint="use one of " + ", ".join(GENERATORS),
        )


def _check_options(resamples: int, seed: int, level: float, generator: str) -> None:
    _check_generator(generator)
    if isinstance(resamples, bool) or not isinstance(resamples, int | np.integer):
        raise EarmarkError(f"must be an integer, got {resamples!r}", field="resamples")
    if resamples < 1:
        raise EarmarkError(f"must be at least 1, got {resamples}", field="resamples")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise EarmarkError(f"must be a non-negative integer, got {seed!r}", field="seed")
    if not 0.0 < level < 1.0:
        raise EarmarkError(
            f"must be strictly between 0 and 1, got {level!r}", field="level", hint="e.g. 0.95"
        )


def _finite_or_none(value: Any) -> float | None:
    number = float(value)
    return number if np.isfinite(number) else None


def _percentile_interval(
    replicates: FloatArray, level: float
) -> tuple[float | None, float | None, float | None, int]:
    """(low, high, sd, dropped): numpy's default (linear) quantiles of the kept replicates."""
    kept = replicates[np.isfinite(replicates)]
    dropped = int(replicates.size - kept.size)
    if kept.size == 0:
        return None, None, None, dropped
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(kept, [tail, 1.0 - tail])
    sd = float(np.std(kept, ddof=1)) if kept.size > 1 else 0.0
    return float(low), float(high), sd, dropped


def _resampled(
    columns: Sequence[ArrayLike],
    names: Sequence[str],
    clusters: ArrayLike | None,
    resamples: int,
    seed: int,
    level: float,
    workers: int | None = None,
    generator: str = DEFAULT_GENERATOR,
) -> tuple[FloatArray, FloatArray, int, int]:
    """(full-data totals, replicate totals, n_clusters, n_rows) for the given columns."""
    _check_options(resamples, seed, level, generator)
    rows = as_count_columns(columns, names)
    n_rows = rows.shape[0]
    if n_rows == 0:
        raise EarmarkError("no rows to bootstrap", field=names[0], hint="score some utterances")
    index, n_clusters = cluster_index(clusters, n_rows)
    per_cluster = cluster_totals(rows, index, n_clusters)
    replicates = replicate_totals(
        per_cluster, int(resamples), int(seed), generator=generator, workers=workers
    )
    return rows.sum(axis=0), replicates, n_clusters, n_rows


def replicate_totals(
    per_cluster: NDArray[np.float64],
    resamples: int,
    seed: int,
    *,
    generator: str = DEFAULT_GENERATOR,
    workers: int | None = None,
) -> NDArray[np.float64]:
    """The column totals of `resamples` cluster resamples of `per_cluster` (one row per
    cluster), drawn by the named generator: the one place a generator name picks its draws.

    >>> replicate_totals(np.array([[1.0, 2.0]]), 3, 1)
    array([[1., 2.],
           [1., 2.],
           [1., 2.]])
    """
    _check_generator(generator)
    draw = resample_totals if generator == UNNAMED_GENERATOR else poisson_resample_totals
    return draw(per_cluster, resamples, seed, workers=workers)


def bootstrap_statistic(
    columns: Sequence[ArrayLike],
    statistic: Statistic = ratio_of_sums,
    *,
    clusters: ArrayLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    aggregate: str = "micro",
    generator: str = DEFAULT_GENERATOR,
) -> BootstrapResult:
    """Bootstrap any vectorised function of summed per-row count columns.

    The engine beneath `bootstrap_ci`; use it directly for other micro statistics, e.g.
    F1 from summed TP/FP/FN:

    >>> f1 = lambda tp, fp, fn: 2 * tp / (2 * tp + fp + fn)
    >>> r = bootstrap_statistic(([3, 1, 2], [1, 0, 1], [0, 1, 1]), f1, resamples=200)
    >>> round(r.estimate, 4)
    0.75
    """
    everything = tuple(range(len(columns)))
    return bootstrap_statistics(
        columns,
        {"": (statistic, everything)},
        clusters=clusters,
        resamples=resamples,
        seed=seed,
        level=level,
        aggregate=aggregate,
        generator=generator,
    )[""]


def bootstrap_statistics(
    columns: Sequence[ArrayLike],
    statistics: Mapping[Key, tuple[Statistic, Sequence[int]]],
    *,
    clusters: ArrayLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    aggregate: str = "micro",
    workers: int | None = None,
    generator: str = DEFAULT_GENERATOR,
) -> dict[Key, BootstrapResult]:
    """Several statistics of the same rows from one set of resamples.

    `statistics` maps a name to `(statistic, column positions)`: the statistic is called
    with the summed columns at those positions. Every statistic sees the same replicates
    (jointly consistent intervals), and the clusters are drawn once for all of them.
    `workers` threads share the draws; the numbers do not depend on it. `generator` names
    the random stream (`earmark.stats.settings.GENERATORS`).

    >>> cols = ([1, 0, 2], [4, 5, 1], [3, 0, 1], [9, 9, 9])
    >>> both = bootstrap_statistics(
    ...     cols, {"wer": (ratio_of_sums, (0, 1)), "cer": (ratio_of_sums, (2, 3))}
    ... )
    >>> both["wer"].estimate, round(both["cer"].estimate, 4)
    (0.3, 0.1481)
    """
    names = [f"columns[{i}]" for i in range(len(columns))]
    full, replicates, n_clusters, n_rows = _resampled(
        columns, names, clusters, resamples, seed, level, workers, generator
    )
    out: dict[Key, BootstrapResult] = {}
    for key, (statistic, positions) in statistics.items():
        picked = list(positions)
        with np.errstate(divide="ignore", invalid="ignore"):
            estimate = _finite_or_none(statistic(*full[picked]))
            values = np.asarray(statistic(*replicates[:, picked].T), dtype=np.float64)
        if values.shape != (replicates.shape[0],):
            raise EarmarkError(
                f"statistic returned shape {values.shape}, expected ({replicates.shape[0]},)",
                field="statistic",
                hint="write it with numpy operations so it maps total arrays to one value each",
            )
        low, high, sd, dropped = _percentile_interval(values, level)
        if estimate is None:
            low = high = sd = None
        out[key] = BootstrapResult(
            estimate=estimate,
            low=low,
            high=high,
            level=level,
            resamples=int(resamples),
            seed=int(seed),
            n_clusters=n_clusters,
            n_rows=n_rows,
            standard_error=sd,
            dropped_resamples=dropped,
            aggregate=aggregate,
        )
    return out


def bootstrap_ratio(
    numerators: ArrayLike,
    denominators: ArrayLike,
    *,
    clusters: ArrayLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> BootstrapResult:
    """Ratio of sums, e.g. an acceptance rate k/n: sum(numerators) / sum(denominators).

    >>> bootstrap_ratio([1, 1, 0], [1, 1, 1], resamples=100).estimate
    0.6666666666666666
    """
    return bootstrap_statistic(
        (numerators, denominators),
        ratio_of_sums,
        clusters=clusters,
        resamples=resamples,
        seed=seed,
        level=level,
    )


def bootstrap_ci(
    errors: ArrayLike,
    ref_units: ArrayLike,
    *,
    clusters: ArrayLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    aggregate: Aggregate = "micro",
    generator: str = DEFAULT_GENERATOR,
) -> BootstrapResult:
    """Percentile CI of an error rate (WER, CER) over resampled utterances or clips.

    `errors` (S+D+I) and `ref_units` (N_ref) hold one entry per row (utterance, or
    utterance x repeat). `aggregate="micro"` (default) bootstraps the corpus rate
    sum(errors) / sum(ref_units); `"macro"` the mean of per-row rates (`utterance_rates`).

    >>> r = bootstrap_ci([1, 0, 2], [4, 5, 1], resamples=1000, seed=1)
    >>> r.estimate
    0.3
    >>> r.low <= r.estimate <= r.high
    True
    """
    return bootstrap_cis(
        {"": (errors, ref_units)},
        clusters=clusters,
        resamples=resamples,
        seed=seed,
        level=level,
        aggregate=aggregate,
        generator=generator,
    )[""]


def bootstrap_cis(
    rates: Mapping[Key, tuple[ArrayLike, ArrayLike]],
    *,
    clusters: ArrayLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    aggregate: Aggregate = "micro",
    workers: int | None = None,
    generator: str = DEFAULT_GENERATOR,
) -> dict[Key, BootstrapResult]:
    """`bootstrap_ci` of several error rates of the same rows, from one set of resamples.

    `rates` maps a name (e.g. `("raw", "word")`) to that rate's `(errors, ref_units)`,
    one entry per row, all aligned. Replicate `i` of every rate resamples the same clusters.

    >>> r = bootstrap_cis({"wer": ([1, 0, 2], [4, 5, 1]), "cer": ([3, 0, 1], [9, 9, 9])})
    >>> r["wer"].estimate, round(r["cer"].estimate, 4)
    (0.3, 0.1481)
    """
    if aggregate not in ("micro", "macro"):
        raise EarmarkError(
            f"unknown aggregate {aggregate!r}", field="aggregate", hint="use 'micro' or 'macro'"
        )
    columns: list[ArrayLike] = []
    statistics: dict[Key, tuple[Statistic, Sequence[int]]] = {}
    if aggregate == "micro":
        for key, (errors, ref_units) in rates.items():
            statistics[key] = (ratio_of_sums, (len(columns), len(columns) + 1))
            columns += [errors, ref_units]
    else:
        ones = -1
        for key, (errors, ref_units) in rates.items():
            per_row = utterance_rates(errors, ref_units)
            if ones < 0:
                columns.append(np.ones_like(per_row))
                ones = 0
            statistics[key] = (ratio_of_sums, (len(columns), ones))
            columns.append(per_row)
    if not columns:
        return {}
    return bootstrap_statistics(
        columns,
        statistics,
        clusters=clusters,
        resamples=resamples,
        seed=seed,
        level=level,
        aggregate=aggregate,
        workers=workers,
        generator=generator,
    )


def paired_bootstrap(
    errors_a: ArrayLike,
    errors_b: ArrayLike,
    ref_units: ArrayLike,
    *,
    clusters: ArrayLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    aggregate: Aggregate = "micro",
    generator: str = DEFAULT_GENERATOR,
) -> PairedBootstrapResult:
    """CI of rate_b - rate_a, both systems scored on the same resampled clusters.

    Rows must be aligned (row i of `errors_a` and `errors_b` is the same utterance) and
    share `ref_units`: both systems are scored against the same normalised references.

    >>> r = paired_bootstrap([2, 1, 3], [1, 1, 2], [10, 10, 10], resamples=500)
    >>> round(r.difference, 4), r.high <= 0
    (-0.0667, True)
    """
    if aggregate == "micro":
        columns: list[ArrayLike] = [errors_a, errors_b, ref_units]
    elif aggregate == "macro":
        rates_a = utterance_rates(errors_a, ref_units)
        rates_b = utterance_rates(errors_b, ref_units)
        columns = [rates_a, rates_b, np.ones_like(rates_a)]
    else:
        raise EarmarkError(
            f"unknown aggregate {aggregate!r}", field="aggregate", hint="use 'micro' or 'macro'"
        )
    full, replicates, n_clusters, n_rows = _resampled(
        columns,
        ["errors_a", "errors_b", "ref_units"],
        clusters,
        resamples,
        seed,
        level,
        generator=generator,
    )
    rate_a = ratio_of_sums(full[0], full[2])
    rate_b = ratio_of_sums(full[1], full[2])
    a = ratio_of_sums(replicates[:, 0], replicates[:, 2])
    b = ratio_of_sums(replicates[:, 1], replicates[:, 2])
    low, high, sd, dropped = _percentile_interval(b - a, level)
    kept = np.isfinite(a) & np.isfinite(b)
    share_better = share_tied = None
    if kept.any():
        share_better = float(np.mean(b[kept] < a[kept]))
        share_tied = float(np.mean(b[kept] == a[kept]))
    estimate_a, estimate_b = _finite_or_none(rate_a), _finite_or_none(rate_b)
    difference = None
    if estimate_a is not None and estimate_b is not None:
        difference = float(rate_b - rate_a)
    else:
        low = high = sd = share_better = share_tied = None
    return PairedBootstrapResult(
        rate_a=estimate_a,
        rate_b=estimate_b,
        difference=difference,
        low=low,
        high=high,
        share_b_better=share_better,
        share_tied=share_tied,
        level=level,
        resamples=int(resamples),
        seed=int(seed),
        n_clusters=n_clusters,
        n_rows=n_rows,
        standard_error=sd,
        dropped_resamples=dropped,
        aggregate=aggregate,
    )
