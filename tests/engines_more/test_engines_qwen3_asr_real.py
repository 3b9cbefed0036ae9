"""The Qwen3-ASR adapter on qwen-asr's real loading and decoding code, with a tiny model.

Runs only where `qwen_asr` imports. qwen-asr pins transformers 4.57, which the main
environment (transformers 5) cannot hold, so CI's main job skips this file; it runs in
the separate environment of docs/engines_more.md. The model is built from the
package's own config classes (one 16-wide layer per side) with a byte-level tokenizer
of 256 symbols plus Qwen's special tokens, saved with `save_pretrained`. Nothing is
fetched.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from earmark.engines.base import Clip
from earmark.engines.spec import parse_arm_spec
from earmark.errors import EarmarkError

pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
pytest.importorskip(
    "qwen_asr",
    reason="qwen-asr is not installed; it needs its own environment (docs/engines_more.md)",
)

from earmark.engines.qwen3_asr import QWEN_LANGUAGES, Qwen3AsrEngine  # noqa: E402

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|audio_start|>", "<|audio_end|>",
            "<|audio_pad|>", "<asr_text>"]  # fmt: skip
#: Qwen's chat layout: system, then the user turn holding the audio placeholder.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'audio' %}"
    "<|audio_start|><|audio_pad|><|audio_end|>{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_qwen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from qwen_asr.core.transformers_backend import (
        Qwen3ASRConfig,
        Qwen3ASRForConditionalGeneration,
        Qwen3ASRProcessor,
    )
    from transformers import Qwen2TokenizerFast, WhisperFeatureExtractor
    from transformers.models.gpt2.tokenization_gpt2 import bytes_to_unicode

    source = tmp_path_factory.mktemp("qwen-tokenizer")
    vocab = {ch: i for i, ch in enumerate(bytes_to_unicode().values())}
    (source / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (source / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    tokenizer = Qwen2TokenizerFast(
        vocab_file=str(source / "vocab.json"),
        merges_file=str(source / "merges.txt"),
        unk_token=None,
        bos_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens={
            "audio_token": "<|audio_pad|>",
            "audio_bos_token": "<|audio_start|>",
            "audio_eos_token": "<|audio_end|>",
        },
    )
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIALS})
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in SPECIALS}
    processor = Qwen3ASRProcessor(
        feature_extractor=WhisperFeatureExtractor(feature_size=128, sampling_rate=16000),
        tokenizer=tokenizer,
        chat_template=CHAT_TEMPLATE,
    )
    audio = {"num_mel_bins": 128, "encoder_layers": 1, "encoder_attention_heads": 2,
             "encoder_ffn_dim": 32, "d_model": 16, "output_dim": 16,
             "downsample_hidden_size": 8}  # fmt: skip
    text = {"vocab_size": len(tokenizer), "hidden_size": 16, "intermediate_size": 32,
            "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
            "head_dim": 8, "max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": "default", "mrope_section": [1, 1, 2],
                             "interleaved": True}}  # fmt: skip
    config = Qwen3ASRConfig(
        thinker_config={
            "audio_config": audio,
            "text_config": text,
            "audio_token_id": ids["<|audio_pad|>"],
            "audio_start_token_id": ids["<|audio_start|>"],
        },
        support_languages=["Chinese", "English"],
    )
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-qwen3-asr")
    Qwen3ASRForConditionalGeneration(config).eval().save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def two_clips() -> list[Clip]:
    noise = (0.1 * np.random.default_rng(7).standard_normal(16000)).astype(np.float32)
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)).astype(np.float32)
    return [Clip("noise", noise, 16000), Clip("tone", tone, 16000)]


def _engine(spec: str) -> Qwen3AsrEngine:
    return Qwen3AsrEngine.from_spec(parse_arm_spec(spec))


def test_language_table_matches_the_package() -> None:
    from qwen_asr.inference.utils import SUPPORTED_LANGUAGES

    assert sorted(QWEN_LANGUAGES.values()) == sorted(SUPPORTED_LANGUAGES)


def test_tiny_model_loads_and_transcribes_like_the_package(
    tiny_qwen: Path, two_clips: list[Clip]
) -> None:
    engine = _engine(f"qwen3-asr:{tiny_qwen}?max_new_tokens=6")
    info = engine.load()
    files = sorted(p for p in tiny_qwen.iterdir() if p.is_file())
    assert info.file_sha256 == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    assert "model.safetensors" in info.file_sha256 and "tokenizer.json" in info.file_sha256
    assert info.compute_type == "float32" and info.runtime_version is not None
    assert info.extra["transformers_version"].startswith("4.")

    forced = engine.transcribe(two_clips, "zh-CN")
    again = engine.transcribe(two_clips, "zh-CN")
    assert [(h.text, h.language_used) for h in forced] == [(h.text, h.language_used) for h in again]
    # Oracle: the package called directly with the language name the adapter forces.
    for hyp, clip in zip(forced, two_clips, strict=True):
        (direct,) = engine._model.transcribe(audio=[(clip.audio, 16000)], language=["Chinese"])
        assert hyp.error is None and hyp.text == direct.text.strip() != ""
        assert hyp.language_used == "zh" and hyp.extra == {"language_forced": "Chinese"}
        assert hyp.segments == ()  # no aligner, no timestamps

    unsupported = engine.transcribe(two_clips, "ga")
    assert [h.error for h in unsupported] == ["unsupported_language:ga"] * 2
    engine.close()


def test_detect_policy_reports_no_language_when_the_model_names_none(
    tiny_qwen: Path, two_clips: list[Clip]
) -> None:
    engine = _engine(f"qwen3-asr:{tiny_qwen}?max_new_tokens=6&language_policy=detect")
    engine.load()
    hyps = engine.transcribe(two_clips, "ga")  # not forced, so no reason code
    (direct,) = engine._model.transcribe(audio=[(two_clips[0].audio, 16000)], language=[None])
    assert hyps[0].error is None and hyps[0].text == direct.text.strip()
    # The random model never writes "language X<asr_text>": the package reports "".
    assert direct.language == "" and hyps[0].language_used is None
    assert hyps[0].extra == {"language_forced": None}


def test_empty_folder_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="Qwen3-ASR could not load .*no file named") as err:
        _engine(f"qwen3-asr:{tmp_path}").load()
    assert "\n" not in str(err.value)


def test_weights_missing_is_one_clear_line(tiny_qwen: Path, tmp_path: Path) -> None:
    for path in tiny_qwen.iterdir():
        if path.name != "model.safetensors":
            (tmp_path / path.name).write_bytes(path.read_bytes())
    with pytest.raises(EarmarkError, match="Qwen3-ASR could not load") as err:
        _engine(f"qwen3-asr:{tmp_path}").load()
    assert "\n" not in str(err.value)


def test_another_model_type_is_refused_before_loading(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "wav2vec2"}), "utf-8")
    with pytest.raises(EarmarkError, match="holds a 'wav2vec2' model, not Qwen3-ASR"):
        _engine(f"qwen3-asr:{tmp_path}").load()
