"""A small synthetic corpus and a deterministic command-line 'ASR system' for run tests."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest

FAKE_ASR = textwrap.dedent(
    """
    import hashlib, sys, time
    import soundfile as sf
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    time.sleep(delay)
    data, rate = sf.read(sys.argv[1], dtype="int16")
    digest = hashlib.sha256(data.tobytes()).hexdigest()
    words = ["alpha", "beta", "gamma", "delta"]
    print(" ".join(words[int(c, 16) % 4] for c in digest[:3]))
    """
)


def make_corpus(root: Path, n: int, *, licence: str | None = "CC0-1.0") -> Path:
    audio = root / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    rows = []
    rng = np.random.default_rng(0)
    for i in range(n):
        tone = np.sin(np.arange(3200) * (0.01 + i * 0.003)) * 0.3
        samples = (tone + rng.normal(0, 0.01, 3200)).astype(np.float32)
        sf.write(audio / f"c{i:03d}.wav", samples, 16000, subtype="PCM_16")
        rows.append(
            Utterance(
                id=f"c{i:03d}",
                audio=f"audio/c{i:03d}.wav",
                text="alpha beta gamma",
                language="en",
                slices=("tone",),
            )
        )
    manifest = root / "manifest.jsonl"
    write_manifest(
        manifest,
        rows,
        CorpusMeta(
            dataset="tones",
            licence=licence,
            consent_basis="synthetic" if licence else None,
            redistribute_audio=True,
            redistribute_transcripts=True,
        ),
    )
    return manifest


@pytest.fixture()
def fake_asr(tmp_path: Path) -> str:
    script = tmp_path / "fake_asr.py"
    script.write_text(FAKE_ASR, "utf-8")
    return f"{sys.executable} {script}"


@pytest.fixture()
def corpus_factory():
    return make_corpus
