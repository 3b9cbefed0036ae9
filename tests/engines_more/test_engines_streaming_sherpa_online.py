"""sherpa-onnx's online recogniser end to end on a tiny random-weight streaming NeMo CTC
model built in the test (earmark.testing.tiny_onnx_online_ctc).

The real path runs: incremental fbank, one onnxruntime call per 8-frame chunk with the
cache states carried between calls, greedy CTC across chunks. The weights are random,
so the text is arbitrary; what is pinned: greedy CTC only appends (so every partial is a
prefix of the next and of the final: character churn 0, stability 1), the final text does
not depend on the chunk size or on streaming at all, partials are stamped with the audio
fed (multiples of the chunk), and a bad model folder is a one-line error, not a crash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.streaming import stream_record, streams
from earmark.errors import EarmarkError
from earmark.metrics.streaming import stream_figures

pytest.importorskip("sherpa_onnx", reason="sherpa-onnx is not installed")
pytest.importorskip("onnx", reason="onnx is needed to build the tiny model (pip install onnx)")

from earmark.testing.tiny_onnx_online_ctc import build_tiny_online_nemo_ctc  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_online_nemo_ctc(tmp_path_factory.mktemp("tiny-online-nemo-ctc"))


@pytest.fixture(scope="module")
def clips() -> list[Clip]:
    rng = np.random.default_rng(5)
    return [
        Clip(name, (0.1 * rng.standard_normal(n)).astype(np.float32), 16000)
        for name, n in (("a", 24000), ("b", 16000))
    ]


def run(spec: str, clips: list[Clip]) -> tuple[ModelInfo, list[Hypothesis], bool]:
    engine = build_engine(parse_arm_spec(spec))
    info = engine.load()
    try:
        return info, engine.transcribe(clips, "en"), streams(engine)
    finally:
        engine.close()


def base(folder: Path) -> str:
    return f"sherpa-onnx:{folder}?model_type=online_nemo_ctc&threads=1"


def test_builder_is_deterministic(folder: Path, tmp_path: Path) -> None:
    again = build_tiny_online_nemo_ctc(tmp_path / "again")
    for name in ("model.onnx", "tokens.txt"):
        assert (again / name).read_bytes() == (folder / name).read_bytes(), name


def test_streaming_records_append_only_partials(folder: Path, clips: list[Clip]) -> None:
    info, hyps, streaming = run(base(folder) + "&streaming=true&chunk_ms=160", clips)
    assert streaming
    assert info.extra["online"] is True
    assert info.extra["streaming"]["chunk_seconds"] == pytest.approx(0.16)
    assert info.file_sha256 == {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
        for name in ("model.onnx", "tokens.txt")
    }
    for clip, hyp in zip(clips, hyps, strict=True):
        assert hyp.error is None, hyp.extra
        assert hyp.text, "the random model says something (blank made rarer than chance)"
        stream = hyp.stream
        assert stream is not None
        assert stream.audio_seconds == pytest.approx(len(clip.audio) / 16000)
        texts = [p.text for p in stream.partials]
        assert len(texts) >= 3
        # Greedy CTC never takes back an emitted token: each partial is a prefix of the
        # next, and of the final.
        for earlier, later in zip(texts, [*texts[1:], hyp.text], strict=True):
            assert later.startswith(earlier)
        fed = [p.audio_seconds for p in stream.partials]
        duration = len(clip.audio) / 16000
        for seconds in fed:
            k = seconds / 0.16
            assert abs(k - round(k)) < 1e-9 or seconds == pytest.approx(duration)
        assert fed == sorted(fed)
        assert stream.last_chunk_wall_seconds is not None
        assert stream.last_chunk_wall_seconds >= stream.partials[-1].wall_seconds
        char = stream_figures(stream, unit="char")
        assert (char.revised_units, char.stability) == (0, 1.0)
        assert char.final_units == len(hyp.text.replace(" ", ""))
        assert char.final_latency_seconds is not None and char.final_latency_seconds >= 0
        assert char.ttft_audio_seconds is not None and char.ttft_audio_seconds <= duration
        record = stream_record(hyp)
        assert record is not None and record["figures"]["char"]["revised_units"] == 0


def test_the_final_does_not_depend_on_chunking_or_streaming(
    folder: Path, clips: list[Clip]
) -> None:
    _, plain, streaming = run(base(folder), clips)
    assert not streaming
    assert all(h.stream is None for h in plain)
    for chunk_ms in (40, 160, 1000):
        _, streamed, _ = run(base(folder) + f"&streaming=true&chunk_ms={chunk_ms}", clips)
        assert [h.text for h in streamed] == [h.text for h in plain], chunk_ms


def test_offline_model_types_refuse_streaming(folder: Path) -> None:
    with pytest.raises(EarmarkError, match="does not stream.*offline"):
        build_engine(parse_arm_spec(f"sherpa-onnx:{folder}?model_type=nemo_ctc&streaming=true"))
    with pytest.raises(EarmarkError, match="only means something with streaming=true"):
        build_engine(parse_arm_spec(base(folder) + "&chunk_ms=80"))


def test_a_missing_folder_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="not found|does not exist|no such"):
        build_engine(parse_arm_spec(base(tmp_path / "nowhere") + "&streaming=true")).load()


def test_a_model_without_the_streaming_metadata_is_refused_not_a_crash(
    folder: Path, tmp_path: Path
) -> None:
    import onnx

    model = onnx.load(str(folder / "model.onnx"))
    kept = [p for p in model.metadata_props if p.key != "window_size"]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    broken = tmp_path / "broken"
    broken.mkdir()
    onnx.save(model, str(broken / "model.onnx"))
    (broken / "tokens.txt").write_bytes((folder / "tokens.txt").read_bytes())
    engine = build_engine(parse_arm_spec(base(broken)))
    with pytest.raises(EarmarkError, match="window_size"):
        engine.load()
