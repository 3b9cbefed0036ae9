"""One spelling of a figure (`earmark.results.display`), whatever form the figure comes in,
and results of an arm that failed before its model loaded (model and resources null)."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import earmark.results.display as display
from earmark.render.markdown import render_results_markdown
from earmark.results import MetricResult, Results
from earmark.results.display import fmt_rate, fmt_sdi, fmt_stat
from earmark.results.estimate import Estimate

EXAMPLE = Path(__file__).resolve().parent.parent / "report" / "data" / "example-run"


def _metric(value: float | None, ci: list[float] | None, reason: str | None = None) -> dict:
    data = {
        "value": value,
        "ci95": ci,
        "substitutions": 11,
        "deletions": 1,
        "insertions": 2,
        "hits": 102,
        "ref_units": 114,
        "hyp_units": 115,
        "aggregate": "micro",
        "n_scored": 15,
    }
    if reason is not None:
        data["null_reason"] = reason
    return data


def test_doctests() -> None:
    assert doctest.testmod(display).failed == 0


def test_hand_cases() -> None:
    assert fmt_rate(None) == "—"
    assert fmt_rate(_metric(0.12280701754385964, [0.042735, 0.218187])) == "12.28% [4.27, 21.82]"
    assert fmt_rate(_metric(0, None)) == "0.00%"  # an integer 0 and no interval
    assert fmt_rate(_metric(None, None, "below minimum")) == "null (below minimum)"
    assert fmt_rate(_metric(None, None)) == "null (not computable)"
    assert fmt_stat({"value": 1, "ci95": [1, 1]}) == "1.000 [1.000, 1.000]"
    assert fmt_stat({"value": None, "null_reason": "no marks"}) == "null (no marks)"
    assert fmt_sdi(MetricResult.from_dict(_metric(0.1, None))) == "11/1/2 of 114"
    assert fmt_sdi(None) == "—"


@given(
    value=st.one_of(st.none(), st.floats(0, 10), st.integers(0, 5)),
    ci=st.one_of(st.none(), st.tuples(st.floats(0, 10), st.floats(0, 10))),
    reason=st.one_of(st.none(), st.text(min_size=1, max_size=10)),
)
def test_a_metric_prints_alike_typed_as_an_estimate_and_as_json(value, ci, reason) -> None:
    data = _metric(value, None if ci is None else list(ci), reason)
    typed = MetricResult.from_dict(data)
    assert fmt_rate(typed) == fmt_rate(data) == fmt_rate(typed.estimate())


def test_every_metric_of_the_example_prints_alike_typed_and_as_json() -> None:
    data = json.loads((EXAMPLE / "results.json").read_text("utf-8"))
    typed = Results.from_dict(data)
    for name, arm in typed.arms.items():
        for lang, block in arm.by_language.items():
            for view_name, view in block.views.items():
                for metric_name, metric in view.metrics.items():
                    raw = data["arms"][name]["by_language"][lang]["views"][view_name][metric_name]
                    assert fmt_rate(metric) == fmt_rate(raw)


@pytest.fixture
def failed_arm() -> dict:
    """The example's results with its arm written as `earmark run` writes an arm that
    failed before its model loaded: model and resources null."""
    data = json.loads((EXAMPLE / "results.json").read_text("utf-8"))
    arm = data["arms"]["tiny.en-int8"]
    arm["model"] = None
    arm["resources"] = None
    return data


def test_a_failed_arm_reads_and_round_trips(failed_arm: dict) -> None:
    typed = Results.from_dict(failed_arm)
    arm = typed.arm()
    assert arm.model is None and arm.resources is None
    assert typed.to_dict() == failed_arm
    text = json.dumps(failed_arm, indent=2, ensure_ascii=False) + "\n"
    assert Results.from_json(text).to_json() == text
    md = render_results_markdown(failed_arm)
    assert "- Model load:" not in md  # no resources: no speed line
    assert "12.28% [4.27, 21.82]" in md  # the figures still print


@given(st.floats(allow_nan=True, allow_infinity=True), st.booleans())
def test_a_rate_is_spelt_as_formatted_however_often_it_was_spelt(rate: float, twice: bool) -> None:
    """The remembered spellings are the formatted ones: `-0.00` and `0.00` stay apart."""
    for _ in range(1 + twice):
        for x in (rate, -rate, 0.0, -0.0):
            assert fmt_rate({"value": x}) == f"{100 * x:.2f}%"
            expected = f"{100 * x:.2f}% [{100 * -x:.2f}, {100 * x:.2f}]"
            assert fmt_rate({"value": x, "ci95": [-x, x]}) == expected


_RATES = st.one_of(
    st.floats(min_value=-1.0, max_value=10.0, allow_nan=False),
    st.sampled_from([0.0, -0.0, 0.5, 1e-05, 0.13205, 0.132049999]),
)


@settings(max_examples=300, deadline=None)
@given(_RATES, _RATES, _RATES)
def test_a_rate_with_its_interval_is_spelt_as_its_three_numbers(
    value: float, low: float, high: float
) -> None:
    """Spelt once per distinct three numbers and remembered: both zeros keep their own
    spelling (`-0.00`, `0.00`), whichever was spelt first."""
    expected = f"{100 * value:.2f}% [{100 * low:.2f}, {100 * high:.2f}]"
    fmt_rate(Estimate(_other_zero(value), (_other_zero(low), _other_zero(high))))
    assert fmt_rate(Estimate(value, (low, high))) == expected
    assert fmt_rate(Estimate(value, (low, high))) == expected
    assert fmt_rate({"value": value, "ci95": [low, high]}) == expected


def _other_zero(number: float) -> float:
    """The other zero for a zero (equal to it, spelt otherwise); any other number as is."""
    return -number if number == 0 else number
