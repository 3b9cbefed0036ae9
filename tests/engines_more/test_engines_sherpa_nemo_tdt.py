"""Parakeet TDT's route: a NeMo transducer through sherpa-onnx, on a tiny model built here.

The real recogniser runs (sherpa-onnx's features, three onnxruntime sessions, its NeMo
TDT and RNN-T greedy searches) on `earmark.testing.tiny_onnx_nemo_tdt`: hand-set weights
that spell "world" one token per encoder frame whatever the audio. What is pinned: the
folder is detected as a NeMo transducer, the text, TDT's per-frame token times (0.08 s
apart) against RNN-T's (all at frame 0), what the arm records, and that every mismatch
sherpa-onnx would answer by ending the process is an error naming the file instead.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip
from earmark.engines.onnx_protobuf import onnx_output_width
from earmark.engines.sherpa_onnx_model import find_layout
from earmark.errors import EarmarkError

pytest.importorskip("sherpa_onnx", reason="sherpa-onnx is not installed")
pytest.importorskip("onnx", reason="onnx is needed to build the tiny model (pip install onnx)")

from earmark.testing.tiny_onnx_ctc import TOKENS  # noqa: E402
from earmark.testing.tiny_onnx_nemo_tdt import (  # noqa: E402
    DURATIONS,
    SUBSAMPLING,
    TEXT,
    TEXT_TOKENS,
    build_tiny_nemo_tdt,
)

FRAME = 0.01 * SUBSAMPLING


@pytest.fixture(scope="module")
def tdt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nemo_tdt(tmp_path_factory.mktemp("tdt"))


@pytest.fixture(scope="module")
def rnnt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nemo_tdt(tmp_path_factory.mktemp("rnnt"), tdt=False)


def _clips() -> list[Clip]:
    rng = np.random.default_rng(4)
    return [
        Clip("noise", (0.1 * rng.standard_normal(16000)).astype(np.float32), 16000),
        Clip("silence", np.zeros(12000, dtype=np.float32), 16000),
    ]


def _decode(folder: Path, settings: str = "") -> tuple[dict, list]:
    engine = build_engine(parse_arm_spec(f"sherpa-onnx:{folder}?threads=1{settings}"))
    info = engine.load()
    try:
        return info.extra, engine.transcribe(_clips(), "en")
    finally:
        engine.close()


def test_auto_detects_a_nemo_transducer_by_its_encoder_metadata(tdt: Path) -> None:
    assert find_layout(tdt, "auto", None).model_type == "nemo_transducer"
    # Named explicitly it is the same; an icefall transducer stays `transducer`.
    assert find_layout(tdt, "nemo_transducer", None).model_type == "nemo_transducer"
    assert find_layout(tdt, "transducer", None).model_type == "transducer"


@pytest.mark.parametrize("method", ["greedy_search", "modified_beam_search"])
def test_tdt_spells_the_text_one_token_per_frame(tdt: Path, method: str) -> None:
    extra, hyps = _decode(tdt, f"&decoding_method={method}")
    assert extra["model_type"] == "nemo_transducer" and extra["nemo_decoding"] == "tdt"
    assert extra["decoding_method"] == method
    assert extra["files"] == {"encoder": "encoder.onnx", "decoder": "decoder.onnx",
                              "joiner": "joiner.onnx"}  # fmt: skip
    for hyp in hyps:
        assert hyp.error is None and hyp.text == TEXT
        # Token k emitted at frame k (duration 1 each): starts 0, 0.08, 0.16, ...
        starts = [round(s.start, 6) for s in hyp.segments]
        assert starts == [round(k * FRAME, 6) for k in range(len(TEXT_TOKENS))]


def test_rnnt_spells_the_same_text_all_at_the_first_frame(rnnt: Path) -> None:
    extra, hyps = _decode(rnnt)
    assert extra["nemo_decoding"] == "rnnt"
    for hyp in hyps:
        assert hyp.text == TEXT
        assert [s.start for s in hyp.segments] == [0.0] * len(TEXT_TOKENS)


def test_the_joiner_width_is_read_from_the_file(tdt: Path, rnnt: Path) -> None:
    assert onnx_output_width(tdt / "joiner.onnx") == len(TOKENS) + len(DURATIONS)
    assert onnx_output_width(rnnt / "joiner.onnx") == len(TOKENS)
    assert onnx_output_width(tdt / "tokens.txt") is None  # not protobuf


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def _set_metadata(encoder: Path, **changes: str | None) -> None:
    import onnx

    model = onnx.load(str(encoder))
    props = {p.key: p.value for p in model.metadata_props}
    for key, value in changes.items():
        if value is None:
            props.pop(key, None)
        else:
            props[key] = value
    del model.metadata_props[:]
    onnx.helper.set_model_props(model, props)
    onnx.save(model, str(encoder))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("no_pred_hidden", "metadata lacks pred_hidden"),
        ("tokens_blank_first", "must end with the blank <blk>"),
        ("tokens_short", "tokens.txt has 28 tokens; the encoder's vocab_size says 29"),
        ("not_tdt", "joiner.onnx returns 34 logits, not the vocabulary's 29"),
    ],
)
def test_what_sherpa_onnx_would_exit_on_is_an_error(
    tdt: Path, tmp_path: Path, change: str, message: str
) -> None:
    folder = _copy(tdt, tmp_path / change)
    tokens = folder / "tokens.txt"
    lines = tokens.read_text("utf-8").splitlines()
    if change == "no_pred_hidden":
        _set_metadata(folder / "encoder.onnx", pred_hidden=None, pred_rnn_layers="1")
    elif change == "tokens_blank_first":
        tokens.write_text("\n".join([lines[-1], *lines[:-1]]) + "\n", "utf-8")
    elif change == "tokens_short":
        tokens.write_text("\n".join(lines[1:]) + "\n", "utf-8")
    else:
        _set_metadata(folder / "encoder.onnx", url="a plain rnnt")
    # Detection needs pred_hidden: without it, name the type so the check still runs.
    settings = "&model_type=nemo_transducer" if change == "no_pred_hidden" else ""
    with pytest.raises(EarmarkError, match="not a sherpa-onnx NeMo transducer") as caught:
        _decode(folder, settings)
    assert message in caught.value.message


def test_a_run_records_the_decoding_in_results(tdt: Path, tmp_path: Path) -> None:
    """End to end through `earmark run`: the arm's model record says TDT."""
    from clip_corpus import write_clip_corpus
    from earmark.cli import main

    manifest = write_clip_corpus(tmp_path / "corpus", _clips(), TEXT, "en")
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"sherpa-onnx:{tdt}?name=tdt",
            "--normalizer", "none", "--bootstrap", "0", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    arm = results["arms"]["tdt"]
    assert arm["overall"]["views"]["raw"]["wer"]["value"] == 0.0
    model = json.loads((out / "provenance.json").read_text("utf-8"))["arms"]["tdt"]["model"]
    assert model["extra"]["nemo_decoding"] == "tdt"


def test_the_builder_is_deterministic(tdt: Path, tmp_path: Path) -> None:
    again = build_tiny_nemo_tdt(tmp_path / "again")
    for name in ("encoder.onnx", "decoder.onnx", "joiner.onnx", "tokens.txt"):
        assert (again / name).read_bytes() == (tdt / name).read_bytes(), name
