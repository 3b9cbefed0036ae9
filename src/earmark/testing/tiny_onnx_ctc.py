"""A tiny random-weight NeMo-style CTC model for sherpa-onnx, built offline in the test.

The sherpa-onnx backend must run through the real recogniser (feature extraction,
onnxruntime session, CTC decoding) without downloading a model. sherpa-onnx's NeMo CTC
loader needs an ONNX graph taking `audio_signal` (N, feat_dim, T) float and `length` (N,)
int64 and returning log-probabilities (N, T', vocab), with the metadata keys it reads:
`vocab_size`, `subsampling_factor` and `normalize_type` (plus the optional `is_giga_am`),
and a `tokens.txt` holding `<blk>`. The graph here is Transpose -> strided Slice (the
subsampling) -> MatMul + Add with seeded random weights -> LogSoftmax.

`model.int8.onnx` is the same graph put through onnxruntime's dynamic int8 quantisation,
as sherpa-onnx's own `*.int8.onnx` exports are, so the two files are genuinely the
float32 and int8 variants of one model. Needs the `onnx` package (imported here only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: Output symbols: a character vocabulary with SentencePiece's word marker; blank last, as NeMo.
TOKENS = ("▁", *"abcdefghijklmnopqrstuvwxyz", "'", "<blk>")
FEATURE_DIM = 80
SUBSAMPLING = 4


def int64_tensor(name: str, values: list[int]) -> Any:
    """An int64 initialiser (an ONNX `TensorProto`) named `name`."""
    from onnx import numpy_helper

    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save_model(graph: Any, path: Path, metadata: dict[str, str] | None = None) -> Any:
    """Wrap `graph` as an opset-17 model readable by every onnxruntime that sherpa-onnx
    1.x/2.x bundles (IR version 8), set its metadata, check it and write it; returns it."""
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    if metadata:
        helper.set_model_props(model, metadata)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return model


def write_tokens(folder: Path) -> None:
    """`tokens.txt` as sherpa-onnx reads it: `symbol id` per line, the blank last."""
    lines = [f"{token} {i}" for i, token in enumerate(TOKENS)]
    (folder / "tokens.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def every_nth_frame(source: str, target: str, axis: int, step: int) -> tuple[list[Any], Any]:
    """The initialisers and the Slice node keeping every `step`-th frame along `axis`:
    a subsampling stand-in for the convolutions of a real encoder."""
    from onnx import helper

    initialisers = [
        int64_tensor("slice.starts", [0]),
        int64_tensor("slice.ends", [np.iinfo(np.int64).max]),
        int64_tensor("slice.axes", [axis]),
        int64_tensor("slice.steps", [step]),
    ]
    node = helper.make_node(
        "Slice", [source, "slice.starts", "slice.ends", "slice.axes", "slice.steps"], [target]
    )
    return initialisers, node


def ctc_projection(seed: int, blank_bias: float) -> tuple[list[Any], list[Any]]:
    """The initialisers and nodes every tiny CTC model shares: features transposed,
    subsampled by `SUBSAMPLING`, one random projection to the vocabulary (the blank's logit
    shifted by `blank_bias`), log-softmax."""
    from onnx import helper, numpy_helper

    vocab = len(TOKENS)
    rng = np.random.default_rng(seed)
    weight = (rng.standard_normal((FEATURE_DIM, vocab)) * 0.5).astype(np.float32)
    bias = np.zeros(vocab, dtype=np.float32)
    bias[TOKENS.index("<blk>")] = blank_bias

    initialisers = [
        numpy_helper.from_array(weight, "proj.weight"),
        numpy_helper.from_array(bias, "proj.bias"),
    ]
    slicing, subsample = every_nth_frame("frames", "subsampled", 1, SUBSAMPLING)
    initialisers += slicing
    nodes = [
        helper.make_node("Transpose", ["audio_signal"], ["frames"], perm=[0, 2, 1]),
        subsample,
        helper.make_node("MatMul", ["subsampled", "proj.weight"], ["projected"]),
        helper.make_node("Add", ["projected", "proj.bias"], ["logits"]),
        helper.make_node("LogSoftmax", ["logits"], ["logprobs"], axis=-1),
    ]
    return initialisers, nodes


def build_tiny_nemo_ctc(
    out_dir: str | Path, *, seed: int = 0, int8: bool = True, blank_bias: float = -1.0
) -> Path:
    """Write `model.onnx`, `tokens.txt` and (with `int8`) `model.int8.onnx` into `out_dir`.

    `blank_bias` is added to the blank's logit; a negative value makes blanks rarer than
    chance so the random model emits some text. Returns the folder.
    """
    import onnx
    from onnx import TensorProto, helper

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    vocab = len(TOKENS)
    initialisers, nodes = ctc_projection(seed, blank_bias)
    nodes += [
        # NeMo exports also return the encoded lengths; sherpa-onnx computes its own.
        helper.make_node("Identity", ["length"], ["encoded_lengths"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_nemo_ctc",
        [
            helper.make_tensor_value_info(
                "audio_signal", TensorProto.FLOAT, ["N", FEATURE_DIM, "T"]
            ),
            helper.make_tensor_value_info("length", TensorProto.INT64, ["N"]),
        ],
        [
            helper.make_tensor_value_info("logprobs", TensorProto.FLOAT, ["N", "T_out", vocab]),
            helper.make_tensor_value_info("encoded_lengths", TensorProto.INT64, ["N"]),
        ],
        initialisers,
    )
    metadata = {
        "vocab_size": str(vocab),
        "subsampling_factor": str(SUBSAMPLING),
        "normalize_type": "per_feature",
        "is_giga_am": "0",
        "model_type": "EncDecCTCModelBPE",
        "comment": "earmark tiny random-weight test model",
    }
    save_model(graph, out / "model.onnx", metadata)
    write_tokens(out)
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(
            str(out / "model.onnx"), str(out / "model.int8.onnx"), weight_type=QuantType.QInt8
        )
        quantised = onnx.load(str(out / "model.int8.onnx"))
        helper.set_model_props(quantised, metadata)  # quantisation drops custom metadata
        onnx.save(quantised, str(out / "model.int8.onnx"))
    return out
