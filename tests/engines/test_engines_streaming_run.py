"""`earmark run` with a streaming arm, end to end: rows carry their partials, results.json,
results.md and the HTML report carry the figures (hand-computed from the reference
program)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

import earmark.testing.stdio_echo_asr as echo_module
from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest
from earmark.scoring.streaming_section import NOT_STREAMING

ECHO = Path(echo_module.__file__)
PROGRAM = f"{sys.executable} {ECHO}"


def make_corpus(root: Path, n: int) -> Path:
    """`n` clips of 0.2 s (two 100 ms chunks each), reference "alpha beta"."""
    audio = root / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        samples = (np.sin(np.arange(3200) * (0.01 + i * 0.003)) * 0.3).astype(np.float32)
        soundfile.write(audio / f"c{i}.wav", samples, 16000, subtype="PCM_16")
        rows.append(
            Utterance(id=f"c{i}", audio=f"audio/c{i}.wav", text="alpha beta", language="en")
        )
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(
        dataset="tones",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(manifest, rows, meta)
    return manifest


def test_a_streaming_arm_records_partials_and_reports_its_figures(tmp_path: Path) -> None:
    manifest = make_corpus(tmp_path / "corpus", 4)
    out = tmp_path / "run"
    streamed = (
        f"stdio:{PROGRAM} --revise-partials?model={ECHO}&name=live&streaming=true&chunk_ms=100"
    )
    plain = f"stdio:{PROGRAM}?model={ECHO}&name=batch"
    args = ["run", "--manifest", str(manifest), "--normalizer", "none", "--bootstrap", "0"]
    args += ["--arm", streamed, "--arm", plain, "--out", str(out), "--quiet"]
    assert main(args) == 0
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text("utf-8").splitlines()]
    live = [r for r in rows if r["arm"] == "live"]
    assert len(live) == 4 and all(r["status"] == "ok" for r in live)
    for row in live:
        stream = row["stream"]
        words = row["hypothesis"].split()
        # Chunk 1 of 2 shows 3 // 2 = 1 word, revised to "omega"; chunk 2 shows all three.
        assert [p[2] for p in stream["partials"]] == ["omega", " ".join(words)]
        assert [p[0] for p in stream["partials"]] == pytest.approx([0.1, 0.2])
        assert stream["figures"]["word"]["revised_units"] == 1
    assert all("stream" not in r for r in rows if r["arm"] == "batch")
    results = json.loads((out / "results.json").read_text("utf-8"))
    block = results["arms"]["live"]["streaming"]["by_language"]["en"]
    # Per clip: "omega" rewritten (1 of 3 final words); of 2 non-empty updates 1 is kept.
    assert block["clips"] == 4
    assert block["churn"] == pytest.approx(4 / 12)
    assert block["stability"] == pytest.approx(0.5)
    assert block["ttft_audio_p50_seconds"] == pytest.approx(0.1)
    assert block["final_latency_clips"] == 4
    batch = results["arms"]["batch"]["streaming"]
    assert batch["by_language"] is None and batch["reason"] == NOT_STREAMING
    markdown = (out / "results.md").read_text("utf-8")
    assert markdown.count("### Streaming") == 1
    assert "| en | word | 4 |" in markdown and "| 33.3% | 50.0% |" in markdown
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text("utf-8")
    assert page.count("<h3>Streaming</h3>") == 1
    streaming = page.split("<h3>Streaming</h3>", 1)[1].split("</table>", 1)[0]
    assert "<td>live</td><td>en</td><td>word</td>" in streaming and "batch" not in streaming
    assert ">33.3%</td>" in streaming and ">50.0%</td>" in streaming
