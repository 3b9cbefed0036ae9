"""`compare.json` (schema `earmark.compare/1`): arms on the rows they share.

Per arm: exact-match rate against the reference arm (churn), WER/CER against the
reference arm and against the human reference, overall, per language and per slice.
Per challenger: paired differences with their interval and tests (Holm-adjusted).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from earmark.errors import EarmarkError
from earmark.results.arm import BootstrapRecord, NormalizerPolicy
from earmark.results.codec import (
    AGGREGATE,
    ANY,
    INT,
    INTERVAL,
    NUMBER,
    OBJECT,
    STR,
    JSONObject,
    JSONValue,
    MapOf,
    Nullable,
    TupleOf,
    json_key,
    json_path,
)
from earmark.results.display import fmt_pct
from earmark.results.estimate import Estimate, Estimated
from earmark.results.notebook import Cell, ShowsAsTable, data_frame, scalar_fields
from earmark.results.record import Nested, Record, lookup

if TYPE_CHECKING:
    from earmark.results.notebook import Frame

COMPARE_SCHEMA = "earmark.compare/1"


@dataclass(frozen=True, kw_only=True)
class CompareMetric(Record, Estimated):
    """A rate in compare.json: a results-style metric, or a null with its reason (the
    counts are then absent, so they are optional here)."""

    value: float | None = field(metadata=json_key(Nullable(NUMBER)))
    ci: tuple[float, float] | None = field(metadata=json_key(Nullable(INTERVAL), "ci95"))
    substitutions: int | None = field(default=None, metadata=json_key(INT))
    deletions: int | None = field(default=None, metadata=json_key(INT))
    insertions: int | None = field(default=None, metadata=json_key(INT))
    hits: int | None = field(default=None, metadata=json_key(INT))
    ref_units: int | None = field(default=None, metadata=json_key(INT))
    hyp_units: int | None = field(default=None, metadata=json_key(INT))
    aggregate: str | None = field(default=None, metadata=json_key(AGGREGATE))
    n_scored: int | None = field(default=None, metadata=json_key(INT))
    n_unavailable: int | None = field(default=None, metadata=json_key(INT))
    unavailable_reasons: Mapping[str, int] | None = field(
        default=None, metadata=json_key(MapOf(INT))
    )
    median_per_utterance: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    median_per_utterance_n: int | None = field(default=None, metadata=json_key(INT))
    median_per_utterance_null_reason: str | None = field(default=None, metadata=json_key(STR))
    null_reason: str | None = field(default=None, metadata=json_key(STR))
    mer: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    wil: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    ser: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))


@dataclass(frozen=True, kw_only=True)
class ExactMatch(Record):
    """Share of rows whose hypothesis equals the reference arm's (1 - churn)."""

    value: float | None = field(metadata=json_key(Nullable(NUMBER)))
    ci: tuple[float, float] | None = field(metadata=json_key(Nullable(INTERVAL), "ci95"))
    matches: int | None = field(default=None, metadata=json_key(INT))
    n: int | None = field(default=None, metadata=json_key(INT))
    null_reason: str | None = field(default=None, metadata=json_key(STR))


_METRICS = MapOf(Nested(CompareMetric))


@dataclass(frozen=True, kw_only=True)
class ComparisonScope(Record):
    """One arm's figures on one language or slice."""

    exact_match_vs_reference: ExactMatch = field(metadata=json_key(Nested(ExactMatch)))
    vs_reference_arm: Mapping[str, CompareMetric] = field(metadata=json_key(_METRICS))
    vs_human: Mapping[str, CompareMetric] = field(metadata=json_key(_METRICS))
    n: int = field(metadata=json_key(INT))


@dataclass(frozen=True, kw_only=True)
class ComparisonArm(Record):
    """`arms.<name>` of compare.json: overall figures, then per language and slice."""

    source: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    exact_match_vs_reference: ExactMatch = field(metadata=json_key(Nested(ExactMatch)))
    vs_reference_arm: Mapping[str, CompareMetric] = field(metadata=json_key(_METRICS))
    vs_human: Mapping[str, CompareMetric] = field(metadata=json_key(_METRICS))
    by_language: Mapping[str, ComparisonScope] = field(
        metadata=json_key(MapOf(Nested(ComparisonScope)))
    )
    by_slice: Mapping[str, ComparisonScope] = field(
        metadata=json_key(MapOf(Nested(ComparisonScope)))
    )
    differs_from_reference: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))


@dataclass(frozen=True, kw_only=True)
class PairedDifference(Record):
    """Challenger minus reference arm on the rows both scored: one metric, one scope
    (`language` None: all rows), with the paired interval and tests."""

    reference: str = field(metadata=json_key(STR))
    challenger: str = field(metadata=json_key(STR))
    language: str | None = field(metadata=json_key(Nullable(STR)))
    metric: str = field(metadata=json_key(STR))
    view: str | None = field(metadata=json_key(Nullable(STR)))
    normalizer: str | None = field(metadata=json_key(Nullable(STR)))
    reference_value: float | None = field(metadata=json_key(Nullable(NUMBER)))
    challenger_value: float | None = field(metadata=json_key(Nullable(NUMBER)))
    difference: float | None = field(metadata=json_key(Nullable(NUMBER)))
    ci: tuple[float, float] | None = field(metadata=json_key(Nullable(INTERVAL), "ci95"))
    share_challenger_better: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    share_tied: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    sign_test_p: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    wilcoxon_p: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    mcnemar_p: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    mapsswe_p: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    null_reason: str | None = field(default=None, metadata=json_key(STR))
    n: int | None = field(default=None, metadata=json_key(INT))
    #: The tests' workings (units, tallies, methods): open-ended.
    tests: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    p_holm: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    holm_family_size: int | None = field(default=None, metadata=json_key(INT))
    sign_test_p_holm: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    mcnemar_p_holm: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    mapsswe_p_holm: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))


@dataclass(frozen=True, kw_only=True)
class Comparison(Record, ShowsAsTable):
    """The whole `compare.json`."""

    SCHEMA_ID: ClassVar[str | None] = COMPARE_SCHEMA
    FILE_IN_FOLDER: ClassVar[str | None] = "compare.json"

    schema: str = field(metadata=json_key(STR))
    protocol: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    earmark_version: str = field(metadata=json_key(STR))
    created: str = field(metadata=json_key(STR))
    reference_arm: str = field(metadata=json_key(STR))
    normalizer_policy: NormalizerPolicy = field(metadata=json_key(Nested(NormalizerPolicy)))
    aggregate: str = field(metadata=json_key(AGGREGATE))
    bootstrap: BootstrapRecord = field(metadata=json_key(Nested(BootstrapRecord)))
    n_shared: int = field(metadata=json_key(INT))
    n_clusters: int | None = field(default=None, metadata=json_key(INT))
    arms_order: tuple[str, ...] | None = field(default=None, metadata=json_key(TupleOf(STR)))
    #: Rows some arm lacks (left out of every figure), as compare listed them.
    unpaired: tuple[JSONValue, ...] | None = field(default=None, metadata=json_key(TupleOf(ANY)))
    arms: Mapping[str, ComparisonArm] = field(metadata=json_key(MapOf(Nested(ComparisonArm))))
    pairs: tuple[PairedDifference, ...] = field(
        metadata=json_key(TupleOf(Nested(PairedDifference)))
    )
    #: Harness-artefact diagnostics per arm (insertion, truncation, script mismatch...).
    diagnostics: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    determinism: JSONObject | None = field(default=None, metadata=json_key(OBJECT))

    def to_pandas(self) -> Frame:
        """One row per paired difference (reference, challenger, scope, metric, the two
        rates, the difference and its CI, the tests); needs pandas."""
        rows = []
        for pair in self.pairs:
            low, high = pair.ci if pair.ci is not None else (None, None)
            rows.append({**scalar_fields(pair), "ci_low": low, "ci_high": high})
        columns = list(rows[0]) if rows else ["reference", "challenger", "metric"]
        return data_frame(rows, columns)

    def _table(self) -> tuple[str, list[str], list[list[Cell]]]:
        rows: list[list[Cell]] = []
        for pair in self.pairs:
            diff = (
                f"null ({pair.null_reason or 'not computable'})"
                if pair.difference is None
                else f"{100 * pair.difference:+.2f} pp"
                + (f" [{100 * pair.ci[0]:+.2f}, {100 * pair.ci[1]:+.2f}]" if pair.ci else "")
            )
            rows.append(
                [
                    pair.reference,
                    pair.challenger,
                    pair.language or "all",
                    f"{pair.metric} / {pair.view}",
                    fmt_pct(pair.reference_value),
                    fmt_pct(pair.challenger_value),
                    diff,
                ]
            )
        header = [
            "reference",
            "challenger",
            "language",
            "metric / view",
            "reference rate",
            "challenger rate",
            "difference [95% CI]",
        ]
        title = (
            f"earmark comparison: reference arm {self.reference_arm}, {self.n_shared} shared rows"
        )
        return title, header, rows

    def arm(self, name: str) -> ComparisonArm:
        return lookup(self.arms, name, "arm", lambda: json_path("arms", name))

    def pair(self, challenger: str, metric: str, language: str | None = None) -> PairedDifference:
        """The paired difference of one challenger, metric and scope (None: all rows)."""
        for p in self.pairs:
            if (p.challenger, p.metric, p.language) == (challenger, metric, language):
                return p
        known = sorted(
            {f"{p.challenger} {p.metric} {p.language or 'all rows'}" for p in self.pairs}
        )
        raise EarmarkError(
            f"no paired difference for {challenger} {metric} on {language or 'all rows'}",
            field="pairs",
            hint="pairs here: " + (", ".join(known) or "none"),
        )

    def difference(self, challenger: str, metric: str, language: str | None = None) -> Estimate:
        """The paired difference as an `Estimate` at this comparison's bootstrap level."""
        p = self.pair(challenger, metric, language)
        return Estimate(
            p.difference, p.ci, self.bootstrap.level, self.bootstrap.method, p.null_reason
        )


def read_comparison(path: str | os.PathLike[str]) -> Comparison:
    """A `compare.json`, or the one in a compare folder."""
    return Comparison.from_path(path)
