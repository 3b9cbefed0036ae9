"""Shared fixtures for the engine tests: synthetic speech and a tiny multilingual Whisper."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from earmark.engines.base import Clip

#: Short English sentences spoken by espeak-ng in the tests.
ENGLISH = {
    "fox": "the quick brown fox jumps over the lazy dog",
    "report": "please send the report before friday morning",
    "traffic": "turn left at the next traffic light",
}


def speak(text: str, voice: str, path: Path) -> Clip:
    """espeak-ng speech resampled to 16 kHz mono float32."""
    import soundfile
    import soxr

    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
    audio, rate = soundfile.read(path, dtype="float32")
    return Clip(path.stem, soxr.resample(audio, rate, 16000).astype(np.float32), 16000, str(path))


@pytest.fixture(scope="session")
def english_clips(tmp_path_factory: pytest.TempPathFactory) -> list[Clip]:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    folder = tmp_path_factory.mktemp("speech")
    return [speak(text, "en-us", folder / f"{key}.wav") for key, text in ENGLISH.items()]


@pytest.fixture(scope="session")
def english_texts() -> dict[str, str]:
    return dict(ENGLISH)


@pytest.fixture(scope="session")
def tiny_zh_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from earmark.testing.tiny_whisper import build_tiny_whisper

    return build_tiny_whisper(tmp_path_factory.mktemp("tiny-zh"), fixed_text="你好，世界")


@pytest.fixture(scope="session")
def tone_clips() -> list[Clip]:
    """Two short 440 Hz tones (content does not matter to the backends that get them)."""
    t = np.arange(16000, dtype=np.float32) / 16000
    audio = (0.1 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    return [Clip("u1", audio, 16000), Clip("u2", audio[:8000], 16000)]
