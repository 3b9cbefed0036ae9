"""The `numpy-pcg64-poisson` generator draws exactly the nonparametric (cluster) bootstrap.

Its numbers differ from `numpy-pcg64`'s for a seed, its law must not: the law of a
replicate's total is checked against the exact n-fold convolution (hand-checkable, small
n, both with and without Poisson counts), the draw counts against the multinomial's
moments, its intervals against the delta method and `numpy-pcg64` on a large synthetic
corpus, and its numbers for one thread against several.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from earmark.errors import EarmarkError
from earmark.scoring.metric import MetricSettings, metric_result
from earmark.stats import poisson_resampling
from earmark.stats.bootstrap import bootstrap_ci, bootstrap_cis, paired_bootstrap
from earmark.stats.delta_method import delta_method_se
from earmark.stats.poisson_resampling import GENERATOR, poisson_resample_totals
from earmark.stats.resampling import BLOCK_REPLICATES
from earmark.stats.settings import GENERATORS, BootstrapSettings


def _exact_sum_law(values: list[int]) -> np.ndarray:
    """P(sum of n draws with replacement from `values` = s), s = 0, 1, ...: the n-fold
    convolution of the values' empirical law."""
    one = np.bincount(values) / len(values)
    law = np.array([1.0])
    for _ in values:
        law = np.convolve(law, one)
    return law


@pytest.mark.parametrize(
    "values",
    [
        [0, 3],  # n = 2: lam = 0, every draw is a correction draw
        [0] * 4 + [1] * 3 + [5, 7] + [2] * 5 + [3] * 2,  # n = 16: lam = 1/2, groups + tail
        [0] * 30 + [1] * 12 + [2] * 5 + [4, 6, 9],  # n = 50: mostly Poisson counts
    ],
)
def test_replicate_total_follows_the_exact_law(values: list[int]) -> None:
    law = _exact_sum_law(values)
    replicates = 100_000
    totals = poisson_resample_totals(np.array(values, dtype=np.float64)[:, None], replicates, 3)
    observed = np.bincount(totals[:, 0].astype(np.int64), minlength=law.size)
    assert observed.size == law.size  # no total outside the support
    expected = law * replicates
    cells = expected >= 5
    chi2 = float(((observed[cells] - expected[cells]) ** 2 / expected[cells]).sum())
    assert stats.chi2.sf(chi2, int(cells.sum()) - 1) > 1e-4


def test_two_clusters_by_hand() -> None:
    """Two clusters: each replicate draws (2,0), (1,1) or (0,2) with chances 1/4, 1/2, 1/4."""
    totals = poisson_resample_totals(np.eye(2), 40_000, seed=3)
    assert np.all(totals.sum(axis=1) == 2)
    share = np.bincount(totals[:, 0].astype(int), minlength=3) / totals.shape[0]
    assert share == pytest.approx([0.25, 0.5, 0.25], abs=0.012)


@pytest.mark.parametrize("groups", [[40, 30, 12, 2, 1, 1, 1], [500, 300, 200, 3, 2, *[1] * 95]])
def test_draw_counts_have_multinomial_moments(groups: list[int]) -> None:
    """One-hot columns make the totals the draw counts of each group."""
    rows = np.repeat(np.eye(len(groups)), groups, axis=0)
    n, p = sum(groups), np.array(groups) / sum(groups)
    totals = poisson_resample_totals(rows, 20_000, seed=11)
    assert np.all(totals.sum(axis=1) == n)  # every replicate draws exactly n clusters
    expected_cov = n * (np.diag(p) - np.outer(p, p))
    sd = np.sqrt(np.diag(expected_cov))
    assert np.all(np.abs(totals.mean(axis=0) - n * p) < 5 * sd / np.sqrt(totals.shape[0]))
    assert np.cov(totals, rowvar=False) == pytest.approx(expected_cov, abs=0.05 * sd.max() ** 2)


def _cer_like(clips: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ref = rng.poisson(60, clips) + 1
    errors = rng.binomial(ref, 0.12) + rng.poisson(1.0, clips)
    return errors, ref


def test_intervals_agree_with_the_delta_method_and_the_other_generator() -> None:
    """On 20,000 clips the bootstrap SD is the delta-method SE, and both generators'
    intervals agree within their Monte Carlo error (about 2% of a half-width here)."""
    errors, ref = _cer_like(20_000, 8)
    se = delta_method_se(errors, ref)
    ours = bootstrap_ci(errors, ref, resamples=4_000, seed=2, generator=GENERATOR)
    theirs = bootstrap_ci(errors, ref, resamples=4_000, seed=2, generator="numpy-pcg64")
    assert ours.estimate == theirs.estimate
    assert ours.standard_error == pytest.approx(se, rel=0.05)
    assert ours.low is not None and ours.high is not None
    assert theirs.low is not None and theirs.high is not None
    assert (ours.low, ours.high) != (theirs.low, theirs.high)  # another stream ...
    assert ours.low == pytest.approx(theirs.low, abs=0.3 * se)  # ... the same law
    assert ours.high == pytest.approx(theirs.high, abs=0.3 * se)
    # The normal interval the delta method gives lies within a few SE/10 of ours.
    assert ours.low == pytest.approx(ours.estimate - 1.959964 * se, abs=0.3 * se)
    assert ours.high == pytest.approx(ours.estimate + 1.959964 * se, abs=0.3 * se)


def test_coverage_of_the_true_rate() -> None:
    """Corpora drawn from a known error rate: the 90% intervals cover it about 90% of the
    time (binomial SE of the share over 200 corpora: 2.1 points)."""
    rng = np.random.default_rng(21)
    covered = 0
    for trial in range(200):
        ref = rng.poisson(20, 400) + 1
        errors = rng.binomial(ref, 0.1)
        r = bootstrap_ci(errors, ref, resamples=400, seed=trial, level=0.9, generator=GENERATOR)
        assert r.low is not None and r.high is not None
        covered += r.low <= 0.1 <= r.high
    assert 0.84 <= covered / 200 <= 0.96


def test_same_numbers_on_any_number_of_threads() -> None:
    errors, ref = _cer_like(3_000, 4)
    values = np.stack([errors, ref], axis=1).astype(np.float64)
    resamples = 3 * BLOCK_REPLICATES + 17
    one = poisson_resample_totals(values, resamples, seed=5, workers=1)
    for workers in (2, 3):
        assert np.array_equal(one, poisson_resample_totals(values, resamples, 5, workers=workers))
    assert np.array_equal(one, poisson_resample_totals(values, resamples, seed=5))
    assert not np.array_equal(one, poisson_resample_totals(values, resamples, seed=6))


def test_row_order_and_cluster_names_do_not_matter() -> None:
    errors, ref = _cer_like(2_000, 6)
    order = np.random.default_rng(1).permutation(errors.size)
    a = bootstrap_ci(errors, ref, resamples=700, generator=GENERATOR)
    b = bootstrap_ci(errors[order], ref[order], resamples=700, generator=GENERATOR)
    assert (a.low, a.high) == (b.low, b.high)


def test_sums_are_exact_and_float_columns_are_drawn_too() -> None:
    """Integer totals stay integers; per-row rates (macro) take the float path."""
    errors, ref = _cer_like(5_000, 9)
    totals = poisson_resample_totals(np.stack([errors, ref], 1).astype(np.float64), 600, 1)
    assert np.all(totals == np.round(totals))
    macro = bootstrap_ci(errors, ref, resamples=2_000, aggregate="macro", generator=GENERATOR)
    other = bootstrap_ci(errors, ref, resamples=2_000, aggregate="macro")
    assert macro.estimate == other.estimate
    assert macro.standard_error == pytest.approx(other.standard_error, rel=0.1)


def test_one_cluster_and_paired_and_several_rates() -> None:
    one = bootstrap_ci([2], [10], resamples=50, generator=GENERATOR)
    assert (one.low, one.high) == (0.2, 0.2)
    assert one.standard_error == pytest.approx(0.0, abs=1e-12)
    errors, ref = _cer_like(1_000, 2)
    paired = paired_bootstrap(errors, errors + 1, ref, resamples=300, generator=GENERATOR)
    assert paired.share_b_better == 0.0 and paired.low is not None and paired.low > 0
    both = bootstrap_cis(
        {"a": (errors, ref), "b": (errors, ref)}, resamples=300, generator=GENERATOR
    )
    assert both["a"] == both["b"]


@pytest.mark.parametrize(
    "name",
    [
        "\ud800",
        "numpy-pcg64\x00",
        "../numpy-pcg64",
        "<script>alert(1)</script>",
        "x" * 100_000,
        "NUMPY-PCG64",
        " numpy-pcg64",
        "",
    ],
)
def test_hostile_generator_names_are_refused_with_one_line(name: str) -> None:
    """A name not in `GENERATORS` never reaches a record: refused by the settings (even
    with 0 resamples, when nothing would draw) and by every bootstrap call."""
    with pytest.raises(EarmarkError) as caught:
        BootstrapSettings(resamples=0, generator=name)
    assert caught.value.field == "generator"
    with pytest.raises(EarmarkError):
        bootstrap_ci([1], [2], resamples=10, generator=name)
    settings = MetricSettings("micro", 10, 1, 0.95, False, name)
    with pytest.raises(EarmarkError):
        metric_result(np.array([[1, 0, 0, 3]]), None, settings)


def test_unknown_generator_is_refused() -> None:
    with pytest.raises(EarmarkError) as caught:
        bootstrap_ci([1], [2], resamples=10, generator="mersenne")
    assert caught.value.field == "generator"
    assert set(GENERATORS) == {"numpy-pcg64", GENERATOR}


def test_settings_and_metric_carry_the_generator() -> None:
    assert BootstrapSettings().to_dict()["generator"] == GENERATOR  # the default, named
    assert BootstrapSettings(generator=GENERATOR).to_dict()["generator"] == GENERATOR
    counts = np.array([[1, 0, 0, 5], [0, 1, 1, 3], [2, 0, 0, 7]] * 20)
    clusters = np.arange(len(counts))
    default = metric_result(counts, clusters, MetricSettings("micro", 400, 1, 0.95))
    old = metric_result(
        counts, clusters, MetricSettings("micro", 400, 1, 0.95, False, "numpy-pcg64")
    )
    poisson = metric_result(
        counts, clusters, MetricSettings("micro", 400, 1, 0.95, False, GENERATOR)
    )
    assert default == poisson  # the default
    assert old.value == poisson.value and old.ci != poisson.ci
    direct = bootstrap_ci(
        counts[:, :3].sum(1),
        counts[:, [0, 1, 3]].sum(1),
        clusters=clusters,
        resamples=400,
        seed=1,
        generator=GENERATOR,
    )
    assert poisson.ci == (direct.low, direct.high)


def test_tables_hold_the_poisson_law() -> None:
    """A table's cells give Poisson(mean) to floating point, with < 1e-20 left out, and its
    guide never starts a search above the answer."""
    for mean in (0.5, 3.0, 47.5, 9_900.0):
        low, pmf = poisson_resampling._poisson_pmf(mean)
        support = np.arange(low, low + pmf.size)
        exact = stats.poisson.pmf(support, mean)
        assert pmf == pytest.approx(exact, rel=1e-9, abs=1e-300)
        assert 1.0 - exact.sum() < 1e-12  # what double precision can say of 1e-20
        cdf, guide = poisson_resampling._guided_cdf(pmf)
        assert cdf[-1] == 1.0 and np.all(np.diff(cdf) >= 0)
        buckets = guide.size - 1
        edges = np.arange(buckets) / buckets
        # Entry i: the first cell whose cumulative probability exceeds i / buckets.
        assert np.all(cdf[guide[:-1]] > edges)
        assert np.all((guide[:-1] == 0) | (cdf[np.maximum(guide[:-1] - 1, 0)] <= edges))
        assert guide[-1] == cdf.size - 1
    assert math.isclose(poisson_resampling.Z, 2.0)


def test_a_count_is_the_inverse_of_its_double() -> None:
    """Drawn counts are exactly `searchsorted(cdf, u, side="right")` of the doubles drawn."""
    tables = poisson_resampling._PoissonTables(np.array([0.0, 2.5, 40.0, 2.5]))
    counts = tables.draw(300, np.random.Generator(np.random.PCG64(8)))
    doubles = np.random.Generator(np.random.PCG64(8)).random((300, 4))
    for column, mean in enumerate([0.0, 2.5, 40.0, 2.5]):
        low, pmf = poisson_resampling._poisson_pmf(mean)
        cdf, _ = poisson_resampling._guided_cdf(pmf)
        expected = low + np.searchsorted(cdf, doubles[:, column], side="right")
        assert np.array_equal(counts[:, column], expected)


class _Doubles:
    """Stands in for a Generator whose `random` returns chosen doubles."""

    def __init__(self, doubles: np.ndarray) -> None:
        self.doubles = doubles

    def random(self, shape: tuple[int, int]) -> np.ndarray:
        return self.doubles.reshape(shape)


def test_far_tail_doubles_find_their_cell() -> None:
    """Doubles next to 0 and 1 land in a table's far tails, where many cells share a guide
    bucket (the long searches): still exactly the inverse."""
    means = np.array([2_000.0, 3.0])
    tables = poisson_resampling._PoissonTables(means)
    near = [0.0, 1e-300, 1e-17, 1e-9, 3e-4, 0.5, 1 - 3e-4, 1 - 1e-9, 1 - 2.0**-53]
    doubles = np.array([[d, d] for d in near])
    counts = tables.draw(len(near), _Doubles(doubles))  # type: ignore[arg-type]
    for column, mean in enumerate(means):
        low, pmf = poisson_resampling._poisson_pmf(float(mean))
        cdf, _ = poisson_resampling._guided_cdf(pmf)
        expected = low + np.searchsorted(cdf, doubles[:, column], side="right")
        assert np.array_equal(counts[:, column], expected)
    assert counts[0, 0] < 2_000 - 8 * 44 and counts[-1, 0] > 2_000 + 8 * 44


def test_hostile_values_huge_and_fractional() -> None:
    """Totals near 2**45 and fractional columns take the general paths, still exact."""
    big = np.array([[2.0**45, 3.0]] * 10 + [[2.0**44, 1.0]] * 3 + [[7.0, 2.0]])
    totals = poisson_resample_totals(big, 700, seed=1)
    assert np.all(totals == np.round(totals))
    ones = np.repeat(np.eye(3), [10, 3, 1], axis=0)
    counts = poisson_resample_totals(ones, 700, seed=1)
    assert np.array_equal(totals, counts @ np.array([[2.0**45, 3.0], [2.0**44, 1.0], [7.0, 2.0]]))
    fractions = np.array([[0.25], [0.5], [0.5], [0.5], [0.5], [0.125]])
    drawn = poisson_resample_totals(fractions, 500, seed=2)
    assert np.all(np.abs(drawn * 8 - np.round(drawn * 8)) == 0)  # sums of eighths, exact


def test_a_scored_corpus_names_the_generator_it_drew_with() -> None:
    """Scoring with the generator records it in the `bootstrap` record and draws every
    interval with it; numpy-pcg64 is named too (a record naming none means it)."""
    from earmark.formats.rows import ScoringRow
    from earmark.scoring.options import ScoringOptions
    from earmark.scoring.policy import NormalizerPolicy
    from earmark.scoring.scorer import score_rows

    rows = [
        ScoringRow(f"u{i}", "a b c d e f", "a b x d e f" if i % 3 else "a b c", "en")
        for i in range(60)
    ]

    def score(generator: str) -> dict[str, Any]:
        options = ScoringOptions(
            NormalizerPolicy.parse("none"),
            bootstrap=BootstrapSettings(resamples=300, generator=generator),
        )
        return score_rows(rows, options).to_dict()

    default, poisson = score("numpy-pcg64"), score(GENERATOR)
    assert default["bootstrap"]["generator"] == "numpy-pcg64"
    assert poisson["bootstrap"]["generator"] == GENERATOR
    metric = poisson["overall"]["views"]["raw"]["wer"]
    assert metric["ci95"] != default["overall"]["views"]["raw"]["wer"]["ci95"]
    assert metric["value"] == default["overall"]["views"]["raw"]["wer"]["value"]
    errors = np.array([1 if i % 3 else 3 for i in range(60)])
    direct = bootstrap_ci(
        errors, np.full(60, 6), clusters=np.arange(60), resamples=300, generator=GENERATOR
    )
    assert metric["ci95"] == [direct.low, direct.high]
