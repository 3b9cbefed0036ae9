"""sherpa-onnx end to end on a tiny random-weight NeMo CTC model built in the test.

The real recogniser runs: sherpa-onnx's fbank features, its onnxruntime session over
`model.onnx` or the int8-quantised `model.int8.onnx`, and its greedy CTC decoding. The
weights are random, so the text is arbitrary; what is pinned is the file choice, the
hashes of exactly the files loaded, determinism, and the law that the text is the
emitted tokens joined (SentencePiece's word marker read as a space).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Hypothesis, ModelInfo

pytest.importorskip("sherpa_onnx", reason="sherpa-onnx is not installed")
pytest.importorskip("onnx", reason="onnx is needed to build the tiny model (pip install onnx)")
pytest.importorskip("onnxruntime.quantization", reason="onnxruntime makes the int8 variant")

from earmark.testing.tiny_onnx_ctc import SUBSAMPLING, TOKENS, build_tiny_nemo_ctc  # noqa: E402

FRAME_SECONDS = 0.01 * SUBSAMPLING


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nemo_ctc(tmp_path_factory.mktemp("tiny-nemo-ctc"))


@pytest.fixture(scope="module")
def second_clips() -> list[Clip]:
    rng = np.random.default_rng(11)
    return [
        Clip(name, (0.1 * rng.standard_normal(16000)).astype(np.float32), 16000)
        for name in ("a", "b")
    ]


def _run(spec: str, clips: list[Clip]) -> tuple[ModelInfo, list[Hypothesis], list[Hypothesis]]:
    engine = build_engine(parse_arm_spec(spec))
    info = engine.load()
    try:
        return info, engine.transcribe(clips, "en"), engine.transcribe(clips, "en")
    finally:
        engine.close()


def test_builder_is_deterministic(folder: Path, tmp_path: Path) -> None:
    again = build_tiny_nemo_ctc(tmp_path / "again")
    for name in ("model.onnx", "model.int8.onnx", "tokens.txt"):
        assert (again / name).read_bytes() == (folder / name).read_bytes(), name
    assert (folder / "model.int8.onnx").stat().st_size < (folder / "model.onnx").stat().st_size


@pytest.mark.parametrize(
    ("setting", "weight_type", "file"),
    [("", "float32", "model.onnx"), ("&compute_type=int8", "int8", "model.int8.onnx"),
     ("&dtype=float32", "float32", "model.onnx")],
)  # fmt: skip
def test_nemo_ctc_loads_the_chosen_file_and_decodes_deterministically(
    folder: Path, second_clips: list[Clip], setting: str, weight_type: str, file: str
) -> None:
    spec = f"sherpa-onnx:{folder}?model_type=nemo_ctc&threads=1{setting}"
    info, first, again = _run(spec, second_clips)
    assert info.compute_type == weight_type
    assert info.extra["model_type"] == "nemo_ctc"
    assert info.extra["files"] == {"model": file}
    # Only the files loaded are hashed: the other variant is not part of this arm.
    assert info.file_sha256 == {
        file: _sha256(folder / file),
        "tokens.txt": _sha256(folder / "tokens.txt"),
    }
    assert (
        info.size_bytes == (folder / file).stat().st_size + (folder / "tokens.txt").stat().st_size
    )
    assert [h.id for h in first] == ["a", "b"]
    for hyp in first:
        assert hyp.error is None
        assert hyp.text  # the blank is biased down, so a random model emits text
        assert set(hyp.text) <= set("".join(TOKENS[:-1]).replace("▁", " "))
        tokens = [s.text for s in hyp.segments]
        assert hyp.text == "".join(tokens).replace("▁", " ").strip()
        starts = [s.start for s in hyp.segments]
        assert starts == sorted(starts) and starts[-1] < 1.0
        assert all(abs(t / FRAME_SECONDS - round(t / FRAME_SECONDS)) < 1e-4 for t in starts)
        assert hyp.segments[-1].end == pytest.approx(1.0)
        assert hyp.language_used is None  # a CTC model has no language token
    assert [h.text for h in first] == [h.text for h in again]
    assert [h.segments for h in first] == [h.segments for h in again]
    # A fresh recogniser gives the same output as the first.
    _, fresh, _ = _run(spec, second_clips)
    assert [h.text for h in fresh] == [h.text for h in first]


def test_int8_is_a_quantisation_of_the_same_model(folder: Path, second_clips: list[Clip]) -> None:
    """The two files disagree only where int8 rounding flips a close call."""
    spec = f"sherpa-onnx:{folder}?model_type=nemo_ctc"
    _, full, _ = _run(spec, second_clips)
    _, quantised, _ = _run(spec + "&compute_type=int8", second_clips)
    for a, b in zip(full, quantised, strict=True):
        same = sum(x == y for x, y in zip(a.text, b.text, strict=False))
        assert same >= 0.8 * max(len(a.text), len(b.text))


def test_metadata_reader_agrees_with_onnx(folder: Path) -> None:
    import onnx

    from earmark.engines.onnx_protobuf import onnx_metadata

    for name in ("model.onnx", "model.int8.onnx"):
        expected = {p.key: p.value for p in onnx.load(str(folder / name)).metadata_props}
        assert onnx_metadata(folder / name) == expected
        assert expected["vocab_size"] == str(len(TOKENS))
    assert onnx_metadata(folder / "tokens.txt") is None  # not protobuf


def test_wrong_model_type_is_an_error_not_a_process_exit(folder: Path) -> None:
    """`auto` takes a lone model.onnx for Paraformer; sherpa-onnx would exit() on this file."""
    from earmark.errors import EarmarkError

    engine = build_engine(parse_arm_spec(f"sherpa-onnx:{folder}"))
    with pytest.raises(EarmarkError, match="lacks lfr_window_size") as caught:
        engine.load()
    assert caught.value.field == "model_type"
