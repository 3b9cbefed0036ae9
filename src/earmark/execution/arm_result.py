"""One arm of a finished run: its rows from the store, scored, and its typed `ArmResult`.

Every utterance of the selection has a row per repeat: one the arm wrote, or one made
here (`missing_hypothesis`, or `arm_failed` when the arm's process failed), so an arm
that stopped early is scored with deletions instead of losing its denominator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earmark.corpus.model import Utterance
from earmark.engines.spec import ArmSpec
from earmark.formats.rows import MISSING_HYPOTHESIS, ScoringRow
from earmark.results.arm import ArmResult, ModelInfo, Resources
from earmark.results.arm import ArmSpec as ArmSpecRecord
from earmark.results.codec import JSONObject
from earmark.rundir.layout import ARM_EGRESS, ARM_MODEL, ARM_RESOURCES, arm_folder
from earmark.rundir.predictions import ArmRowKey, RunRow

if TYPE_CHECKING:
    from earmark.execution.plan import RunPlan
    from earmark.scoring.scorer import ScoreResult

#: The keys a run adds to the scorer's block of an arm, in results.json's order
#: (`text_withheld` only when the sidecar withholds transcripts).
RUN_KEYS = (
    "error_analysis",
    "punctuation",
    "critical_tokens",
    "long_form",
    "text_withheld",
    "timestamps",
    "streaming",
    "model",
    "deterministic",
    "determinism_note",
    "resources",
    "spec",
    "language_mismatches",
    "resources_by_language",
    "arm_exit_code",
    "failure",
)
#: Written even when null: an arm that failed before its model loaded has neither.
_ALWAYS = frozenset({"model", "resources"})


@dataclass(frozen=True)
class ArmRecords:
    """What the arm's process recorded beside its rows (`arms/<name>/*.json`)."""

    model: ModelInfo | None
    resources: Resources | None
    egress: JSONObject | None

    @classmethod
    def read(cls, out: Path, arm: str) -> ArmRecords:
        folder = arm_folder(out, arm)
        model = _read_json(folder / ARM_MODEL)
        resources = _read_json(folder / ARM_RESOURCES)
        return cls(
            model=None if model is None else ModelInfo.from_dict(model, copy=False),
            resources=None if resources is None else Resources.from_dict(resources, copy=False),
            egress=_read_json(folder / ARM_EGRESS),
        )


@dataclass(frozen=True)
class ScoredArm:
    """An arm's typed result with what the rest of the finish needs from it."""

    result: ArmResult
    #: The store's rows (one per utterance × repeat), for the run's diagnostics.
    rows: list[RunRow]
    #: The same rows with their scored views, as predictions.jsonl holds them.
    records: list[RunRow]
    #: provenance.json's deviations of this arm (failures, overrides, exclusions).
    deviations: list[JSONObject]
    records_of_arm: ArmRecords


def arm_rows(
    plan: RunPlan,
    arm: ArmSpec,
    utterances: Sequence[Utterance],
    latest: Mapping[ArmRowKey, RunRow],
    exit_code: int,
) -> tuple[list[RunRow], list[ScoringRow]]:
    """The arm's row for every utterance × repeat (a made one where the store has none),
    and the scorer's view of each."""
    stored_rows: list[RunRow] = []
    rows: list[ScoringRow] = []
    for utt in utterances:
        for r in range(plan.repeats):
            stored = latest.get((arm.name, utt.id, r))
            if stored is None:
                stored = RunRow(
                    arm=arm.name,
                    id=utt.id,
                    repeat=r,
                    reference=utt.text,
                    language=utt.language,
                    slices=list(utt.slices),
                    status="arm_failed" if exit_code else MISSING_HYPOTHESIS,
                    hypothesis=None,
                )
            stored_rows.append(stored)
            rows.append(
                ScoringRow(
                    id=utt.id if plan.repeats == 1 else f"{utt.id}#{r}",
                    reference=utt.text,
                    hypothesis=stored.get("hypothesis"),
                    language=utt.language,
                    slices=utt.slices,
                    status=stored.get("status", "ok"),
                    cluster=None if plan.repeats == 1 else utt.id,
                    duration=stored.get("audio_seconds"),
                    extra={"speaker": utt.speaker} if utt.speaker else {},
                )
            )
    return stored_rows, rows


def score_arm(
    plan: RunPlan,
    arm: ArmSpec,
    utterances: Sequence[Utterance],
    latest: Mapping[ArmRowKey, RunRow],
    *,
    out: Path,
    exit_code: int,
    redistribute_transcripts: bool,
) -> ScoredArm:
    """Score one arm's rows and build its `ArmResult` (figures, sections, run metadata)."""
    from earmark.execution.resources import latency_scopes
    from earmark.execution.timing_sections import long_form, timestamps
    from earmark.scoring.error_analysis import error_analysis_section
    from earmark.scoring.extra_metrics import critical_tokens_section, punctuation_section
    from earmark.scoring.scorer import score_rows
    from earmark.scoring.streaming_section import streaming_section

    scoring = plan.scoring_options()
    stored_rows, rows = arm_rows(plan, arm, utterances, latest, exit_code)
    scored = score_rows(rows, scoring)
    records = [
        _with_views(raw, record) for raw, record in zip(stored_rows, scored.records, strict=True)
    ]
    sections: dict[str, Any] = {
        "error_analysis": error_analysis_section(scored),
        "punctuation": punctuation_section(rows, bootstrap=scoring.bootstrap),
        "critical_tokens": critical_tokens_section(rows, bootstrap=scoring.bootstrap),
        "long_form": long_form(utterances, stored_rows, plan, scoring),
    }
    if not redistribute_transcripts:
        sections = withhold_transcripts(sections)
    sections["timestamps"] = timestamps(utterances, stored_rows, plan, scoring)
    sections["streaming"] = streaming_section(stored_rows)
    recorded = ArmRecords.read(out, arm.name)
    deterministic, note = determinism(recorded.model)
    base = scorer_arm(scored)
    mismatches = sum(bool(row.get("language_mismatch")) for row in stored_rows)
    failure = arm_failure(base.coverage.statuses)
    result = replace(
        base,
        **{k: v for k, v in sections.items() if k != "text_withheld"},
        model=recorded.model,
        deterministic=deterministic,
        determinism_note=note,
        resources=recorded.resources,
        spec=ArmSpecRecord.from_dict(arm.to_dict()),
        language_mismatches=mismatches,
        resources_by_language=latency_scopes(stored_rows),
        arm_exit_code=exit_code or None,
        failure=failure,
        extra={**base.extra, **_withheld(sections)},
    )
    result = replace(result, key_order=_run_key_order(base, result))
    deviations = arm_deviations(result, arm.name, exit_code, mismatches)
    return ScoredArm(result, stored_rows, records, deviations, recorded)


def scorer_arm(scored: ScoreResult) -> ArmResult:
    """The scorer's figures of the arm (settings, coverage, blocks) as the typed record:
    read from the scorer's summary until the scorer builds its blocks typed itself."""
    return ArmResult.from_dict(scored.to_dict(), copy=False)


def _withheld(sections: Mapping[str, Any]) -> JSONObject:
    text = sections.get("text_withheld")
    return {} if text is None else {"text_withheld": text}


def _run_key_order(base: ArmResult, result: ArmResult) -> tuple[str, ...]:
    """The scorer's keys, then the run's that are set, in results.json's order: an arm
    built in code writes a null only for a key named here (`model`, `resources`)."""
    encoded = {key: value for key, value in result.extra.items()}
    present = [
        key
        for key in RUN_KEYS
        if key in _ALWAYS or getattr(result, key, encoded.get(key)) is not None
    ]
    return (*base.key_order, *present)


def _with_views(raw: RunRow, record: Mapping[str, Any]) -> RunRow:
    """A predictions.jsonl record: the store's row with the scorer's views (and speaker)."""
    speaker = {"speaker": record["speaker"]} if "speaker" in record else {}
    out: RunRow = {**raw, **speaker}  # type: ignore[typeddict-item]
    out["normalizer"] = record["normalizer"]
    out["views"] = record["views"]
    return out


def arm_deviations(
    result: ArmResult, arm: str, exit_code: int, mismatches: int
) -> list[JSONObject]:
    """What provenance.json records as this arm's deviations from a clean run."""
    deviations: list[JSONObject] = []
    if exit_code:
        deviations.append({"arm": arm, "kind": "arm_failed", "exit": exit_code})
    if result.failure is not None:
        deviations.append({"arm": arm, **result.failure})
    if mismatches:
        deviations.append(
            {
                "arm": arm,
                "kind": "language_override",
                "rows": mismatches,
                "detail": "the engine decoded in another language than requested",
            }
        )
    for nok in result.coverage.not_ok:
        deviations.append({"arm": arm, "kind": "excluded_or_failed", **nok.to_dict()})
    return deviations


def withhold_transcripts(sections: Mapping[str, Any]) -> dict[str, Any]:
    """Figures only in an arm's shareable summary (sidecar `redistribute_transcripts:
    false`): no units, alignments or critical-token strings; predictions.jsonl, the
    private record, keeps the texts."""
    from earmark.scoring.error_analysis import TEXT_WITHHELD, withhold_text

    out = dict(sections)
    out["error_analysis"] = withhold_text(sections["error_analysis"])
    critical: Any = out.get("critical_tokens") or {}  # the section's own JSON shape
    for failure in critical.get("failures", []):
        failure["lost"] = {k: len(v) for k, v in failure["lost"].items()}
        failure["spurious"] = {k: len(v) for k, v in failure["spurious"].items()}
    out["text_withheld"] = TEXT_WITHHELD
    return out


def determinism(model: ModelInfo | None) -> tuple[bool, str]:
    """Whether the arm's hypotheses repeat exactly, and why; an engine that does not say
    counts as not deterministic (its churn may include sampling noise)."""
    if model is not None and model.deterministic:
        return True, str(model.determinism_note or "declared by the engine")
    note = model.determinism_note if model is not None else None
    return False, str(note or "the engine does not declare that it is deterministic")


def arm_failure(statuses: Mapping[str, int]) -> dict[str, str] | None:
    """Why an arm's figures are no result at all, or None when some clip was decoded.

    An arm with no hypothesis scores 100% error on every clip: a number that looks like
    a (bad) result, and on a character-scored language can even beat a real model's."""
    if statuses.get("ok"):
        return None
    from earmark.corpus.audio import REASONS

    shown = ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items()))
    if statuses and all(status in REASONS for status in statuses):
        return {"kind": "no_audio_loaded", "detail": f"every clip failed to load ({shown})"}
    total = sum(statuses.values())
    return {"kind": "no_hypothesis", "detail": f"no hypothesis for any of {total} rows ({shown})"}


def _read_json(path: Path) -> JSONObject | None:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None
