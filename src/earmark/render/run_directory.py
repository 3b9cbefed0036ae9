"""A finished run directory (or an `earmark score` output) as one object, for the renderers.

The HTML report, the leaderboard and the decision record all need the same four files:
`results.json`, `predictions.jsonl`, `provenance.json` and, when present, `compare.json`.
`load_run` reads them once through `earmark.rundir` (the only code that knows a folder's
files), without re-scoring anything, and `RunDirectory` answers the questions the three
share: which rows belong to an arm, which figures are the primary ones, and whether the
run is verifiable (seed 000: model revision, corpus hash, host profile; saved hypotheses
without a declared model are not, even in folders written before their engine said so).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.precomputed import BACKEND as PRECOMPUTED
from earmark.engines.precomputed import DeclaredModel
from earmark.errors import EarmarkError
from earmark.rundir.folder import RunFolder, read_compare_record
from earmark.rundir.predictions import row_key
from earmark.rundir.provenance import arm_verifiable
from earmark.rundir.results_file import check_predictions_file, load_results


def primary_metric_name(block: dict[str, Any]) -> str:
    """`wer` when the normaliser scores words first, `cer` for character-scored languages."""
    units = block.get("normalizer", {}).get("units") or ["word"]
    return "wer" if units[0] == "word" else "cer"


@dataclass(frozen=True)
class RunDirectory:
    """One run's files, read once. `provenance` is None for `earmark score` outputs."""

    path: Path
    results: dict[str, Any]
    predictions: list[dict[str, Any]]
    provenance: dict[str, Any] | None
    compare: dict[str, Any] | None = None

    @property
    def arm_names(self) -> list[str]:
        return list(self.results["arms"])

    def arm(self, name: str) -> dict[str, Any]:
        try:
            arm: dict[str, Any] = self.results["arms"][name]
        except KeyError:
            known = ", ".join(self.arm_names)
            raise EarmarkError(
                f"no arm {name!r} in this run", file=str(self.path), hint=f"arms: {known}"
            ) from None
        return arm

    def arm_rows(self, name: str) -> list[dict[str, Any]]:
        """Prediction rows of one arm; rows of an `earmark score` output (no `arm` field)
        belong to its only arm."""
        single = len(self.results["arms"]) == 1
        return [r for r in self.predictions if r.get("arm", name if single else None) == name]

    def block_rows(self, name: str, language: str) -> list[dict[str, Any]]:
        """Rows of one arm that its `by_language[language]` block scored: the block key is
        the row's tag as written, `und` for a row without one (`all`: every row)."""
        return [
            r
            for r in self.arm_rows(name)
            if language == "all" or (str(r.get("language") or "") or "und") == language
        ]

    def blocks(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(arm, language, block) for every per-language block, in file order."""
        for arm_name, arm in self.results["arms"].items():
            for lang, block in arm.get("by_language", {}).items():
                yield arm_name, lang, block

    @property
    def corpus(self) -> dict[str, Any]:
        corpus = self.results.get("corpus")
        if corpus is None and self.provenance:
            corpus = self.provenance.get("corpus")
        return dict(corpus or {})

    @property
    def manifest_sha256(self) -> str | None:
        value = self.corpus.get("manifest_sha256")
        return str(value) if value else None

    def references_sha256(self) -> str:
        """SHA-256 of the sorted (id, repeat, reference) triples: identifies the scored
        references when no manifest hash was recorded (an `earmark score` output)."""
        digest = hashlib.sha256()
        seen = sorted({(*row_key(r), str(r.get("reference") or "")) for r in self.predictions})
        for item in seen:
            digest.update(json.dumps(item, ensure_ascii=False).encode("utf-8") + b"\n")
        return digest.hexdigest()

    @property
    def host(self) -> dict[str, Any]:
        return dict((self.provenance or {}).get("host") or {})

    def model(self, arm: str) -> dict[str, Any]:
        model = self.arm(arm).get("model")
        if not model and self.provenance:
            model = (self.provenance.get("arms") or {}).get(arm, {}).get("model")
        return dict(model or {})

    def verifiable(self, arm: str | None = None) -> tuple[bool, list[str]]:
        """Seed 000's test (`earmark.rundir.provenance`); restricted to one arm when given
        (another arm's missing hashes don't taint this one)."""
        ok, missing = arm_verifiable(self.provenance, arm)
        names = self.arm_names if arm is None else [arm] if arm in self.arm_names else []
        for name in names:
            reason = saved_hypotheses_reason(name, self.model(name))
            if reason is not None and reason not in missing:
                missing.append(reason)
        return ok and not missing, missing


def saved_hypotheses_reason(arm: str, model: Mapping[str, object]) -> str | None:
    """Why a precomputed arm recorded before its engine judged itself is unverifiable (the
    engine's own rule, `DeclaredModel`); None for any other arm or a record that judges."""
    extra = model.get("extra")
    extra = extra if isinstance(extra, Mapping) else {}
    if model.get("backend") != PRECOMPUTED or "verifiable" in extra:
        return None
    if isinstance(extra.get("declared_model"), Mapping):
        return None
    return DeclaredModel().unverifiable_reason(arm)


def load_run(
    path: str | os.PathLike[str], *, compare: str | os.PathLike[str] | None = None
) -> RunDirectory:
    """Read a run directory (or the directory of a given results.json). `compare.json`
    is read from `compare` when given, else from the run directory when present.

    Refused (`EarmarkError`) when results.json is missing or empty, when predictions.jsonl
    is not the file results.json names by hash, or when provenance.json is empty: a
    report of figures beside rows they were not computed from would look sound."""
    folder = RunFolder.at(path)
    results = load_results(path)
    check_predictions_file(folder.path, results)
    provenance = folder.provenance()
    compare_data = read_compare_record(compare) if compare is not None else folder.compare_record()
    return RunDirectory(
        path=folder.path,
        results=results,
        predictions=folder.prediction_records(),
        provenance=provenance,
        compare=compare_data,
    )
