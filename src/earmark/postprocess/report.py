"""The typed record of a post-processor evaluation (`postprocess.json`, `earmark.postprocess/1`).

The evaluation (`postprocess.evaluate`) builds these frozen records; `postprocess.md` and
the CLI read them; the JSON is written from them once, by `to_json`, in the key order the
file has always had. Not part of results.json, so they live here rather than in
`earmark.results`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from earmark.formats.rows import ClusterKeyed
from earmark.results.codec import JSONObject, JSONValue
from earmark.stats.settings import BootstrapSettings

SCHEMA_ID = "earmark.postprocess/1"
ONE_REPEAT = "one repeat per transcript: determinism is not measured"


@dataclass(frozen=True)
class SourceRow(ClusterKeyed):
    """One saved transcript to post-process. `hypothesis=None` means the recogniser gave
    none (its `status` says why): it is not sent to the processor and stays missing."""

    id: str
    reference: str
    hypothesis: str | None
    language: str | None = None
    slices: tuple[str, ...] = ()
    status: str = "ok"
    cluster: str | None = None
    #: The recogniser's repeat index when the run transcribed each clip several times.
    source_repeat: int = 0


@dataclass(frozen=True)
class OutputRecord:
    """One processor call on one transcript (or the record of why none was made)."""

    source: int
    repeat: int
    candidate: str | None
    delivered: str | None
    accepted: bool
    reason: str | None
    seconds: float | None
    skipped: bool = False
    detail: Mapping[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    """A figure with its clip bootstrap interval, or None with the reason."""

    value: float | None
    ci: tuple[float, float] | None = None
    null_reason: str | None = None

    @classmethod
    def from_block(cls, block: Mapping[str, JSONValue]) -> Figure:
        """From `scoring.extra_metrics.stat_block`'s `{value, ci95[, null_reason]}`."""
        value, ci, why = block.get("value"), block.get("ci95"), block.get("null_reason")
        return cls(
            value if isinstance(value, int | float) else None,
            (float(ci[0]), float(ci[1])) if isinstance(ci, list) else None,  # type: ignore[arg-type]
            why if isinstance(why, str) else None,
        )

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "value": self.value,
            "ci95": None if self.ci is None else [self.ci[0], self.ci[1]],
        }
        if self.null_reason is not None:
            out["null_reason"] = self.null_reason
        return out


@dataclass(frozen=True)
class Acceptance:
    """How many outputs (and clips: every output of a clip must pass) the guard accepted,
    per repeat, what became of each output, and why the rest were refused."""

    accepted: int
    total: int
    per_output: Figure
    clips_passed: int
    clips_total: int
    per_clip: Figure
    #: (repeat, accepted, total) per repeat.
    per_repeat: tuple[tuple[int, int, int], ...]
    changed_and_delivered: int
    accepted_unchanged: int
    source_retained: int
    reasons: Mapping[str, int]

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "per_output": {
                "accepted": self.accepted,
                "total": self.total,
                **self.per_output.to_json(),
            },
            "per_clip": {
                "passed": self.clips_passed,
                "total": self.clips_total,
                "rule": "a clip passes only when every output of it was accepted",
                **self.per_clip.to_json(),
            },
            "per_repeat": [{"repeat": k, "accepted": a, "total": n} for k, a, n in self.per_repeat],
            "outcomes": {
                "changed_and_delivered": self.changed_and_delivered,
                "accepted_unchanged": self.accepted_unchanged,
                "source_retained": self.source_retained,
            },
            "reasons": dict(self.reasons),
        }


@dataclass(frozen=True)
class PunctuationSide:
    """Punctuation of the raw or the delivered texts: summed counts, micro precision and
    recall, and F1 (position, position+type) with their intervals."""

    ref_marks: int
    hyp_marks: int
    position_matches: int
    type_matches: int
    position_precision: float | None
    position_recall: float | None
    type_precision: float | None
    type_recall: float | None
    position_f1: Figure
    type_f1: Figure

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "ref_marks": self.ref_marks,
            "hyp_marks": self.hyp_marks,
            "position_matches": self.position_matches,
            "type_matches": self.type_matches,
            "position_precision": self.position_precision,
            "position_recall": self.position_recall,
            "type_precision": self.type_precision,
            "type_recall": self.type_recall,
            "position_f1": self.position_f1.to_json(),
            "type_f1": self.type_f1.to_json(),
        }


@dataclass(frozen=True)
class PunctuationSummary:
    """Punctuation F1 raw vs delivered and their paired difference (same resampled clips)."""

    raw: PunctuationSide
    delivered: PunctuationSide
    position_f1_difference: Figure
    type_f1_difference: Figure
    n_outputs: int
    n_clusters: int

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "raw": self.raw.to_json(),
            "delivered": self.delivered.to_json(),
            "difference": {
                "definition": "delivered F1 - raw F1, same resampled clips in every replicate",
                "position_f1": self.position_f1_difference.to_json(),
                "type_f1": self.type_f1_difference.to_json(),
            },
            "n_outputs": self.n_outputs,
            "n_clusters": self.n_clusters,
        }


@dataclass(frozen=True)
class CerViolation:
    """A guarded output whose delivered content differs from its source (a bug)."""

    id: str
    repeat: int
    accepted: bool


@dataclass(frozen=True)
class CerSummary:
    """Content CER of the raw and delivered texts; under a guard that keeps content they
    are equal by construction, and `violations` lists any output where they are not."""

    definition: str
    ref_chars: int
    raw_errors: int
    raw: Figure
    delivered_errors: int
    delivered: Figure
    difference: Figure
    equal: bool
    expected_equal: bool
    violations: tuple[CerViolation, ...] = ()

    @property
    def invariant_holds(self) -> bool | None:
        """Delivered content equals the source everywhere; None when not expected."""
        return not self.violations if self.expected_equal else None

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "definition": self.definition,
            "ref_chars": self.ref_chars,
            "raw": {"errors": self.raw_errors, **self.raw.to_json()},
            "delivered": {"errors": self.delivered_errors, **self.delivered.to_json()},
            "difference": self.difference.to_json(),
            "equal": self.equal,
            "expected_equal": self.expected_equal,
        }
        if self.expected_equal:
            out["invariant"] = {
                "rule": "under the lexical guard, delivered content equals the source content, "
                "so delivered CER equals raw CER by construction (not an accuracy gain)",
                "holds": not self.violations,
                "violations": [
                    {"id": v.id, "repeat": v.repeat, "accepted": v.accepted}
                    for v in self.violations
                ],
            }
        return out


@dataclass(frozen=True)
class Determinism:
    """How many transcripts gave the same candidate (or failure) on every repeat; not
    measured (`identical` None) with one repeat."""

    identical: int | None
    total: int | None
    identical_delivered: int | None = None

    @property
    def value(self) -> float | None:
        return self.identical / self.total if self.identical is not None and self.total else None

    @property
    def null_reason(self) -> str | None:
        if self.identical is None:
            return ONE_REPEAT
        return None if self.total else "no processed transcripts"

    def to_json(self) -> dict[str, JSONValue]:
        if self.identical is None:
            return {"value": None, "null_reason": ONE_REPEAT, "identical": None, "total": None}
        delivered = self.identical_delivered
        share = delivered / self.total if delivered is not None and self.total else None
        return {
            "rule": "a transcript is deterministic when all its repeats gave the same candidate "
            "(or the same failure reason)",
            "identical": self.identical,
            "total": self.total,
            "value": self.value,
            "identical_delivered": delivered,
            "delivered_value": share,
            **({} if self.total else {"null_reason": "no processed transcripts"}),
        }


@dataclass(frozen=True)
class Timing:
    """Processor seconds per call (first-call model load included, not removed)."""

    calls: int
    median: float | None = None
    p95: float | None = None
    max: float | None = None
    total: float | None = None
    first_call: float | None = None

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "calls": self.calls,
            "median": self.median,
            "p95": self.p95,
            "max": self.max,
            "total": self.total,
        }
        if self.calls:
            out["first_call"] = self.first_call
            out["note"] = "first-call (model load) time is included, not removed"
        return out


@dataclass(frozen=True)
class EvaluationBlock:
    """Every figure of one set of outputs (all of them, or one language's)."""

    n_transcripts: int
    n_clusters: int
    n_outputs: int
    n_skipped: int
    delivered_changed: int
    acceptance: Acceptance
    punctuation: PunctuationSummary
    cer: CerSummary
    determinism: Determinism

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "n_transcripts": self.n_transcripts,
            "n_clusters": self.n_clusters,
            "n_outputs": self.n_outputs,
            "n_skipped": self.n_skipped,
            "delivered_changed": self.delivered_changed,
            "acceptance": self.acceptance.to_json(),
            "punctuation": self.punctuation.to_json(),
            "cer": self.cer.to_json(),
            "determinism": self.determinism.to_json(),
        }


@dataclass(frozen=True)
class SkippedOutput:
    """An output never made: the recogniser gave no transcript (`reason` says why)."""

    id: str
    repeat: int
    reason: str | None


@dataclass(frozen=True)
class PostprocessSummary:
    """The evaluation's figures overall and per language, timing, skips and warnings."""

    repeats: int
    guarded: bool
    bootstrap: BootstrapSettings
    overall: EvaluationBlock
    by_language: Mapping[str, EvaluationBlock]
    timing: Timing
    skipped: tuple[SkippedOutput, ...]
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "repeats": self.repeats,
            "guarded": self.guarded,
            "bootstrap": {
                **self.bootstrap.to_dict(),
                "method": "percentile",
                "unit": "clip: every output of a clip (all repeats) is resampled together",
            },
            "overall": self.overall.to_json(),
            "by_language": {k: v.to_json() for k, v in self.by_language.items()},
            "timing": self.timing.to_json(),
            "skipped": [{"id": s.id, "repeat": s.repeat, "reason": s.reason} for s in self.skipped],
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class SourceInfo:
    """Where the transcripts came from: the folder, its predictions file and hash, the arm."""

    path: str
    predictions: str
    predictions_sha256: str
    arm: str | None
    n_rows: int

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "path": self.path,
            "predictions": self.predictions,
            "predictions_sha256": self.predictions_sha256,
            "arm": self.arm,
            "n_rows": self.n_rows,
        }


@dataclass(frozen=True)
class PostprocessReport:
    """The whole postprocess.json: what ran (processor, plan, served model, guard), the
    summary, the punctuation probes and every output (with its source). `processor`, `plan`,
    `served_model` and `guard` are open-ended records of what identifies them."""

    earmark_version: str
    created: str
    source: SourceInfo
    processor_spec: str
    processor: JSONObject
    plan: JSONObject | None
    served_model: JSONObject | None
    guard: JSONObject | None
    summary: PostprocessSummary
    punctuation_probes: tuple[JSONObject, ...]
    sources: tuple[SourceRow, ...]
    outputs: tuple[OutputRecord, ...]

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "schema": SCHEMA_ID,
            "earmark_version": self.earmark_version,
            "created": self.created,
            "source": self.source.to_json(),
            "processor_spec": self.processor_spec,
            "processor": dict(self.processor),
        }
        if self.plan is not None:
            out["plan"] = dict(self.plan)
        if self.served_model is not None:
            out["served_model"] = dict(self.served_model)
        out["guard"] = None if self.guard is None else dict(self.guard)
        out["guard_note"] = (
            None
            if self.guard is not None
            else "this processor changes characters by design; outputs are not lexically guarded"
        )
        out["summary"] = self.summary.to_json()
        out["punctuation_probes"] = [dict(p) for p in self.punctuation_probes]
        out["records"] = [_output_json(self.sources[r.source], r) for r in self.outputs]
        return out


def _output_json(source: SourceRow, r: OutputRecord) -> dict[str, JSONValue]:
    """One output record of postprocess.json (every repeat, nothing dropped)."""
    out: dict[str, JSONValue] = {
        "id": source.id,
        "cluster": source.cluster_key,
        "source_repeat": source.source_repeat,
        "repeat": r.repeat,
        "language": source.language,
        "status": source.status,
        "source": source.hypothesis,
        "candidate": r.candidate,
        "delivered": r.delivered,
        "accepted": r.accepted,
        "reason": r.reason,
        "changed": (not r.skipped) and r.delivered != source.hypothesis,
        "seconds": r.seconds,
        "skipped": r.skipped,
    }
    if r.detail:
        out["detail"] = dict(r.detail)
    return out
