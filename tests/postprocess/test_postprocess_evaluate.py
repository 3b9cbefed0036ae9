"""Hand-computed acceptance, punctuation F1, CER and determinism on 3 clips × 3 repeats."""

from __future__ import annotations

from typing import Any

import pytest

from earmark.postprocess.evaluate import run_processor, summarise
from earmark.postprocess.guard import LexicalGuard
from earmark.postprocess.markdown import render_postprocess_markdown
from earmark.postprocess.protocol import ProcessorOutput
from earmark.postprocess.report import OutputRecord, PostprocessReport, SourceInfo, SourceRow
from earmark.stats.settings import BootstrapSettings


def summarise_json(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The summary as postprocess.json writes it."""
    return summarise(*args, **kwargs).to_json()


SOURCES = [
    # A: no marks in the transcript; the formatter restores both marks exactly.
    SourceRow("A", "今天很好，我们走吧。", "今天很好我们走吧", "zh"),
    # B: an ASR error (好→号); the formatter puts 。 where the reference has ，.
    SourceRow("B", "你好，世界。", "你号世界", "zh"),
    # C: the formatter changes 他 to 她 twice (rejected), then gets it right.
    SourceRow("C", "他来了。", "他来了", "zh"),
]
SCRIPT = {
    "今天很好我们走吧": ["今天很好，我们走吧。"] * 3,
    "你号世界": ["你号。世界。"] * 3,
    "他来了": ["她来了。", "她来了。", "他来了。"],
}


class ScriptedFormatter:
    kind = "scripted"
    guarded = True

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def process(self, text: str, language: str | None) -> ProcessorOutput:
        n = self.calls.get(text, 0)
        self.calls[text] = n + 1
        return ProcessorOutput(SCRIPT[text][n], None, 0.01 * (n + 1))

    def close(self) -> None:
        return None


@pytest.fixture(scope="module")
def evaluated() -> tuple[list[OutputRecord], dict[str, Any]]:
    records = run_processor(SOURCES, ScriptedFormatter(), repeats=3, guard=LexicalGuard())
    summary = summarise_json(
        SOURCES,
        records,
        repeats=3,
        guard=LexicalGuard(),
        bootstrap=BootstrapSettings(resamples=2000, seed=7),
    )
    return records, summary


def test_records_fall_back_to_the_source_when_rejected(evaluated) -> None:
    records, _ = evaluated
    assert len(records) == 9
    c = [r for r in records if r.source == 2]
    assert [r.accepted for r in c] == [False, False, True]
    assert [r.reason for r in c] == ["content_changed", "content_changed", None]
    assert [r.delivered for r in c] == ["他来了", "他来了", "他来了。"]
    assert c[0].candidate == "她来了。"
    assert c[0].detail["guard"]["first_difference"] == 0


def test_acceptance_per_output_per_clip_and_per_repeat(evaluated) -> None:
    acc = evaluated[1]["overall"]["acceptance"]
    assert (acc["per_output"]["accepted"], acc["per_output"]["total"]) == (7, 9)
    assert acc["per_output"]["value"] == pytest.approx(7 / 9)
    assert (acc["per_clip"]["passed"], acc["per_clip"]["total"]) == (2, 3)
    assert acc["per_clip"]["value"] == pytest.approx(2 / 3)
    assert [(r["accepted"], r["total"]) for r in acc["per_repeat"]] == [(2, 3), (2, 3), (3, 3)]
    assert acc["outcomes"] == {
        "changed_and_delivered": 7,
        "accepted_unchanged": 0,
        "source_retained": 2,
    }
    assert acc["reasons"] == {"content_changed": 2}


def test_acceptance_interval_keeps_repeats_with_their_clip(evaluated) -> None:
    acc = evaluated[1]["overall"]["acceptance"]
    # Clips are (3/3, 3/3, 1/3). Resampling clips, the lowest possible rate is 3/9 (clip C
    # drawn three times, probability 1/27 > 2.5%), so it is the lower bound. Resampling the 9
    # outputs as if independent would put the bound at 4/9 or 5/9 instead.
    assert acc["per_output"]["ci95"][0] == pytest.approx(3 / 9)
    assert acc["per_output"]["ci95"][1] == pytest.approx(1.0)
    assert acc["per_clip"]["ci95"] == [pytest.approx(0.0), pytest.approx(1.0)]


def test_punctuation_raw_vs_delivered(evaluated) -> None:
    punct = evaluated[1]["overall"]["punctuation"]
    raw, delivered = punct["raw"], punct["delivered"]
    # Raw: 15 reference marks (5 per pass x 3), no hypothesis marks.
    assert (raw["ref_marks"], raw["hyp_marks"], raw["position_matches"]) == (15, 0, 0)
    assert raw["position_f1"]["value"] == 0.0
    assert raw["type_f1"]["value"] == 0.0
    # Delivered: A 3x(2 marks, 2 matched by type), B 3x(2 marks, 2 by position, 1 by type),
    # C twice the source (0 marks) and once "他来了。" (1 matched).
    assert (delivered["ref_marks"], delivered["hyp_marks"]) == (15, 13)
    assert (delivered["position_matches"], delivered["type_matches"]) == (13, 10)
    assert delivered["position_f1"]["value"] == pytest.approx(26 / 28)
    assert delivered["type_f1"]["value"] == pytest.approx(20 / 28)
    diff = punct["difference"]
    assert diff["position_f1"]["value"] == pytest.approx(26 / 28)
    assert diff["type_f1"]["value"] == pytest.approx(20 / 28)
    low, high = diff["position_f1"]["ci95"]
    assert 0 < low <= 26 / 28 <= high <= 1
    assert punct["n_clusters"] == 3 and punct["n_outputs"] == 9


def test_cer_is_equal_by_construction(evaluated) -> None:
    cer = evaluated[1]["overall"]["cer"]
    # One substitution (好→号) in B, counted once per repeat: 3 errors over 3 x (8+4+3) chars.
    assert cer["ref_chars"] == 45
    assert cer["raw"]["errors"] == cer["delivered"]["errors"] == 3
    assert cer["raw"]["value"] == cer["delivered"]["value"] == pytest.approx(3 / 45)
    assert cer["raw"]["ci95"] == cer["delivered"]["ci95"]
    assert cer["difference"]["value"] == 0.0
    assert cer["equal"] and cer["expected_equal"] and cer["invariant"]["holds"]
    assert evaluated[1]["warnings"] == []


def test_determinism_and_timing(evaluated) -> None:
    summary = evaluated[1]
    det = summary["overall"]["determinism"]
    assert (det["identical"], det["total"]) == (2, 3)
    assert det["value"] == pytest.approx(2 / 3)
    assert det["identical_delivered"] == 2
    assert summary["timing"]["calls"] == 9
    assert summary["timing"]["median"] == pytest.approx(0.02)
    assert set(summary["by_language"]) == {"zh"}


def test_one_repeat_has_no_determinism_figure() -> None:
    records = run_processor(SOURCES, ScriptedFormatter(), repeats=1, guard=LexicalGuard())
    summary = summarise_json(
        SOURCES, records, repeats=1, guard=LexicalGuard(), bootstrap=BootstrapSettings(resamples=0)
    )
    det = summary["overall"]["determinism"]
    assert det["value"] is None and "one repeat" in det["null_reason"]
    assert summary["overall"]["acceptance"]["per_output"]["ci95"] is None


def test_missing_transcripts_are_skipped_and_listed() -> None:
    sources = [*SOURCES, SourceRow("D", "好的。", None, "zh", status="engine_exception:X")]
    records = run_processor(sources, ScriptedFormatter(), repeats=3, guard=LexicalGuard())
    summary = summarise_json(
        sources, records, repeats=3, guard=LexicalGuard(), bootstrap=BootstrapSettings(resamples=0)
    )
    assert summary["overall"]["acceptance"]["per_output"]["total"] == 9
    assert summary["overall"]["n_skipped"] == 3
    assert summary["skipped"][0] == {
        "id": "D",
        "repeat": 0,
        "reason": "source_missing:engine_exception:X",
    }
    # The missing transcript still counts: its reference mark is lost on both sides.
    assert summary["overall"]["punctuation"]["raw"]["ref_marks"] == 18


def test_cer_invariant_violation_is_reported_not_raised() -> None:
    # An accepted output whose content differs from the source: impossible under the guard,
    # so the summary must shout about it rather than crash or hide it.
    records = [OutputRecord(0, 0, "今天不好。", "今天不好。", True, None, 0.1)]
    summary = summarise_json(
        SOURCES[:1],
        records,
        repeats=1,
        guard=LexicalGuard(),
        bootstrap=BootstrapSettings(resamples=0),
    )
    cer = summary["overall"]["cer"]
    assert cer["invariant"]["holds"] is False
    assert cer["invariant"]["violations"] == [{"id": "A", "repeat": 0, "accepted": True}]
    assert summary["warnings"] and "CER INVARIANT VIOLATED" in summary["warnings"][0]
    document = PostprocessReport(
        earmark_version="0",
        created="0",
        source=SourceInfo("p", "p.jsonl", "0" * 64, None, 1),
        processor_spec="scripted",
        processor={"kind": "scripted"},
        plan=None,
        served_model=None,
        guard=None,
        summary=summarise(
            SOURCES[:1],
            records,
            repeats=1,
            guard=LexicalGuard(),
            bootstrap=BootstrapSettings(resamples=0),
        ),
        punctuation_probes=(),
        sources=tuple(SOURCES[:1]),
        outputs=tuple(records),
    )
    assert "WARNING: CER INVARIANT VIOLATED" in render_postprocess_markdown(document)


def test_unguarded_processor_delivers_changed_text() -> None:
    records = [OutputRecord(0, 0, "他來了", "他來了", True, None, 0.0)]
    sources = [SourceRow("T", "他來了。", "他来了", "zh")]
    summary = summarise_json(
        sources, records, repeats=1, guard=None, bootstrap=BootstrapSettings(resamples=0)
    )
    cer = summary["overall"]["cer"]
    assert summary["guarded"] is False and cer["expected_equal"] is False
    assert "invariant" not in cer
    assert (cer["raw"]["errors"], cer["delivered"]["errors"]) == (1, 0)
    assert cer["difference"]["value"] == pytest.approx(-1 / 3)
    assert summary["overall"]["delivered_changed"] == 1
