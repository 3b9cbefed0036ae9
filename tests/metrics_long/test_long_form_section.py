"""The long-form results section built from segmented recordings."""

from __future__ import annotations

import pytest

from earmark.scoring.long_form_section import SegmentedRecording, long_form_section
from earmark.scoring.policy import NormalizerPolicy

AUTO = NormalizerPolicy.parse("auto")


def _recordings() -> list[SegmentedRecording | dict[str, object]]:
    return [
        SegmentedRecording(
            "en-1",
            "en",
            [[0, 10, "red green"], [10, 20, "blue white"], [20, 30, "black orange"]],
            [[0, 10, "red green"], [20, 25, "black orange"], [25, 30, "black orange"]],
        ),
        {
            "id": "en-2",
            "language": "en",
            "reference_segments": [[600, 1300, "hello world"]],
            "hypothesis_segments": [[600, 1300, "hello world"]],
        },
        SegmentedRecording(
            "zh-1", "zh", [[0, 5, "你好，世界。"], [5, 10, "今天天气很好"]], [[0, 5, "你好世界"]]
        ),
        SegmentedRecording("en-3", "en", [[0, 5, "red"]], None),
        SegmentedRecording("en-4", "en", None, [[0, 5, "red"]]),
    ]


def test_section_figures() -> None:
    s = long_form_section(_recordings(), AUTO, resamples=200, seed=1, bin_seconds=600)
    assert s is not None
    assert s["n_recordings"] == 5 and s["n_scored"] == 3
    assert s["excluded"] == [
        {"id": "en-3", "reason": "no_hypothesis_segments"},
        {"id": "en-4", "reason": "no_reference_segments"},
    ]
    en = s["by_language"]["en"]
    assert en["normalizer"] == "en-v1" and en["metric"] == "wer"
    assert en["recordings"] == 2 and en["intervals_scored"] == 4
    # en-1: interval 3 gets "black orange black orange" (2 insertions), interval 2 omitted.
    assert en["counts"]["deletions"] == 2 and en["counts"]["insertions"] == 2
    assert en["interval_error_rate"]["value"] == pytest.approx(4 / 8)
    low, high = en["interval_error_rate"]["ci95"]
    assert 0.0 <= low <= 0.5 <= high <= 1.0
    assert en["interval_error_rate"]["n_clusters"] == 2
    assert en["omitted"] == {
        "count": 1,
        "rate": 0.25,
        "listed": [{"id": "en-1", "start": 10.0, "end": 20.0}],
        "truncated": False,
    }
    assert en["repeats"]["count"] == 1 and en["repeats"]["consecutive_duplicates"] == 1
    assert en["repeats"]["listed"][0] == {
        "id": "en-1",
        "kind": "consecutive_duplicate",
        "start": 25.0,
        "end": 30.0,
        "text": "black orange",
    }
    bins = en["by_time"]["bins"]
    assert [b["error_rate"] for b in bins] == [pytest.approx(4 / 6), 0.0]
    zh = s["by_language"]["zh"]
    assert zh["normalizer"] == "zh-eval-v1" and zh["metric"] == "cer"
    assert zh["interval_error_rate"]["value"] == pytest.approx(6 / 10)
    assert zh["omitted"]["count"] == 1


def test_none_when_no_recording_has_both_sides() -> None:
    assert long_form_section([], AUTO) is None
    assert long_form_section(_recordings()[3:], AUTO) is None


def test_no_resamples_skips_interval_and_empty_reference_is_null() -> None:
    rec = SegmentedRecording("x", "en", [[0, 5, "!!"]], [[0, 5, "red"]])
    s = long_form_section([rec], AUTO, resamples=0)
    assert s is not None
    rate = s["by_language"]["en"]["interval_error_rate"]
    assert rate["value"] is None and rate["null_reason"]
    s = long_form_section(_recordings()[:1], AUTO, resamples=0)
    assert s is not None and s["by_language"]["en"]["interval_error_rate"]["ci95"] is None


def test_section_is_deterministic() -> None:
    a = long_form_section(_recordings(), AUTO, resamples=300, seed=7)
    b = long_form_section(_recordings(), AUTO, resamples=300, seed=7)
    assert a == b
