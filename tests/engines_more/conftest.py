"""Tiny random-weight transformers models built in the tests (no downloads) and clips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from earmark.engines.base import Clip


def _torch_and_transformers() -> None:
    pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
    pytest.importorskip("transformers", reason="transformers is not installed")


@pytest.fixture(scope="session")
def clips() -> list[Clip]:
    """Two seeded noise clips: 1.0 s and 0.75 s of 16 kHz audio."""
    rng = np.random.default_rng(7)
    audio = (0.1 * rng.standard_normal(16000)).astype(np.float32)
    return [Clip("one", audio, 16000), Clip("two", audio[:12000].copy(), 16000)]


@pytest.fixture(scope="session")
def tiny_ctc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer Wav2Vec2ForCTC with a 30-symbol character vocabulary, saved to disk."""
    _torch_and_transformers()
    from earmark.testing.tiny_torch_models import build_tiny_ctc

    return build_tiny_ctc(tmp_path_factory.mktemp("tiny-ctc"))


@pytest.fixture(scope="session")
def tiny_whisper_hf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-layer multilingual WhisperForConditionalGeneration (random weights, d_model 16),
    its tokenizer the bundled tiny.en `tokenizer.json` laid out the multilingual way."""
    _torch_and_transformers()
    from earmark.testing.tiny_torch_models import build_tiny_whisper_hf

    return build_tiny_whisper_hf(tmp_path_factory.mktemp("tiny-whisper-hf"))
