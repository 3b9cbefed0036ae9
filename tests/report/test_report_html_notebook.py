"""Results, Comparison and Decision in a notebook: `_repr_markdown_` / `_repr_html_` show
the headline figures with results.md's digits, escaped; `to_pandas()` gives one row per
figure (pandas optional: a one-line error naming it when missing)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from earmark.errors import EarmarkError
from earmark.results import Comparison, Decision, Results

DATA = Path(__file__).parent / "data"
RESULTS = DATA / "example-run" / "results.json"
COMPARE = DATA / "html-golden" / "rich" / "compare.json"
DECISION = (
    Path(__file__).parents[1]
    / "commands_golden/golden/decide/files/decide/decision-DATE.json.golden"
)
XSS = '<script>alert(1)</script><img src=x onerror="x()">|*'
NEEDS_PANDAS = pytest.mark.skipif(
    importlib.util.find_spec("pandas") is None, reason="needs pandas (pip install pandas)"
)


def _hostile_results() -> Results:
    text = RESULTS.read_text("utf-8").replace('"tiny.en-int8"', json.dumps(XSS))
    return Results.from_json(text)


def test_results_show_the_headline_as_results_md_spells_it() -> None:
    results = Results.from_path(RESULTS)
    md = results._repr_markdown_()
    assert "| tiny.en-int8 | en | 12.28% [4.27, 21.82] | 4.96% [1.56, 9.63] | 15 |" in md
    assert "| tiny.en-int8 | zh | n/a (no word units) | 377.08% [291.43, 476.74] | 8 |" in md
    html = results._repr_html_()
    assert "<td>132.26% [107.58, 169.49]</td><td>96.76% [78.90, 126.81]</td><td>8</td>" in html


def test_hostile_arm_name_is_text_in_both_reprs() -> None:
    results = _hostile_results()
    html = results._repr_html_()
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;x()&quot;&gt;" in html
    md = results._repr_markdown_()
    assert "<script" not in md and "&lt;script&gt;" in md and "\\|\\*" in md
    assert md.count("\n| ") == 4  # header + 3 rows: the `|` in the name split no cell


@NEEDS_PANDAS
def test_results_to_pandas_one_row_per_figure() -> None:
    results = Results.from_path(RESULTS)
    frame = results.to_pandas()
    arm = results.arm()
    expected = sum(len(view.metrics) for s in arm.by_language.values() for view in s.views.values())
    assert len(frame) == expected == 13
    en = frame[(frame.scope == "en") & (frame.metric == "wer") & frame.primary].iloc[0]
    m = arm.by_language["en"].view().metrics["wer"]
    assert (en.value, en.ci_low, en.ci_high) == (m.value, m.ci[0], m.ci[1])
    assert (en.substitutions, en.deletions, en.insertions, en.ref_units) == (11, 1, 2, 114)
    # Counts, not rates, travel: the frame's summed edits over reference units is the rate.
    assert en.value == pytest.approx((11 + 1 + 2) / 114)


@NEEDS_PANDAS
def test_comparison_and_decision_to_pandas() -> None:
    comparison = Comparison.from_path(COMPARE)
    frame = comparison.to_pandas()
    assert len(frame) == len(comparison.pairs) > 0
    i, pair = next((i, p) for i, p in enumerate(comparison.pairs) if p.difference is not None)
    assert frame.iloc[i].difference == pair.difference
    assert (frame.iloc[i].ci_low, frame.iloc[i].ci_high) == pair.ci
    # A null figure stays null (NaN in the frame) and keeps its reason beside it.
    assert comparison.pairs[0].difference is None
    assert frame.iloc[0].null_reason == comparison.pairs[0].null_reason is not None
    decision = Decision.from_json(DECISION.read_text("utf-8"))
    evidence = decision.to_pandas()
    assert list(evidence.language) == ["en", "ga", "zh"]
    assert evidence.iloc[0].baseline_rate == pytest.approx(7 / 19)  # 36.84% in the record


def test_comparison_and_decision_reprs() -> None:
    comparison = Comparison.from_path(COMPARE)
    md = comparison._repr_markdown_()
    assert md.count("\n| ") == 1 + len(comparison.pairs)
    assert f"reference arm {comparison.reference_arm}" in md
    decision = Decision.from_json(DECISION.read_text("utf-8"))
    html = decision._repr_html_()
    assert "earmark decision (DATE): stay" in html
    assert "<td>stay</td><td>no promotion rule met: keep the baseline</td>" in html


def test_to_pandas_without_pandas_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` raises ImportError
    with pytest.raises(EarmarkError) as err:
        Results.from_path(RESULTS).to_pandas()
    assert "to_pandas() needs pandas" in str(err.value) and "pip install pandas" in str(err.value)
    assert "\n" not in str(err.value)


@NEEDS_PANDAS
def test_predictions_to_pandas_one_row_per_utterance_whose_counts_sum_to_the_rate() -> None:
    from earmark.results.predictions import predictions_to_pandas, read_predictions

    frame = predictions_to_pandas(read_predictions(RESULTS.parent / "predictions.jsonl"))
    assert len(frame) == 31 and frame.id.is_unique
    en = frame[frame.language == "en"]
    edits = en[[f"normalized.wer.{k}" for k in ("substitutions", "deletions", "insertions")]]
    # Micro WER from the utterance frame is the headline's: 14 edits over 114 words.
    assert (int(edits.to_numpy().sum()), int(en["normalized.wer.ref_units"].sum())) == (14, 114)
    wer = Results.from_path(RESULTS).arm().by_language["en"].view().metrics["wer"].value
    assert edits.to_numpy().sum() / en["normalized.wer.ref_units"].sum() == pytest.approx(wer)


@NEEDS_PANDAS
def test_hostile_text_survives_the_frame_as_data() -> None:
    from earmark.results.predictions import PredictionRow, predictions_to_pandas

    row = PredictionRow.from_line(
        json.dumps({"id": "a\x00\ud800", "reference": XSS, "hypothesis": XSS * 1000})
    )
    frame = predictions_to_pandas([row, row])  # a duplicate id is kept, not merged
    assert list(frame.id) == ["a\x00\ud800"] * 2 and frame.hypothesis[0] == XSS * 1000
