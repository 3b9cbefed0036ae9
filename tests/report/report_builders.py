"""Builders of small, real run directories for the report tests.

Rows are scored with the real scorer (`score_rows`), so views, counts, CIs and
hallucination blocks have exactly the shapes `finish_run` writes; only the model,
resources and provenance records are hand-made, which lets a test set latency, CPU cost,
revision and host precisely.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earmark.engines.file_hashes import content_revision
from earmark.formats.rows import ScoringRow
from earmark.results.arm import ArmResult
from earmark.rundir.results_file import build_results
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.probes import run_scorer_probes
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

MANIFEST_SHA = "a" * 64
HOST = {
    "os": "Linux",
    "os_release": "6.1",
    "arch": "x86_64",
    "cpu_model": "Test CPU 9000",
    "cpu_count": 4,
    "cores_available": 4,
    "memory_bytes": 8 * 2**30,
    "cpu_governor": None,
    "hostname_recorded": False,
}
ZH_REF = "今天天气很好我们去公园"  # 11 characters
MODEL_HASHES = {"model.bin": "2" * 64}
#: What an arm run offline records (`EgressGuard.record()`): network refused, the whole
#: process tree audited, no attempt. `decide`'s offline-cache gate passes on it.
EGRESS_OFFLINE = {
    "policy": "refuse all except: nothing",
    "attempts": [],
    "refused": 0,
    "audited": True,
    "scope": "this process and every process it started",
    "processes": {"started": 0, "python_audited": 0, "unaudited": 0},
}


def zh_rows(errors: list[int], prefix: str = "zh") -> list[tuple[str, str, str, str]]:
    """One Mandarin row per entry, the first k characters substituted (k errors, CER k/11)."""
    rows = []
    for i, k in enumerate(errors):
        hyp = "错" * k + ZH_REF[k:]
        rows.append((f"{prefix}-{i:03d}", "zh", ZH_REF, hyp))
    return rows


@dataclass
class ArmData:
    rows: list[tuple[str, str, str, str]]
    latency_p95: float | None = 1.0
    cpu_per_audio: float | None = 0.5
    peak_rss: int | None = 500 * 2**20
    rtf: float | None = 0.5
    #: The content revision of MODEL_HASHES, so `decide`'s packaging gate passes.
    revision: str | None = content_revision(MODEL_HASHES)
    licence: str = "MIT"
    language_policy: str = "forced"
    decode_seconds: float = 0.5
    extra_row_fields: dict[str, Any] = field(default_factory=dict)


def make_run(
    path: Path,
    arms: dict[str, ArmData],
    *,
    manifest_sha: str | None = MANIFEST_SHA,
    host: dict[str, Any] | None = HOST,
    write_provenance: bool = True,
    public: bool = True,
    selection_rule: str = "all rows",
    dataset: str = "test-corpus",
    resamples: int = 300,
) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    options = ScoringOptions(
        policy=NormalizerPolicy.parse("auto"),
        bootstrap=BootstrapSettings(resamples=resamples, seed=7),
    )
    arms_results: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    prov_arms: dict[str, Any] = {}
    for name, arm in arms.items():
        rows = [
            ScoringRow(id=i, reference=ref, hypothesis=hyp, language=lang, slices=(lang,))
            for i, lang, ref, hyp in arm.rows
        ]
        scored = score_rows(rows, options)
        for (i, lang, ref, hyp), record in zip(arm.rows, scored.records, strict=True):
            records.append(
                {
                    "arm": name,
                    "id": i,
                    "repeat": 0,
                    "reference": ref,
                    "hypothesis": hyp,
                    "language": lang,
                    "status": "ok",
                    "decode_seconds": arm.decode_seconds,
                    "audio_seconds": 2.0,
                    "normalizer": record["normalizer"],
                    "views": record["views"],
                    **arm.extra_row_fields,
                }
            )
        model = {
            "artifact_id": f"test/{name}",
            "revision": arm.revision,
            "file_sha256": dict(MODEL_HASHES) if arm.revision else {},
            "licence": arm.licence,
            "licence_source": "https://example.invalid/licence",
            "runtime": "test-runtime",
            "runtime_version": "1.0",
            "compute_type": "int8",
            "extra": {"language_policy": arm.language_policy},
        }
        summary = scored.to_dict()
        summary["model"] = model
        summary["resources"] = {
            "latency_p50_seconds": arm.latency_p95,
            "latency_p95_seconds": arm.latency_p95,
            "cpu_seconds_per_audio_second": arm.cpu_per_audio,
            "peak_rss_bytes": arm.peak_rss,
            "real_time_factor": arm.rtf,
            "load_seconds": 1.0,
        }
        summary["spec"] = {"name": name, "backend": "test", "model": name, "settings": {}}
        arms_results[name] = summary
        prov_arms[name] = {"spec": summary["spec"], "model": model, "egress": EGRESS_OFFLINE}
    corpus = {
        "manifest": "/data/manifest.jsonl",
        "manifest_sha256": manifest_sha,
        "dataset": dataset,
        "licence": "CC-BY-4.0",
        "consent_basis": "test",
        "selection": {"rule": selection_rule, "parameters": {}, "input_rows": 1, "kept_rows": 1},
    }
    results = build_results(
        # The test arms add run sections to the scorer's JSON: read back as typed records.
        {name: ArmResult.from_dict(summary) for name, summary in arms_results.items()},
        run_scorer_probes(),
        corpus=corpus,
        public=public,
        provenance={"file": "provenance.json"},
    )
    (path / "results.json").write_text(json.dumps(results, ensure_ascii=False), "utf-8")
    (path / "predictions.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8"
    )
    if write_provenance:
        provenance = {
            "host": host or {},
            "software": {"earmark_version": "0.1.0", "python": "3.11"},
            "corpus": corpus,
            "arms": prov_arms,
            "deviations": [],
        }
        (path / "provenance.json").write_text(json.dumps(provenance), "utf-8")
    return path
