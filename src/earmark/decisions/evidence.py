"""The evidence of a decision, read from the two compared runs into frozen records.

Everything `earmark decide` measures before it applies the rule: each language's paired
figures and coverage, latency and core cost on the same host, the plan's pre-registered
ceilings and what each side recorded of itself. Nothing here judges: the thresholds are
applied by `decisions.rules`, which reads only these records, never a run's dictionaries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from earmark.decisions.ceilings import ceiling_evidence
from earmark.decisions.gates import checklist_gates, record_gates
from earmark.decisions.sides import Side, side_record
from earmark.decisions.thresholds import DecisionRules
from earmark.errors import EarmarkError
from earmark.results import MetricResult, Resources
from earmark.results.codec import JSONObject
from earmark.results.decision import (
    ChecklistGate,
    DecisionCorpus,
    DecisionSide,
    EvidenceCoverage,
    LanguageEvidence,
    PlanCeilings,
    RecordGate,
    ResourceComparison,
    ResourceFigures,
    SettingsComparison,
    SideCoverage,
    SideRate,
)

if TYPE_CHECKING:
    from earmark.results import NormalizerInfo

#: Host fields that must match before latency or CPU cost can be compared.
HOST_FIELDS = ("os", "arch", "cpu_model", "cores_available", "memory_bytes")


@dataclass(frozen=True)
class ResourceEvidence:
    """Latency and core cost of both sides (their `met` left to the rule), comparable
    only on the same host profile, and the challenger's figures the ceilings weigh."""

    same_host: bool
    baseline_host: JSONObject
    challenger_host: JSONObject
    latency_statistic: str
    latency: ResourceComparison
    core_cost: ResourceComparison
    peak_rss_bytes: ResourceFigures
    challenger_real_time_factor: float | None


@dataclass(frozen=True)
class DecisionEvidence:
    """Everything the rule reads, gathered once from the two runs, and what the record
    says beside it (the corpus, the checklist a person confirms)."""

    baseline: DecisionSide
    challenger: DecisionSide
    corpus: DecisionCorpus
    languages: tuple[LanguageEvidence, ...]
    resources: ResourceEvidence
    ceilings: PlanCeilings
    settings: SettingsComparison
    record_gates: tuple[RecordGate, ...]
    checklist: tuple[ChecklistGate, ...]


def relative_reduction(baseline: float | None, challenger: float | None) -> float | None:
    """(baseline − challenger) / baseline, of an error rate or a resource figure; None
    without both figures or with nothing to reduce (a zero baseline).

    >>> relative_reduction(1.0, 0.6)
    0.4
    >>> relative_reduction(0.0, 0.0) is None
    True
    """
    if baseline is None or challenger is None or baseline <= 0:
        return None
    return (baseline - challenger) / baseline


def gather_evidence(
    baseline: Side, challenger: Side, rules: DecisionRules, settings: SettingsComparison
) -> DecisionEvidence:
    """Read both sides into evidence: every language the baseline scored, resources, the
    plan's ceilings and the challenger's record gates (`settings` already compared)."""
    ceilings = ceiling_evidence(baseline, challenger)
    gates = record_gates(challenger)
    languages = sorted(baseline.result.by_language)
    evidence = tuple(language_evidence(baseline, challenger, lang, rules) for lang in languages)
    resources = resource_evidence(baseline, challenger, rules.latency_statistic)
    run = baseline.run
    return DecisionEvidence(
        baseline=side_record(baseline),
        challenger=side_record(challenger),
        corpus=DecisionCorpus(
            dataset=run.corpus.get("dataset"),
            manifest_sha256=run.manifest_sha256,
            selection=(run.corpus.get("selection") or {}).get("rule"),
            references_sha256=None if run.manifest_sha256 else run.references_sha256(),
        ),
        languages=evidence,
        resources=resources,
        ceilings=ceilings,
        settings=settings,
        record_gates=gates,
        checklist=checklist_gates(challenger, resources.peak_rss_bytes),
    )


def _metric_of(normalizer: NormalizerInfo, metric: str) -> str:
    """The metric a language is judged on: its primary unit (`auto`: `wer` when the
    normaliser scores words first, else `cer`), or the one asked for where the normaliser
    has that unit (a character-scored language has no WER)."""
    if metric == "auto":
        return "wer" if (normalizer.units or ("word",))[0] == "word" else "cer"
    if metric == "wer" and "word" not in normalizer.units:
        return "cer"
    return metric


def language_evidence(
    baseline: Side, challenger: Side, language: str, rules: DecisionRules
) -> LanguageEvidence:
    """Paired figures of one language: the rates on the rows both sides scored, the paired
    difference and its CI, and each side's coverage."""
    from earmark.stats.bootstrap import paired_bootstrap

    scope_b = baseline.result.language(language)
    scope_c = challenger.result.language(language)
    metric = _metric_of(scope_b.normalizer, rules.metric)
    view = scope_b.primary_view
    c_rows = {r.key: r for r in challenger.rows if r.language == language}
    errors_b, errors_c, ref_units, clusters = [], [], [], []
    skipped = 0
    for r in baseline.rows:
        if r.language != language:
            continue
        other = c_rows.get(r.key)
        cb = r.counts(view, metric)
        cc = None if other is None else other.counts(view, metric)
        if cb is None or cc is None:
            skipped += 1
            continue
        if cb.ref_units != cc.ref_units:
            raise EarmarkError(
                f"row {r.key[0]}#{r.key[1]} has {cb.ref_units} reference units in the "
                f"baseline and {cc.ref_units} in the challenger",
                hint="both must be scored with the same normaliser version",
            )
        errors_b.append(cb.errors)
        errors_c.append(cc.errors)
        ref_units.append(cb.ref_units)
        clusters.append(r.key[0])
    paired = None
    if ref_units and sum(ref_units) > 0:
        paired = paired_bootstrap(
            errors_b,
            errors_c,
            ref_units,
            clusters=clusters,
            resamples=rules.bootstrap.resamples,
            seed=rules.bootstrap.seed,
            level=rules.bootstrap.level,
            generator=rules.bootstrap.generator,
        )
    b_rate, c_rate = (paired.rate_a, paired.rate_b) if paired else (None, None)
    return LanguageEvidence(
        language=language,
        normalizer=scope_b.normalizer.name,
        view=view,
        metric=metric,
        n_paired=len(ref_units),
        n_skipped=skipped,
        baseline=_side_rate(scope_b.views[view].metrics.get(metric)),
        challenger=_side_rate(scope_c.views[view].metrics.get(metric)),
        baseline_rate=b_rate,
        challenger_rate=c_rate,
        relative_reduction=relative_reduction(b_rate, c_rate),
        difference=paired.difference if paired else None,
        difference_ci=_interval(paired.low, paired.high) if paired else None,
        share_challenger_better=paired.share_b_better if paired else None,
        quality_win=None,
        non_inferior=None,
        significantly_worse=None,
        null_reason=None if paired else "no paired rows with reference units",
        coverage=EvidenceCoverage(
            baseline=side_coverage(baseline, language, rules.min_coverage),
            challenger=side_coverage(challenger, language, rules.min_coverage),
        ),
    )


def _interval(low: float | None, high: float | None) -> tuple[float, float] | None:
    return None if low is None or high is None else (low, high)


def side_coverage(side: Side, language: str, minimum: float) -> SideCoverage:
    """Rows of one side in one language with a hypothesis from the engine, and why the
    side cannot be judged when they are fewer than `minimum` of the rows."""
    from earmark.render.leaderboard_entries import coverage_reason, scope_statuses

    statuses = scope_statuses(side.run, side.arm, language)
    rows, covered = sum(statuses.values()), statuses.get("ok", 0)
    not_ok = {k: v for k, v in sorted(statuses.items()) if k != "ok"}
    below = rows == 0 or covered < minimum * rows - 1e-9
    reason = coverage_reason(covered, rows, not_ok, minimum) if below else None
    return SideCoverage(
        rows=rows,
        with_hypothesis=covered,
        share=covered / rows if rows else None,
        not_ok=not_ok,
        below_minimum=below,
        reason=reason,
    )


def _side_rate(metric: MetricResult | None) -> SideRate | None:
    """What the record keeps of a side's own rate in a language (the rest is in its
    results.json): the rate, its CI and the counts behind it."""
    if metric is None:
        return None
    return SideRate(
        value=metric.value,
        ci=metric.ci,
        substitutions=metric.substitutions,
        deletions=metric.deletions,
        insertions=metric.insertions,
        ref_units=metric.ref_units,
        n_scored=metric.n_scored,
        null_reason=metric.null_reason,
    )


def resource_evidence(baseline: Side, challenger: Side, statistic: str) -> ResourceEvidence:
    """Latency (`statistic`: p50 or p95 per clip), core cost and peak memory of both sides,
    and whether their host profiles match."""
    b_host = {k: baseline.run.host.get(k) for k in HOST_FIELDS}
    c_host = {k: challenger.run.host.get(k) for k in HOST_FIELDS}
    rb, rc = baseline.resources, challenger.resources

    def latency(r: Resources) -> float | None:
        return r.latency_p95_seconds if statistic == "p95" else r.latency_p50_seconds

    b_lat, c_lat = latency(rb), latency(rc)
    b_cost, c_cost = rb.cpu_seconds_per_audio_second, rc.cpu_seconds_per_audio_second
    return ResourceEvidence(
        same_host=bool(baseline.run.host) and b_host == c_host,
        baseline_host=b_host,
        challenger_host=c_host,
        latency_statistic=statistic,
        latency=ResourceComparison(
            statistic=statistic,
            baseline=b_lat,
            challenger=c_lat,
            reduction=relative_reduction(b_lat, c_lat),
            met=None,
        ),
        core_cost=ResourceComparison(
            baseline=b_cost,
            challenger=c_cost,
            reduction=relative_reduction(b_cost, c_cost),
            met=None,
        ),
        peak_rss_bytes=ResourceFigures(baseline=rb.peak_rss_bytes, challenger=rc.peak_rss_bytes),
        challenger_real_time_factor=rc.real_time_factor,
    )
