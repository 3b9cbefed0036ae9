"""bootstrap_ci / bootstrap_statistic / bootstrap_ratio: hand-checkable laws and coverage."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.errors import EarmarkError
from earmark.metrics.counts import ErrorCounts
from earmark.stats.bootstrap import (
    bootstrap_ci,
    bootstrap_ratio,
    bootstrap_statistic,
    utterance_rates,
)
from earmark.stats.delta_method import delta_method_se
from earmark.stats.settings import DEFAULT_SEED


def _corpus(n: int, seed: int, rate: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ref = rng.poisson(12, n) + 1
    errors = rng.binomial(ref, rate) + rng.poisson(0.2, n)
    return errors, ref


def _naive_bootstrap(errors: np.ndarray, ref: np.ndarray, resamples: int) -> np.ndarray:
    """Textbook index-gather bootstrap of sum(errors)/sum(ref), as an oracle."""
    rng = np.random.default_rng(123)
    idx = rng.integers(0, errors.size, size=(resamples, errors.size))
    return errors[idx].sum(axis=1) / ref[idx].sum(axis=1)


def test_estimate_is_the_micro_rate_not_the_mean_of_rates() -> None:
    result = bootstrap_ci([1, 0, 2], [4, 5, 1], resamples=200)
    assert result.estimate == pytest.approx(3 / 10)
    assert result.n_rows == 3 and result.n_clusters == 3
    assert result.method == "percentile" and result.aggregate == "micro"
    assert result.seed == DEFAULT_SEED and result.resamples == 200
    macro = bootstrap_ci([1, 0, 2], [4, 5, 1], resamples=200, aggregate="macro")
    assert macro.estimate == pytest.approx((0.25 + 0 + 2) / 3)
    assert macro.aggregate == "macro"


def test_identical_rows_collapse_the_interval() -> None:
    result = bootstrap_ci([2] * 50, [10] * 50, resamples=500)
    assert (result.estimate, result.low, result.high) == (0.2, 0.2, 0.2)
    assert result.standard_error == 0.0


def test_seed_reproduces_and_a_different_seed_differs() -> None:
    errors, ref = _corpus(300, 1)
    first = bootstrap_ci(errors, ref, resamples=1000, seed=7)
    assert bootstrap_ci(errors, ref, resamples=1000, seed=7) == first
    other = bootstrap_ci(errors, ref, resamples=1000, seed=8)
    assert other.estimate == first.estimate
    assert (other.low, other.high) != (first.low, first.high)


def test_matches_a_naive_index_bootstrap_in_distribution() -> None:
    errors, ref = _corpus(400, 2)
    result = bootstrap_ci(errors, ref, resamples=4000, seed=1)
    naive = _naive_bootstrap(errors, ref, 4000)
    sd = naive.std(ddof=1)
    assert result.standard_error == pytest.approx(sd, rel=0.06)
    assert result.low == pytest.approx(np.quantile(naive, 0.025), abs=0.2 * sd)
    assert result.high == pytest.approx(np.quantile(naive, 0.975), abs=0.2 * sd)


def test_repeats_in_one_cluster_keep_the_interval_independent_repeats_narrow_it() -> None:
    errors, ref = _corpus(200, 3)
    single = bootstrap_ci(errors, ref, resamples=2000, seed=5)
    # Each clip scored three times with identical output (as in a temperature-0 repeat).
    clips = np.repeat(np.arange(200), 3)
    tripled = bootstrap_ci(
        np.repeat(errors, 3), np.repeat(ref, 3), clusters=clips, resamples=2000, seed=5
    )
    assert tripled.n_rows == 600 and tripled.n_clusters == 200
    # Cluster totals are exactly 3x the single ones, so every replicate ratio is identical.
    assert (tripled.estimate, tripled.low, tripled.high) == pytest.approx(
        (single.estimate, single.low, single.high), rel=1e-12
    )
    naive_rows = bootstrap_ci(np.repeat(errors, 3), np.repeat(ref, 3), resamples=2000, seed=5)
    width = single.high - single.low
    assert naive_rows.high - naive_rows.low == pytest.approx(width / np.sqrt(3), rel=0.12)


def test_string_cluster_keys_and_row_order() -> None:
    errors, ref = _corpus(60, 4)
    keys = np.array([f"clip_{i // 2}" for i in range(60)])
    by_name = bootstrap_ci(errors, ref, clusters=keys, resamples=800, seed=9)
    order = np.random.default_rng(0).permutation(60)
    shuffled = bootstrap_ci(
        errors[order], ref[order], clusters=list(keys[order]), resamples=800, seed=9
    )
    by_int = bootstrap_ci(errors, ref, clusters=np.arange(60) // 2, resamples=800, seed=9)
    assert by_name.n_clusters == 30
    assert shuffled == by_name == by_int


def test_zero_denominator_resamples_are_dropped_and_counted() -> None:
    result = bootstrap_ci([1, 0, 1], [0, 0, 5], resamples=6000, seed=2)
    assert result.estimate == pytest.approx(2 / 5)
    # A replicate has no reference unit when clip 3 is never drawn: (2/3)^3 = 8/27.
    assert result.dropped_resamples / 6000 == pytest.approx(8 / 27, abs=0.02)
    assert result.low is not None and result.low >= 0.0


def test_undefined_estimate_is_none_not_invented() -> None:
    result = bootstrap_ci([1, 0], [0, 0], resamples=100)
    assert result.estimate is None and result.low is None and result.high is None
    assert result.dropped_resamples == 100
    assert result.to_dict()["estimate"] is None


def test_to_dict_is_json_ready() -> None:
    import json

    record = bootstrap_ci([1, 2], [3, 4], resamples=50, seed=1).to_dict()
    assert json.loads(json.dumps(record)) == record
    assert set(record) >= {"estimate", "low", "high", "level", "resamples", "seed", "n_clusters"}


def test_acceptance_rate_as_a_ratio_of_sums() -> None:
    # Seed 001: 21/24 runs accepted, three repeats per clip, clip 5 rejected every time.
    accepted = np.array([1] * 12 + [0] * 3 + [1] * 9)
    clips = np.repeat(np.arange(8), 3)
    result = bootstrap_ratio(accepted, np.ones(24), clusters=clips, resamples=10_000)
    assert result.estimate == pytest.approx(21 / 24)
    # 7 of 8 clips pass: a replicate rate is (clips drawn that pass)/8, so in [0.5, 1].
    assert result.high == 1.0
    assert result.low == pytest.approx(0.625)


def test_f1_from_summed_counts() -> None:
    tp, fp, fn = np.array([3, 1, 2, 0]), np.array([1, 0, 1, 2]), np.array([0, 1, 1, 0])

    def f1(tp_total: np.ndarray, fp_total: np.ndarray, fn_total: np.ndarray) -> np.ndarray:
        return 2 * tp_total / (2 * tp_total + fp_total + fn_total)

    result = bootstrap_statistic((tp, fp, fn), f1, resamples=3000, seed=4)
    assert result.estimate == pytest.approx(12 / (12 + 4 + 2))
    assert 0.0 <= result.low <= result.estimate <= result.high <= 1.0
    # Replicates drawing only the fourth row have F1 = 0 (defined), none are dropped.
    assert result.dropped_resamples == 0


def test_bootstrap_sd_agrees_with_the_delta_method_on_a_big_corpus() -> None:
    errors, ref = _corpus(20_000, 6)
    result = bootstrap_ci(errors, ref, resamples=2000, seed=3)
    assert result.standard_error == pytest.approx(delta_method_se(errors, ref), rel=0.06)
    clips = np.arange(20_000) // 4
    clustered = bootstrap_ci(errors, ref, clusters=clips, resamples=2000, seed=3)
    expected = delta_method_se(errors, ref, clusters=clips)
    assert clustered.standard_error == pytest.approx(expected, rel=0.06)


def test_delta_method_hand_case_and_undefined() -> None:
    # R = 4/12; residuals -1/3, -5/3, 5/3, 1/3 -> sqrt(52/9) / 12.
    assert delta_method_se([1, 0, 2, 1], [4, 5, 1, 2]) == pytest.approx(np.sqrt(52 / 9) / 12)
    assert delta_method_se([1], [0]) is None


def test_percentile_coverage_is_near_nominal() -> None:
    """About 95% of intervals contain the population micro rate (0.2 here)."""
    rng = np.random.default_rng(2026)
    hits, simulations = 0, 300
    for i in range(simulations):
        ref = rng.poisson(10, 150) + 1
        errors = rng.binomial(ref, 0.2)
        result = bootstrap_ci(errors, ref, resamples=400, seed=i)
        hits += result.low <= 0.2 <= result.high
    assert 0.90 <= hits / simulations <= 0.985


def test_clustered_coverage_and_the_cost_of_ignoring_clusters() -> None:
    """With a per-clip random effect, only the clip bootstrap keeps nominal coverage."""
    rng = np.random.default_rng(77)
    clustered_hits = naive_hits = 0
    simulations = 200
    clips = np.repeat(np.arange(60), 4)
    for i in range(simulations):
        clip_rate = rng.beta(2, 8, 60)  # population mean 0.2
        ref = np.repeat(rng.poisson(10, 60) + 1, 4)
        errors = rng.binomial(ref, np.repeat(clip_rate, 4))
        good = bootstrap_ci(errors, ref, clusters=clips, resamples=300, seed=i)
        naive = bootstrap_ci(errors, ref, resamples=300, seed=i)
        clustered_hits += good.low <= 0.2 <= good.high
        naive_hits += naive.low <= 0.2 <= naive.high
    assert 0.88 <= clustered_hits / simulations <= 0.99
    assert naive_hits / simulations < clustered_hits / simulations - 0.05


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 20), st.integers(0, 20), st.integers(0, 20), st.integers(0, 20))
def test_utterance_rates_follow_error_counts(s: int, d: int, i: int, h: int) -> None:
    counts = ErrorCounts(substitutions=s, deletions=d, insertions=i, hits=h)
    rate = utterance_rates([counts.errors], [counts.ref_units])[0]
    assert rate == pytest.approx(counts.utterance_rate())


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"resamples": 0}, "resamples"),
        ({"level": 1.0}, "level"),
        ({"seed": -1}, "seed"),
        ({"aggregate": "mean"}, "aggregate"),
    ],
)
def test_bad_options_name_their_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(EarmarkError) as caught:
        bootstrap_ci([1], [2], **kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_misaligned_arrays_are_refused() -> None:
    with pytest.raises(EarmarkError, match="rows"):
        bootstrap_ci([1, 2, 3], [4, 5])
    with pytest.raises(EarmarkError):
        bootstrap_ci([1, 2], [4, 5], clusters=["a"])
    with pytest.raises(EarmarkError):
        bootstrap_ci([], [])
