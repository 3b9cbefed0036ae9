"""The decision record (`decision-YYYY-MM-DD.json`, schema `earmark.decision/1`).

`earmark decide` weighs a challenger against a baseline on the same data: a verdict
(promote / blocked / stay / research only / reject), the reasons in words, the paired
evidence per language, resources, settings, ceilings and the gates left to a person.
`earmark.decisions` builds these records; the JSON is written from them once.

A field the producer always writes is required, even where its value may be null, so a
record built in code writes the same keys as the file it is read back from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from earmark.results.codec import (
    BOOL,
    INT,
    INTERVAL,
    NUMBER,
    OBJECT,
    STR,
    JSONObject,
    MapOf,
    Nullable,
    OneOf,
    TupleOf,
    json_key,
)
from earmark.results.estimate import Estimate
from earmark.results.notebook import Cell, ShowsAsTable, data_frame, scalar_fields
from earmark.results.record import Nested, Record, lookup

if TYPE_CHECKING:
    from earmark.results.notebook import Frame

DECISION_SCHEMA = "earmark.decision/1"
VERDICTS = ("promote", "blocked", "stay", "research only", "reject")

_NULLABLE_STR = Nullable(STR)
_NULLABLE_NUMBER = Nullable(NUMBER)
_NULLABLE_BOOL = Nullable(BOOL)


@dataclass(frozen=True, kw_only=True)
class DecisionSide(Record):
    """The baseline or the challenger: which run and arm, its model, spec and host, and
    whether a reader can verify what ran (model revision and hashes, corpus hash, host)."""

    run: str = field(metadata=json_key(STR))
    arm: str = field(metadata=json_key(STR))
    model: JSONObject = field(metadata=json_key(OBJECT))
    spec: JSONObject | None = field(metadata=json_key(Nullable(OBJECT)))
    host: JSONObject | None = field(metadata=json_key(Nullable(OBJECT)))
    verifiable: bool = field(metadata=json_key(BOOL))
    missing: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))


@dataclass(frozen=True, kw_only=True)
class DecisionCorpus(Record):
    """The data both sides were scored on: dataset, manifest hash and selection rule (or,
    without a manifest hash, the hash of the scored references)."""

    dataset: str | None = field(metadata=json_key(_NULLABLE_STR))
    manifest_sha256: str | None = field(metadata=json_key(_NULLABLE_STR))
    selection: str | None = field(metadata=json_key(_NULLABLE_STR))
    references_sha256: str | None = field(metadata=json_key(_NULLABLE_STR))


@dataclass(frozen=True, kw_only=True)
class RulesApplied(Record):
    """The thresholds the verdict applied, as written in the record (flat: the bootstrap's
    resamples, seed and level stand beside the other rules)."""

    min_relative_error_reduction: float = field(metadata=json_key(NUMBER))
    min_latency_reduction: float = field(metadata=json_key(NUMBER))
    min_core_cost_reduction: float = field(metadata=json_key(NUMBER))
    non_inferiority_margin: float = field(metadata=json_key(NUMBER))
    metric: str = field(metadata=json_key(STR))
    latency_statistic: str = field(metadata=json_key(STR))
    require_significant_improvement: bool = field(metadata=json_key(BOOL))
    resamples: int = field(metadata=json_key(INT))
    seed: int = field(metadata=json_key(INT))
    level: float = field(metadata=json_key(NUMBER))
    #: The paired bootstrap's generator; absent in records written before issue 25, whose
    #: intervals were drawn with `numpy-pcg64`.
    generator: str | None = field(default=None, metadata=json_key(STR))
    max_peak_rss_bytes: int | None = field(metadata=json_key(Nullable(INT)))
    max_real_time_factor: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    max_latency_seconds: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    min_coverage: float = field(metadata=json_key(NUMBER))
    allow_setting_differences: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))


@dataclass(frozen=True, kw_only=True)
class SideRate(Record):
    """One side's own rate in a language over all its rows, as its results.json has it
    (the figures a reader checks the paired numbers against)."""

    value: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    ci: tuple[float, float] | None = field(metadata=json_key(Nullable(INTERVAL), "ci95"))
    substitutions: int = field(metadata=json_key(INT))
    deletions: int = field(metadata=json_key(INT))
    insertions: int = field(metadata=json_key(INT))
    ref_units: int = field(metadata=json_key(INT))
    n_scored: int = field(metadata=json_key(INT))
    null_reason: str | None = field(default=None, metadata=json_key(STR))


@dataclass(frozen=True, kw_only=True)
class SideCoverage(Record):
    """Rows of one side in one language with a hypothesis from the engine, and whether
    they reach the minimum share (below it the language is not judged: a row without a
    hypothesis is scored as all deletions)."""

    rows: int = field(metadata=json_key(INT))
    with_hypothesis: int = field(metadata=json_key(INT))
    share: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    not_ok: Mapping[str, int] = field(metadata=json_key(MapOf(INT)))
    below_minimum: bool = field(metadata=json_key(BOOL))
    reason: str | None = field(metadata=json_key(_NULLABLE_STR))


@dataclass(frozen=True, kw_only=True)
class EvidenceCoverage(Record):
    baseline: SideCoverage = field(metadata=json_key(Nested(SideCoverage)))
    challenger: SideCoverage = field(metadata=json_key(Nested(SideCoverage)))


@dataclass(frozen=True, kw_only=True)
class LanguageEvidence(Record):
    """Paired figures of one language, on the rows both sides scored (paired by id and
    repeat): both rates, the relative reduction, challenger − baseline and its CI
    (clusters: the repeats of a clip), and the parts of the rule they meet.

    Gathered before the rule is applied, with the three judgements None; the record
    holds them filled in. The rates are None (with `null_reason`) when no paired row has
    reference units."""

    language: str = field(metadata=json_key(STR))
    normalizer: str = field(metadata=json_key(STR))
    view: str = field(metadata=json_key(STR))
    metric: str = field(metadata=json_key(STR))
    n_paired: int = field(metadata=json_key(INT))
    n_skipped: int = field(metadata=json_key(INT))
    baseline: SideRate | None = field(metadata=json_key(Nullable(Nested(SideRate))))
    challenger: SideRate | None = field(metadata=json_key(Nullable(Nested(SideRate))))
    baseline_rate: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    challenger_rate: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    #: (baseline − challenger) / baseline; None when the baseline made no error.
    relative_reduction: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    difference: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    difference_ci: tuple[float, float] | None = field(
        metadata=json_key(Nullable(INTERVAL), "difference_ci95")
    )
    share_challenger_better: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    quality_win: bool | None = field(metadata=json_key(_NULLABLE_BOOL))
    non_inferior: bool | None = field(metadata=json_key(_NULLABLE_BOOL))
    significantly_worse: bool | None = field(metadata=json_key(_NULLABLE_BOOL))
    null_reason: str | None = field(default=None, metadata=json_key(_NULLABLE_STR))
    #: Each side's share of rows with a hypothesis, and whether it meets the minimum.
    coverage: EvidenceCoverage = field(metadata=json_key(Nested(EvidenceCoverage)))


@dataclass(frozen=True, kw_only=True)
class ResourceComparison(Record):
    """Latency (at `statistic`, p50 or p95 per clip) or core cost of both sides, the
    challenger's relative reduction and whether it meets the rule's minimum (None before
    the rule is applied)."""

    statistic: str | None = field(default=None, metadata=json_key(STR))
    baseline: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    challenger: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    reduction: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    met: bool | None = field(metadata=json_key(_NULLABLE_BOOL))


@dataclass(frozen=True, kw_only=True)
class ResourceFigures(Record):
    """A resource figure of both sides that no threshold of the rule weighs (peak RSS)."""

    baseline: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    challenger: float | None = field(metadata=json_key(_NULLABLE_NUMBER))


@dataclass(frozen=True, kw_only=True)
class ResourceCeiling(Record):
    """An opt-in resource ceiling of the rules (peak RSS, real-time factor, latency) and
    the challenger's figure against it."""

    name: str = field(metadata=json_key(STR))
    limit: float = field(metadata=json_key(NUMBER))
    challenger: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    met: bool = field(metadata=json_key(BOOL))


@dataclass(frozen=True, kw_only=True)
class DecisionResources(Record):
    """Latency, core cost (CPU seconds per audio second) and peak memory of both sides,
    and whether their host profiles match (a speed-up across hosts proves nothing)."""

    same_host: bool = field(metadata=json_key(BOOL))
    baseline_host: JSONObject = field(metadata=json_key(OBJECT))
    challenger_host: JSONObject = field(metadata=json_key(OBJECT))
    latency: ResourceComparison = field(metadata=json_key(Nested(ResourceComparison)))
    core_cost: ResourceComparison = field(metadata=json_key(Nested(ResourceComparison)))
    peak_rss_bytes: ResourceFigures = field(metadata=json_key(Nested(ResourceFigures)))
    ceilings: tuple[ResourceCeiling, ...] = field(
        metadata=json_key(TupleOf(Nested(ResourceCeiling)))
    )


@dataclass(frozen=True, kw_only=True)
class SettingDifference(Record):
    """One decoding setting that differs: each side's canonical value and where it was
    read; `allowed` only for the differences the rules may allow."""

    key: str = field(metadata=json_key(STR))
    baseline: str | None = field(metadata=json_key(_NULLABLE_STR))
    challenger: str | None = field(metadata=json_key(_NULLABLE_STR))
    baseline_source: str | None = field(metadata=json_key(_NULLABLE_STR))
    challenger_source: str | None = field(metadata=json_key(_NULLABLE_STR))
    allowed: bool | None = field(default=None, metadata=json_key(BOOL))


_DIFFERENCES = TupleOf(Nested(SettingDifference))


@dataclass(frozen=True, kw_only=True)
class SettingsComparison(Record):
    """The decoding settings of both sides and how those that differ are treated: the
    subject (backend, model, weight type) may differ; others refuse the comparison unless
    allowed; a setting one engine has and another lacks is not comparable."""

    subject: tuple[SettingDifference, ...] = field(metadata=json_key(_DIFFERENCES))
    differences: tuple[SettingDifference, ...] = field(metadata=json_key(_DIFFERENCES))
    not_comparable: tuple[SettingDifference, ...] = field(metadata=json_key(_DIFFERENCES))
    allowed: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))
    baseline: Mapping[str, str] = field(metadata=json_key(MapOf(STR)))
    challenger: Mapping[str, str] = field(metadata=json_key(MapOf(STR)))

    @property
    def refused(self) -> tuple[SettingDifference, ...]:
        """Differences not allowed: they refuse the comparison."""
        return tuple(d for d in self.differences if not d.allowed)


@dataclass(frozen=True, kw_only=True)
class ErrorRateCeiling(Record):
    """A plan's pre-registered error-rate ceiling against each side's rate in the
    language's (or slice's) primary view; `met` is the challenger's, None when its rate
    is missing."""

    metric: str = field(metadata=json_key(STR))
    scope: str = field(metadata=json_key(STR))
    limit: float = field(metadata=json_key(NUMBER))
    baseline: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    view: str | None = field(metadata=json_key(_NULLABLE_STR))
    baseline_null_reason: str | None = field(default=None, metadata=json_key(STR))
    challenger: float | None = field(metadata=json_key(_NULLABLE_NUMBER))
    challenger_null_reason: str | None = field(default=None, metadata=json_key(STR))
    met: bool | None = field(metadata=json_key(_NULLABLE_BOOL))
    baseline_met: bool | None = field(metadata=json_key(_NULLABLE_BOOL))


@dataclass(frozen=True, kw_only=True)
class PlanCeilings(Record):
    """The plan's `[ceilings]` checks, and the hash of the plan that froze them."""

    plan_sha256: str | None = field(metadata=json_key(_NULLABLE_STR))
    checks: tuple[ErrorRateCeiling, ...] = field(
        metadata=json_key(TupleOf(Nested(ErrorRateCeiling)))
    )


@dataclass(frozen=True, kw_only=True)
class RecordGate(Record):
    """A gate checked from the challenger's records: passed, or the items missing for it."""

    gate: str = field(metadata=json_key(STR))
    passed: bool = field(metadata=json_key(BOOL))
    missing: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))


@dataclass(frozen=True, kw_only=True)
class ChecklistGate(Record):
    """A gate no record settles, with what the run did record, for a person to confirm."""

    gate: str = field(metadata=json_key(STR))
    known: str = field(metadata=json_key(STR))


@dataclass(frozen=True, kw_only=True)
class Decision(Record, ShowsAsTable):
    """The whole decision record: the verdict and reasons first, then every figure and
    check they rest on, so the record can be audited on its own."""

    SCHEMA_ID: ClassVar[str | None] = DECISION_SCHEMA

    schema: str = field(metadata=json_key(STR))
    date: str = field(metadata=json_key(STR))
    verdict: str = field(metadata=json_key(OneOf(*VERDICTS)))
    reasons: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))
    baseline: DecisionSide = field(metadata=json_key(Nested(DecisionSide)))
    challenger: DecisionSide = field(metadata=json_key(Nested(DecisionSide)))
    corpus: DecisionCorpus = field(metadata=json_key(Nested(DecisionCorpus)))
    rules: RulesApplied = field(metadata=json_key(Nested(RulesApplied)))
    evidence: tuple[LanguageEvidence, ...] = field(
        metadata=json_key(TupleOf(Nested(LanguageEvidence)))
    )
    resources: DecisionResources = field(metadata=json_key(Nested(DecisionResources)))
    settings: SettingsComparison = field(metadata=json_key(Nested(SettingsComparison)))
    ceilings: PlanCeilings = field(metadata=json_key(Nested(PlanCeilings)))
    record_gates: tuple[RecordGate, ...] = field(metadata=json_key(TupleOf(Nested(RecordGate))))
    gates: tuple[ChecklistGate, ...] = field(metadata=json_key(TupleOf(Nested(ChecklistGate))))

    def to_pandas(self) -> Frame:
        """One row per language of evidence (both rates, the reduction, the difference);
        needs pandas."""
        rows = [scalar_fields(e) for e in self.evidence]
        columns = list(rows[0]) if rows else ["language", "metric"]
        return data_frame(rows, columns)

    def _table(self) -> tuple[str, list[str], list[list[Cell]]]:
        rows: list[list[Cell]] = [[self.verdict, reason] for reason in self.reasons]
        title = (
            f"earmark decision ({self.date}): {self.verdict}; challenger "
            f"{self.challenger.arm} against baseline {self.baseline.arm}"
        )
        return title, ["verdict", "reason"], rows

    def language(self, language: str) -> LanguageEvidence:
        """The evidence of one language."""
        found = {e.language: e for e in self.evidence}
        return lookup(found, language, "language", lambda: "evidence")

    def difference(self, language: str, *, level: float | None = None) -> Estimate:
        """The paired difference (challenger - baseline) of one language, as an Estimate
        at the rules' level."""
        e = self.language(language)
        return Estimate(
            e.difference,
            e.difference_ci,
            self.rules.level if level is None else level,
            "percentile (paired bootstrap)",
            e.null_reason,
        )


def read_decision(path: str | os.PathLike[str]) -> Decision:
    """A decision record (`earmark decide --out FILE`)."""
    return Decision.from_path(path)
