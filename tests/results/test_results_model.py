"""What readers get from `earmark.results`: typed figures equal to the file's, the
accessors that replace the dictionary walk, and the laws the figures obey."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from earmark.metrics.counts import ErrorCounts
from earmark.render.results import results_schema
from earmark.results import (
    ArmResult,
    BootstrapRecord,
    Comparison,
    Estimate,
    MetricResult,
    Results,
    ScopeResult,
    ViewResult,
)

RUN = Path(__file__).resolve().parents[1] / "report/data/example-run"
ARM = "tiny.en-int8"


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads((RUN / "results.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def results() -> Results:
    return Results.from_path(RUN)


def test_the_five_level_walk_is_one_call(results: Results, raw: dict) -> None:
    wer = results.arm(ARM).view("en", "normalized").wer
    walked = raw["arms"][ARM]["by_language"]["en"]["views"]["normalized"]["wer"]
    # Hand-checked against the file: 14 errors (11 S, 1 D, 2 I) over 114 reference words.
    assert wer == Estimate(
        14 / 114, (0.042735042735042736, 0.21818704284221516), 0.95, "percentile"
    )
    assert (wer.value, list(wer.ci or ())) == (walked["value"], walked["ci95"])
    assert (wer.low, wer.high) == tuple(walked["ci95"])


def test_typed_figures_equal_the_file(results: Results, raw: dict) -> None:
    arm, arm_raw = results.arm(ARM), raw["arms"][ARM]
    assert arm.languages == ("en", "ga", "zh")
    assert arm.coverage.references == 31 and arm.coverage.statuses == {"ok": 31}
    assert arm.overall is None and arm.overall_null_reason == arm_raw["overall_null_reason"]
    assert arm.bootstrap == BootstrapRecord(
        resamples=10000,
        seed=20260926,
        level=0.95,
        method="percentile",
        unit=arm_raw["bootstrap"]["unit"],
    )
    metric = arm.language("en").view("normalized").metric("wer")
    assert (metric.substitutions, metric.deletions, metric.insertions, metric.hits) == (
        11,
        1,
        2,
        102,
    )
    assert metric.counts == ErrorCounts(11, 1, 2, 102)
    assert metric.n_scored == 15 and metric.aggregate == "micro"
    assert arm.language("zh").primary_view == "normalized"
    assert (
        arm.view("zh").cer.value
        == arm_raw["by_language"]["zh"]["views"]["normalized"]["cer"]["value"]
    )
    assert arm.view("zh").mixed_er.value == pytest.approx(107 / 91)
    assert arm.language("en").slice("numbers").n_utterances == 4
    # Resources and metadata readers look up.
    assert (
        arm.resources is not None
        and arm.resources.latency_p95_seconds == arm_raw["resources"]["latency_p95_seconds"]
    )
    assert arm.resources.real_time_factor == arm_raw["resources"]["real_time_factor"]
    assert arm.resources.peak_rss_bytes == 354918400 and arm.resources.threads is None
    assert arm.resources_by_language is not None and arm.resources_by_language["en"].clips == 15
    assert arm.model is not None and arm.model.licence == "MIT"
    assert arm.spec is not None and arm.spec.settings == {"beam_size": "5", "compute_type": "int8"}
    assert results.provenance is not None and results.provenance.verifiable is True
    assert (
        results.public is True
        and len(results.probes) >= 5
        and all(p.passed for p in results.probes)
    )


def _scopes(arm: ArmResult) -> list[ScopeResult]:
    out: list[ScopeResult] = []
    todo = [*arm.by_language.values(), *([arm.overall] if arm.overall else [])]
    while todo:
        scope = todo.pop()
        out.append(scope)
        todo += [*(scope.by_slice or {}).values(), *(scope.by_speaker or {}).values()]
    return out


def test_micro_rates_are_their_summed_counts(results: Results) -> None:
    """Law: a micro rate is (S + D + I) / (S + D + C) of its own counts, and N_ref and
    N_hyp follow from the four counts, in every scope, view and metric of the file."""
    checked = 0
    for scope in _scopes(results.arm(ARM)):
        for view in scope.views.values():
            for metric in view.metrics.values():
                counts = metric.counts
                assert (metric.ref_units, metric.hyp_units) == (counts.ref_units, counts.hyp_units)
                assert metric.value == counts.error_rate()
                assert metric.ci is None or metric.ci[0] <= metric.value <= metric.ci[1]  # type: ignore[operator]
                checked += 1
    assert checked == 39  # en 4 x (1 + 3 slices), ga 4 x 2, zh 5 x (1 + 2 slices)


def test_engine_extras_stay_open_and_typed_keys_do_not(results: Results) -> None:
    """The engine's own figures are the one open section of the model record (its JSON
    key is `extra`); session counters and definitions are typed."""
    arm = results.arm(ARM)
    assert arm.model is not None and dict(arm.model.extra) == {}
    assert arm.model.engine_extra is not None and arm.model.engine_extra["device"] == "cpu"
    assert arm.resources is not None and arm.resources.session == {
        "transcribed": 31,
        "skipped_finished": 0,
        "failed": 0,
    }


def test_view_level_comes_from_the_arm(results: Results) -> None:
    arm = results.arm(ARM)
    other = replace(arm, bootstrap=replace(arm.bootstrap, level=0.9))
    assert other.view("en").wer.level == 0.9
    assert ViewResult(arm.language("en").view().metrics).wer.level == 0.95


def test_built_in_code_writes_declared_order_and_omits_unset_keys() -> None:
    metric = MetricResult(
        value=0.25,
        ci=None,
        substitutions=1,
        deletions=0,
        insertions=0,
        hits=3,
        ref_units=4,
        hyp_units=4,
        aggregate="micro",
        n_scored=1,
    )
    assert list(metric.to_dict()) == [
        "value",
        "ci95",
        "substitutions",
        "deletions",
        "insertions",
        "hits",
        "ref_units",
        "hyp_units",
        "aggregate",
        "n_scored",
    ]
    assert metric.to_dict()["ci95"] is None  # required, so written as null
    again = MetricResult.from_dict(metric.to_dict())
    assert again == metric and again.to_dict() == metric.to_dict()


def test_absent_null_and_unknown_keys_survive_in_place(raw: dict) -> None:
    data = json.loads(json.dumps(raw))
    metric = data["arms"][ARM]["by_language"]["en"]["views"]["raw"]["wer"]
    del metric["median_per_utterance_n"]  # optional: stays absent
    metric["mer"] = None  # optional and null: stays null
    data["arms"][ARM] = {"a_newer_key": [1, {"x": None}], **data["arms"][ARM]}  # unknown, first
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    results = Results.from_json(text)
    assert results.to_json() == text
    wer = results.arm(ARM).language("en").view("raw").metric("wer")
    assert wer.median_per_utterance_n is None and wer.mer is None
    assert "median_per_utterance_n" not in wer.to_dict() and wer.to_dict()["mer"] is None
    assert results.arm(ARM).extra == {"a_newer_key": [1, {"x": None}]}


def test_records_are_frozen_and_do_not_share_state(results: Results) -> None:
    arm = results.arm(ARM)
    with pytest.raises(AttributeError):
        arm.aggregate = "macro"  # type: ignore[misc]
    out = results.to_dict()
    out["arms"][ARM]["resources"]["peak_rss_bytes"] = 0  # type: ignore[index,call-overload]
    assert arm.model is not None
    written = arm.model.to_dict()
    written["extra"]["device"] = "gpu"  # type: ignore[index]
    assert results.to_json() == (RUN / "results.json").read_text("utf-8")


def test_written_results_fit_the_json_schema(results: Results) -> None:
    jsonschema.validate(results.to_dict(), results_schema())


def test_comparison_accessors(tmp_path: Path) -> None:
    from earmark.cli import main

    other = RUN.parents[2] / "compare/data/example-run"
    assert (
        main(
            [
                "compare",
                f"A={RUN}",
                f"B={other}",
                "--normalizer",
                "auto",
                "--bootstrap",
                "30",
                "--out",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 0
    )
    comparison = Comparison.from_path(tmp_path)
    raw = json.loads((tmp_path / "compare.json").read_text("utf-8"))
    pair = comparison.pair("B", "wer", "en")
    raw_pair = next(
        p
        for p in raw["pairs"]
        if (p["challenger"], p["metric"], p["language"]) == ("B", "wer", "en")
    )
    assert (pair.difference, pair.p_holm) == (raw_pair["difference"], raw_pair["p_holm"])
    # The same predictions on both sides: no difference, an exact interval at zero.
    assert comparison.difference("B", "wer", "en") == Estimate(0.0, (0.0, 0.0), 0.95, "percentile")
    overall = comparison.pair("B", "wer")
    assert overall.difference is None and overall.null_reason is not None
    human = comparison.arm("B").by_language["en"].vs_human["wer"]
    assert human.value == pytest.approx(14 / 114)
    assert comparison.arm("A").exact_match_vs_reference.value == 1.0


def test_the_documented_example_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """docs/results_model.md's Python blocks run as written, in the folder its first line
    tells the reader to make (`earmark examples ex && cd ex`)."""
    import re

    import earmark

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs/results_model.md").read_text("utf-8")
    assert "earmark examples ex && cd ex" in text
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    earmark.examples(tmp_path / "ex")
    monkeypatch.chdir(tmp_path / "ex")
    for block in blocks:
        exec(compile(block, "docs/results_model.md", "exec"), {})


def test_doctests() -> None:
    import doctest

    import earmark.results.estimate

    assert doctest.testmod(earmark.results.estimate).failed == 0


def test_decision_figures_are_typed() -> None:
    from earmark.results import Decision

    path = RUN.parent / "decision-golden/research-only-memory.json"
    raw = json.loads(path.read_text("utf-8"))
    decision = Decision.from_path(path)
    assert decision.verdict == raw["verdict"] == "research only"
    resources = decision.resources
    assert resources is not None and resources.latency is not None
    assert resources.latency.statistic == "p95"
    assert resources.latency.challenger == raw["resources"]["latency"]["challenger"]
    assert (
        resources.peak_rss_bytes is not None and resources.peak_rss_bytes.challenger == 3221225472
    )
    assert resources.ceilings is not None
    assert [(c.name, c.met) for c in resources.ceilings] == [
        (c["name"], c["met"]) for c in raw["resources"]["ceilings"]
    ]
    first = decision.evidence[0]
    assert first.coverage is not None and first.coverage.baseline.share == 1.0
    assert decision.rules is not None and decision.rules.level == 0.95
    estimate = decision.difference(first.language)
    assert (estimate.value, estimate.ci) == (first.difference, first.difference_ci)
    assert estimate.level == 0.95
