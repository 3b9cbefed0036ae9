"""transformers-seq2seq on a tiny random multilingual Whisper built in the test session."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip
from earmark.errors import EarmarkError

pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
pytest.importorskip("transformers", reason="transformers is not installed")

ZH_TOKEN = 50260  # <|zh|> in the multilingual layout


def _direct(folder: Path, clip: Clip, **kwargs: Any) -> tuple[str, list[int]]:
    """Whisper generate written directly against transformers: the oracle."""
    import torch
    from transformers import AutoModelForSpeechSeq2Seq, AutoProcessor

    processor = AutoProcessor.from_pretrained(str(folder))
    model = AutoModelForSpeechSeq2Seq.from_pretrained(str(folder)).eval()
    features = processor.feature_extractor(
        [clip.audio], sampling_rate=16000, return_tensors="pt"
    ).input_features
    with torch.inference_mode():
        out = model.generate(
            features,
            task="transcribe",
            num_beams=1,
            max_new_tokens=4,
            return_dict_in_generate=True,
            **kwargs,
        ).sequences
    return processor.batch_decode(out, skip_special_tokens=True)[0].strip(), out[0].tolist()


def test_forced_language_provenance_and_determinism(
    tiny_whisper_hf: Path, clips: list[Clip]
) -> None:
    engine = build_engine(
        parse_arm_spec(f"transformers-seq2seq:{tiny_whisper_hf}?max_new_tokens=4&batch_size=2")
    )
    info = engine.load()
    assert info.file_sha256 == {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(tiny_whisper_hf.iterdir())
    }
    assert info.compute_type == "float32" and not info.english_only
    assert info.languages is not None and {"en", "zh"} <= set(info.languages)
    assert "ga" not in info.languages
    hyps = engine.transcribe(clips, "zh-CN")
    assert [h.text for h in hyps] == [h.text for h in engine.transcribe(clips, "zh-CN")]
    assert [h.language_used for h in hyps] == ["zh", "zh"]
    assert all(h.error is None and "language_mismatch" not in h.extra for h in hyps)
    text, tokens = _direct(tiny_whisper_hf, clips[0], language="zh")
    assert hyps[0].text == text and tokens[1] == ZH_TOKEN


def test_detect_records_the_language_token_the_decoder_emitted(
    tiny_whisper_hf: Path, clips: list[Clip]
) -> None:
    engine = build_engine(
        parse_arm_spec(
            f"transformers-seq2seq:{tiny_whisper_hf}?max_new_tokens=4&language_policy=detect"
        )
    )
    engine.load()
    hyp = engine.transcribe(clips[:1], "zh")[0]
    text, tokens = _direct(tiny_whisper_hf, clips[0])
    from transformers import AutoTokenizer

    detected = AutoTokenizer.from_pretrained(str(tiny_whisper_hf)).convert_ids_to_tokens(tokens[1])
    assert hyp.text == text
    assert hyp.language_used == detected.strip("<|>")
    assert hyp.extra.get("language_mismatch", False) == (hyp.language_used != "zh")


def test_irish_is_a_reason_code_under_forced_and_an_error_under_refuse(
    tiny_whisper_hf: Path, clips: list[Clip]
) -> None:
    forced = build_engine(parse_arm_spec(f"transformers-seq2seq:{tiny_whisper_hf}"))
    forced.load()
    hyps = forced.transcribe(clips, "ga")
    assert [(h.text, h.error) for h in hyps] == [("", "unsupported_language:ga")] * 2
    refuse = build_engine(
        parse_arm_spec(f"transformers-seq2seq:{tiny_whisper_hf}?language_policy=refuse")
    )
    refuse.load()
    with pytest.raises(EarmarkError, match="does not support language 'ga'"):
        refuse.transcribe(clips, "ga")


def test_bfloat16_arm_and_a_failing_clip(tiny_whisper_hf: Path, clips: list[Clip]) -> None:
    engine = build_engine(
        parse_arm_spec(
            f"transformers-seq2seq:{tiny_whisper_hf}?compute_type=bfloat16&max_new_tokens=4"
        )
    )
    info = engine.load()
    assert info.compute_type == "bfloat16"
    model = engine._model  # type: ignore[attr-defined]
    original = model.generate
    calls = {"n": 0}

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise MemoryError("out of memory on the second clip")
        return original(*args, **kwargs)

    model.generate = flaky
    hyps = engine.transcribe(clips, "en")
    assert hyps[0].error is None and hyps[0].language_used == "en"
    assert hyps[1].error == "engine_exception:MemoryError" and hyps[1].text == ""
    assert hyps[1].extra["message"] == "out of memory on the second clip"
