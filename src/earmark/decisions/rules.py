"""The promotion rule of `earmark decide` (seed 000): does a challenger replace the baseline?

It reads only the typed evidence of `decisions.evidence` (no run, no dictionary), so every
threshold (`decisions.thresholds`) and the order the verdicts take precedence are pinned by
hand-built cases.

The rule, with every threshold configurable and recorded:

- **Quality win**: in every scored language the challenger's primary-view error rate is
  at least 20% lower, relative to the baseline (`min_relative_error_reduction`), and —
  by default — the paired 95% CI of challenger − baseline lies entirely below 0.
- **Speed or cost win**: latency (p95 per clip) or core cost (CPU seconds per audio
  second) at least 30% lower, measured on the same host profile, *and* non-inferior
  error in every language: the upper CI bound of challenger − baseline ≤ the margin
  (default 0.0).

The metric is the language's primary unit: CER for character-scored normalisers
(`zh-eval-v1`), WER for word-scored ones; `metric = "cer"` uses CER everywhere (every
normaliser has character units). The paired CI comes from `stats.paired_bootstrap` on the
per-row counts of rows paired by (id, repeat), clips resampled together.

Verdicts:
- `reject` — in some language the challenger is significantly worse (lower CI bound of
  challenger − baseline above the margin);
- `promote` — a quality or a speed/cost win, the run verifiable, resource ceilings met;
- `research only` — a win, but a side lacks model revision/hashes, corpus hash or host
  profile, or the challenger breaks a resource ceiling (an opt-in preset, not a default);
- `stay` — no rule met: keep the baseline; also when a side's coverage (rows with a
  hypothesis from the engine / rows) is below `min_coverage` in some language (default:
  every row), since a row without a hypothesis is scored as all deletions and an arm
  that never loaded would otherwise "lose" or "win" on figures that are not results.

A win is necessary, not sufficient. Three gates are checked from what the run recorded
(`record_gates`): *licence* (the challenger's model licence and its source, the corpus
licence and consent basis), *offline cache* (the egress audit covered the arm's whole
process tree, refused the network and saw no attempt off this machine) and *packaging*
(file hashes, an immutable revision that agrees with them, runtime version). A win with a
gate failing is `blocked`, the missing items named, until a rerun records them. The rest
(the weights' actual terms, memory on every hardware profile, packaging on every OS,
timestamps, command safety, long-form stability) stays a checklist a person confirms.

A challenger above a pre-registered error-rate ceiling of the run's plan (`[ceilings]`,
per language or slice) is `reject`. Different data (manifest, selection, normaliser,
language policy, rows or references) is refused outright, and so are different decoding
settings (`compare_settings`) unless named in `allow_setting_differences`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from earmark.decisions.formatting import fmt_pp_ci, fmt_shown
from earmark.decisions.thresholds import DecisionRules
from earmark.results.decision import LanguageEvidence, ResourceCeiling
from earmark.results.display import fmt_pct

if TYPE_CHECKING:
    from earmark.decisions.evidence import DecisionEvidence, ResourceEvidence


@dataclass(frozen=True)
class LanguageJudgement:
    """Which parts of the rule one language's paired figures meet."""

    quality_win: bool
    non_inferior: bool
    significantly_worse: bool


def judge_language(e: LanguageEvidence, rules: DecisionRules) -> LanguageJudgement:
    """Quality: the relative reduction reaches the threshold and (by default) the paired CI
    of challenger − baseline lies below 0. Non-inferior: its upper bound is within the
    margin. Significantly worse: its lower bound is above the margin."""
    low, high = e.difference_ci or (None, None)
    rel = e.relative_reduction
    margin = rules.non_inferiority_margin
    improvement_ok = rel is not None and rel >= rules.min_relative_error_reduction - 1e-12
    significant_ok = high is not None and high < 0
    return LanguageJudgement(
        quality_win=bool(
            improvement_ok and (significant_ok or not rules.require_significant_improvement)
        ),
        non_inferior=high is not None and high <= margin,
        significantly_worse=low is not None and low > margin,
    )


@dataclass(frozen=True)
class ResourceJudgement:
    """Whether latency or core cost fell far enough (only on the same host), and the
    resource ceilings the rules set."""

    latency_met: bool
    core_cost_met: bool
    ceilings: tuple[ResourceCeiling, ...]


def judge_resources(r: ResourceEvidence, rules: DecisionRules) -> ResourceJudgement:
    """Speed and cost thresholds, applied only when the host profiles match."""

    def met(reduction: float | None, threshold: float) -> bool:
        return bool(r.same_host and reduction is not None and reduction >= threshold - 1e-12)

    limits = (
        ("peak RSS bytes", rules.max_peak_rss_bytes, r.peak_rss_bytes.challenger),
        ("real-time factor", rules.max_real_time_factor, r.challenger_real_time_factor),
        (f"latency {r.latency_statistic} seconds", rules.max_latency_seconds, r.latency.challenger),
    )
    return ResourceJudgement(
        latency_met=met(r.latency.reduction, rules.min_latency_reduction),
        core_cost_met=met(r.core_cost.reduction, rules.min_core_cost_reduction),
        ceilings=tuple(
            ResourceCeiling(
                name=name, limit=limit, challenger=value, met=value is not None and value <= limit
            )
            for name, limit, value in limits
            if limit is not None
        ),
    )


@dataclass(frozen=True)
class Judgement:
    """The verdict, its reasons (the deciding one first) and the per-part judgements."""

    verdict: str
    reasons: tuple[str, ...]
    languages: tuple[LanguageJudgement, ...]
    resources: ResourceJudgement


def evidence_reason(e: LanguageEvidence, j: LanguageJudgement) -> str:
    """One language's figures and which part of the rule they meet, as one sentence."""
    if e.null_reason:
        return f"{e.language}: {e.null_reason}"
    state = (
        "quality rule met"
        if j.quality_win
        else "non-inferior"
        if j.non_inferior
        else "not shown non-inferior"
    )
    return (
        f"{e.language} {e.metric.upper()} ({e.normalizer}/{e.view}): baseline "
        f"{fmt_pct(e.baseline_rate)} → challenger {fmt_pct(e.challenger_rate)}, relative "
        f"reduction {fmt_pct(e.relative_reduction)}, paired difference "
        f"{fmt_pp_ci(e.difference_ci)}; {state}"
    )


def judge(evidence: DecisionEvidence, rules: DecisionRules) -> Judgement:
    """The verdict and its reasons from the evidence gathered: coverage first (figures of a
    side that never ran are not results), then a significant loss or a broken ceiling,
    then a win and what may hold it back (verifiability, resource ceilings, record gates)."""
    languages = tuple(judge_language(e, rules) for e in evidence.languages)
    resources = judge_resources(evidence.resources, rules)
    judged = list(zip(evidence.languages, languages, strict=True))
    reasons = [evidence_reason(e, j) for e, j in judged]
    worse = [e for e, j in judged if j.significantly_worse]
    quality = bool(judged) and all(j.quality_win for j in languages)
    non_inferior = bool(judged) and all(j.non_inferior for j in languages)
    speed = non_inferior and (resources.latency_met or resources.core_cost_met)
    ceilings = evidence.ceilings
    over = [c for c in ceilings.checks if c.met is False]
    reasons += _caveats(evidence)
    short = [
        f"{role} {e.language}: {coverage.reason}"
        for e in evidence.languages
        for role, coverage in (
            ("baseline", e.coverage.baseline),
            ("challenger", e.coverage.challenger),
        )
        if coverage.below_minimum
    ]
    if short:
        verdict = "stay"
        reasons.insert(
            0,
            "not judged: " + "; ".join(short) + " — a row without a hypothesis is scored as "
            "all deletions, so these error rates are not results; keep the baseline, fix "
            "the failed arm and rerun (or lower min_coverage knowingly)",
        )
    elif worse or over:
        verdict = "reject"
        why = []
        if worse:
            why.append(
                "the challenger is significantly worse in "
                + ", ".join(e.language for e in worse)
                + f" (lower CI bound of challenger − baseline above the margin "
                f"{rules.non_inferiority_margin:+.4f})"
            )
        if over:
            why.append(
                "the challenger is over the pre-registered ceiling: "
                + ", ".join(
                    f"{c.metric.upper()} {c.scope} {fmt_pct(c.challenger)} > {fmt_pct(c.limit)}"
                    for c in over
                )
                + f" (plan {str(ceilings.plan_sha256)[:12]})"
            )
        reasons.insert(0, "; ".join(why))
    elif quality or speed:
        verdict, first = _win(evidence, resources, rules, quality=quality, speed=speed)
        reasons.insert(0, first)
    else:
        verdict = "stay"
        reasons.insert(0, "no promotion rule met: keep the baseline")
    return Judgement(verdict, tuple(reasons), languages, resources)


def _caveats(evidence: DecisionEvidence) -> list[str]:
    """What the reader must know beside the figures: ceilings that could not be checked,
    allowed setting differences, a paired change of model and weight type, hosts that
    differ (so speed was not compared)."""
    out = [
        f"ceiling {c.metric.upper()} {c.scope} ≤ {fmt_pct(c.limit)} not checked: "
        + str(c.challenger_null_reason or "no value")
        for c in evidence.ceilings.checks
        if c.met is None
    ]
    settings = evidence.settings
    if settings.differences:
        out.append(
            "decoding settings differ, allowed: "
            + "; ".join(
                f"{d.key} {fmt_shown(d.baseline)} → {fmt_shown(d.challenger)}"
                for d in settings.differences
            )
            + " — the verdict is about these changes together with the system"
        )
    if {"model", "compute_type"} <= {d.key for d in settings.subject}:
        out.append(
            "model and weight type both changed: the verdict is about the pair, "
            "not either change alone"
        )
    if not evidence.resources.same_host:
        out.append(
            "latency and core cost not compared: the two runs' host profiles "
            "differ or are not recorded"
        )
    return out


def _win(
    evidence: DecisionEvidence,
    resources: ResourceJudgement,
    rules: DecisionRules,
    *,
    quality: bool,
    speed: bool,
) -> tuple[str, str]:
    """A win is necessary, not sufficient: the verdict of one, and the reason that says
    what holds it back (an unverifiable side, a broken resource ceiling, a record gate)."""
    wins = []
    if quality:
        wins.append(
            f"≥ {100 * rules.min_relative_error_reduction:.0f}% relative error "
            "reduction in every language"
        )
    if speed:
        met = [
            name
            for name, ok in (
                ("latency", resources.latency_met),
                ("core cost", resources.core_cost_met),
            )
            if ok
        ]
        wins.append(" and ".join(met) + " reduction at non-inferior error")
    won = "a win (" + "; ".join(wins) + ")"
    unverifiable = [
        f"{role}: {'; '.join(side.missing)}"
        for role, side in (("baseline", evidence.baseline), ("challenger", evidence.challenger))
        if not side.verifiable
    ]
    failed = [c for c in resources.ceilings if not c.met]
    blocked = [g for g in evidence.record_gates if not g.passed]
    if unverifiable:
        return "research only", won + " but unverifiable — " + " | ".join(unverifiable)
    if failed:
        return "research only", (
            won
            + " but the challenger breaks "
            + ", ".join(f"{c.name} ≤ {c.limit}" for c in failed)
            + ": an opt-in preset on supported hardware, not the default"
        )
    if blocked:
        return "blocked", (
            won
            + " but blocked until the record gates pass — "
            + " | ".join(f"{g.gate}: {'; '.join(g.missing)}" for g in blocked)
        )
    return "promote", (
        "; ".join(wins) + "; verifiable; resource ceilings met; licence, offline "
        "cache and packaging gates pass"
    )
