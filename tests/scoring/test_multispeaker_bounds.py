"""`multispeaker` where meeteval refuses, or its search would not end (issue 24, item 9).

Before, each of these was "internal error" and a crash file: 300 speakers, ORC-WER over
400 segments against 6 streams, JSON nested past the parser's depth. Now each is one line
naming the recording (or the file), refused before meeteval starts where earmark can
tell (the documented `MAX_CP_SPEAKERS`, `MAX_ORC_STREAMS`, `MAX_ORC_BYTES`)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.formats.segments import Segment
from earmark.scoring import multispeaker
from earmark.scoring.multispeaker import (
    MAX_CP_SPEAKERS,
    MAX_ORC_BYTES,
    MAX_ORC_STREAMS,
    score_segments,
)

pytest.importorskip("meeteval", reason="needs earmark[multi-speaker] (meeteval)")

VOCAB = "a b c d e f g h".split()


def _segments(recording: str, prefix: str, n: int, speakers: int, seed: int) -> list[Segment]:
    rng = random.Random(seed)
    return [
        Segment(recording, f"{prefix}{k % speakers}", k, k + 1, " ".join(rng.choices(VOCAB, k=3)))
        for k in range(n)
    ]


def _refused(metric: str, ref: list[Segment], hyp: list[Segment]) -> str:
    t0 = time.perf_counter()
    with pytest.raises(EarmarkError) as caught:
        score_segments(ref, hyp, [metric], resamples=0, collar=5.0)
    assert time.perf_counter() - t0 < 10
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("metric", ["cpwer", "tcpwer"])
def test_300_speakers_is_one_line_naming_the_recording(metric: str) -> None:
    ref = _segments("rec<1>", "S", 300, 300, 0)
    hyp = _segments("rec<1>", "H", 300, 300, 1)
    message = _refused(metric, ref, hyp)
    assert message.startswith("field 'speaker': recording 'rec<1>': ")
    assert "300 reference / 300 hypothesis speakers is over the limit of 20" in message


def test_the_speaker_limit_itself_scores() -> None:
    # 20 speakers each side, every segment right: cpWER 0 over 60 words.
    ref = _segments("r", "S", 20, MAX_CP_SPEAKERS, 0)
    hyp = [Segment(s.recording, "H" + s.speaker, s.start, s.end, s.text) for s in ref]
    total = score_segments(ref, hyp, ["cpwer"], resamples=0).metrics["cpwer"].total
    assert (total.errors, total.length) == (0, 60)


def test_meeteval_refusal_is_translated() -> None:
    # DI-cpWER has no earmark-side check: meeteval's own refusal, in one line.
    ref = _segments("big", "S", 300, 300, 0)
    hyp = _segments("big", "H", 300, 300, 1)
    message = _refused("dicpwer", ref, hyp)
    assert message.startswith("field 'recording': meeteval refused recording 'big' for DI-cpWER")
    assert "300 speakers" in message


def test_any_meeteval_memory_error_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> object:
        raise MemoryError("Not enough memory.\nYou are trying ...")

    monkeypatch.setattr(multispeaker, "_meeteval_score", boom)
    ref = _segments("r1", "S", 4, 2, 0)
    message = _refused("cpwer", ref, ref)
    assert message.endswith(
        "meeteval refused recording 'r1' for cpWER: Not enough memory. You are trying ..."
    )


def test_orc_over_400_segments_and_6_streams_is_refused_up_front() -> None:
    ref = _segments("meet", "S", 400, 6, 0)
    hyp = _segments("meet", "H", 400, 6, 1)
    message = _refused("orcwer", ref, hyp)
    assert "400 reference segments and 6 streams" in message
    assert f"over the limit of {MAX_ORC_BYTES:.3g}" in message and "recording 'meet'" in message


def test_orc_streams_limit() -> None:
    ref = _segments("m", "S", 30, 1, 0)
    hyp = _segments("m", "H", 30, MAX_ORC_STREAMS + 1, 1)
    assert "11 hypothesis streams is over the limit of 10" in _refused("orcwer", ref, hyp)


def test_orc_within_the_bound_scores_as_before() -> None:
    # Two streams holding the reference's words: ORC-WER 0.
    ref = _segments("m", "S", 40, 2, 0)
    hyp = [Segment(s.recording, "H" + s.speaker, s.start, s.end, s.text) for s in ref]
    total = score_segments(ref, hyp, ["orcwer"], resamples=0).metrics["orcwer"].total
    assert (total.errors, total.length) == (0, 120)


@pytest.mark.parametrize("side", ["references", "hypotheses"])
def test_deeply_nested_json_is_one_line(
    side: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    ok = tmp_path / "ok.json"
    row = {"session_id": "r", "speaker": "A", "start_time": 0, "end_time": 1, "words": "a b"}
    ok.write_text(json.dumps([row]), "utf-8")
    files = [deep, ok] if side == "references" else [ok, deep]
    args = ["multispeaker", *map(str, files), "--normalizer", "none", "--bootstrap", "0"]
    assert main([*args, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"earmark: error: {deep}: the segment file nests JSON deeper")
    assert not list(tmp_path.glob("earmark-crash-*"))
