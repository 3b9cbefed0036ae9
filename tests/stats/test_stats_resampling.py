"""The resampling engine draws exactly a nonparametric (cluster) bootstrap.

One-hot columns make the engine return the draw-count vector itself, so its law can be
checked against Multinomial(n, 1/n, ..., 1/n) through both code paths (value-group
categories and the uniform tail).
"""

from __future__ import annotations

import numpy as np
import pytest

from earmark.errors import EarmarkError
from earmark.stats.resampling import MIN_GROUP, resample_totals


def _one_hot(groups: list[int]) -> np.ndarray:
    """Rows of identical one-hot vectors: `groups[k]` rows with a 1 in column k."""
    rows = [np.eye(len(groups))[k] for k, size in enumerate(groups) for _ in range(size)]
    return np.array(rows, dtype=np.float64)


def test_two_clusters_follow_the_multinomial_law() -> None:
    totals = resample_totals(_one_hot([1, 1]), 40_000, seed=3)
    assert np.all(totals.sum(axis=1) == 2)
    share = np.bincount(totals[:, 0].astype(int), minlength=3) / totals.shape[0]
    # (2,0), (1,1), (0,2) with probabilities 1/4, 1/2, 1/4; SE of each share < 0.0025.
    assert share == pytest.approx([0.25, 0.5, 0.25], abs=0.012)


@pytest.mark.parametrize(
    "groups",
    [
        [1] * 6,  # all distinct: the uniform tail only
        [MIN_GROUP * 2, MIN_GROUP + 3, MIN_GROUP],  # categories only
        [MIN_GROUP * 3, MIN_GROUP, 1, 1, 2, 1],  # both
    ],
)
def test_draw_counts_have_multinomial_moments(groups: list[int]) -> None:
    n = sum(groups)
    p = np.array(groups) / n
    totals = resample_totals(_one_hot(groups), 20_000, seed=11)
    assert np.all(totals.sum(axis=1) == n)  # every replicate draws exactly n clusters
    mean = totals.mean(axis=0)
    cov = np.cov(totals, rowvar=False)
    expected_cov = n * (np.diag(p) - np.outer(p, p))
    sd = np.sqrt(np.diag(expected_cov))
    assert np.all(np.abs(mean - n * p) < 5 * sd / np.sqrt(totals.shape[0]))
    assert cov == pytest.approx(expected_cov, abs=0.05 * sd.max() ** 2)


def test_sums_are_exact_integers() -> None:
    rng = np.random.default_rng(0)
    values = np.stack([rng.integers(0, 40, 500), rng.integers(1, 90, 500)], axis=1)
    totals = resample_totals(values.astype(np.float64), 300, seed=1)
    assert np.all(totals == np.round(totals))
    assert totals[:, 1].mean() == pytest.approx(values[:, 1].sum(), rel=0.02)


def test_same_seed_same_draws_and_row_order_does_not_matter() -> None:
    rng = np.random.default_rng(5)
    values = np.stack([rng.integers(0, 5, 300), rng.integers(1, 9, 300)], axis=1).astype(float)
    first = resample_totals(values, 500, seed=42)
    again = resample_totals(values[rng.permutation(300)], 500, seed=42)
    other_seed = resample_totals(values, 500, seed=43)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other_seed)


@pytest.mark.parametrize("copies", [1, MIN_GROUP])
def test_totals_are_the_drawn_counts_times_the_values(copies: int) -> None:
    """Float, large-integer (not packable) and small-integer columns are summed exactly."""
    values = np.array([[0.25, 2.0**45, 3.0], [0.5, 7.0, 0.0], [1 / 3, 1.0, 1.0]])
    rows = np.repeat(np.hstack([values, np.eye(3)]), copies, axis=0)
    totals = resample_totals(rows, 3_000, seed=2)
    counts = totals[:, 3:]
    assert np.all(counts.sum(axis=1) == 3 * copies)
    assert np.array_equal(totals[:, 1:3], counts @ values[:, 1:3])
    assert totals[:, 0] == pytest.approx(counts @ values[:, 0], rel=1e-12)


def test_empty_input_is_refused() -> None:
    with pytest.raises(EarmarkError):
        resample_totals(np.zeros((0, 2)), 10, seed=1)
