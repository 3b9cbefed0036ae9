"""A tiny NeMo transducer (Parakeet TDT's export layout) for sherpa-onnx, built offline.

Parakeet TDT runs in sherpa-onnx as `model_type=nemo_transducer`: three ONNX graphs and a
`tokens.txt` whose last token is `<blk>`. sherpa-onnx reads `vocab_size` (NeMo's count,
without the blank), `subsampling_factor`, `normalize_type`, `pred_rnn_layers` and
`pred_hidden` from the encoder's metadata, and decodes with token-and-duration (TDT)
greedy search when the encoder's `url` metadata names a TDT model; the joiner then returns
the token logits followed by one logit per duration.

The graphs here keep that interface and nothing else:

- encoder: `audio_signal` (N, 80, T) and `length` (N,) -> `outputs` (N, D, ceil(T/8)) and
  `encoded_lengths`; the features are subsampled by 8 and multiplied by zero, so what the
  model says does not depend on the audio (only on how many frames it has);
- decoder: `targets` (N, 1) int32, `target_length`, LSTM-shaped `states` (1, N, H) twice
  -> the previous token as a one-hot column (N, H, 1), its length, the states unchanged;
- joiner: encoder and decoder columns -> (N, 1, 1, vocab + durations) logits: a fixed
  transition table from the previous token to the next one and its duration.

So the model spells `TEXT` one token per encoder frame (duration 1), then emits the blank
with the longest duration until the audio ends: a clip of at least `len(TEXT_TOKENS)`
frames (0.08 s each) reads `TEXT`, and, decoded as TDT, token k is stamped at frame k
(plain RNN-T greedy search would stamp them all at frame 0). Needs the `onnx` package.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from earmark.testing.tiny_onnx_ctc import (
    FEATURE_DIM,
    TOKENS,
    every_nth_frame,
    int64_tensor,
    save_model,
    write_tokens,
)

#: What the model says, and the tokens it spells it with (SentencePiece's word marker).
TEXT = "world"
TEXT_TOKENS = ("▁", "w", "o", "r", "l", "d")
#: The frames each emission may advance (TDT's durations); the last is the largest.
DURATIONS = (0, 1, 2, 3, 4)
SUBSAMPLING = 8
ENCODER_DIM = 16


def _transitions() -> np.ndarray:
    """Joiner logits per previous token: after the start (the blank) and after each token
    of `TEXT_TOKENS`, the next token with duration 1; after the last, the blank with the
    longest duration. Rows are one-hot decoder outputs, so a row is the logits."""
    vocab = len(TOKENS)
    blank = TOKENS.index("<blk>")
    table = np.full((vocab, vocab + len(DURATIONS)), -10.0, dtype=np.float32)
    # The decoder state here is only the last token, so a token may not repeat in TEXT.
    chain = [blank, *(TOKENS.index(t) for t in TEXT_TOKENS)]
    seen: dict[int, int] = {}
    for previous, following in zip(chain, chain[1:], strict=False):
        if previous in seen and seen[previous] != following:
            raise ValueError(f"{TEXT!r} needs more than one token after {TOKENS[previous]!r}")
        seen[previous] = following
    for previous, following in seen.items():
        table[previous, following] = 10.0
        table[previous, vocab + 1] = 10.0  # duration 1
    table[chain[-1], blank] = 10.0
    table[chain[-1], vocab + len(DURATIONS) - 1] = 10.0
    return table


def build_tiny_nemo_tdt(out_dir: str | Path, *, tdt: bool = True) -> Path:
    """Write encoder.onnx, decoder.onnx, joiner.onnx and tokens.txt into `out_dir`.

    `tdt=False` writes a plain NeMo RNN-T instead: a `url` that does not name a TDT model
    and a joiner without the duration logits (sherpa-onnx requires exactly the vocabulary
    there), the transitions otherwise the same. Returns the folder.
    """
    from onnx import TensorProto, helper, numpy_helper

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    vocab = len(TOKENS)
    transitions = _transitions() if tdt else _transitions()[:, :vocab]
    width = transitions.shape[1]
    float_ = TensorProto.FLOAT

    slicing, subsample = every_nth_frame("audio_signal", "subsampled", 2, SUBSAMPLING)
    encoder = helper.make_graph(
        [
            subsample,
            helper.make_node("MatMul", ["enc.weight", "subsampled"], ["outputs"]),
            helper.make_node("Add", ["length", "round.up"], ["padded"]),
            helper.make_node("Div", ["padded", "factor"], ["encoded_lengths"]),
        ],
        "tiny_nemo_tdt_encoder",
        [
            helper.make_tensor_value_info("audio_signal", float_, ["N", FEATURE_DIM, "T"]),
            helper.make_tensor_value_info("length", TensorProto.INT64, ["N"]),
        ],
        [
            helper.make_tensor_value_info("outputs", float_, ["N", ENCODER_DIM, "T_out"]),
            helper.make_tensor_value_info("encoded_lengths", TensorProto.INT64, ["N"]),
        ],
        [
            numpy_helper.from_array(np.zeros((ENCODER_DIM, FEATURE_DIM), np.float32), "enc.weight"),
            *slicing,
            numpy_helper.from_array(np.array(SUBSAMPLING - 1, np.int64), "round.up"),
            numpy_helper.from_array(np.array(SUBSAMPLING, np.int64), "factor"),
        ],
    )
    url = "tiny-parakeet-tdt (earmark test)" if tdt else "tiny-nemo-rnnt (earmark test)"
    save_model(
        encoder,
        out / "encoder.onnx",
        {
            "vocab_size": str(vocab - 1),  # NeMo counts the vocabulary without the blank
            "subsampling_factor": str(SUBSAMPLING),
            "normalize_type": "per_feature",
            "pred_rnn_layers": "1",
            "pred_hidden": str(vocab),
            "model_type": "EncDecRNNTBPEModel",
            "url": url,
            "comment": "earmark tiny hand-weighted test model",
        },
    )

    decoder = helper.make_graph(
        [
            helper.make_node("Gather", ["dec.embedding", "targets"], ["embedded"]),
            helper.make_node("Transpose", ["embedded"], ["outputs"], perm=[0, 2, 1]),
            helper.make_node("Identity", ["target_length"], ["prednet_lengths"]),
            helper.make_node("Identity", ["states.1"], ["states"]),
            helper.make_node("Identity", ["states.2"], ["states.next"]),
        ],
        "tiny_nemo_tdt_decoder",
        [
            helper.make_tensor_value_info("targets", TensorProto.INT32, ["N", 1]),
            helper.make_tensor_value_info("target_length", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("states.1", float_, [1, "N", vocab]),
            helper.make_tensor_value_info("states.2", float_, [1, "N", vocab]),
        ],
        [
            helper.make_tensor_value_info("outputs", float_, ["N", vocab, 1]),
            helper.make_tensor_value_info("prednet_lengths", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("states", float_, [1, "N", vocab]),
            helper.make_tensor_value_info("states.next", float_, [1, "N", vocab]),
        ],
        [numpy_helper.from_array(np.eye(vocab, dtype=np.float32), "dec.embedding")],
    )
    save_model(decoder, out / "decoder.onnx")

    joiner = helper.make_graph(
        [
            helper.make_node("Transpose", ["encoder_outputs"], ["enc.row"], perm=[0, 2, 1]),
            helper.make_node("Transpose", ["decoder_outputs"], ["dec.row"], perm=[0, 2, 1]),
            helper.make_node("MatMul", ["enc.row", "joint.enc"], ["enc.logits"]),
            helper.make_node("MatMul", ["dec.row", "joint.dec"], ["dec.logits"]),
            helper.make_node("Add", ["enc.logits", "dec.logits"], ["summed"]),
            helper.make_node("Unsqueeze", ["summed", "unsqueeze.axes"], ["outputs"]),
        ],
        "tiny_nemo_tdt_joiner",
        [
            helper.make_tensor_value_info("encoder_outputs", float_, ["N", ENCODER_DIM, 1]),
            helper.make_tensor_value_info("decoder_outputs", float_, ["N", vocab, 1]),
        ],
        [helper.make_tensor_value_info("outputs", float_, ["N", 1, 1, width])],
        [
            numpy_helper.from_array(np.zeros((ENCODER_DIM, width), np.float32), "joint.enc"),
            numpy_helper.from_array(transitions, "joint.dec"),
            int64_tensor("unsqueeze.axes", [1]),
        ],
    )
    save_model(joiner, out / "joiner.onnx")
    write_tokens(out)
    return out
