"""The decision record (`decision-YYYY-MM-DD.json`, schema `earmark.decision/1`).

`earmark decide` weighs a challenger against a baseline on the same data: a verdict
(promote / blocked / stay / research only / reject), the reasons in words, the paired
evidence per language, resources, settings, ceilings and the gates left to a person.
"""

from __future__ import annotations

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
    Nested,
    Nullable,
    OneOf,
    Record,
    TupleOf,
    json_key,
    lookup,
)
from earmark.results.estimate import Estimate

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
    coverage: JSONObject | None = field(default=None, metadata=json_key(OBJECT))


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
    #: The thresholds the verdict applied (`DecisionRules`, as written).
    rules: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    evidence: tuple[LanguageEvidence, ...] = field(
        metadata=json_key(TupleOf(Nested(LanguageEvidence)))
    )
    #: Latency, core cost and peak memory of both sides and whether the hosts match.
    resources: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
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
        rule_level = (self.rules or {}).get("level")
        if level is None:
            level = rule_level if isinstance(rule_level, float) else 0.95
        return Estimate(
            e.difference, e.difference_ci, level, "percentile (paired bootstrap)", e.null_reason
        )
