"""sign_test, wilcoxon_signed_rank, holm_adjust: hand cases and scipy as an oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest

from earmark.errors import EarmarkError
from earmark.stats.paired_tests import holm_adjust, sign_test, wilcoxon_signed_rank


def test_sign_test_hand_cases() -> None:
    # d = 2, 1, 3, 0, 2: one zero dropped, 4 of 4 positive -> p = 2 / 16.
    result = sign_test([3, 2, 5, 1, 4], [1, 1, 2, 1, 2])
    assert (result.n, result.n_positive, result.n_negative, result.n_zero) == (4, 4, 0, 1)
    assert result.p_value == 0.125
    # 7 positive, 3 negative of 10: 2 * (1 + 10 + 45 + 120) / 1024.
    x = [1] * 7 + [0] * 3
    y = [0] * 7 + [1] * 3
    assert sign_test(x, y).p_value == pytest.approx(2 * 176 / 1024)
    assert sign_test([1, 0], [0, 1]).p_value == 1.0
    assert sign_test([2, 2], [2, 2]).p_value == 1.0


@pytest.mark.parametrize(("n", "k"), [(5_000, 2_430), (5_001, 2_430), (12_000, 5_850)])
def test_sign_test_large_n_is_accurate(n: int, k: int) -> None:
    """Exact integer sums up to n = 5000, log-space terms above: both match the oracle."""
    stats = pytest.importorskip("scipy.stats", reason="scipy is the oracle (test extra)")
    x = np.r_[np.ones(k), np.zeros(n - k)]
    y = np.r_[np.zeros(k), np.ones(n - k)]
    assert sign_test(x, y).p_value == pytest.approx(2 * stats.binom.cdf(k, n, 0.5), rel=1e-9)


def test_wilcoxon_hand_cases() -> None:
    # d = 4, 5, 6, 8 -> W+ = 10, W- = 0; exact p = 2 / 16.
    result = wilcoxon_signed_rank([5, 6, 7, 9], [1, 1, 1, 1])
    assert (result.w_plus, result.w_minus, result.p_value, result.method) == (
        10.0,
        0.0,
        0.125,
        "exact",
    )
    # d = 1, -2, 3, 0: zero dropped, ranks 1, 2, 3 -> W+ = 4, W- = 2; P(W <= 2) = 3/8 -> 0.75.
    result = wilcoxon_signed_rank([1, 0, 3, 5], [0, 2, 0, 5])
    assert (result.n, result.n_zero, result.w_plus, result.w_minus) == (3, 1, 4.0, 2.0)
    assert result.p_value == pytest.approx(0.75)
    # Tied |d| = 1, 1, 2: mid-ranks 1.5, 1.5, 3 and the normal approximation.
    tied = wilcoxon_signed_rank([1, 1, 2], [0, 2, 0])
    assert (tied.w_plus, tied.w_minus, tied.method) == (4.5, 1.5, "normal")
    variance = 3 * 4 * 7 / 24 - (8 - 2) / 48
    z = (abs(4.5 - 3) - 0.5) / math.sqrt(variance)
    assert tied.p_value == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert wilcoxon_signed_rank([1, 2], [1, 2]).p_value == 1.0


@pytest.mark.parametrize("seed", range(8))
def test_against_scipy(seed: int) -> None:
    stats = pytest.importorskip("scipy.stats", reason="scipy is the oracle (test extra)")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    x = rng.poisson(3, n)
    y = rng.poisson(3.4, n)

    ours = sign_test(x, y)
    oracle = stats.binomtest(ours.n_positive, ours.n, 0.5).pvalue
    assert ours.p_value == pytest.approx(oracle, rel=1e-9)

    result = wilcoxon_signed_rank(x, y)
    reference = stats.wilcoxon(x, y, zero_method="wilcox", correction=True, method="asymptotic")
    assert result.method == "normal"  # integer counts always tie
    assert result.statistic == pytest.approx(reference.statistic)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_exact_wilcoxon_against_scipy(seed: int) -> None:
    stats = pytest.importorskip("scipy.stats", reason="scipy is the oracle (test extra)")
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 51))
    d = rng.permutation(np.arange(1, n + 1) + rng.random(n) * 0.5) * rng.choice([-1, 1], n)
    result = wilcoxon_signed_rank(d, np.zeros(n))
    reference = stats.wilcoxon(d, method="exact")
    assert result.method == "exact"
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)


def test_holm_hand_cases() -> None:
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # Sorted 0.001, 0.02, 0.03, 0.5 -> 4 * 0.001, 3 * 0.02, 2 * 0.03, 1 * 0.5.
    assert holm_adjust([0.03, 0.02, 0.5, 0.001]) == pytest.approx([0.06, 0.06, 0.5, 0.004])
    # The running max: 2 * 0.011 = 0.022 is raised to the earlier 3 * 0.01 = 0.03.
    assert holm_adjust([0.011, 0.01, 0.02]) == pytest.approx([0.03, 0.03, 0.03])
    assert holm_adjust([0.4, 0.9]) == [0.8, 0.9]
    assert holm_adjust([]) == []


def test_holm_against_a_direct_definition() -> None:
    rng = np.random.default_rng(3)
    p = rng.random(12) ** 3
    m = p.size
    order = np.argsort(p)
    expected = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        expected[i] = running
    assert holm_adjust(p) == pytest.approx(expected.tolist())


def test_bad_inputs() -> None:
    with pytest.raises(EarmarkError):
        sign_test([1, 2], [1])
    with pytest.raises(EarmarkError):
        holm_adjust([0.5, 1.5])
