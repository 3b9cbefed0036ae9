"""sherpa-onnx and Vosk through their real loading code on folders the tests make."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from earmark.engines import build_engine, parse_arm_spec, supported_weight_types, validate_arm
from earmark.engines.sherpa_onnx import token_segments
from earmark.engines.sherpa_onnx_model import find_layout
from earmark.engines.vosk import word_segments
from earmark.errors import EarmarkError, MissingExtraError


def _folder(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    for name in names:
        (folder / name).write_bytes(b"not onnx" if name.endswith(".onnx") else b"a 0\nb 1\n")
    return folder


def test_layout_detection_and_weight_type_file_choice(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        "encoder-epoch-99.onnx", "decoder-epoch-99.onnx", "joiner-epoch-99.onnx",
        "encoder-epoch-99.int8.onnx", "decoder-epoch-99.int8.onnx", "joiner-epoch-99.int8.onnx",
        "tokens.txt",
    )  # fmt: skip
    plain = find_layout(folder, "auto", None)
    assert (plain.model_type, plain.weight_type) == ("transducer", "float32")
    assert plain.files["joiner"].name == "joiner-epoch-99.onnx"
    int8 = find_layout(folder, "auto", "int8")
    assert {p.name for p in int8.files.values()} == {
        "encoder-epoch-99.int8.onnx", "decoder-epoch-99.int8.onnx", "joiner-epoch-99.int8.onnx"
    }  # fmt: skip


def test_single_file_and_whisper_layouts(tmp_path: Path) -> None:
    para = _folder(tmp_path, "model.int8.onnx", "tokens.txt")
    layout = find_layout(para, "auto", None)
    assert (layout.model_type, layout.weight_type) == ("paraformer", "int8")  # only int8 there
    assert find_layout(para, "nemo_ctc", "int8").model_type == "nemo_ctc"
    with pytest.raises(ValueError, match="exactly one float32 model"):
        find_layout(para, "auto", "float32")
    whisper = tmp_path / "w"
    whisper.mkdir()
    for name in ("tiny-encoder.onnx", "tiny-decoder.onnx", "tiny-tokens.txt"):
        (whisper / name).write_bytes(b"x")
    assert find_layout(whisper, "auto", None).model_type == "whisper"


def test_token_segments() -> None:
    assert token_segments(["你", "好"], [0.0, 0.4], 1.0) == (
        token_segments(["你"], [0.0], 0.4)[0],
        token_segments(["好"], [0.4], 1.0)[0],
    )
    segments = token_segments(["a", "b"], [0.1, 0.5], 0.9)
    assert [(s.start, s.end, s.text) for s in segments] == [(0.1, 0.5, "a"), (0.5, 0.9, "b")]
    assert token_segments(["a"], [], 1.0) == ()


def test_sherpa_invalid_and_missing_models(tmp_path: Path) -> None:
    pytest.importorskip("sherpa_onnx", reason="sherpa-onnx is not installed")
    assert supported_weight_types("sherpa-onnx") == ("float32", "int8")
    with pytest.raises(EarmarkError, match="model not found at"):
        build_engine(parse_arm_spec(f"sherpa-onnx:{tmp_path}/none"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EarmarkError, match="not a sherpa-onnx model folder: no tokens.txt"):
        build_engine(parse_arm_spec(f"sherpa-onnx:{empty}")).load()
    folder = _folder(tmp_path, "model.onnx", "tokens.txt")
    engine = build_engine(parse_arm_spec(f"sherpa-onnx:{folder}?compute_type=float32"))
    with pytest.raises(EarmarkError, match="could not load the paraformer model: .*Protobuf"):
        engine.load()
    with pytest.raises(EarmarkError, match="is not one of auto, transducer"):
        validate_arm(parse_arm_spec(f"sherpa-onnx:{folder}?model_type=rnnt"))


def test_vosk_invalid_and_missing_models(tmp_path: Path) -> None:
    pytest.importorskip("vosk", reason="vosk is not installed")
    assert supported_weight_types("vosk") == ()
    with pytest.raises(EarmarkError, match="model not found at"):
        build_engine(parse_arm_spec(f"vosk:{tmp_path}/vosk-model-small-en-us"))
    folder = tmp_path / "bad"
    (folder / "am").mkdir(parents=True)
    (folder / "am" / "final.mdl").write_bytes(b"garbage")
    engine = build_engine(parse_arm_spec(f"vosk:{folder}?model_language=en"))
    with pytest.raises(EarmarkError, match="Vosk could not load a model"):
        engine.load()


def test_vosk_word_segments() -> None:
    words = [
        {"conf": 1.0, "start": 0.3, "end": 0.6, "word": "hello"},
        {"conf": 0.9, "start": 0.6, "end": 1.1, "word": "world"},
        {"conf": 0.5},  # malformed entries are skipped, not invented
    ]
    assert [(s.start, s.end, s.text) for s in word_segments(words)] == [
        (0.3, 0.6, "hello"),
        (0.6, 1.1, "world"),
    ]


@pytest.mark.parametrize(
    ("backend", "module", "extra"),
    [("sherpa-onnx", "sherpa_onnx", "sherpa-onnx"), ("vosk", "vosk", "vosk")],
)
def test_missing_runtime_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError, match=rf"earmark\[{extra}\]"):
        build_engine(parse_arm_spec(f"{backend}:{tmp_path}"))
