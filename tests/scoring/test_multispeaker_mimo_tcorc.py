"""MIMO-WER and tcORC-WER (issue 23): meeteval's own per-recording functions as the
oracle on hand-made meetings, hand-computed counts on tiny ones, and the inputs a
time-constrained metric cannot score (no collar, no times) refused in one line."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.formats.segments import Segment
from earmark.scoring.multispeaker import MAX_ORC_BYTES, MAX_ORC_STREAMS, score_segments
from earmark.scoring.multispeaker_records import MultiSpeakerCounts

meeteval_wer = pytest.importorskip("meeteval.wer", reason="needs earmark[multi-speaker]")


def _seg(rec: str, spk: str, start: float, end: float, text: str) -> Segment:
    return Segment(rec, spk, start, end, text)


def _seglst(segments: list[Segment]) -> list[dict[str, object]]:
    """The same segments as meeteval's SegLST rows (Decimal times, as its stm reader)."""
    return [
        {
            "session_id": s.recording,
            "speaker": s.speaker,
            "start_time": Decimal(str(s.start)),
            "end_time": Decimal(str(s.end)),
            "words": s.text,
        }
        for s in segments
    ]


def _counts(er: object) -> MultiSpeakerCounts:
    return MultiSpeakerCounts(
        errors=er.errors,  # type: ignore[attr-defined]
        length=er.length,  # type: ignore[attr-defined]
        insertions=er.insertions,  # type: ignore[attr-defined]
        deletions=er.deletions,  # type: ignore[attr-defined]
        substitutions=er.substitutions,  # type: ignore[attr-defined]
    )


#: Alice speaks at 0-1 s and 3-4 s, Bob at 1-2 s; the system puts all of Bob and Alice's
#: second turn on one stream, her first on another (a split speaker, words changed).
MEETING_REF = [
    _seg("m", "alice", 0.0, 1.0, "shall we start"),
    _seg("m", "bob", 1.0, 2.0, "yes the budget first"),
    _seg("m", "alice", 3.0, 4.0, "good then the plan"),
    _seg("n", "carol", 0.0, 1.5, "thanks for coming"),
    _seg("n", "dave", 1.6, 3.0, "happy to be here"),
]
MEETING_HYP = [
    _seg("m", "s0", 0.0, 1.0, "shall we start"),
    _seg("m", "s1", 1.0, 2.0, "yes a budget first"),
    _seg("m", "s1", 3.0, 4.0, "good then plan"),
    _seg("n", "s0", 0.0, 1.5, "thanks coming"),
    _seg("n", "s0", 1.7, 3.1, "happy to be there"),
]


@pytest.mark.parametrize("collar", [0.0, 0.5, 5.0])
def test_both_equal_meetevals_functions_per_recording(collar: float) -> None:
    result = score_segments(
        MEETING_REF, MEETING_HYP, ["mimower", "tcorcwer"], collar=collar, resamples=0
    )
    for metric, oracle in (
        ("mimower", lambda r, h: meeteval_wer.mimo_word_error_rate(r, h)),
        (
            "tcorcwer",
            lambda r, h: meeteval_wer.time_constrained_orc_wer(r, h, collar=Decimal(str(collar))),
        ),
    ):
        for score in result.metrics[metric].recordings:
            ref = _seglst([s for s in MEETING_REF if s.recording == score.recording])
            hyp = _seglst([s for s in MEETING_HYP if s.recording == score.recording])
            expected = oracle(ref, hyp)
            assert score.counts == _counts(expected), (metric, score.recording)
            assignment = json.loads(json.dumps(expected.assignment))
            assert score.details["assignment"] == assignment
    assert result.collar == collar
    assert result.to_json()["collar"] == collar


def test_the_multifile_api_gives_the_same_numbers_from_stm(tmp_path: Path) -> None:
    import meeteval.wer.api as api

    for name, segments in (("ref", MEETING_REF), ("hyp", MEETING_HYP)):
        (tmp_path / f"{name}.stm").write_text(
            "".join(
                f"{s.recording} 1 {s.speaker} {s.start:.2f} {s.end:.2f} {s.text}\n"
                for s in segments
            ),
            "utf-8",
        )
    ref, hyp = str(tmp_path / "ref.stm"), str(tmp_path / "hyp.stm")
    out = tmp_path / "out"
    argv = ["multispeaker", ref, hyp, "--metric", "mimower", "--metric", "tcorcwer"]
    assert main([*argv, "--collar", "1", "--normalizer", "none", "--out", str(out)]) == 0
    written = json.loads((out / "multispeaker.json").read_text("utf-8"))
    assert written["collar"] == 1.0
    for metric, per in (
        ("mimower", api.mimower(ref, hyp)),
        ("tcorcwer", api.tcorcwer(ref, hyp, collar=Decimal(1))),
    ):
        got = {r["recording"]: r for r in written["metrics"][metric]["per_recording"]}
        for recording, er in per.items():
            assert (got[recording]["errors"], got[recording]["length"]) == (er.errors, er.length)
        total = sum(er.errors for er in per.values())
        assert written["metrics"][metric]["total"]["errors"] == total
    assert written["metrics"]["mimower"]["name"] == "MIMO-WER"
    assert written["metrics"]["tcorcwer"]["name"] == "tcORC-WER"
    markdown = (out / "multispeaker.md").read_text("utf-8")
    assert "| MIMO-WER |" in markdown and "## tcORC-WER per recording" in markdown


def test_hand_computed_mimo_forgives_the_order_across_speakers_orc_does_not() -> None:
    # A says "hello world" at 0-1 s, B "good morning" at 1-2 s; one output stream says
    # "good morning" first, "hello world" at 5-6 s. ORC keeps the reference segments in
    # their order on a stream: "hello world good morning" against "good morning hello
    # world" is 2 deletions + 2 insertions. MIMO may take B's utterance before A's: 0.
    ref = [_seg("r", "A", 0.0, 1.0, "hello world"), _seg("r", "B", 1.0, 2.0, "good morning")]
    hyp = [_seg("r", "x", 5.0, 6.0, "hello world"), _seg("r", "x", 1.0, 2.0, "good morning")]
    result = score_segments(ref, hyp, ["orcwer", "mimower", "tcorcwer"], collar=5.0, resamples=0)
    assert result.metrics["orcwer"].total == MultiSpeakerCounts(4, 4, 2, 2, 0)
    assert result.metrics["mimower"].total == MultiSpeakerCounts(0, 4, 0, 0, 0)
    assert result.metrics["mimower"].recordings[0].details["assignment"] == [
        ["B", "x"],
        ["A", "x"],
    ]
    # tcORC is ORC with a time constraint: never below ORC
    assert result.metrics["tcorcwer"].total == MultiSpeakerCounts(4, 4, 2, 2, 0)


def test_hand_computed_tcorc_collar_decides() -> None:
    # "hello world" said at 0-1 s (pseudo-words 0-0.45 and 0.55-1.0 s, by characters),
    # hypothesised at 8-9 s (points 8.27 and 8.77 s). ORC ignores time: 0 errors. With a
    # 2 s collar no hypothesis word reaches its reference word: 2 deletions + 2
    # insertions; with 10 s both do.
    ref = [_seg("r", "A", 0.0, 1.0, "hello world")]
    hyp = [_seg("r", "x", 8.0, 9.0, "hello world")]
    orc = score_segments(ref, hyp, ["orcwer"], resamples=0).metrics["orcwer"].total
    assert orc == MultiSpeakerCounts(0, 2, 0, 0, 0)
    narrow = score_segments(ref, hyp, ["tcorcwer"], collar=2.0, resamples=0)
    wide = score_segments(ref, hyp, ["tcorcwer"], collar=10.0, resamples=0)
    assert narrow.metrics["tcorcwer"].total == MultiSpeakerCounts(4, 2, 2, 2, 0)
    assert narrow.metrics["tcorcwer"].total.rate == 2.0
    assert wide.metrics["tcorcwer"].total == MultiSpeakerCounts(0, 2, 0, 0, 0)


def test_a_recording_without_hypothesis_is_all_deletions_for_both() -> None:
    ref = [*MEETING_REF, _seg("quiet", "eve", 0.0, 1.0, "one two three")]
    result = score_segments(ref, MEETING_HYP, ["mimower", "tcorcwer"], collar=1.0, resamples=0)
    for metric in ("mimower", "tcorcwer"):
        per = {r.recording: r for r in result.metrics[metric].recordings}
        assert per["quiet"].counts == MultiSpeakerCounts(3, 3, 0, 3, 0)
        assert per["quiet"].missing_hypothesis


def test_tcorc_without_collar_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(EarmarkError, match="tcORC-WER needs a collar"):
        score_segments(MEETING_REF, MEETING_HYP, ["tcorcwer"], resamples=0)
    with pytest.raises(EarmarkError, match="tcpWER and tcORC-WER need a collar"):
        score_segments(MEETING_REF, MEETING_HYP, ["tcpwer", "tcorcwer"], resamples=0)
    # MIMO does not look at time: no collar needed
    assert score_segments(MEETING_REF, MEETING_HYP, ["mimower"], resamples=0).collar is None


@pytest.mark.parametrize("side", ["reference", "hypothesis"])
def test_segments_without_times_are_refused_for_the_timed_metrics(side: str) -> None:
    untimed = [_seg(s.recording, s.speaker, 0.0, 0.0, s.text) for s in MEETING_REF]
    ref, hyp = (untimed, MEETING_HYP) if side == "reference" else (MEETING_REF, untimed)
    for metric in ("tcorcwer", "tcpwer"):
        with pytest.raises(EarmarkError) as caught:
            score_segments(ref, hyp, [metric], collar=5.0, resamples=0)
        message = str(caught.value)
        assert f"every {side} segment is at 0-0 s" in message and "\n" not in message
    # the same segments score with a metric that ignores time
    assert score_segments(ref, hyp, ["mimower"], resamples=0).metrics["mimower"].total.length


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_time_that_is_not_finite_is_refused(bad: float) -> None:
    hyp = [*MEETING_HYP[:-1], _seg("n", "s0", bad, 3.0, "happy to be there")]
    with pytest.raises(EarmarkError, match="tcORC-WER needs segment times") as caught:
        score_segments(MEETING_REF, hyp, ["tcorcwer"], collar=5.0, resamples=0)
    assert "hypothesis segment of 'n'" in str(caught.value)


def test_an_untimed_seglst_from_the_cli_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # SegLST written by a tool that had no times: every start_time and end_time 0
    rows = [
        {"session_id": s.recording, "speaker": s.speaker, "start_time": 0, "end_time": 0}
        | {"words": s.text}
        for s in MEETING_REF
    ]
    (tmp_path / "ref.json").write_text(json.dumps(rows), "utf-8")
    (tmp_path / "hyp.json").write_text(json.dumps(rows), "utf-8")
    files = [str(tmp_path / "ref.json"), str(tmp_path / "hyp.json")]
    argv = ["multispeaker", *files, "--metric", "tcorcwer", "--collar", "5"]
    assert main([*argv, "--normalizer", "none", "--out", str(tmp_path / "o")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("earmark: error:") and "0-0 s" in line
    assert not (tmp_path / "o" / "multispeaker.json").exists()


def _speakers(rec: str, prefix: str, speakers: int, per: int) -> list[Segment]:
    return [
        _seg(rec, f"{prefix}{k % speakers}", float(k), k + 1.0, f"w{k} v{k}")
        for k in range(speakers * per)
    ]


def test_mimo_speaker_and_stream_limits_are_one_line() -> None:
    ref = _speakers("big<1>", "S", MAX_ORC_STREAMS + 1, 1)
    with pytest.raises(EarmarkError) as caught:
        score_segments(ref, ref[:2], ["mimower"], resamples=0)
    assert "11 reference speakers is over the limit of 10" in str(caught.value)
    assert "recording 'big<1>'" in str(caught.value)
    hyp = _speakers("big<1>", "H", MAX_ORC_STREAMS + 1, 1)
    for metric in ("mimower", "tcorcwer"):
        with pytest.raises(EarmarkError, match="11 hypothesis streams is over the limit"):
            score_segments(ref[:2], hyp, [metric], collar=5.0, resamples=0)


def test_mimo_search_over_the_bound_is_refused_up_front() -> None:
    # 6 reference speakers of 40 utterances, 6 streams of 80 words: 16 x 40^6 x 80^6 bytes
    ref = _speakers("meet", "S", 6, 40)
    hyp = _speakers("meet", "H", 6, 40)
    with pytest.raises(EarmarkError) as caught:
        score_segments(ref, hyp, ["mimower"], resamples=0)
    message = str(caught.value)
    assert "6 reference speakers of [40, 40, 40, 40, 40, 40] segments" in message
    assert f"{16 * 40**6 * 80**6:.3g} bytes, over the limit of {MAX_ORC_BYTES:.3g}" in message
