"""Tiny random-weight transformers models built in the tests (no downloads) and clips."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from earmark.engines.base import Clip

#: A character vocabulary: id 0 is the CTC blank (pad), "|" the word delimiter.
CTC_VOCAB = ["<pad>", "<unk>", "|", *"abcdefghijklmnopqrstuvwxyz'"]


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
    import torch
    from transformers import (
        Wav2Vec2Config,
        Wav2Vec2CTCTokenizer,
        Wav2Vec2FeatureExtractor,
        Wav2Vec2ForCTC,
        Wav2Vec2Processor,
    )

    folder = tmp_path_factory.mktemp("tiny-ctc")
    vocab_file = tmp_path_factory.mktemp("vocab") / "vocab.json"
    vocab_file.write_text(json.dumps({t: i for i, t in enumerate(CTC_VOCAB)}), encoding="utf-8")
    tokenizer = Wav2Vec2CTCTokenizer(
        str(vocab_file),
        unk_token="<unk>",
        pad_token="<pad>",
        word_delimiter_token="|",
        bos_token=None,
        eos_token=None,
    )
    extractor = Wav2Vec2FeatureExtractor(
        feature_size=1, sampling_rate=16000, padding_value=0.0, do_normalize=True,
        return_attention_mask=False,
    )  # fmt: skip
    config = Wav2Vec2Config(
        vocab_size=len(CTC_VOCAB),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        conv_dim=(32, 32, 32),
        conv_stride=(5, 4, 4),
        conv_kernel=(10, 4, 4),
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=2,
        pad_token_id=0,
    )
    torch.manual_seed(0)
    model = Wav2Vec2ForCTC(config).eval()
    with torch.no_grad():
        # Blank rarer than at random (non-trivial text), <unk> never emitted.
        model.lm_head.bias[0] = -1.0
        model.lm_head.bias[1] = -50.0
    model.save_pretrained(folder)
    Wav2Vec2Processor(feature_extractor=extractor, tokenizer=tokenizer).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_whisper_hf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-layer multilingual WhisperForConditionalGeneration (random weights, d_model 16).

    The tokenizer is the bundled tiny.en `tokenizer.json` laid out the multilingual way
    (special ids shifted by one; `<|zh|>` = 50260, `<|notimestamps|>` = 50363).
    """
    _torch_and_transformers()
    import torch
    from transformers import (
        GenerationConfig,
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperProcessor,
        WhisperTokenizerFast,
    )

    from earmark.testing.tiny_whisper import _layout

    layout = _layout(True)
    ids = layout.ids
    source = tmp_path_factory.mktemp("whisper-tokenizer") / "tokenizer.json"
    source.write_text(layout.tokenizer_json, encoding="utf-8")
    eot = ids["<|endoftext|>"]
    tokenizer = WhisperTokenizerFast(
        tokenizer_file=str(source),
        unk_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )
    processor = WhisperProcessor(
        feature_extractor=WhisperFeatureExtractor(feature_size=80), tokenizer=tokenizer
    )
    config = WhisperConfig(
        vocab_size=len(layout.vocabulary),  # 51865: text, specials and 1501 timestamps
        num_mel_bins=80,
        encoder_layers=1,
        encoder_attention_heads=2,
        decoder_layers=1,
        decoder_attention_heads=2,
        d_model=16,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_source_positions=1500,
        max_target_positions=448,
        decoder_start_token_id=ids["<|startoftranscript|>"],
        pad_token_id=eot,
        bos_token_id=eot,
        eos_token_id=eot,
    )
    torch.manual_seed(0)
    model = WhisperForConditionalGeneration(config).eval()
    languages = [
        name for name, i in ids.items() if ids["<|startoftranscript|>"] < i < ids["<|translate|>"]
    ]
    model.generation_config = GenerationConfig(
        decoder_start_token_id=ids["<|startoftranscript|>"],
        eos_token_id=eot,
        pad_token_id=eot,
        bos_token_id=eot,
        lang_to_id={name: ids[name] for name in languages},
        task_to_id={"transcribe": ids["<|transcribe|>"], "translate": ids["<|translate|>"]},
        is_multilingual=True,
        no_timestamps_token_id=ids["<|notimestamps|>"],
        prev_sot_token_id=ids["<|startofprev|>"],
        max_length=448,
    )
    folder = tmp_path_factory.mktemp("tiny-whisper-hf")
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
