"""BlasBench's bootstrap reproduced draw for draw (`earmark.stats.protocol_bootstrap`)."""

from __future__ import annotations

import random

import pytest

from earmark.stats.protocol_bootstrap import python_random_ci, unit_totals


def _published(per_utterance: list[tuple[int, int, int, int]], k: int, seed: int) -> tuple:
    """BlasBench's procedure as its paper and code describe it, written out again here:
    (S, I, D, N) per utterance; per resample n draws of randrange(n); sorted rates at
    int(0.025 k) and int(0.975 k) - 1 (computed from confidence 0.95 as they do)."""
    n = len(per_utterance)
    rng = random.Random(seed)
    rates = []
    for _ in range(k):
        s = i = d = nn = 0
        for _j in range(n):
            es, ei, ed, en = per_utterance[rng.randrange(n)]
            s += es
            i += ei
            d += ed
            nn += en
        if nn > 0:
            rates.append((s + i + d) / nn)
    rates.sort()
    a = (1.0 - 0.95) / 2.0
    lo = max(0, int(a * len(rates)))
    hi = min(len(rates) - 1, int((1.0 - a) * len(rates)) - 1)
    return rates[lo], rates[hi], len(rates)


CORPUS = [(1, 0, 0, 4), (0, 2, 1, 5), (0, 0, 0, 3), (3, 1, 0, 6), (0, 0, 2, 2), (0, 1, 0, 0)]


@pytest.mark.parametrize("k", [1000, 37])
def test_equals_the_published_procedure(k: int) -> None:
    low, high, kept = _published(CORPUS, k, 42)
    ci = python_random_ci(
        [s + i + d for s, i, d, _ in CORPUS], [n for *_, n in CORPUS], resamples=k, seed=42
    )
    assert ci is not None
    assert (ci.low, ci.high) == (low, high)  # exactly, not approximately
    assert ci.resamples - ci.dropped_resamples == kept


def test_indices_are_25_and_974_for_1000_resamples() -> None:
    """With every replicate kept, the bounds are the 26th and 975th smallest rates."""
    errors, refs = [0, 1, 2, 3, 5], [4, 4, 4, 4, 4]
    rng = random.Random(42)
    rates = sorted(
        sum(errors[j] for j in draws) / sum(refs[j] for j in draws)
        for draws in ([rng.randrange(5) for _ in range(5)] for _ in range(1000))
    )
    ci = python_random_ci(errors, refs)
    assert ci is not None
    assert (ci.low, ci.high) == (rates[25], rates[974])
    assert ci.dropped_resamples == 0


def test_replicates_without_reference_units_are_dropped() -> None:
    # One unit with N=0 out of two: about a quarter of replicates draw it twice.
    ci = python_random_ci([1, 2], [0, 4], resamples=400, seed=1)
    assert ci is not None
    assert 60 < ci.dropped_resamples < 140
    assert ci.low <= ci.high


def test_clusters_resample_together_and_singletons_change_nothing() -> None:
    errors, refs = [1, 0, 2, 1], [3, 3, 4, 2]
    assert unit_totals(errors, refs, ["a", "b", "a", "c"]) == ([3, 0, 1], [7, 3, 2])
    alone = python_random_ci(errors, refs, seed=7, resamples=200)
    as_clusters = python_random_ci(
        errors, refs, clusters=["w", "x", "y", "z"], seed=7, resamples=200
    )
    assert alone == as_clusters


def test_nothing_to_resample() -> None:
    assert python_random_ci([], []) is None
    assert python_random_ci([1], [0]) is None  # every replicate undefined
    with pytest.raises(ValueError):
        python_random_ci([1], [2], resamples=0)
