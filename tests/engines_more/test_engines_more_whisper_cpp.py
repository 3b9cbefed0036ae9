"""whisper.cpp: header parsing on crafted files, and the real loading code on bad files."""

from __future__ import annotations

import hashlib
import struct
import sys
from pathlib import Path

import pytest

from earmark.engines import build_engine, parse_arm_spec, supported_weight_types, validate_arm
from earmark.engines.whisper_cpp import read_ggml_header
from earmark.errors import EarmarkError, MissingExtraError

#: Whisper tiny's hyper-parameters (n_vocab ... n_mels); ftype is appended per file.
TINY = [51865, 1500, 384, 6, 4, 448, 384, 6, 4, 80]


def _ggml(path: Path, ftype: int, vocab: int = 51865, tail: bytes = b"\0" * 64) -> Path:
    path.write_bytes(
        struct.pack("<I", 0x67676D6C) + struct.pack("<11i", vocab, *TINY[1:], ftype) + tail
    )
    return path


def _gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


@pytest.mark.parametrize(
    ("stored", "weight_type", "ftype", "qntvr"),
    [(0, "f32", 0, 0), (1, "f16", 1, 0), (1007, "q8_0", 7, 1), (2002, "q4_0", 2, 2),
     (2014, "q6_k", 14, 2), (1009, "q5_1", 9, 1)],
)  # fmt: skip
def test_ggml_header_gives_weight_type_and_quantisation_version(
    tmp_path: Path, stored: int, weight_type: str, ftype: int, qntvr: int
) -> None:
    header = read_ggml_header(_ggml(tmp_path / "m.bin", stored))
    assert (header.container, header.weight_type, header.ftype) == ("ggml", weight_type, ftype)
    assert header.quantization_version == qntvr
    assert header.hparams["n_audio_layer"] == 4 and header.hparams["n_mels"] == 80
    assert header.multilingual is True


def test_english_only_vocabulary_and_bad_files(tmp_path: Path) -> None:
    assert read_ggml_header(_ggml(tmp_path / "en.bin", 1, vocab=51864)).multilingual is False
    (tmp_path / "junk.bin").write_bytes(b"not a model at all")
    with pytest.raises(ValueError, match="bad magic"):
        read_ggml_header(tmp_path / "junk.bin")
    (tmp_path / "cut.bin").write_bytes(struct.pack("<I", 0x67676D6C) + b"\1\0")
    with pytest.raises(ValueError, match="truncated"):
        read_ggml_header(tmp_path / "cut.bin")


def test_gguf_header_reads_general_file_type(tmp_path: Path) -> None:
    kv = (
        _gguf_string("general.architecture") + struct.pack("<I", 8) + _gguf_string("whisper")
        + _gguf_string("general.file_type") + struct.pack("<I", 4) + struct.pack("<I", 7)
        + _gguf_string("whisper.block_count") + struct.pack("<I", 4) + struct.pack("<I", 4)
    )  # fmt: skip
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 3) + kv)
    header = read_ggml_header(path)
    assert (header.container, header.weight_type, header.ftype) == ("gguf", "q8_0", 7)
    assert header.hparams == {"gguf_version": 3, "whisper.block_count": 4}


def test_compute_type_template_and_mismatch(tmp_path: Path) -> None:
    _ggml(tmp_path / "ggml-tiny-q8_0.bin", 1007)
    _ggml(tmp_path / "ggml-tiny-f16.bin", 1)
    assert "q8_0" in supported_weight_types("whisper-cpp")
    for weight in ("q8_0", "f16"):  # what --weight-types q8_0,f16 expands to
        validate_arm(
            parse_arm_spec(
                f"whisper-cpp:{tmp_path}/ggml-tiny-{{compute_type}}.bin?compute_type={weight}"
            )
        )
    with pytest.raises(EarmarkError, match="model not found at .*ggml-tiny-q4_0.bin"):
        validate_arm(
            parse_arm_spec(
                f"whisper-cpp:{tmp_path}/ggml-tiny-{{compute_type}}.bin?compute_type=q4_0"
            )
        )
    with pytest.raises(EarmarkError, match="has \\{compute_type\\} but no compute_type"):
        validate_arm(parse_arm_spec(f"whisper-cpp:{tmp_path}/ggml-tiny-{{compute_type}}.bin"))
    pytest.importorskip("pywhispercpp", reason="pywhispercpp is not installed")
    engine = build_engine(
        parse_arm_spec(f"whisper-cpp:{tmp_path}/ggml-tiny-q8_0.bin?compute_type=f16")
    )
    with pytest.raises(EarmarkError, match="holds q8_0 weights") as caught:
        engine.load()
    assert caught.value.field == "compute_type"


def test_real_loader_refuses_missing_invalid_and_incomplete_files(tmp_path: Path) -> None:
    pytest.importorskip("pywhispercpp", reason="pywhispercpp is not installed")
    with pytest.raises(EarmarkError, match="model not found at"):
        build_engine(parse_arm_spec(f"whisper-cpp:{tmp_path}/ggml-none.bin"))
    (tmp_path / "junk.bin").write_bytes(b"garbage" * 20)
    with pytest.raises(EarmarkError, match="not a whisper.cpp model: not a GGML model"):
        build_engine(parse_arm_spec(f"whisper-cpp:{tmp_path}/junk.bin")).load()
    # A valid header with no tensors passes the header check; whisper.cpp itself fails to
    # load it, and the error comes from its log instead of a crash on a null context.
    incomplete = _ggml(tmp_path / "ggml-tiny-q8_0.bin", 1007)
    engine = build_engine(parse_arm_spec(f"whisper-cpp:{incomplete}?threads=2"))
    with pytest.raises(EarmarkError, match="whisper.cpp could not load .*whisper_model_load"):
        engine.load()
    assert hashlib.sha256(incomplete.read_bytes()).hexdigest()  # file left untouched


def test_missing_runtime_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _ggml(tmp_path / "ggml-tiny-f16.bin", 1)
    monkeypatch.setitem(sys.modules, "pywhispercpp", None)
    with pytest.raises(MissingExtraError, match=r"earmark\[whisper-cpp\]"):
        build_engine(parse_arm_spec(f"whisper-cpp:{model}"))
