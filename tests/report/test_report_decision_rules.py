"""The promotion rule on hand-built typed evidence: no run directory, no bootstrap.

`decisions.rules` reads only the frozen records of `decisions.evidence`, so each threshold,
each boundary and the order in which the verdicts take precedence can be pinned with
figures chosen by hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from earmark.decisions.evidence import DecisionEvidence, ResourceEvidence, relative_reduction
from earmark.decisions.rules import judge, judge_language, judge_resources
from earmark.decisions.thresholds import DecisionRules
from earmark.results.codec import JSONObject
from earmark.results.decision import (
    VERDICTS,
    DecisionCorpus,
    DecisionSide,
    ErrorRateCeiling,
    EvidenceCoverage,
    LanguageEvidence,
    PlanCeilings,
    RecordGate,
    ResourceComparison,
    ResourceFigures,
    SettingDifference,
    SettingsComparison,
    SideCoverage,
)

RULES = DecisionRules()
FULL = SideCoverage(
    rows=40, with_hypothesis=40, share=1.0, not_ok={}, below_minimum=False, reason=None
)
HOST: JSONObject = {"os": "Linux", "arch": "x86_64", "cpu_model": "X", "cores_available": 4}


def lang(
    base: float | None,
    chal: float | None,
    ci: tuple[float, float] | None,
    *,
    language: str = "zh",
    coverage: tuple[SideCoverage, SideCoverage] = (FULL, FULL),
) -> LanguageEvidence:
    diff = None if base is None or chal is None else chal - base
    return LanguageEvidence(
        language=language,
        normalizer="zh-eval-v1",
        view="normalized",
        metric="cer",
        n_paired=40,
        n_skipped=0,
        baseline=None,
        challenger=None,
        baseline_rate=base,
        challenger_rate=chal,
        relative_reduction=relative_reduction(base, chal),
        difference=diff,
        difference_ci=ci,
        share_challenger_better=None,
        quality_win=None,
        non_inferior=None,
        significantly_worse=None,
        null_reason=None if ci else "no paired rows with reference units",
        coverage=EvidenceCoverage(baseline=coverage[0], challenger=coverage[1]),
    )


def measure(
    figures: tuple[float | None, float | None], statistic: str | None = None
) -> ResourceComparison:
    b, c = figures
    return ResourceComparison(
        statistic=statistic, baseline=b, challenger=c, reduction=relative_reduction(b, c), met=None
    )


def resources(
    latency: tuple[float | None, float | None] = (1.0, 1.0),
    core: tuple[float | None, float | None] = (0.5, 0.5),
    *,
    same_host: bool = True,
    rss: tuple[int | None, int | None] = (2**29, 2**29),
    rtf: float | None = 0.5,
) -> ResourceEvidence:
    return ResourceEvidence(
        same_host=same_host,
        baseline_host=HOST,
        challenger_host=HOST,
        latency_statistic="p95",
        latency=measure(latency, "p95"),
        core_cost=measure(core),
        peak_rss_bytes=ResourceFigures(baseline=rss[0], challenger=rss[1]),
        challenger_real_time_factor=rtf,
    )


def side(arm: str, missing: tuple[str, ...] = ()) -> DecisionSide:
    return DecisionSide(
        run="run", arm=arm, model={}, spec=None, host=None, verifiable=not missing, missing=missing
    )


def gate(name: str, missing: tuple[str, ...] = ()) -> RecordGate:
    return RecordGate(gate=name, passed=not missing, missing=missing)


def ceiling(
    metric: str,
    scope: str,
    limit: float,
    view: str | None,
    baseline: float | None,
    challenger: float | None,
    baseline_why: str | None,
    challenger_why: str | None,
) -> ErrorRateCeiling:
    return ErrorRateCeiling(
        metric=metric,
        scope=scope,
        limit=limit,
        baseline=baseline,
        view=view,
        baseline_null_reason=baseline_why,
        challenger=challenger,
        challenger_null_reason=challenger_why,
        met=None if challenger is None else challenger <= limit,
        baseline_met=None if baseline is None else baseline <= limit,
    )


def difference(
    key: str,
    baseline: str | None,
    challenger: str | None,
    baseline_source: str | None,
    challenger_source: str | None,
    allowed: bool | None = None,
) -> SettingDifference:
    return SettingDifference(
        key=key,
        baseline=baseline,
        challenger=challenger,
        baseline_source=baseline_source,
        challenger_source=challenger_source,
        allowed=allowed,
    )


NO_SETTINGS = SettingsComparison(
    subject=(), differences=(), not_comparable=(), allowed=(), baseline={}, challenger={}
)
NO_CEILINGS = PlanCeilings(plan_sha256=None, checks=())
PASSING = tuple(gate(g) for g in ("licence", "offline cache", "packaging"))
CORPUS = DecisionCorpus(dataset=None, manifest_sha256=None, selection=None, references_sha256=None)


def evidence(*languages: LanguageEvidence, **kw: Any) -> DecisionEvidence:
    fields: dict[str, Any] = {
        "baseline": side("base"),
        "challenger": side("chal"),
        "corpus": CORPUS,
        "languages": languages,
        "resources": resources(),
        "ceilings": NO_CEILINGS,
        "settings": NO_SETTINGS,
        "record_gates": PASSING,
        "checklist": (),
    }
    fields.update(kw)
    return DecisionEvidence(**fields)


WIN = lang(0.20, 0.15, (-0.08, -0.02))  # 25% lower, CI below 0
FLAT = lang(0.20, 0.20, (0.0, 0.0))  # identical errors: non-inferior at margin 0
WORSE = lang(0.20, 0.25, (0.02, 0.08))
UNSURE = lang(0.20, 0.19, (-0.03, 0.01))  # CI straddles 0


# ------------------------------------------------------------------ one language


@pytest.mark.parametrize(
    ("ci", "require", "quality"),
    [
        ((-0.08, -0.01), True, True),
        ((-0.08, 0.0), True, False),  # the upper bound must lie *below* 0
        ((-0.08, 0.0), False, True),  # ... unless significance is not required
        ((-0.08, 0.02), False, True),
    ],
)
def test_quality_needs_the_reduction_and_by_default_a_ci_below_zero(
    ci: tuple[float, float], require: bool, quality: bool
) -> None:
    rules = DecisionRules(require_significant_improvement=require)
    assert judge_language(lang(0.5, 0.4, ci), rules).quality_win is quality


def test_the_reduction_threshold_is_inclusive_despite_float_rounding() -> None:
    e = lang(0.5, 0.4, (-0.2, -0.05))
    assert e.relative_reduction is not None
    assert e.relative_reduction == pytest.approx(0.2) and e.relative_reduction < 0.2
    assert judge_language(e, RULES).quality_win  # 0.19999999999999996 counts as 20%
    assert not judge_language(lang(0.5, 0.401, (-0.2, -0.05)), RULES).quality_win


@pytest.mark.parametrize(
    ("ci", "margin", "non_inferior", "worse"),
    [
        ((-0.01, 0.0), 0.0, True, False),  # upper bound at the margin: non-inferior
        ((-0.01, 0.01), 0.0, False, False),
        ((-0.01, 0.01), 0.01, True, False),
        ((0.0, 0.02), 0.0, False, False),  # lower bound at the margin: not shown worse
        ((0.001, 0.02), 0.0, False, True),
        ((0.001, 0.02), 0.05, True, False),
    ],
)
def test_non_inferiority_and_significant_loss_against_the_margin(
    ci: tuple[float, float], margin: float, non_inferior: bool, worse: bool
) -> None:
    j = judge_language(lang(0.2, 0.2, ci), DecisionRules(non_inferiority_margin=margin))
    assert (j.non_inferior, j.significantly_worse) == (non_inferior, worse)


def test_without_paired_figures_nothing_holds() -> None:
    e = lang(None, None, None)
    assert e.relative_reduction is None
    j = judge_language(e, RULES)
    assert (j.quality_win, j.non_inferior, j.significantly_worse) == (False, False, False)


# ------------------------------------------------------------------ resources


def test_relative_reduction() -> None:
    assert relative_reduction(1.0, 0.6) == pytest.approx(0.4)
    assert relative_reduction(0.0, 0.0) is None  # nothing to reduce
    assert relative_reduction(None, 0.5) is None and relative_reduction(1.0, None) is None


def test_speed_and_cost_thresholds_only_on_the_same_host() -> None:
    r = resources(latency=(1.0, 0.7), core=(0.5, 0.36))
    j = judge_resources(r, RULES)
    assert (j.latency_met, j.core_cost_met) == (True, False)  # 30% met, 28% not
    j = judge_resources(replace(r, same_host=False), RULES)
    assert (j.latency_met, j.core_cost_met) == (False, False)


def test_resource_ceilings_are_opt_in_and_a_missing_figure_fails() -> None:
    assert judge_resources(resources(), RULES).ceilings == ()
    rules = DecisionRules(
        max_peak_rss_bytes=2**29, max_real_time_factor=0.4, max_latency_seconds=2.0
    )
    j = judge_resources(resources(latency=(1.0, None)), rules)
    assert [(c.name, c.limit, c.challenger, c.met) for c in j.ceilings] == [
        ("peak RSS bytes", 2**29, 2**29, True),  # at the limit: met
        ("real-time factor", 0.4, 0.5, False),
        ("latency p95 seconds", 2.0, None, False),  # not measured: not shown to be met
    ]


# ------------------------------------------------------------------ verdicts


def test_quality_win_with_everything_recorded_promotes() -> None:
    j = judge(evidence(WIN), RULES)
    assert j.verdict == "promote"
    assert j.reasons[0] == (
        "≥ 20% relative error reduction in every language; verifiable; resource ceilings "
        "met; licence, offline cache and packaging gates pass"
    )
    assert j.reasons[1] == (
        "zh CER (zh-eval-v1/normalized): baseline 20.00% → challenger 15.00%, relative "
        "reduction 25.00%, paired difference [-8.00, -2.00]; quality rule met"
    )


def test_a_win_must_hold_in_every_language() -> None:
    en = replace(UNSURE, language="en")
    assert judge(evidence(WIN, en), RULES).verdict == "stay"
    # Faster, with every language non-inferior: a speed win.
    fast = resources(latency=(1.0, 0.5))
    assert (
        judge(evidence(WIN, replace(FLAT, language="en"), resources=fast), RULES)
        .reasons[0]
        .startswith("latency reduction at non-inferior error")
    )


def test_speed_needs_non_inferior_error_everywhere() -> None:
    fast = resources(latency=(1.0, 0.5), core=(0.5, 0.2))
    j = judge(evidence(FLAT, resources=fast), RULES)
    assert j.verdict == "promote"
    assert j.reasons[0].startswith("latency and core cost reduction at non-inferior error")
    assert judge(evidence(UNSURE, resources=fast), RULES).verdict == "stay"


def test_precedence_coverage_then_reject_then_win() -> None:
    dead = SideCoverage(
        rows=40,
        with_hypothesis=0,
        share=0.0,
        not_ok={"arm_failed": 40},
        below_minimum=True,
        reason="coverage 0/40",
    )
    short = replace(WORSE, coverage=replace(WORSE.coverage, challenger=dead))
    over = PlanCeilings(
        plan_sha256="p" * 64,
        checks=(ceiling("cer", "zh", 0.1, "normalized", 0.2, 0.15, None, None),),
    )
    # Not judged beats a significant loss and a broken ceiling.
    j = judge(evidence(short, ceilings=over), RULES)
    assert j.verdict == "stay"
    assert j.reasons[0].startswith("not judged: challenger zh: coverage 0/40 — ")
    # A loss or a ceiling beats a win.
    assert judge(evidence(WORSE), RULES).verdict == "reject"
    j = judge(evidence(WIN, ceilings=over), RULES)
    assert j.verdict == "reject"
    assert j.reasons[0] == (
        "the challenger is over the pre-registered ceiling: CER zh 15.00% > 10.00% "
        "(plan pppppppppppp)"
    )


def test_a_win_held_back_in_order_unverifiable_ceiling_gate() -> None:
    unverifiable = evidence(WIN, challenger=side("chal", ("host profile",)))
    j = judge(unverifiable, RULES)
    assert j.verdict == "research only"
    assert j.reasons[0].endswith("but unverifiable — challenger: host profile")
    heavy = DecisionRules(max_peak_rss_bytes=2**28)
    assert judge(unverifiable, heavy).reasons[0].endswith("challenger: host profile")
    j = judge(evidence(WIN), heavy)
    assert j.verdict == "research only"
    assert "breaks peak RSS bytes ≤ 268435456" in j.reasons[0]
    gates = (gate("licence", ("model licence not recorded",)), *PASSING[1:])
    j = judge(evidence(WIN, record_gates=gates), RULES)
    assert j.verdict == "blocked"
    assert j.reasons[0].endswith("— licence: model licence not recorded")
    # Gates never soften a reject or a stay.
    assert judge(evidence(WORSE, record_gates=gates), RULES).verdict == "reject"
    assert judge(evidence(UNSURE, record_gates=gates), RULES).verdict == "stay"


def test_reasons_name_unchecked_ceilings_settings_and_hosts() -> None:
    unknown = ceiling("wer", "fr", 0.1, None, None, None, "gone", "not scored")
    settings = SettingsComparison(
        subject=(
            difference("compute_type", "int8", "float16", "a", "b"),
            difference("model", "x", "y", "a", "b"),
        ),
        differences=(difference("beam_size", "5", None, "a", None, True),),
        not_comparable=(),
        allowed=("beam_size",),
        baseline={},
        challenger={},
    )
    j = judge(
        evidence(
            UNSURE,
            ceilings=PlanCeilings(plan_sha256=None, checks=(unknown,)),
            settings=settings,
            resources=resources(same_host=False),
        ),
        RULES,
    )
    assert j.reasons[2:] == (
        "ceiling WER fr ≤ 10.00% not checked: not scored",
        "decoding settings differ, allowed: beam_size 5 → not recorded — the verdict is "
        "about these changes together with the system",
        "model and weight type both changed: the verdict is about the pair, not either "
        "change alone",
        "latency and core cost not compared: the two runs' host profiles differ or are "
        "not recorded",
    )


@pytest.mark.parametrize("languages", [(), (FLAT,), (WIN, WORSE), (UNSURE, FLAT)])
def test_every_judgement_is_a_known_verdict_with_a_reason_per_language(
    languages: tuple[LanguageEvidence, ...],
) -> None:
    j = judge(evidence(*languages), RULES)
    assert j.verdict in VERDICTS
    assert len(j.languages) == len(languages)
    assert len(j.reasons) == 1 + len(languages)  # the deciding reason, then one per language
