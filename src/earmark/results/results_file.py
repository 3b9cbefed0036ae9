"""`results.json` (schema `earmark.results/1`) as one typed, frozen object.

Every results file has an `arms` mapping (one entry for `earmark score`, one per arm for
`earmark run`), the scorer's self-check record and, for a run, references to the plan,
the provenance record and the predictions file the figures were computed from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from earmark.errors import EarmarkError
from earmark.results.arm import ArmResult
from earmark.results.codec import (
    ANY,
    BOOL,
    INT,
    OBJECT,
    STR,
    JSONObject,
    JSONValue,
    MapOf,
    TupleOf,
    json_key,
    json_path,
)
from earmark.results.display import fmt_rate
from earmark.results.notebook import Cell, ShowsAsTable, data_frame
from earmark.results.record import Nested, Record, lookup

if TYPE_CHECKING:
    from earmark.results.notebook import Frame

RESULTS_SCHEMA = "earmark.results/1"


@dataclass(frozen=True, kw_only=True)
class Probe(Record):
    """One scorer self-check (known-good and known-bad pairs) and what it observed."""

    name: str = field(metadata=json_key(STR))
    passed: bool = field(metadata=json_key(BOOL))
    expected: JSONValue = field(metadata=json_key(ANY))
    observed: JSONValue = field(metadata=json_key(ANY))


@dataclass(frozen=True, kw_only=True)
class PredictionsRef(Record):
    """The predictions.jsonl the figures were computed from, named by its SHA-256."""

    file: str = field(metadata=json_key(STR))
    sha256: str = field(metadata=json_key(STR))
    bytes: int | None = field(default=None, metadata=json_key(INT))
    rows: int | None = field(default=None, metadata=json_key(INT))


@dataclass(frozen=True, kw_only=True)
class ProvenanceRef(Record):
    """Where the run's provenance record is and whether it is complete enough to verify."""

    file: str = field(metadata=json_key(STR))
    verifiable: bool | None = field(default=None, metadata=json_key(BOOL))
    missing: tuple[str, ...] | None = field(default=None, metadata=json_key(TupleOf(STR)))


@dataclass(frozen=True, kw_only=True)
class Results(Record, ShowsAsTable):
    """The whole `results.json`.

    >>> r = Results.from_path("tests/report/data/example-run/results.json")  # doctest: +SKIP
    >>> r.arm("tiny.en-int8").view("en", "normalized").wer.value  # doctest: +SKIP
    0.12280701754385964
    """

    SCHEMA_ID: ClassVar[str | None] = RESULTS_SCHEMA
    FILE_IN_FOLDER: ClassVar[str | None] = "results.json"

    schema: str = field(metadata=json_key(STR))
    earmark_version: str = field(metadata=json_key(STR))
    created: str = field(metadata=json_key(STR))
    arms: Mapping[str, ArmResult] = field(metadata=json_key(MapOf(Nested(ArmResult))))
    probes: tuple[Probe, ...] = field(metadata=json_key(TupleOf(Nested(Probe))))
    #: `earmark score`: the files read and their format.
    inputs: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    #: `earmark run`: cross-arm harness diagnostics.
    diagnostics: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    corpus: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    plan: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    provenance: ProvenanceRef | None = field(default=None, metadata=json_key(Nested(ProvenanceRef)))
    public: bool | None = field(default=None, metadata=json_key(BOOL))
    failures: tuple[JSONObject, ...] | None = field(
        default=None, metadata=json_key(TupleOf(OBJECT))
    )
    predictions: PredictionsRef | None = field(
        default=None, metadata=json_key(Nested(PredictionsRef))
    )

    @property
    def arm_names(self) -> tuple[str, ...]:
        return tuple(self.arms)

    def arm(self, name: str | None = None) -> ArmResult:
        """One arm by name; without a name, the only arm (an error when there are more)."""
        if name is None:
            if len(self.arms) == 1:
                return next(iter(self.arms.values()))
            raise EarmarkError(
                f"this file holds {len(self.arms)} arms; name one",
                field="arms",
                hint="arms here: " + ", ".join(self.arms),
            )
        return lookup(self.arms, name, "arm", lambda: json_path("arms", name))

    def figure_rows(self) -> list[dict[str, Cell]]:
        """One row per arm × scope × view × metric: the value, its CI and its counts."""
        rows: list[dict[str, Cell]] = []
        for arm_name, arm in self.arms.items():
            scopes = [("all", arm.overall)] if arm.overall is not None else []
            for scope, block in [*scopes, *arm.by_language.items()]:
                for view_name, view in block.views.items():
                    for metric_name, m in view.metrics.items():
                        low, high = m.ci if m.ci is not None else (None, None)
                        rows.append(
                            {
                                "arm": arm_name,
                                "scope": scope,
                                "normalizer": block.normalizer.name,
                                "view": view_name,
                                "primary": view_name == block.primary_view,
                                "metric": metric_name,
                                "value": m.value,
                                "ci_low": low,
                                "ci_high": high,
                                "substitutions": m.substitutions,
                                "deletions": m.deletions,
                                "insertions": m.insertions,
                                "hits": m.hits,
                                "ref_units": m.ref_units,
                                "n_scored": m.n_scored,
                                "aggregate": m.aggregate,
                                "null_reason": m.null_reason,
                            }
                        )
        return rows

    def to_pandas(self) -> Frame:
        """Every figure as a DataFrame row (`figure_rows`); needs pandas."""
        return data_frame(self.figure_rows(), FIGURE_COLUMNS)

    def _table(self) -> tuple[str, list[str], list[list[Cell]]]:
        rows: list[list[Cell]] = []
        for arm_name, arm in self.arms.items():
            scopes = [("all", arm.overall)] if arm.overall is not None else []
            for scope, block in [*scopes, *arm.by_language.items()]:
                view = block.view()
                wer, cer = view.metrics.get("wer"), view.metrics.get("cer")
                rows.append(
                    [
                        arm_name,
                        scope,
                        fmt_rate(wer) if wer else "n/a (no word units)",
                        fmt_rate(cer),
                        block.n_utterances,
                        f"{block.normalizer.name} / {block.primary_view}",
                    ]
                )
        header = ["arm", "language", "WER [95% CI]", "CER [95% CI]", "N", "normaliser / view"]
        return f"earmark results ({self.schema}, {self.created})", header, rows


#: Columns of `Results.to_pandas()`, in order.
FIGURE_COLUMNS = (
    "arm",
    "scope",
    "normalizer",
    "view",
    "primary",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "substitutions",
    "deletions",
    "insertions",
    "hits",
    "ref_units",
    "n_scored",
    "aggregate",
    "null_reason",
)


def read_results(path: str | os.PathLike[str]) -> Results:
    """A `results.json`, or the one in a run folder."""
    return Results.from_path(path)
