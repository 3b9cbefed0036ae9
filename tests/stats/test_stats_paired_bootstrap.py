"""paired_bootstrap: both systems on the same resampled clusters."""

from __future__ import annotations

import numpy as np
import pytest

from earmark.errors import EarmarkError
from earmark.stats.bootstrap import bootstrap_ci, paired_bootstrap


def _pair(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ref = rng.poisson(12, n) + 1
    errors_a = rng.binomial(ref, 0.20)
    errors_b = np.maximum(errors_a - rng.binomial(1, 0.3, n), 0)  # b fixes some errors
    return errors_a, errors_b, ref


def test_identical_systems_differ_by_exactly_zero() -> None:
    errors, _, ref = _pair(200, 1)
    result = paired_bootstrap(errors, errors, ref, resamples=1000)
    assert (result.difference, result.low, result.high) == (0.0, 0.0, 0.0)
    assert result.share_tied == 1.0 and result.share_b_better == 0.0
    assert result.rate_a == result.rate_b == pytest.approx(errors.sum() / ref.sum())


def test_rates_and_difference_are_micro() -> None:
    result = paired_bootstrap([2, 1, 3], [1, 1, 2], [10, 5, 5], resamples=500, seed=3)
    assert result.rate_a == pytest.approx(6 / 20)
    assert result.rate_b == pytest.approx(4 / 20)
    assert result.difference == pytest.approx(-2 / 20)
    # b never has more errors on any row: every replicate favours b or ties.
    assert result.high <= 0.0
    assert result.share_b_better + result.share_tied == pytest.approx(1.0)


def test_pairing_narrows_the_interval_compared_with_separate_intervals() -> None:
    errors_a, errors_b, ref = _pair(500, 2)
    paired = paired_bootstrap(errors_a, errors_b, ref, resamples=2000, seed=4)
    separate_a = bootstrap_ci(errors_a, ref, resamples=2000, seed=4)
    assert paired.high < 0.0 and paired.share_b_better > 0.99
    assert paired.high - paired.low < 0.5 * (separate_a.high - separate_a.low)
    assert paired.difference == pytest.approx((errors_b.sum() - errors_a.sum()) / ref.sum())


def test_swapping_systems_negates_the_difference() -> None:
    errors_a, errors_b, ref = _pair(300, 5)
    ab = paired_bootstrap(errors_a, errors_b, ref, resamples=3000, seed=6)
    ba = paired_bootstrap(errors_b, errors_a, ref, resamples=3000, seed=6)
    assert ba.difference == pytest.approx(-ab.difference)
    assert ba.low == pytest.approx(-ab.high, abs=0.15 * ab.standard_error + 1e-12)
    assert ba.share_b_better == pytest.approx(1 - ab.share_b_better - ab.share_tied, abs=0.03)


def test_clusters_and_macro() -> None:
    errors_a, errors_b, ref = _pair(90, 7)
    clips = np.arange(90) // 3
    result = paired_bootstrap(
        errors_a, errors_b, ref, clusters=clips, resamples=500, aggregate="macro"
    )
    assert result.n_clusters == 30 and result.aggregate == "macro"
    assert result.difference == pytest.approx(np.mean(errors_b / ref) - np.mean(errors_a / ref))


def test_no_reference_units_gives_none() -> None:
    result = paired_bootstrap([1, 0], [0, 0], [0, 0], resamples=50)
    assert result.difference is None and result.low is None and result.share_b_better is None


def test_misaligned_systems_are_refused() -> None:
    with pytest.raises(EarmarkError) as caught:
        paired_bootstrap([1, 2, 3], [1, 2], [5, 5, 5])
    assert caught.value.field == "errors_b"
