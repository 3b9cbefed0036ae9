"""Read a finished run directory (or an `earmark score` output) as one object.

The HTML report, the leaderboard and the decision record all need the same four files:
`results.json`, `predictions.jsonl`, `provenance.json` and, when present, `compare.json`.
This module reads them once, without re-scoring anything, and answers the questions the
three share: which rows belong to an arm, which figures are the primary ones, and whether
the run is verifiable (seed 000: model revision, corpus hash, host profile).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.records import read_records
from earmark.report.results import check_predictions_file, load_results

#: Why a results file without provenance.json can never be verified.
NO_PROVENANCE = "provenance.json (model revision, corpus hash and host profile not recorded)"


def base_language(language: str | None) -> str:
    """`zh-CN` → `zh`, the key `by_language` blocks use."""
    if not language:
        return ""
    return language.replace("_", "-").split("-")[0].lower()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a JSONL file; a torn last line (a crashed writer) is skipped."""
    rows: list[dict[str, Any]] = []
    if not path.exists():
        return rows
    lines = [line for _, line in read_records(path)]
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(path), line=number) from None
    return rows


def read_compare(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A `compare.json` (schema `earmark.compare/1`), given as the file or its directory."""
    p = Path(path)
    if p.is_dir():
        p = p / "compare.json"
    try:
        data: dict[str, Any] = json.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        raise EarmarkError("compare file not found", file=str(p)) from None
    except json.JSONDecodeError as exc:
        raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(p), line=exc.lineno) from None
    if not str(data.get("schema", "")).startswith("earmark.compare/"):
        raise EarmarkError(
            f"unsupported compare schema {data.get('schema')!r}", file=str(p), field="schema"
        )
    return data


def primary_metric_name(block: dict[str, Any]) -> str:
    """`wer` when the normaliser scores words first, `cer` for character-scored languages."""
    units = block.get("normalizer", {}).get("units") or ["word"]
    return "wer" if units[0] == "word" else "cer"


def row_key(row: dict[str, Any]) -> tuple[str, int]:
    """(id, repeat): what pairs a row of one run with the same row of another."""
    return str(row.get("id")), int(row.get("repeat") or 0)


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
        seen = sorted(
            {
                (str(r.get("id")), int(r.get("repeat") or 0), str(r.get("reference") or ""))
                for r in self.predictions
            }
        )
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
        """Seed 000's test via `earmark.run.provenance.is_verifiable`; restricted to one arm
        when given (another arm's missing hashes don't taint this one)."""
        from earmark.run.provenance import is_verifiable

        if self.provenance is None:
            return False, [NO_PROVENANCE]
        prov = self.provenance
        if arm is not None:
            arms = prov.get("arms") or {}
            if arm not in arms:
                ok, missing = is_verifiable({**prov, "arms": {}})
                return False, [*missing, f"model revision or file hashes of arm {arm}"]
            prov = {**prov, "arms": {arm: arms[arm]}}
        return is_verifiable(prov)


def load_run(
    path: str | os.PathLike[str], *, compare: str | os.PathLike[str] | None = None
) -> RunDirectory:
    """Read a run directory (or the directory of a given results.json). `compare.json`
    is read from `compare` when given, else from the run directory when present.

    Refused (`EarmarkError`) when results.json is missing or empty, when predictions.jsonl
    is not the file results.json names by hash, or when provenance.json is empty: a
    report of figures beside rows they were not computed from would look sound."""
    p = Path(path)
    run_dir = p if p.is_dir() else p.parent
    results = load_results(p)
    check_predictions_file(run_dir, results)
    provenance: dict[str, Any] | None = None
    prov_path = run_dir / "provenance.json"
    if prov_path.exists():
        text = prov_path.read_text("utf-8")
        if not text.strip():
            raise EarmarkError(
                "provenance.json is empty (a write was interrupted)",
                file=str(prov_path),
                hint="rerun the command that wrote this folder (a run resumes)",
            )
        try:
            provenance = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EarmarkError(
                f"invalid JSON: {exc.msg}", file=str(prov_path), line=exc.lineno
            ) from None
    compare_data = None
    if compare is not None:
        compare_data = read_compare(compare)
    elif (run_dir / "compare.json").exists():
        compare_data = read_compare(run_dir / "compare.json")
    return RunDirectory(
        path=run_dir,
        results=results,
        predictions=read_jsonl(run_dir / "predictions.jsonl"),
        provenance=provenance,
        compare=compare_data,
    )
