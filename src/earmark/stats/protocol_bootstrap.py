"""A published bootstrap, reproduced draw for draw: Python's `random.Random` (BlasBench).

earmark's own bootstrap (`earmark.stats.bootstrap`) draws with numpy's PCG64 and takes
numpy's linear quantiles; its intervals are as good, but not the *same numbers* as a
paper that used another generator. BlasBench (seed 003 §2.3; its `bootstrap_error_ci`)
publishes 95% CIs computed as follows, and this module does exactly that:

1. `rng = random.Random(seed)` (seed 42), created afresh for each interval.
2. For each of `resamples` (1,000) replicates: `n` draws `rng.randrange(n)` of a unit
   index (one per unit, in order), summing the drawn units' errors and reference units;
   the replicate's rate is `sum(errors) / sum(ref_units)`, and a replicate whose drawn
   reference units sum to 0 is dropped (the statistic is undefined there).
3. The kept rates are sorted; with `k` kept and `a = (1.0 - level) / 2.0` in floating
   point, the interval is `rates[max(0, int(a * k))]` to `rates[min(k - 1,
   int((1.0 - a) * k) - 1)]`; for k = 1,000 and level 0.95 these are indices 25 and 974.

The unit is an utterance in BlasBench. With `clusters`, a unit is a cluster (rows
sharing a key, in order of first appearance, summed), which is the same thing when every
row is its own cluster. Only the corpus-level (micro) rate is defined, as published.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

GENERATOR = "python-random"
QUANTILE_RULE = "sorted rates at indices int(a*k) and int((1-a)*k)-1, a = (1-level)/2"


@dataclass(frozen=True, slots=True)
class ProtocolInterval:
    """The interval, and how many replicates it rests on."""

    low: float
    high: float
    resamples: int
    #: Replicates dropped because their reference units summed to 0.
    dropped_resamples: int


def unit_totals(
    errors: Sequence[int],
    ref_units: Sequence[int],
    clusters: Sequence[Hashable] | None = None,
) -> tuple[list[int], list[int]]:
    """Per-unit (errors, ref_units): the rows themselves, or cluster sums in order of
    each cluster's first row (the order decides which unit `randrange` draws)."""
    if len(errors) != len(ref_units):
        raise ValueError("errors and ref_units differ in length")
    if clusters is None:
        return [int(e) for e in errors], [int(r) for r in ref_units]
    if len(clusters) != len(errors):
        raise ValueError("clusters and errors differ in length")
    position: dict[Hashable, int] = {}
    unit_errors: list[int] = []
    unit_refs: list[int] = []
    for key, e, r in zip(clusters, errors, ref_units, strict=True):
        at = position.setdefault(key, len(unit_errors))
        if at == len(unit_errors):
            unit_errors.append(0)
            unit_refs.append(0)
        unit_errors[at] += int(e)
        unit_refs[at] += int(r)
    return unit_errors, unit_refs


def python_random_ci(
    errors: Sequence[int],
    ref_units: Sequence[int],
    *,
    clusters: Sequence[Hashable] | None = None,
    resamples: int = 1000,
    seed: int = 42,
    level: float = 0.95,
) -> ProtocolInterval | None:
    """BlasBench's percentile interval of sum(errors) / sum(ref_units) (module docstring).

    None when there is nothing to resample or every replicate was dropped.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    unit_errors, unit_refs = unit_totals(errors, ref_units, clusters)
    n = len(unit_errors)
    if n == 0:
        return None
    draw = random.Random(seed).randrange
    rates: list[float] = []
    for _ in range(resamples):
        total_errors = total_refs = 0
        for _ in range(n):
            k = draw(n)
            total_errors += unit_errors[k]
            total_refs += unit_refs[k]
        if total_refs > 0:
            rates.append(total_errors / total_refs)
    if not rates:
        return None
    rates.sort()
    k = len(rates)
    a = (1.0 - level) / 2.0
    low = rates[max(0, int(a * k))]
    high = rates[min(k - 1, int((1.0 - a) * k) - 1)]
    return ProtocolInterval(low, high, resamples, resamples - k)
