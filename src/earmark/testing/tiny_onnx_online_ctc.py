"""A tiny random-weight streaming NeMo CTC model for sherpa-onnx's online recogniser.

The streaming path must run through the real online recogniser (incremental fbank,
chunked onnxruntime calls carrying cache states, greedy CTC across chunks) without a
download. sherpa-onnx's `OnlineNeMoCtcModel` calls the graph once per chunk of
`window_size` feature frames with five inputs, in this order: `audio_signal` (N, 80,
window_size) float, `length` (N,) int64, and the cache-aware encoder's states
`cache_last_channel` (N, d1, d2, d3) float, `cache_last_time` (N, d1, d2, d3) float,
`cache_last_channel_len` (N,) int64. It takes back log-probabilities (N, T', vocab), the
encoded lengths (ignored) and the three next states, and reads the metadata keys
`window_size`, `chunk_shift`, `subsampling_factor`, `vocab_size` (without the blank) and
`cache_last_{channel,time}_dim{1,2,3}`, each without a default (a missing one ends the
process). The graph is the offline tiny model's (`tiny_onnx_ctc`): strided Slice (the
subsampling) -> MatMul + Add with seeded random weights -> LogSoftmax, states passed
through unchanged. Needs the `onnx` package (imported here only).
"""

from __future__ import annotations

from pathlib import Path

from earmark.testing.tiny_onnx_ctc import (
    FEATURE_DIM,
    SUBSAMPLING,
    TOKENS,
    ctc_projection,
    save_model,
    write_tokens,
)

#: Feature frames (10 ms each) per model call; the chunk shift is the same (no overlap).
WINDOW_FRAMES = 8
#: Shapes of the pass-through cache states (dims 1..3; the batch is dim 0).
CACHE_CHANNEL = (1, 2, 4)
CACHE_TIME = (1, 4, 2)


def build_tiny_online_nemo_ctc(
    out_dir: str | Path, *, seed: int = 0, blank_bias: float = -1.0
) -> Path:
    """Write `model.onnx` and `tokens.txt` into `out_dir`; returns the folder.

    `blank_bias` is added to the blank's logit (negative: the random model says more).
    """
    from onnx import TensorProto, helper

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    vocab = len(TOKENS)
    initialisers, nodes = ctc_projection(seed, blank_bias)
    nodes += [
        helper.make_node("Identity", ["length"], ["encoded_lengths"]),
        *(
            helper.make_node("Identity", [name], [f"{name}_next"])
            for name in ("cache_last_channel", "cache_last_time", "cache_last_channel_len")
        ),
    ]
    value = helper.make_tensor_value_info
    states_in = [
        value("cache_last_channel", TensorProto.FLOAT, ["N", *CACHE_CHANNEL]),
        value("cache_last_time", TensorProto.FLOAT, ["N", *CACHE_TIME]),
        value("cache_last_channel_len", TensorProto.INT64, ["N"]),
    ]
    states_out = [
        value(f"{v.name}_next", v.type.tensor_type.elem_type, ["N", *dims])
        for v, dims in zip(states_in, (CACHE_CHANNEL, CACHE_TIME, ()), strict=True)
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_online_nemo_ctc",
        [
            value("audio_signal", TensorProto.FLOAT, ["N", FEATURE_DIM, "T"]),
            value("length", TensorProto.INT64, ["N"]),
            *states_in,
        ],
        [
            value("logprobs", TensorProto.FLOAT, ["N", "T_out", vocab]),
            value("encoded_lengths", TensorProto.INT64, ["N"]),
            *states_out,
        ],
        initialisers,
    )
    metadata = {
        "vocab_size": str(vocab - 1),  # NeMo counts the vocabulary without the blank
        "window_size": str(WINDOW_FRAMES),
        "chunk_shift": str(WINDOW_FRAMES),
        "subsampling_factor": str(SUBSAMPLING),
        **{f"cache_last_channel_dim{i}": str(d) for i, d in enumerate(CACHE_CHANNEL, 1)},
        **{f"cache_last_time_dim{i}": str(d) for i, d in enumerate(CACHE_TIME, 1)},
        "model_type": "EncDecCTCModelBPE",
        "comment": "earmark tiny random-weight streaming test model",
    }
    save_model(graph, out / "model.onnx", metadata)
    write_tokens(out)
    return out
