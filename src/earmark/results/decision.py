"""The decision record (`decision-YYYY-MM-DD.json`, schema `earmark.decision/1`).

`earmark decide` weighs a challenger against a baseline on the same data: a verdict
(promote / blocked / stay / research only / reject), the reasons in words, the paired
evidence per language, resources, settings, ceilings and the gates left to a person.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from earmark.results.codec import (
    ANY,
    BOOL,
    INT,
    INTERVAL,
    NUMBER,
    OBJECT,
    STR,
    JSONObject,
    JSONValue,
    MapOf,
    Nullable,
    OneOf,
    TupleOf,
    json_key,
)
from earmark.results.estimate import Estimate
from earmark.results.record import Nested, Record, lookup

DECISION_SCHEMA = "earmark.decision/1"
VERDICTS = ("promote", "blocked", "stay", "research only", "reject")


@dataclass(frozen=True, kw_only=True)
class DecisionSide(Record):
    """The baseline or the challenger: which run and arm, its model, spec and host."""

    run: str = field(metadata=json_key(STR))
    arm: str = field(metadata=json_key(STR))
    model: JSONObject | None = field(default=None, metadata=json_key(Nullable(OBJECT)))
    spec: JSONValue = field(default=None, metadata=json_key(ANY))
    host: JSONValue = field(default=None, metadata=json_key(ANY))
    verifiable: JSONValue = field(default=None, metadata=json_key(ANY))
    missing: tuple[str, ...] | None = field(default=None, metadata=json_key(TupleOf(STR)))


@dataclass(frozen=True, kw_only=True)
class RateSummary(Record):
    """One side's rate in a language as its results.json has it (the figures a reader
    checks the paired numbers against)."""

    value: float | None = field(metadata=json_key(Nullable(NUMBER)))
    ci: tuple[float, float] | None = field(
        default=None, metadata=json_key(Nullable(INTERVAL), "ci95")
    )
    substitutions: int | None = field(default=None, metadata=json_key(INT))
    deletions: int | None = field(default=None, metadata=json_key(INT))
    insertions: int | None = field(default=None, metadata=json_key(INT))
    ref_units: int | None = field(default=None, metadata=json_key(INT))
    n_scored: int | None = field(default=None, metadata=json_key(INT))


@dataclass(frozen=True, kw_only=True)
class SideCoverage(Record):
    """Rows of one side in one language with a hypothesis from the engine, and whether
    they reach the minimum share (below it the language is not judged)."""

    rows: int = field(metadata=json_key(INT))
    with_hypothesis: int = field(metadata=json_key(INT))
    share: float | None = field(metadata=json_key(Nullable(NUMBER)))
    not_ok: Mapping[str, int] | None = field(default=None, metadata=json_key(MapOf(INT)))
    below_minimum: bool | None = field(default=None, metadata=json_key(BOOL))
    reason: str | None = field(default=None, metadata=json_key(Nullable(STR)))


@dataclass(frozen=True, kw_only=True)
class EvidenceCoverage(Record):
    baseline: SideCoverage = field(metadata=json_key(Nested(SideCoverage)))
    challenger: SideCoverage = field(metadata=json_key(Nested(SideCoverage)))


@dataclass(frozen=True, kw_only=True)
class LanguageEvidence(Record):
    """Paired figures of one language: both rates on the rows both sides scored, the
    relative reduction, the paired difference and its interval, and the rule's tests."""

    language: str = field(metadata=json_key(STR))
    normalizer: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    view: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    metric: str = field(metadata=json_key(STR))
    n_paired: int | None = field(default=None, metadata=json_key(INT))
    n_skipped: int | None = field(default=None, metadata=json_key(INT))
    baseline: RateSummary | None = field(
        default=None, metadata=json_key(Nullable(Nested(RateSummary)))
    )
    challenger: RateSummary | None = field(
        default=None, metadata=json_key(Nullable(Nested(RateSummary)))
    )
    baseline_rate: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    challenger_rate: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    relative_reduction: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    difference: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    difference_ci: tuple[float, float] | None = field(
        default=None, metadata=json_key(Nullable(INTERVAL), "difference_ci95")
    )
    share_challenger_better: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    quality_win: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    non_inferior: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    significantly_worse: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    null_reason: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    #: Each side's share of rows with a hypothesis, and whether it meets the minimum.
    coverage: EvidenceCoverage | None = field(
        default=None, metadata=json_key(Nested(EvidenceCoverage))
    )


@dataclass(frozen=True, kw_only=True)
class ResourceComparison(Record):
    """One resource figure of both sides (latency: at `statistic`, p50 or p95), the
    challenger's relative reduction and whether it meets the rule's minimum."""

    statistic: str | None = field(default=None, metadata=json_key(STR))
    baseline: float | None = field(metadata=json_key(Nullable(NUMBER)))
    challenger: float | None = field(metadata=json_key(Nullable(NUMBER)))
    reduction: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    met: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))


@dataclass(frozen=True, kw_only=True)
class CeilingCheck(Record):
    """A plan ceiling (peak RSS, real-time factor, latency) and the challenger's figure."""

    name: str = field(metadata=json_key(STR))
    limit: float = field(metadata=json_key(NUMBER))
    challenger: float | None = field(metadata=json_key(Nullable(NUMBER)))
    met: bool | None = field(metadata=json_key(Nullable(BOOL)))


@dataclass(frozen=True, kw_only=True)
class DecisionResources(Record):
    """Latency, core cost (CPU seconds per audio second) and peak memory of both sides,
    and whether their host profiles match (a speed-up across hosts proves nothing)."""

    same_host: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    baseline_host: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    challenger_host: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    latency: ResourceComparison | None = field(
        default=None, metadata=json_key(Nested(ResourceComparison))
    )
    core_cost: ResourceComparison | None = field(
        default=None, metadata=json_key(Nested(ResourceComparison))
    )
    peak_rss_bytes: ResourceComparison | None = field(
        default=None, metadata=json_key(Nested(ResourceComparison))
    )
    ceilings: tuple[CeilingCheck, ...] | None = field(
        default=None, metadata=json_key(TupleOf(Nested(CeilingCheck)))
    )


@dataclass(frozen=True, kw_only=True)
class RulesApplied(Record):
    """The thresholds the verdict applied, as written in the record."""

    min_relative_error_reduction: float = field(metadata=json_key(NUMBER))
    min_latency_reduction: float | None = field(default=None, metadata=json_key(NUMBER))
    min_core_cost_reduction: float | None = field(default=None, metadata=json_key(NUMBER))
    non_inferiority_margin: float | None = field(default=None, metadata=json_key(NUMBER))
    metric: str | None = field(default=None, metadata=json_key(STR))
    latency_statistic: str | None = field(default=None, metadata=json_key(STR))
    require_significant_improvement: bool | None = field(default=None, metadata=json_key(BOOL))
    resamples: int | None = field(default=None, metadata=json_key(INT))
    seed: int | None = field(default=None, metadata=json_key(INT))
    level: float | None = field(default=None, metadata=json_key(NUMBER))
    max_peak_rss_bytes: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    max_real_time_factor: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    max_latency_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    min_coverage: float | None = field(default=None, metadata=json_key(NUMBER))
    allow_setting_differences: JSONValue = field(default=None, metadata=json_key(ANY))


@dataclass(frozen=True, kw_only=True)
class Decision(Record):
    """The whole decision record."""

    SCHEMA_ID: ClassVar[str | None] = DECISION_SCHEMA

    schema: str = field(metadata=json_key(STR))
    date: str = field(metadata=json_key(STR))
    verdict: str = field(metadata=json_key(OneOf(*VERDICTS)))
    reasons: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))
    baseline: DecisionSide = field(metadata=json_key(Nested(DecisionSide)))
    challenger: DecisionSide = field(metadata=json_key(Nested(DecisionSide)))
    corpus: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    rules: RulesApplied | None = field(default=None, metadata=json_key(Nested(RulesApplied)))
    evidence: tuple[LanguageEvidence, ...] = field(
        metadata=json_key(TupleOf(Nested(LanguageEvidence)))
    )
    resources: DecisionResources | None = field(
        default=None, metadata=json_key(Nested(DecisionResources))
    )
    settings: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    ceilings: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    record_gates: tuple[JSONObject, ...] | None = field(
        default=None, metadata=json_key(TupleOf(OBJECT))
    )
    gates: tuple[JSONObject, ...] | None = field(default=None, metadata=json_key(TupleOf(OBJECT)))

    def language(self, language: str) -> LanguageEvidence:
        """The evidence of one language."""
        found = {e.language: e for e in self.evidence}
        return lookup(found, language, "language", lambda: "evidence")

    def difference(self, language: str, *, level: float | None = None) -> Estimate:
        """The paired difference (challenger - baseline) of one language, as an Estimate
        at the rules' level."""
        e = self.language(language)
        if level is None:
            level = self.rules.level if self.rules and self.rules.level is not None else 0.95
        return Estimate(
            e.difference, e.difference_ci, level, "percentile (paired bootstrap)", e.null_reason
        )


def read_decision(path: str | os.PathLike[str]) -> Decision:
    """A decision record (`earmark decide --out FILE`)."""
    return Decision.from_path(path)
