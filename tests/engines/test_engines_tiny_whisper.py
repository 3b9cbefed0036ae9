"""The numpy-built tiny Whisper that tests use for the Mandarin path."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from earmark.testing.tiny_whisper import build_tiny_whisper

faster_whisper = pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra")


def test_multilingual_layout(tiny_zh_model: Path) -> None:
    tokenizer = json.loads((tiny_zh_model / "tokenizer.json").read_text(encoding="utf-8"))
    ids = {a["content"]: a["id"] for a in tokenizer["added_tokens"]}
    assert ids["<|endoftext|>"] == 50257
    assert ids["<|startoftranscript|>"] == 50258
    assert ids["<|zh|>"] == 50260
    assert ids["<|notimestamps|>"] == 50363
    vocabulary = json.loads((tiny_zh_model / "vocabulary.json").read_text(encoding="utf-8"))
    assert len(vocabulary) == 51865
    assert (
        vocabulary[50256] == ""
        and vocabulary[50364] == "<|0.00|>"
        and vocabulary[-1] == "<|30.00|>"
    )


def test_build_is_deterministic(tmp_path: Path) -> None:
    a = build_tiny_whisper(tmp_path / "a", fixed_text="你好", seed=3)
    b = build_tiny_whisper(tmp_path / "b", fixed_text="你好", seed=3)
    digest = lambda p: hashlib.sha256((p / "model.bin").read_bytes()).hexdigest()  # noqa: E731
    assert digest(a) == digest(b)
    assert digest(build_tiny_whisper(tmp_path / "c", fixed_text="你好", seed=4)) != digest(a)


def test_runtime_sees_a_multilingual_model_and_mandarin(tiny_zh_model: Path) -> None:
    model = faster_whisper.WhisperModel(str(tiny_zh_model), device="cpu", compute_type="float32")
    assert model.model.is_multilingual
    audio = np.zeros(16000, dtype=np.float32)
    segments, info = model.transcribe(audio, language="zh", beam_size=1)
    assert info.language == "zh"
    assert "".join(s.text for s in segments) == "你好，世界"
    # Detection also lands on Mandarin: <|startoftranscript|> is wired to <|zh|>.
    segments, info = model.transcribe(audio, beam_size=1)
    assert info.language == "zh" and "".join(s.text for s in segments) == "你好，世界"
    # Without timestamps the same text comes out.
    segments, _ = model.transcribe(audio, language="zh", without_timestamps=True, beam_size=5)
    assert "".join(s.text for s in segments) == "你好，世界"


def test_english_only_variant_forces_english(tmp_path: Path) -> None:
    folder = build_tiny_whisper(tmp_path / "en", multilingual=False, fixed_text=" hello world")
    model = faster_whisper.WhisperModel(str(folder), device="cpu", compute_type="int8")
    assert not model.model.is_multilingual
    segments, info = model.transcribe(np.zeros(16000, dtype=np.float32), language="zh", beam_size=1)
    assert info.language == "en" and "".join(s.text for s in segments) == " hello world"


def test_random_weights_load(tmp_path: Path) -> None:
    folder = build_tiny_whisper(tmp_path / "random")
    model = faster_whisper.WhisperModel(str(folder), device="cpu", compute_type="int8")
    assert model.model.is_multilingual


def test_too_long_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="too long"):
        build_tiny_whisper(tmp_path / "long", fixed_text="词" * 500)
