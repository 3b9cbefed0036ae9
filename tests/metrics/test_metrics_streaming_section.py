"""The streaming section of results (earmark.scoring.streaming_section): per-language
sums of the rows' stream records, the language's unit, failed rows counted, and null
figures with a reason for an arm that did not stream."""

from __future__ import annotations

from typing import Any

import pytest

from earmark.metrics.streaming import PartialResult, StreamTrace
from earmark.scoring.streaming_section import (
    NOT_STREAMING,
    STREAMING_HEADER,
    streaming_rows,
    streaming_section,
    unit_for,
)


def row(language: str, texts: list[str], final: str, latency: float) -> dict[str, Any]:
    partials = tuple(PartialResult(0.1 * k, 0.01 * k, t) for k, t in enumerate(texts, 1))
    end = 0.01 * len(texts)
    stream = StreamTrace(partials, final, end + latency, end, 0.1 * len(texts), 0.1)
    return {"language": language, "status": "ok", "hypothesis": final, "stream": stream.to_json()}


def test_an_arm_that_did_not_stream_has_null_figures_and_the_reason() -> None:
    rows = [{"language": "en", "status": "ok", "hypothesis": "hi"}]
    section = streaming_section(rows)
    assert section["by_language"] is None
    assert section["reason"] == NOT_STREAMING
    assert "streaming=true" in section["detail"]
    assert streaming_rows(section) == []
    assert streaming_rows(None) == []


def test_languages_are_summed_apart_in_their_own_unit() -> None:
    rows = [
        row("en", ["the", "the cat"], "the hat", 0.2),  # 1 revised of 2 words
        row("en", ["a b"], "a b c d e f", 0.4),  # 0 of 6
        row("zh-CN", ["今天", "金天"], "今天好", 0.3),  # chars: 2 then 2 revised of 3
        {"language": "en", "status": "engine_exception:RuntimeError", "hypothesis": None},
    ]
    section = streaming_section(rows)
    assert section["excluded"] == {"engine_exception:RuntimeError": 1}
    en, zh = section["by_language"]["en"], section["by_language"]["zh-CN"]
    assert (en["unit"], zh["unit"]) == ("word", "char")
    assert (en["clips"], en["revised_units"], en["final_units"]) == (2, 1, 8)
    assert en["churn"] == pytest.approx(1 / 8)  # summed counts, not the mean of 0.5 and 0
    assert en["final_latency_p50_seconds"] == pytest.approx(0.3)
    assert en["final_latency_p95_seconds"] == pytest.approx(0.39)
    # "今天" -> "金天" loses both; "金天" -> "今天好" loses both: 4 of 3 characters.
    assert (zh["revised_units"], zh["final_units"]) == (4, 3)
    assert zh["stability"] == pytest.approx(0.5)
    assert zh["ttft_audio_p50_seconds"] == pytest.approx(0.1)
    table = streaming_rows(section)
    assert [r[0] for r in table] == ["en", "zh-CN"]
    assert all(len(r) == len(STREAMING_HEADER) for r in table)
    assert table[0][1:3] == ["word", "2"]
    assert table[0][5] == "300 ms / 390 ms"
    assert table[0][6:] == ["12.5%", "66.7%"]  # stable: "the", "a b"; not "the cat"


@pytest.mark.parametrize(
    ("language", "unit"),
    [("zh", "char"), ("zh-TW", "char"), ("ja", "char"), ("en-GB", "word"), (None, "word")],
)
def test_unit_for_a_language(language: str | None, unit: str) -> None:
    assert unit_for(language) == unit
