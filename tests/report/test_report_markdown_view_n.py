"""results.md: N per view is the rows scored in that view; medians beside corpus rates."""

from __future__ import annotations

import json
from pathlib import Path

from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.render.markdown import render_results_markdown


def _results(tmp_path: Path, rows: list[dict]) -> dict:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="auto", resamples=0)
    ).to_dict()


def _table_row(text: str, start: str) -> list[str]:
    (line,) = [x for x in text.splitlines() if x.startswith(start)]
    return [c.strip() for c in line.strip("|").split("|")]


def test_script_folded_view_counts_only_its_rows(tmp_path: Path) -> None:
    # Row b's reference mixes Simplified 爱 with Traditional 門: the script-folded view
    # cannot score it, so that view's N is 1 while the block holds 2 rows.
    results = _results(
        tmp_path,
        [
            {"id": "a", "reference": "我爱北京", "hypothesis": "我爱北京", "language": "zh"},
            {"id": "b", "reference": "我爱天安門", "hypothesis": "我爱天安门", "language": "zh"},
        ],
    )
    block = results["arms"]["p"]["overall"]
    assert block["n_utterances"] == 2
    assert block["views"]["script_normalized"]["cer"]["n_scored"] == 1
    text = render_results_markdown(results)
    # One language: its figures are shown once, as the overall block naming it.
    assert _table_row(text, "| overall (language zh) | zh-eval-v1 / script_normalized")[2] == "1"
    assert _table_row(text, "| overall (language zh) | zh-eval-v1 / normalized")[2] == "2"
    assert (
        "- overall (language zh) / script_normalized: 1 of 2 row(s) not scored in this view "
        "(reference_script_mixed ×1)"
    ) in text


def test_median_beside_corpus_rate_in_markdown(tmp_path: Path) -> None:
    results = _results(
        tmp_path,
        [
            {"id": "a", "reference": "red green blue", "hypothesis": "red green blue"},
            {"id": "b", "reference": "red green blue", "hypothesis": "red green"},
            {"id": "c", "reference": "north south east west", "hypothesis": "yes"},
        ],
    )
    text = render_results_markdown(results)
    # Corpus: (0 + 1 + 4) / 10 = 50%; per utterance 0, 1/3, 1 -> median 33.33%.
    row = _table_row(text, "| overall | 3 |")
    assert row[2] == "50.00% / 33.33%"
