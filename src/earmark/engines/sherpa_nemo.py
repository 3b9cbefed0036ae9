"""NeMo transducers (Parakeet TDT and RNN-T exports) in sherpa-onnx: detection and the
checks sherpa-onnx would otherwise answer by ending the process.

sherpa-onnx decodes a NeMo transducer (`model_type=nemo_transducer`) with its own greedy
or beam search over a stateful LSTM prediction network. It reads `vocab_size` (NeMo's
count, without the blank), `subsampling_factor`, `pred_rnn_layers` and `pred_hidden` from
the encoder's metadata, requires `<blk>` as the last line of tokens.txt and vocab_size +
1 lines in all, and treats the model as TDT (token-and-duration: the joiner returns the
token logits, then one logit per duration, and decoding skips that many frames) when the
encoder's `url` metadata contains "tdt"; a plain RNN-T joiner must return exactly the
vocabulary. Any mismatch exits the process from C++, so the backend checks all of it
first and raises an error that names the file.
"""

from __future__ import annotations

from pathlib import Path

from earmark.engines.onnx_protobuf import onnx_metadata, onnx_output_width

#: Encoder metadata sherpa-onnx reads without a default for a NeMo transducer.
REQUIRED_ENCODER_METADATA = ("vocab_size", "subsampling_factor", "pred_rnn_layers", "pred_hidden")
BLANK = "<blk>"


def is_nemo_encoder(encoder: Path) -> bool:
    """NeMo's exports carry the prediction network's shape in the encoder's metadata
    (icefall's transducers do not): how `model_type=auto` tells the two apart."""
    metadata = onnx_metadata(encoder) or {}
    return "pred_rnn_layers" in metadata and "pred_hidden" in metadata


def is_tdt(encoder: Path) -> bool:
    """sherpa-onnx's own rule: TDT when the encoder's `url` metadata contains "tdt"."""
    return _names_tdt(onnx_metadata(encoder) or {})


def _names_tdt(metadata: dict[str, str]) -> bool:
    return "tdt" in metadata.get("url", "")


def problems(encoder: Path, joiner: Path, tokens: Path) -> list[str]:
    """What would make sherpa-onnx end the process on these files; empty when none.

    Unreadable protobuf is left to sherpa-onnx, which raises on it.
    """
    metadata = onnx_metadata(encoder)
    if metadata is None:
        return []
    missing = [key for key in REQUIRED_ENCODER_METADATA if key not in metadata]
    if missing:
        return [f"{encoder.name}'s metadata lacks {', '.join(missing)}"]
    try:
        vocab = int(metadata["vocab_size"]) + 1  # NeMo counts without the blank
    except ValueError:
        return [f"{encoder.name}'s vocab_size is not a number: {metadata['vocab_size']!r}"]
    found: list[str] = []
    symbols = [line.split()[0] for line in _lines(tokens)]
    if BLANK not in symbols or symbols[-1] != BLANK:
        found.append(f"{tokens.name} must end with the blank {BLANK}")
    if len(symbols) != vocab:
        found.append(
            f"{tokens.name} has {len(symbols)} tokens; the encoder's vocab_size says {vocab} "
            "(with the blank)"
        )
    width = onnx_output_width(joiner)
    tdt = _names_tdt(metadata)
    if width is not None:
        if tdt and width <= vocab:
            found.append(
                f"{joiner.name} returns {width} logits: a TDT joiner returns the {vocab} "
                "tokens' and at least one duration's"
            )
        elif not tdt and width != vocab:
            found.append(
                f"{joiner.name} returns {width} logits, not the vocabulary's {vocab} (a TDT "
                "model's encoder metadata names it in `url`)"
            )
    return found


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text("utf-8", errors="replace").splitlines() if line]
