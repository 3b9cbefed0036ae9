"""Build the input folders of the HTML goldens (`score/`, `rich/`) with the real CLI.

`score/` is one `earmark score` folder (sclite tables, punctuation, critical tokens, no
provenance). `rich/` joins two scored arms into one run with the real `earmark compare`
output beside it, and adds hand-written blocks for page branches no bundled run reaches:
resources, timestamps, model records, a language mismatch, a ranking flip, speakers,
deviations. Run from the repository root: `python tests/report/data/html-golden/make_inputs.py`,
then `python tests/report/test_report_html_golden.py` to rewrite the goldens.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from earmark.cli import main

HERE = Path(__file__).parent
CREATED = "2026-01-02T03:04:05Z"  # fixed, so the page has no clock in it

LONG_REF = " ".join(f"word{i}" for i in range(80))
LONG_HYP = " ".join(f"word{i}" if i % 7 else f"wurd{i}" for i in range(80)) + " loop" * 70
ROWS = [
    (
        "en-001",
        "en",
        "The cat sat on the mat, on 3 May 2024.",
        "the bat sat on a mat on 3 may 2024",
    ),
    ("en-002", "en", "Call 555-0100 now!", "call 555 0100 now"),
    ("en-003", "en", "", "thanks for watching"),
    ("en-004", "en", LONG_REF, LONG_HYP),
    ("en-005", "en", 'Say "hi" & <b>bye</b>', '<img src=x onerror="alert(1)">'),
    ("zh-001", "zh", "今天天气很好我们去公园", "今天天气很好我们去公圆"),
    ("zh-002", "zh", "我有3个苹果。", "我有三个苹果"),
    ("zh-003", "zh", "你好世界", "你好世界"),
]
#: What the second arm says differently.
INT8 = {"en-001": "The cat sat on the mat, on 3 May 2024.", "en-002": "call 555-0100 now!"}
INT8["zh-001"] = "今天天气很好我们去公园"


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> bytes:
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    path.write_bytes(data)
    return data


def _write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", "utf-8")


def _score(tmp: Path, name: str) -> dict[str, Any]:
    rows = [
        {
            "id": i,
            "language": lang,
            "reference": ref,
            "hypothesis": INT8.get(i, hyp) if name == "int8" else hyp,
            "slices": ["read"] if k % 2 else ["spontaneous", "noisy"],
        }
        for k, (i, lang, ref, hyp) in enumerate(ROWS)
    ]
    _write_jsonl(tmp / f"{name}.jsonl", rows)
    args = ["score", str(tmp / f"{name}.jsonl"), "--normalizer", "auto", "--bootstrap", "200"]
    args += ["--seed", "5", "--punctuation", "--critical-tokens", "--sclite-reports"]
    assert main([*args, "--out", str(tmp / name), "--quiet"]) == 0
    results: dict[str, Any] = json.loads((tmp / name / "results.json").read_text("utf-8"))
    return results


def _model(name: str) -> dict[str, Any]:
    cpu = {"isa": "AVX2", "sgemm_backend": "DNNL", "gemm_s8_backend": "DNNL"}
    cpu["pinned"] = {"CT2_FORCE_CPU_ISA": "AVX2"}  # type: ignore[assignment]
    return {
        "artifact_id": f"test/{name}",
        "revision": "sha256:" + "2" * 64,
        "file_sha256": {"model.bin": "2" * 64, "config.json": "3" * 64},
        "licence": "MIT",
        "licence_source": "https://example.invalid/licence",
        "runtime": "test-runtime",
        "runtime_version": "1.0",
        "compute_type": name,
        "deterministic": name == "base",
        "determinism_note": "greedy decoding" if name == "base" else None,
        "extra": {"cpu_runtime": cpu} if name == "int8" else {},
    }


def _resources(name: str) -> dict[str, Any]:
    return {
        "latency_p50_seconds": 0.31,
        "latency_p95_seconds": 0.52,
        "cpu_seconds_per_audio_second": 0.25 if name == "base" else None,
        "peak_rss_bytes": 500 * 2**20,
        "real_time_factor": 0.155,
        "load_seconds": 1.25,
        "threads": 4 if name == "base" else None,
    }


def build(tmp: Path) -> None:
    base, int8 = _score(tmp, "base"), _score(tmp, "int8")

    score = HERE / "score"
    shutil.rmtree(score, ignore_errors=True)
    score.mkdir()
    shutil.copy(tmp / "base" / "predictions.jsonl", score / "predictions.jsonl")
    _write_json(
        score / "results.json",
        {**base, "created": CREATED, "inputs": {**base["inputs"], "files": ["base.jsonl"]}},
    )

    assert (
        main(
            ["compare", str(tmp / "base"), str(tmp / "int8"), "--normalizer", "auto"]
            + ["--bootstrap", "200", "--seed", "5", "--out", str(tmp / "cmp"), "--quiet"]
        )
        == 0
    )
    text = (tmp / "cmp" / "compare.json").read_text("utf-8").replace(str(tmp), "/inputs")
    compare = json.loads(text)

    rich = HERE / "rich"
    shutil.rmtree(rich, ignore_errors=True)
    rich.mkdir()
    arms = {
        "base": copy.deepcopy(base["arms"]["base"]),
        "int8": copy.deepcopy(int8["arms"]["int8"]),
    }
    rows = []
    for name in arms:
        lines = (tmp / name / "predictions.jsonl").read_text("utf-8").splitlines()
        for k, line in enumerate(lines):
            row = {"arm": name, **json.loads(line)}
            row["decode_seconds"] = round(0.2 + 0.05 * k + (0.1 if name == "int8" else 0), 3)
            row["audio_seconds"] = 2.0
            if name == "int8" and row["id"] == "zh-003":
                row.update(language_mismatch=True, language_requested="zh", language_used="ja")
            rows.append(row)
    predictions = _write_jsonl(rich / "predictions.jsonl", rows)
    per_language = {"clips": 5, "latency_p50_seconds": 0.3, "latency_p95_seconds": 0.5}
    for name, arm in arms.items():
        arm["model"] = _model(name)
        arm["resources"] = _resources(name)
        arm["resources_by_language"] = {
            "en": {**per_language, "real_time_factor": 0.15},
            "zh": {
                "clips": 3,
                "latency_p50_seconds": None,
                "latency_p95_seconds": 0.4,
                "real_time_factor": None,
            },
        }
    for lang, block in arms["base"]["by_language"].items():
        block["by_speaker"] = {f"{lang}-speaker-{k}": v for k, v in block["by_slice"].items()}
    arms["int8"]["overall"] = None
    arms["int8"]["overall_null_reason"] = "languages use different units (words and characters)"
    offsets = {"mean": 0.021, "median": -0.01, "within_100ms": 0.9, "within_200ms": 1.0}
    words = {"matched": 12, "unmatched_reference": 2, "unmatched_hypothesis": 1}
    segments = {"matched": 3, "unmatched_reference": 0, "unmatched_hypothesis": 1}
    arms["base"]["timestamps"] = {
        "segment_rule": "overlap",
        "by_language": {
            "en": {
                "words": {**words, "start": offsets, "end": {**offsets, "mean": None}},
                "segments": {**segments, "start": offsets, "end": offsets},
            }
        },
    }
    diagnostics = copy.deepcopy(compare["diagnostics"])
    flip = {"with": "base", "normalizer": "en-v1", "raw": [0.1, 0.12], "normalized": [0.08, 0.07]}
    diagnostics["int8"]["normalizer_ranking_flip"] = {"flagged": True, "flips": [flip]}
    corpus = {
        "manifest": "/data/manifest.jsonl",
        "manifest_sha256": "a" * 64,
        "dataset": "golden <corpus>",
        "licence": "CC-BY-4.0",
        "consent_basis": "test",
        "redistribute_transcripts": True,
        "selection": {"rule": "all rows", "parameters": {}, "input_rows": 8, "kept_rows": 8},
    }
    _write_json(
        rich / "results.json",
        {
            "schema": base["schema"],
            "earmark_version": base["earmark_version"],
            "created": CREATED,
            "arms": arms,
            "probes": base["probes"],
            "diagnostics": diagnostics,
            "corpus": corpus,
            "public": True,
            "provenance": {"file": "provenance.json"},
            "predictions": {
                "file": "predictions.jsonl",
                "sha256": hashlib.sha256(predictions).hexdigest(),
                "bytes": len(predictions),
                "rows": len(rows),
            },
        },
    )
    host = {
        "os": "Linux",
        "os_release": "6.1",
        "arch": "x86_64",
        "cpu_model": "Test CPU",
        "cpu_count": 4,
        "cores_available": 2,
        "memory_bytes": 8 * 2**30,
        "cpu_governor": "performance",
        "cpu_flags": ["avx2", "fma"],
        "hostname_recorded": False,
    }
    software = {
        "earmark_version": "0.1.0",
        "earmark_git_commit": "0" * 40,
        "python": "3.11.7",
        "packages": {"numpy": "2.0", "earmark": "0.1.0"},
    }
    _write_json(
        rich / "provenance.json",
        {
            "host": host,
            "software": software,
            "plan_sha256": "b" * 64,
            "corpus": corpus,
            "arms": {n: {"spec": {"name": n}, "model": a["model"]} for n, a in arms.items()},
            "deviations": [{"kind": "retry", "id": "en-002", "note": "<i>x</i>"}],
        },
    )
    compare["created"] = CREATED
    compare["unpaired"] = [{"arm": "int8", "id": "en-009", "repeat": 0, "reason": "missing"}]
    _write_json(rich / "compare.json", compare)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
