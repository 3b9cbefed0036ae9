"""Streaming over the stdio protocol, end to end with the reference program
(earmark.testing.stdio_echo_asr): partial lines are recorded with their audio and wall
times, the figures are the hand-computed ones, a program that does not declare streaming
is refused, a broken partial line is a protocol error, and the row's record is bounded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import earmark.testing.stdio_echo_asr as echo_module
from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Hypothesis
from earmark.engines.streaming import StreamingEngine, stream_record, streams
from earmark.errors import EarmarkError
from earmark.metrics.streaming import stream_figures
from earmark.scoring.streaming_section import streaming_rows, streaming_section

PROGRAM = f"{sys.executable} {Path(echo_module.__file__)}"


@pytest.fixture()
def clip() -> Clip:
    """Half a second of a tone: at 160 ms chunks, four chunks (the last one 20 ms)."""
    t = np.arange(8000, dtype=np.float32) / 16000
    return Clip("u0", (0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16000)


def decode(spec: str, clips: list[Clip]) -> list[Hypothesis]:
    engine = build_engine(parse_arm_spec(spec))
    engine.load()
    try:
        assert isinstance(engine, StreamingEngine)
        return engine.transcribe(clips, "en")
    finally:
        engine.close()


def test_partials_are_recorded_with_the_hand_computed_figures(clip: Clip) -> None:
    [hyp] = decode(f"stdio:{PROGRAM}?streaming=true&chunk_ms=160", [clip])
    assert hyp.error is None and hyp.stream is not None
    words = hyp.text.split()
    assert len(words) == 3
    # After chunk k of 4 the program shows the first 3k//4 words: 0, 1, 2, 3.
    texts = [p.text for p in hyp.stream.partials]
    assert texts == ["", words[0], " ".join(words[:2]), hyp.text]
    assert [p.audio_seconds for p in hyp.stream.partials] == pytest.approx([0.16, 0.32, 0.48, 0.5])
    walls = [p.wall_seconds for p in hyp.stream.partials]
    assert walls == sorted(walls)
    assert hyp.stream.last_chunk_wall_seconds == pytest.approx(walls[-1])
    assert hyp.stream.final_wall_seconds >= walls[-1]
    f = stream_figures(hyp.stream)
    assert f.ttft_audio_seconds == pytest.approx(0.32)
    assert f.ttft_wall_seconds == pytest.approx(walls[1])
    assert (f.revised_units, f.final_units, f.churn, f.stability) == (0, 3, 0.0, 1.0)
    assert 0 <= f.final_latency_seconds < 5  # type: ignore[operator]


def test_revised_partials_give_churn(clip: Clip) -> None:
    spec = f"stdio:{PROGRAM} --revise-partials?streaming=true&chunk_ms=160"
    [hyp] = decode(spec, [clip])
    assert hyp.stream is not None
    w = hyp.text.split()
    assert [p.text for p in hyp.stream.partials] == ["", "omega", f"{w[0]} omega", hyp.text]
    # "omega" -> "w0 omega" revises 1; "w0 omega" -> final revises 1; final has 3 words.
    f = stream_figures(hyp.stream)
    assert (f.revised_units, f.final_units) == (2, 3)
    # Of the non-empty updates only the last (the whole text) is kept whole by the final.
    assert (f.prefix_updates, f.nonempty_updates) == (1, 3)
    assert stream_figures(hyp.stream, churn="against_final").revised_units == 2
    record = stream_record(hyp)
    assert record is not None
    assert record["figures"]["word"]["revised_units"] == 2
    section = streaming_section([{"language": "en", "status": "ok", "stream": record}])
    block = section["by_language"]["en"]
    assert block["churn"] == pytest.approx(2 / 3) and block["unit"] == "word"
    assert streaming_rows(section)[0][-2:] == ["66.7%", "33.3%"]


def test_the_text_is_the_same_with_and_without_streaming(clip: Clip) -> None:
    [streamed] = decode(f"stdio:{PROGRAM}?streaming=true&chunk_ms=100", [clip])
    [plain] = decode(f"stdio:{PROGRAM}", [clip])
    assert streamed.text == plain.text
    assert plain.stream is None and stream_record(plain) is None
    assert streamed.stream is not None and len(streamed.stream.partials) >= 2


def test_the_request_says_how_to_stream(clip: Clip) -> None:
    spec = f"stdio:{PROGRAM} --echo-request?streaming=true&chunk_ms=80&realtime=true"
    [hyp] = decode(spec, [clip])
    request = json.loads(hyp.text)
    assert request["stream"] == {"chunk_seconds": 0.08, "realtime": True}
    # Paced at the audio's rate: the last chunk of 0.5 s is sent no sooner than 0.5 s in
    # (the clock starts just before the request is sent).
    assert hyp.stream is not None
    assert hyp.stream.last_chunk_wall_seconds is not None
    assert hyp.stream.last_chunk_wall_seconds >= 0.45


def test_the_row_record_is_bounded(clip: Clip) -> None:
    long = Clip("long", np.tile(clip.audio, 8), 16000)  # 4 s: 100 chunks of 40 ms
    spec = f"stdio:{PROGRAM}?streaming=true&chunk_ms=40&max_partials=2"
    [hyp] = decode(spec, [long])
    record = stream_record(hyp)
    assert record is not None
    # Four updates ("", 1, 2, 3 words): the first and the last are kept.
    assert record["updates_total"] == 4
    assert [p[2] for p in record["partials"]] == ["", hyp.text]
    assert record["updates_omitted"] == {"after": 1, "count": 2}
    assert record["figures"]["word"]["nonempty_updates"] == 3


def test_a_program_that_does_not_declare_streaming_is_refused() -> None:
    engine = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --no-streaming?streaming=true"))
    with pytest.raises(EarmarkError, match="does not stream") as info:
        engine.load()
    assert info.value.field == "streaming"
    engine.close()
    # Without streaming=true the same program is fine.
    plain = build_engine(parse_arm_spec(f"stdio:{PROGRAM} --no-streaming"))
    plain.load()
    assert not streams(plain)
    plain.close()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("chunk_ms=100", "only means something with streaming=true"),
        ("streaming=true&chunk_ms=0", "below the minimum"),
        ("streaming=true&max_partials=1", "below the minimum"),
        ("streaming=maybe", "not a boolean"),
    ],
)
def test_bad_streaming_settings_are_refused(spec: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=message):
        build_engine(parse_arm_spec(f"stdio:{PROGRAM}?{spec}"))


BAD_PARTIAL = """
import json, sys
print(json.dumps({"type": "hello", "protocol": 1, "name": "bad",
                  "capabilities": {"streaming": True}}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if request.get("type") == "shutdown":
        break
    if request["id"] == "bad":
        print(json.dumps({"id": "bad", "partial": "x"}), flush=True)
    else:
        print(json.dumps({"id": request["id"], "partial": "x", "audio_seconds": 0.1,
                          "input_finished": True}), flush=True)
    print(json.dumps({"id": request["id"], "text": "x y"}), flush=True)
"""


def test_a_partial_without_audio_seconds_is_a_protocol_error(tmp_path: Path, clip: Clip) -> None:
    script = tmp_path / "bad_partial.py"
    script.write_text(BAD_PARTIAL, encoding="utf-8")
    bad = Clip("bad", clip.audio, 16000)
    hyps = decode(f"stdio:{sys.executable} {script}?streaming=true", [bad, clip])
    assert hyps[0].error == "stdio_protocol_error"
    assert "audio_seconds" in hyps[0].extra["detail"]
    assert hyps[0].stream is None
    # The program was replaced and the next clip streams.
    assert hyps[1].error is None and hyps[1].text == "x y"
    assert hyps[1].stream is not None
    assert [p.text for p in hyps[1].stream.partials] == ["x"]


def test_partials_to_an_arm_that_does_not_stream_are_skipped(tmp_path: Path, clip: Clip) -> None:
    script = tmp_path / "chatty.py"
    script.write_text(BAD_PARTIAL, encoding="utf-8")
    [hyp] = decode(f"stdio:{sys.executable} {script}", [clip])
    assert (hyp.error, hyp.text, hyp.stream) == (None, "x y", None)
