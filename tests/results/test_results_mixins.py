"""A rate and its counts read alike from results.json's and compare.json's records."""

from __future__ import annotations

from earmark.metrics.counts import ErrorCounts
from earmark.results.comparison import CompareMetric
from earmark.results.estimate import Estimate
from earmark.results.metric import MetricResult
from earmark.results.predictions import UnitCounts


def _metric() -> MetricResult:
    return MetricResult(
        value=0.25,
        ci=(0.125, 0.5),
        substitutions=2,
        deletions=1,
        insertions=1,
        hits=13,
        ref_units=16,
        hyp_units=16,
        aggregate="micro",
        n_scored=3,
    )


def test_metric_and_unit_counts_give_the_same_error_counts() -> None:
    row = UnitCounts(
        substitutions=2, deletions=1, insertions=1, hits=13, ref_units=16, hyp_units=16
    )
    assert _metric().counts == row.counts == ErrorCounts(2, 1, 1, 13)
    assert (row.counts.ref_units, row.counts.errors) == (16, 4)  # S + D + hits; S + D + I


def test_results_and_compare_metrics_estimate_alike() -> None:
    compare = CompareMetric(value=0.25, ci=(0.125, 0.5))
    expected = Estimate(0.25, (0.125, 0.5), 0.9, "bca", None)
    assert _metric().estimate(level=0.9, method="bca") == expected
    assert compare.estimate(level=0.9, method="bca") == expected
    null = CompareMetric(value=None, ci=None, null_reason="no_rows")
    assert null.estimate() == Estimate(None, None, 0.95, "percentile", "no_rows")
