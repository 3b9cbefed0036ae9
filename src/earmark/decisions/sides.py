"""The two sides of a decision: a run and one of its arms each.

What `earmark decide` needs to know of a side before any figure: its typed results and
rows (read once), whether the two sides are the same data (`data_differences`; different
data is refused outright, no setting makes it comparable) and what the record says of
each side (`side_record`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from earmark.language_tags import base_language
from earmark.metrics.counts import ErrorCounts
from earmark.render.run_directory import RunDirectory
from earmark.results import ArmResult, Resources, Results
from earmark.results.codec import JSONValue
from earmark.results.decision import DecisionSide

_MODEL_KEYS = (
    "artifact_id",
    "revision",
    "file_sha256",
    "licence",
    "licence_source",
    "runtime",
    "runtime_version",
    "compute_type",
)


@dataclass(frozen=True)
class Side:
    """A run and one of its arms; its figures and rows typed (`earmark.results`), read
    once, and the run's other records (model, host, provenance) as the run holds them."""

    run: RunDirectory
    arm: str

    @property
    def summary(self) -> dict[str, Any]:
        return self.run.arm(self.arm)

    @cached_property
    def result(self) -> ArmResult:
        """This arm's block of results.json, typed."""
        return Results.from_dict(self.run.results).arm(self.arm)

    @cached_property
    def rows(self) -> tuple[PairedRow, ...]:
        """This arm's rows of predictions.jsonl, as pairing reads them."""
        return tuple(PairedRow.from_record(r) for r in self.run.arm_rows(self.arm))

    @property
    def resources(self) -> Resources:
        return self.result.resources or Resources()

    def language_policy(self) -> dict[str, JSONValue]:
        spec = self.summary.get("spec") or {}
        settings = spec.get("settings") or {}
        extra = self.run.model(self.arm).get("extra") or {}
        return {
            "language_policy": extra.get("language_policy") or settings.get("language_policy"),
            "language": settings.get("language"),
            "task": settings.get("task"),
        }

    def label(self) -> str:
        return f"{self.run.path}:{self.arm}"


@dataclass(frozen=True)
class PairedRow:
    """What `decide` reads of one prediction row: the key that pairs it with the other
    side's row, its language, its reference and its counts per view.

    Not a whole `earmark.results.PredictionRow`: decoding one costs about 0.2 ms, and
    `decide` reads every row of two arms; this reads the same fields as plainly."""

    key: tuple[str, int]
    language: str
    reference: str | None
    views: Mapping[str, Any]

    @classmethod
    def from_record(cls, row: Mapping[str, Any]) -> PairedRow:
        """From a predictions.jsonl row: (id, repeat) pair rows; the base language
        (`zh-CN` → `zh`) is the key of the language's block in results.json."""
        key = (str(row.get("id")), int(row.get("repeat") or 0))
        views = row.get("views") or {}
        return cls(key, base_language(row.get("language")), row.get("reference"), views)

    def counts(self, view: str, metric: str) -> ErrorCounts | None:
        """The row's counts of `metric` in `view`; None where the row has none (the view
        did not apply, or the row was not scored)."""
        found = (self.views.get(view) or {}).get(metric)
        if not found:
            return None
        return ErrorCounts(
            found["substitutions"], found["deletions"], found["insertions"], found["hits"]
        )


def data_differences(baseline: Side, challenger: Side) -> list[str]:
    """Everything that makes the two sides not the same data; empty when they are."""
    diffs = []
    b_sha, c_sha = baseline.run.manifest_sha256, challenger.run.manifest_sha256
    if b_sha != c_sha:
        diffs.append(
            f"manifest sha256: baseline {b_sha or 'not recorded'}, "
            f"challenger {c_sha or 'not recorded'}"
        )
    b_sel = baseline.run.corpus.get("selection") or {}
    c_sel = challenger.run.corpus.get("selection") or {}
    for key in ("rule", "parameters"):
        if b_sel.get(key) != c_sel.get(key):
            diffs.append(
                f"selection {key}: baseline {b_sel.get(key)!r}, challenger {c_sel.get(key)!r}"
            )
    for key in ("normalizer_policy", "aggregate"):
        b, c = baseline.summary.get(key), challenger.summary.get(key)
        if b != c:
            diffs.append(f"{key.replace('_', ' ')}: baseline {b!r}, challenger {c!r}")
    b_lang, c_lang = baseline.language_policy(), challenger.language_policy()
    if b_lang != c_lang:
        diffs.append(f"decode language policy: baseline {b_lang!r}, challenger {c_lang!r}")
    b_rows = {r.key: r for r in baseline.rows}
    c_rows = {r.key: r for r in challenger.rows}
    only_b = sorted(set(b_rows) - set(c_rows))
    only_c = sorted(set(c_rows) - set(b_rows))
    for side, keys in (("baseline", only_b), ("challenger", only_c)):
        if keys:
            shown = ", ".join(f"{i}#{r}" for i, r in keys[:5])
            diffs.append(f"{len(keys)} rows only in the {side} (e.g. {shown})")
    changed = [
        k for k in sorted(set(b_rows) & set(c_rows)) if b_rows[k].reference != c_rows[k].reference
    ]
    if changed:
        shown = ", ".join(f"{i}#{r}" for i, r in changed[:5])
        diffs.append(f"{len(changed)} rows have different references (e.g. {shown})")
    return diffs


def side_record(side: Side) -> DecisionSide:
    """What the record says of one side: its model, spec, host and whether it is verifiable."""
    model = side.run.model(side.arm)
    ok, missing = side.run.verifiable(side.arm)
    return DecisionSide(
        run=str(side.run.path),
        arm=side.arm,
        model={k: model.get(k) for k in _MODEL_KEYS},
        spec=side.summary.get("spec"),
        host=side.run.host or None,
        verifiable=ok,
        missing=tuple(missing),
    )
