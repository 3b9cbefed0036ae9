"""One local Ray instance for the module, a small synthetic corpus, and command-line
'ASR systems' that are deterministic — one of them kills its own Ray worker on a chosen
clip, to test what happens when a worker dies mid-shard."""

from __future__ import annotations

import hashlib
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest

# Same words for the same audio, whoever runs it: hypotheses are a function of the samples.
# With a target digest prefix, the program kills its parent (the process running the
# engine: a Ray actor, or a local arm process) on that clip — always, or only the first
# time (a marker file remembers). Standard library only, so each call starts fast.
CRASHY_ASR = textwrap.dedent(
    """
    import hashlib, os, signal, sys, wave
    with wave.open(sys.argv[1], "rb") as audio:  # the engine hands over 16-bit mono WAV
        digest = hashlib.sha256(audio.readframes(audio.getnframes())).hexdigest()
    if len(sys.argv) > 3 and digest.startswith(sys.argv[3]):
        marker = sys.argv[4] if len(sys.argv) > 4 else None
        if sys.argv[2] == "always" or not os.path.exists(marker):
            if marker:  # a folder: a file the template names would be hashed as an input
                os.mkdir(marker)
            os.kill(os.getppid(), signal.SIGKILL)
            sys.exit(1)
    words = ["alpha", "beta", "gamma", "delta"]
    print(" ".join(words[int(c, 16) % 4] for c in digest[:3]))
    """
)


def make_corpus(root: Path, n: int, *, with_hashes: bool = True) -> Path:
    audio = root / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    rows = []
    rng = np.random.default_rng(0)
    for i in range(n):
        tone = np.sin(np.arange(3200) * (0.01 + i * 0.003)) * 0.3
        samples = (tone + rng.normal(0, 0.01, 3200)).astype(np.float32)
        path = audio / f"c{i:03d}.wav"
        sf.write(path, samples, 16000, subtype="PCM_16")
        rows.append(
            Utterance(
                id=f"c{i:03d}",
                audio=f"audio/c{i:03d}.wav",
                text="alpha beta gamma",
                language="en",
                slices=("tone",),
                sha256=hashlib.sha256(path.read_bytes()).hexdigest() if with_hashes else None,
            )
        )
    manifest = root / "manifest.jsonl"
    write_manifest(
        manifest,
        rows,
        CorpusMeta(
            dataset="tones",
            licence="CC0-1.0",
            consent_basis="synthetic",
            redistribute_audio=True,
            redistribute_transcripts=True,
        ),
    )
    return manifest


def _demo_subset(root: Path, ids: list[str], copies: int = 1) -> Path:
    """A manifest of chosen demo clips (each listed `copies` times under distinct ids),
    reading audio from the packaged demo corpus."""
    from earmark.corpus.demo import demo_manifest_path
    from earmark.corpus.manifest import read_manifest, read_meta

    rows = {u.id: u for u in read_manifest(demo_manifest_path())}
    chosen = [
        replace(rows[i], id=i if copies == 1 else f"{i}.{k}") for k in range(copies) for i in ids
    ]
    root.mkdir(parents=True, exist_ok=True)
    manifest = root / "manifest.jsonl"
    write_manifest(manifest, chosen, read_meta(demo_manifest_path()))
    return manifest


def _pcm_digest(path: Path) -> str:
    data, _ = sf.read(path, dtype="int16")
    return hashlib.sha256(data.tobytes()).hexdigest()


@pytest.fixture()
def demo_subset():
    return _demo_subset


@pytest.fixture()
def pcm_digest():
    """The digest CRASHY_ASR computes for a clip (of its 16-bit samples)."""
    return _pcm_digest


@pytest.fixture(scope="module")
def ray_session() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="needs the ray extra")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture()
def crashy_asr(tmp_path: Path) -> str:
    script = tmp_path / "crashy_asr.py"
    script.write_text(CRASHY_ASR, "utf-8")
    return f"{sys.executable} {script}"


@pytest.fixture()
def corpus_factory():
    return make_corpus
