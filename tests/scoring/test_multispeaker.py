"""Multi-speaker scoring (`earmark multispeaker`) against meeteval's own functions as the
oracle, plus hand-computed cases: swapped speakers, a tcpWER collar, missing recordings."""

from __future__ import annotations

import json
import random
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError, MissingExtraError
from earmark.formats.segments import Segment, read_segments
from earmark.metrics.alignment import count_errors
from earmark.scoring.multispeaker import MultiSpeakerOptions, score_multispeaker, score_segments
from earmark.scoring.multispeaker_records import ExcludedRecording, MultiSpeakerCounts
from earmark.stats.bootstrap import bootstrap_cis

try:
    import meeteval.wer.api as meeteval_api
except ImportError:  # the optional extra: the tests that need it are skipped
    meeteval_api = None
needs_meeteval = pytest.mark.skipif(
    meeteval_api is None, reason="needs earmark[multi-speaker] (meeteval)"
)

VOCAB = "the a cat dog sat ran on mat fast slow red blue one two three".split()


def _corpus(seed: int, recordings: int = 5) -> tuple[list[Segment], list[Segment]]:
    """Recordings with 2-3 reference speakers; the hypothesis renames speakers, drops,
    adds and changes words, shifts times and sometimes merges two speakers into one."""
    rng = random.Random(seed)
    ref: list[Segment] = []
    hyp: list[Segment] = []
    for r in range(recordings):
        rec = f"rec{r}"
        speakers = [f"S{k}" for k in range(rng.randint(2, 3))]
        names = {s: f"spk_{rng.randint(0, 99)}_{k}" for k, s in enumerate(speakers)}
        t = 0.0
        for _ in range(rng.randint(3, 7)):
            speaker = rng.choice(speakers)
            words = [rng.choice(VOCAB) for _ in range(rng.randint(1, 6))]
            length = 0.4 * len(words)
            ref.append(Segment(rec, speaker, round(t, 2), round(t + length, 2), " ".join(words)))
            out = [w if rng.random() > 0.2 else rng.choice(VOCAB) for w in words]
            if rng.random() < 0.3:
                out.insert(rng.randrange(len(out) + 1), rng.choice(VOCAB))
            if rng.random() < 0.3 and len(out) > 1:
                out.pop(rng.randrange(len(out)))
            shift = rng.uniform(-0.3, 0.3)
            name = names[speaker] if rng.random() > 0.15 else names[speakers[0]]
            start = max(0.0, round(t + shift, 2))
            hyp.append(Segment(rec, name, start, round(start + length, 2), " ".join(out)))
            t += length + rng.uniform(-0.2, 1.0)
    return ref, hyp


def _write_stm(path: Path, segments: list[Segment]) -> None:
    path.write_text(
        "".join(
            f"{s.recording} 1 {s.speaker} {s.start:.2f} {s.end:.2f} {s.text}\n" for s in segments
        ),
        encoding="utf-8",
    )


def _write_json(path: Path, segments: list[Segment]) -> None:
    data: dict[str, list[dict[str, object]]] = {}
    for s in segments:
        data.setdefault(s.recording, []).append(
            {"speaker": s.speaker, "start": s.start, "end": s.end, "text": s.text}
        )
    path.write_text(json.dumps(data), encoding="utf-8")


def _oracle(metric: str, ref: Path, hyp: Path, collar: float | None) -> dict[str, tuple]:
    """meeteval's own high-level API on the same files: per recording counts."""
    if metric == "cpwer":
        out = meeteval_api.cpwer(str(ref), str(hyp))
    elif metric == "orcwer":
        out = meeteval_api.orcwer(str(ref), str(hyp))
    elif metric == "dicpwer":
        out = meeteval_api.greedy_dicpwer(str(ref), str(hyp))
    elif metric == "mimower":
        out = meeteval_api.mimower(str(ref), str(hyp))
    elif metric == "tcorcwer":
        out = meeteval_api.tcorcwer(str(ref), str(hyp), collar=Decimal(str(collar)))
    else:
        # meeteval reads stm times as Decimal, so its collar must be one too
        out = meeteval_api.tcpwer(str(ref), str(hyp), collar=Decimal(str(collar)))
    return {
        rec: (er.errors, er.length, er.insertions, er.deletions, er.substitutions)
        for rec, er in out.items()
    }


def _ours(result, metric: str) -> dict[str, tuple]:
    return {
        r.recording: (
            r.counts.errors,
            r.counts.length,
            r.counts.insertions,
            r.counts.deletions,
            r.counts.substitutions,
        )
        for r in result.metrics[metric].recordings
    }


@needs_meeteval
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("fmt", ["stm", "json"])
def test_counts_match_meeteval_on_the_same_files(tmp_path: Path, seed: int, fmt: str) -> None:
    ref, hyp = _corpus(seed)
    _write_stm(tmp_path / "ref.stm", ref)
    _write_stm(tmp_path / "hyp.stm", hyp)
    if fmt == "json":
        _write_json(tmp_path / "ref.json", ref)
        _write_json(tmp_path / "hyp.json", hyp)
    metrics = ["cpwer", "orcwer", "tcpwer", "dicpwer", "mimower", "tcorcwer"]
    result = score_multispeaker(
        MultiSpeakerOptions(
            tmp_path / f"ref.{fmt}",
            tmp_path / f"hyp.{fmt}",
            tuple(metrics),
            collar=0.5,
            normalizer="none",
            resamples=0,
        )
    )
    for metric in metrics:
        expected = _oracle(metric, tmp_path / "ref.stm", tmp_path / "hyp.stm", 0.5)
        assert _ours(result, metric) == expected, metric
        total = result.metrics[metric].total
        assert total.errors == sum(v[0] for v in expected.values())
        assert total.length == sum(v[1] for v in expected.values())
    # the corpus is not trivial: some errors, and cpWER is never below ORC-WER
    cp, orc = result.metrics["cpwer"].total, result.metrics["orcwer"].total
    assert cp.errors > 0 and orc.errors <= cp.errors
    # MIMO relaxes ORC (a speaker's utterances may split over streams); tcORC constrains it
    mimo, tcorc = result.metrics["mimower"].total, result.metrics["tcorcwer"].total
    assert mimo.errors <= orc.errors <= tcorc.errors


def _seg(rec: str, spk: str, start: float, end: float, text: str) -> Segment:
    return Segment(rec, spk, start, end, text)


REF = [
    _seg("r", "A", 0.0, 1.0, "hello world"),
    _seg("r", "B", 1.0, 2.0, "good morning"),
]


@needs_meeteval
def test_swapped_speakers_cpwer_zero_while_label_matched_wer_is_not() -> None:
    # the system's speaker labels are the other way round: same words, same times
    hyp = [_seg("r", "B", 0.0, 1.0, "hello world"), _seg("r", "A", 1.0, 2.0, "good morning")]
    result = score_segments(REF, hyp, ["cpwer", "orcwer", "dicpwer"], resamples=0)
    for metric in ("cpwer", "orcwer", "dicpwer"):
        assert result.metrics[metric].total == MultiSpeakerCounts(0, 4, 0, 0, 0)
    assert result.metrics["cpwer"].recordings[0].details["assignment"] == [
        ["A", "B"],
        ["B", "A"],
    ]
    # plain WER that trusts the labels: A's words against A's hypothesis, 2 subs each
    label_matched = sum(
        (
            count_errors(
                " ".join(s.text for s in REF if s.speaker == spk).split(),
                " ".join(s.text for s in hyp if s.speaker == spk).split(),
            )
            for spk in ("A", "B")
        ),
        start=count_errors([], []),
    )
    assert label_matched.substitutions == 4
    assert label_matched.substitutions / 4 == 1.0


@needs_meeteval
def test_tcpwer_collar_decides_whether_distant_words_match() -> None:
    # "hello world" said at 0-1 s is hypothesised at 5-6 s, by the right speaker
    hyp = [_seg("r", "x", 5.0, 6.0, "hello world"), _seg("r", "y", 1.0, 2.0, "good morning")]
    cp = score_segments(REF, hyp, ["cpwer"], resamples=0).metrics["cpwer"].total
    assert cp.errors == 0  # cpWER ignores time
    narrow = score_segments(REF, hyp, ["tcpwer"], collar=3.0, resamples=0)
    wide = score_segments(REF, hyp, ["tcpwer"], collar=5.0, resamples=0)
    # 1 s + 3 s collar ends before 5 s: both words deleted and inserted again
    assert narrow.metrics["tcpwer"].total == MultiSpeakerCounts(4, 4, 2, 2, 0)
    # a 5 s collar reaches the hypothesised words: no error
    assert wide.metrics["tcpwer"].total == MultiSpeakerCounts(0, 4, 0, 0, 0)
    assert narrow.collar == 3.0


@needs_meeteval
def test_missing_hypothesis_recording_is_all_deletions_and_listed() -> None:
    ref = [*REF, _seg("silent", "A", 0.0, 1.0, "one two three")]
    hyp = [_seg("r", "x", 0.0, 1.0, "hello world"), _seg("r", "y", 1.0, 2.0, "good morning")]
    result = score_segments(ref, hyp, ["cpwer", "orcwer"], resamples=0)
    assert result.missing_hypotheses == ("silent",)
    for metric in ("cpwer", "orcwer"):
        per = {r.recording: r for r in result.metrics[metric].recordings}
        assert per["silent"].counts == MultiSpeakerCounts(3, 3, 0, 3, 0)
        assert per["silent"].missing_hypothesis
        assert result.metrics[metric].total == MultiSpeakerCounts(3, 7, 0, 3, 0)
    # as meeteval counts an empty hypothesis: the one speaker missed
    assert result.metrics["cpwer"].recordings[1].details["missed_speaker"] == 1
    assert result.to_json()["recordings_without_hypothesis"] == ["silent"]


@needs_meeteval
def test_hypothesis_recording_without_reference_refused_or_listed() -> None:
    hyp = [*REF, _seg("stray", "x", 0.0, 1.0, "noise")]
    with pytest.raises(EarmarkError, match="'stray' has no reference"):
        score_segments(REF, hyp, resamples=0)
    result = score_segments(REF, hyp, resamples=0, allow_extra=True)
    assert result.excluded == (ExcludedRecording("stray", "no_reference"),)
    assert result.metrics["cpwer"].total.errors == 0


@needs_meeteval
def test_bootstrap_resamples_recordings_with_earmarks_generator() -> None:
    ref, hyp = _corpus(7, recordings=6)
    result = score_segments(ref, hyp, ["cpwer", "orcwer"], resamples=300, seed=11)
    per = {m: r.recordings for m, r in result.metrics.items()}
    expected = bootstrap_cis(
        {
            m: ([s.counts.errors for s in rs], [s.counts.length for s in rs])
            for m, rs in per.items()
        },
        resamples=300,
        seed=11,
    )
    for metric in ("cpwer", "orcwer"):
        ci = result.metrics[metric].ci
        assert ci is not None and ci == expected[metric]
        assert ci.n_clusters == 6
        total = result.metrics[metric].total
        assert ci.estimate == pytest.approx(total.errors / total.length)
        assert ci.low is not None and ci.high is not None
        assert ci.low <= ci.estimate <= ci.high


@needs_meeteval
def test_normaliser_applies_to_both_sides() -> None:
    ref = [_seg("r", "A", 0.0, 1.0, "Hello, World!")]
    hyp = [_seg("r", "x", 0.0, 1.0, "hello world")]
    assert score_segments(ref, hyp, resamples=0).metrics["cpwer"].total.errors == 2
    normalised = score_segments(ref, hyp, normalizer="en-v1", resamples=0)
    assert normalised.metrics["cpwer"].total == MultiSpeakerCounts(0, 2, 0, 0, 0)
    with pytest.raises(EarmarkError, match="does not score words"):
        score_segments(ref, hyp, normalizer="zh-eval-v1", resamples=0)


def test_tcpwer_without_collar_and_unknown_metric_refused() -> None:
    with pytest.raises(EarmarkError, match="needs a collar"):
        score_segments(REF, REF, ["tcpwer"], resamples=0)
    with pytest.raises(EarmarkError, match="unknown multi-speaker metric"):
        score_segments(REF, REF, ["tcmimower"], resamples=0)


def test_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "meeteval.wer.wer", None)
    with pytest.raises(MissingExtraError) as info:
        score_segments(REF, REF, resamples=0)
    assert info.value.extra == "multi-speaker"
    assert "pip install 'earmark[multi-speaker]'" in str(info.value)
    assert "\n" not in str(info.value)


def test_cli_without_the_extra_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "meeteval.wer.wer", None)
    _write_json(tmp_path / "ref.json", REF)
    ref = str(tmp_path / "ref.json")
    out = tmp_path / "o"
    assert main(["multispeaker", ref, ref, "--normalizer", "none", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "earmark[multi-speaker]" in err
    assert not out.exists()


def test_segment_json_reader_and_its_errors(tmp_path: Path) -> None:
    good = tmp_path / "s.json"
    good.write_text(
        '{"r1": [{"speaker": "A", "start": 0, "end": 1.5, "text": "a b"}], "r2": []}', "utf-8"
    )
    assert read_segments(good) == [Segment("r1", "A", 0.0, 1.5, "a b")]
    seglst = tmp_path / "seglst.json"
    seglst.write_text(
        '[{"session_id": "r1", "speaker": "A", "start_time": 0, "end_time": 1.5, "words": "a b"}]',
        "utf-8",
    )
    assert read_segments(seglst) == read_segments(good)
    bad = tmp_path / "bad.json"
    bad.write_text('{"r1": [{"speaker": "A", "start": 0, "text": "a"}]}', "utf-8")
    with pytest.raises(EarmarkError) as info:
        read_segments(bad)
    assert info.value.field == '["r1"][0]' and "lacks end" in str(info.value)
    bad.write_text('{"r1": [{"speaker": "A", "start": 2, "end": 1, "text": "a"}]}', "utf-8")
    with pytest.raises(EarmarkError, match="ends"):
        read_segments(bad)
    stm = tmp_path / "x.stm"
    stm.write_text("f 1 A 0 1 IGNORE_TIME_SEGMENT_IN_SCORING\n", "utf-8")
    with pytest.raises(EarmarkError, match="not supported"):
        read_segments(stm)


@needs_meeteval
def test_cli_mirrors_api_and_writes_json_and_markdown(tmp_path: Path) -> None:
    ref, hyp = _corpus(5, recordings=4)
    _write_json(tmp_path / "ref.json", ref)
    _write_stm(tmp_path / "hyp.stm", hyp)
    _write_stm(tmp_path / "ref.stm", ref)
    out = tmp_path / "out"
    code = main(
        [
            "multispeaker",
            str(tmp_path / "ref.stm"),
            str(tmp_path / "hyp.stm"),
            "--metric",
            "cpwer",
            "--metric",
            "tcpwer",
            "--collar",
            "1",
            "--normalizer",
            "none",
            "--bootstrap",
            "200",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    written = json.loads((out / "multispeaker.json").read_text("utf-8"))
    api = score_multispeaker(
        MultiSpeakerOptions(
            tmp_path / "ref.stm",
            tmp_path / "hyp.stm",
            ("cpwer", "tcpwer"),
            collar=1.0,
            normalizer="none",
            resamples=200,
        )
    )
    assert written == json.loads(json.dumps(api.to_json()))
    assert written["schema"] == "earmark.multispeaker/1"
    assert written["bootstrap"]["unit"] == "recording"
    md = (out / "multispeaker.md").read_text("utf-8")
    assert "| cpWER |" in md and "## tcpWER per recording" in md
    rate = written["metrics"]["cpwer"]["total"]["rate"]
    assert f"{100 * rate:.2f}" in md


def test_cli_refuses_tcpwer_without_collar(tmp_path: Path, capsys) -> None:
    _write_json(tmp_path / "ref.json", REF)
    argv = ["multispeaker", str(tmp_path / "ref.json"), str(tmp_path / "ref.json")]
    code = main([*argv, "--metric", "tcpwer", "--normalizer", "none", "--out", str(tmp_path / "o")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("earmark: error:") and "collar" in err and "\n" not in err
    assert not (tmp_path / "o").exists()


@needs_meeteval
def test_docs_examples_print_what_the_docs_say(tmp_path: Path) -> None:
    """Each shell example of docs/multispeaker.md, run as written, prints its text block."""
    import re
    import shutil
    import subprocess

    if shutil.which("earmark") is None:
        pytest.skip("the earmark console script is not installed")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "multispeaker.md").read_text("utf-8")
    pairs = re.findall(
        r"```bash\n((?:(?!```).)*)```\n(?:(?!```).)*```text\n((?:(?!```).)*)```", doc, re.S
    )
    pairs = [(cmd, out) for cmd, out in pairs if "pip install" not in cmd]
    assert len(pairs) == 3
    for command, expected in pairs:
        done = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        assert done.stdout == expected
