"""Leaderboard rows: one `Entry` per arm × language of a run, read from its typed results.

An entry carries what ranks it (the ranking group and the primary-view figure), what audits
it (verifiable, model revision, coverage of rows with an engine hypothesis) and what
describes the system (RTF and RTFx, peak RSS, model type, parameters and files, declared
system type). The rules are in `earmark.render.leaderboard`'s docstring.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from earmark.engines.file_hashes import content_revision
from earmark.engines.precomputed import BACKEND as PRECOMPUTED
from earmark.engines.system_type import SYSTEM_TYPES, UNDECLARED
from earmark.errors import EarmarkError
from earmark.render.html_inputs import primary_metric
from earmark.render.run_directory import RunDirectory
from earmark.results import ArmResult, MetricResult, ModelInfo, Results
from earmark.results.codec import JSONObject, JSONValue
from earmark.rundir.predictions import row_key

UNVERIFIABLE = "unverifiable"
SUSPECT = "contamination suspect"


@dataclass(frozen=True)
class Entry:
    """One system on one corpus × language, with what ranks it and what audits it."""

    system: str
    arm: str
    run: str
    corpus: str
    corpus_hash: str
    corpus_hash_kind: str
    """`manifest` (the manifest's SHA-256) or `references` (hash of the scored references,
    for `earmark score` outputs that record no manifest)."""
    selection: str
    language: str
    normalizer: str
    view: str
    metric: str
    n: int
    wer: MetricResult | None
    cer: MetricResult | None
    rtf: float | None
    peak_rss_bytes: int | None
    model_revision: str | None
    verifiable: bool
    missing: list[str] = field(default_factory=list)
    rank: int | None = None
    #: Rows with an engine hypothesis (status ok) and rows in the corpus scope.
    covered: int = 0
    rows: int = 0
    #: Non-ok statuses and their counts, e.g. {"arm_failed": 3}.
    not_ok: dict[str, int] = field(default_factory=dict)
    #: Why the row is not ranked (coverage below the minimum); None when it may rank.
    unranked_reason: str | None = None
    #: Model type (e.g. `WhisperForConditionalGeneration`) and exact parameter count from
    #: the model record; None with `parameters_note` saying why.
    architecture: str | None = None
    parameters: int | None = None
    parameters_note: str | None = None
    #: Why a contamination report marks this row suspect; None when none does.
    contamination: str | None = None
    #: Where `model_revision` comes from (the engine, or a user's declaration for saved
    #: hypotheses), or why there is none.
    model_revision_note: str | None = None
    #: On-disk bytes of the files the engine loaded (not a parameter count); None with
    #: `model_size_note` saying why.
    model_size_bytes: int | None = None
    model_size_note: str | None = None
    #: BlasBench's class (open, open-weights, api, closed) as declared, never guessed.
    system_type: str = UNDECLARED
    system_type_source: str | None = None
    #: Audio seconds per processing second (1 / RTF, the Open ASR Leaderboard's figure);
    #: None with `rtfx_note` saying why.
    rtfx: float | None = None
    rtfx_note: str | None = None
    #: SHA-256 of the sorted (id, repeat) keys this entry scored: two selections that kept
    #: the same rows of one corpus are the same data and rank together ("" without rows).
    rows_sha256: str = ""

    @property
    def coverage(self) -> float | None:
        return self.covered / self.rows if self.rows else None

    @property
    def ranked_metric(self) -> MetricResult | None:
        """The figure the entry is ranked by (its group's metric)."""
        return self.wer if self.metric == "wer" else self.cer

    @property
    def value(self) -> float | None:
        metric = self.ranked_metric
        return None if metric is None or metric.value is None else float(metric.value)

    def to_dict(self) -> dict[str, JSONValue]:
        """The entry as leaderboard.json holds it: every field, the metrics as results.json
        writes them, then the derived value, coverage and whether it may rank."""
        out: dict[str, JSONValue] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = value.to_dict() if isinstance(value, MetricResult) else value
        return {**out, "value": self.value, "coverage": self.coverage, "ranked": self.may_rank}

    @property
    def may_rank(self) -> bool:
        """Whether the entry takes part in ranking (its coverage meets the minimum)."""
        return self.unranked_reason is None

    @property
    def group(self) -> tuple[str, str, str, str, str, str]:
        """What ranks together: the same corpus, the same scored rows (or, without rows,
        the same selection), language, normaliser, view and metric."""
        return (
            self.corpus_hash,
            self.rows_sha256 or self.selection,
            self.language,
            self.normalizer,
            self.view,
            self.metric,
        )


def _selection_key(corpus: Mapping[str, Any]) -> str:
    sel = corpus.get("selection") or {}
    text = json.dumps(
        {"rule": sel.get("rule"), "parameters": sel.get("parameters")}, sort_keys=True
    )
    return str(sel.get("rule") or "all rows") + " #" + hashlib.sha256(text.encode()).hexdigest()[:8]


def _keys_sha256(keys: list[tuple[str, int]]) -> str:
    """SHA-256 of sorted (id, repeat) keys, one JSON line each; "" for none."""
    if not keys:
        return ""
    text = "".join(json.dumps(list(k), ensure_ascii=False) + "\n" for k in keys)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_min_coverage(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise EarmarkError(
            f"minimum coverage {value!r} is not between 0 and 1",
            field="min-coverage",
            hint="1 (the default) ranks only arms with a hypothesis for every clip; 0.95 "
            "allows 5% of rows without one",
        )
    return value


def scope_statuses(run: RunDirectory, arm: str, language: str) -> Counter[str]:
    """Row statuses of one arm in one language block (`all`: every language), the rows
    keyed as the block is (`RunDirectory.block_rows`). Rows come from predictions.jsonl;
    without it, the arm's own coverage record (whole arm)."""
    if not run.arm_rows(arm):
        return Counter(run.arm(arm)["coverage"]["statuses"])
    return Counter(str(r.get("status") or "ok") for r in run.block_rows(arm, language))


def coverage_reason(covered: int, rows: int, not_ok: dict[str, int], minimum: float) -> str:
    """`coverage 0/3 (0.0%) below the minimum 100%: arm_failed 3`."""
    share = covered / rows if rows else 0.0
    statuses = ", ".join(f"{status} {n}" for status, n in sorted(not_ok.items()))
    return (
        f"coverage {covered}/{rows} ({100 * share:.1f}%) below the minimum "
        f"{100 * minimum:g}%" + (f": {statuses}" if statuses else "")
    )


def entries_of_run(run: RunDirectory, min_coverage: float = 1.0) -> list[Entry]:
    """One entry per arm × language (plus `all` when one normaliser scored several
    languages), each from the block's primary view, with its coverage."""
    corpus = run.corpus
    if run.manifest_sha256:
        corpus_hash, kind = run.manifest_sha256, "manifest"
    else:
        corpus_hash, kind = run.references_sha256(), "references"
    dataset = str(corpus.get("dataset") or f"unnamed ({run.path.name})")
    selection = _selection_key(corpus)
    out = []
    for arm_name, arm in Results.from_dict(run.results).arms.items():
        ok, missing = run.verifiable(arm_name)
        resources = arm.resources
        by_lang_res = arm.resources_by_language or {}
        scopes = list(arm.by_language.items())
        if arm.overall is not None and len(scopes) > 1:
            scopes.append(("all", arm.overall))
        model = ModelInfo.from_dict(run.model(arm_name))
        shape, identity, files = model_shape(model), model_identity(model), model_files(model, arm)
        for lang, block in scopes:
            view = block.views.get(block.primary_view)
            metrics: Mapping[str, MetricResult] = {} if view is None else view.metrics
            # The language's own RTF; the arm's when it covers just this one language.
            own = by_lang_res.get(lang)
            rtf = None if own is None else own.real_time_factor
            if lang == "all" or (rtf is None and len(arm.by_language) == 1):
                rtf = None if resources is None else resources.real_time_factor
            statuses = scope_statuses(run, arm_name, lang)
            keys = sorted({row_key(r) for r in run.block_rows(arm_name, lang)})
            rows, covered = sum(statuses.values()), statuses.get("ok", 0)
            not_ok = {k: v for k, v in sorted(statuses.items()) if k != "ok"}
            below = rows == 0 or covered < min_coverage * rows - 1e-9
            out.append(
                Entry(
                    system=arm_name,
                    arm=arm_name,
                    run=str(run.path),
                    corpus=dataset,
                    corpus_hash=corpus_hash,
                    corpus_hash_kind=kind,
                    selection=selection,
                    language=lang,
                    normalizer=block.normalizer.name,
                    view=block.primary_view,
                    metric=primary_metric(block),
                    n=block.n_utterances,
                    wer=metrics.get("wer"),
                    cer=metrics.get("cer"),
                    rtf=None if rtf is None else float(rtf),
                    **rtfx_of(rtf),
                    peak_rss_bytes=None if resources is None else resources.peak_rss_bytes,
                    **shape,
                    **identity,
                    **files,
                    verifiable=ok,
                    missing=missing,
                    covered=covered,
                    rows=rows,
                    rows_sha256=_keys_sha256(keys),
                    not_ok=not_ok,
                    unranked_reason=coverage_reason(covered, rows, not_ok, min_coverage)
                    if below
                    else None,
                )
            )
    return out


class Rtfx(TypedDict):
    rtfx: float | None
    rtfx_note: str | None


class ModelIdentity(TypedDict):
    model_revision: str | None
    model_revision_note: str | None
    system_type: str
    system_type_source: str | None


class ModelFiles(TypedDict):
    model_size_bytes: int | None
    model_size_note: str | None


class ModelShape(TypedDict):
    architecture: str | None
    parameters: int | None
    parameters_note: str | None


def rtfx_of(rtf: float | None) -> Rtfx:
    """RTFx, audio seconds per processing second, from the scope's RTF; null with the
    reason where no decode time was measured (saved hypotheses without `decode_seconds`).

    >>> rtfx_of(0.25)
    {'rtfx': 4.0, 'rtfx_note': None}
    >>> rtfx_of(0.0)["rtfx"] is None
    True
    """
    if rtf is None:
        return {"rtfx": None, "rtfx_note": "not measured: no real-time factor recorded"}
    if rtf <= 0:
        return {"rtfx": None, "rtfx_note": "not measured: no decode time recorded (RTF 0)"}
    return {"rtfx": 1.0 / float(rtf), "rtfx_note": None}


def model_identity(model: ModelInfo) -> ModelIdentity:
    """The model revision a row is audited by, and where it comes from. Saved hypotheses
    (precomputed) carry their file's hash, which identifies no model: their revision is
    the one the user declared (marked so), or none."""
    extra: JSONObject = model.engine_extra or {}
    if model.backend != PRECOMPUTED:
        note = None if model.revision else "not recorded by the engine"
        return {
            "model_revision": model.revision,
            "model_revision_note": note,
            **declared_type(extra),
        }
    declared = extra.get("declared_model")
    if not isinstance(declared, dict):
        return {
            "model_revision": None,
            "model_revision_note": f"saved hypotheses ({model.revision}): no model declared",
            **declared_type(extra),
        }
    hashes = declared.get("file_sha256")
    files = {str(k): str(v) for k, v in hashes.items()} if isinstance(hashes, dict) else {}
    revision = declared.get("revision")
    if not isinstance(revision, str) or not revision:
        revision = content_revision(files) if files else None
    return {
        "model_revision": revision,
        "model_revision_note": f"declared for model {declared.get('model')}, not measured",
        **declared_type(extra),
    }


class SystemType(TypedDict):
    system_type: str
    system_type_source: str | None


def declared_type(extra: JSONObject) -> SystemType:
    """The system type an engine record declares, if it is one of the four."""
    value = extra.get("system_type")
    if isinstance(value, str) and value in SYSTEM_TYPES:
        source = extra.get("system_type_source")
        return {"system_type": value, "system_type_source": str(source or "the model record")}
    return {"system_type": UNDECLARED, "system_type_source": None}


def model_files(model: ModelInfo, arm: ArmResult) -> ModelFiles:
    """Bytes of the files the engine loaded, as recorded; a saved-hypotheses arm loaded
    no model, so its file size is not a model size."""
    if model.backend == PRECOMPUTED:
        return {"model_size_bytes": None, "model_size_note": "saved hypotheses: no model loaded"}
    size = model.size_bytes
    if size is None and arm.resources is not None:
        size = arm.resources.model_size_bytes
    note = None if size is not None else "not recorded by the engine"
    return {"model_size_bytes": size, "model_size_note": note}


def model_shape(model: ModelInfo | Mapping[str, Any]) -> ModelShape:
    """Architecture and parameter count as the engine recorded them (`model.json`
    `extra`); a count the engine did not record exactly is None with the reason."""
    record = model if isinstance(model, ModelInfo) else ModelInfo.from_dict(dict(model))
    extra: JSONObject = record.engine_extra or {}
    architecture = extra.get("architecture") or None
    if architecture and extra.get("model_class"):
        architecture = f"{architecture} ({extra['model_class']})"
    parameters = extra.get("parameters")
    if isinstance(parameters, int) and not isinstance(parameters, bool) and parameters > 0:
        count, note = parameters, None
    else:
        count, note = None, str(extra.get("parameters_note") or "not recorded by the engine")
    return {
        "architecture": str(architecture) if architecture else None,
        "parameters": count,
        "parameters_note": note,
    }
