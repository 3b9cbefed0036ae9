"""`earmark.results` reads and writes every file earmark writes, byte for byte.

The checked-in example runs, and files made here by the real `earmark score`, `earmark
compare` and `earmark decide` (several languages, the four zh CER views, the mixed unit,
punctuation, critical tokens, sclite reports, minimums, speakers), must come back from
`from_json(text).to_json()` as the same text, and every predictions.jsonl line from
`PredictionRow` as the same object with its keys in the same order.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from earmark.cli import main
from earmark.formats.rows import ScoringRow
from earmark.results import (
    Comparison,
    Decision,
    PredictionRow,
    Record,
    Results,
    read_predictions,
)
from earmark.rundir.results_file import build_results
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.probes import run_scorer_probes
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = [TESTS / "report/data/example-run", TESTS / "compare/data/example-run"]

#: Eight rows: zh (four CER views and the mixed unit, a slice), en (one row without a
#: hypothesis), ga (hyphenated t- prefix).
ROWS = [
    {
        "id": "zh-1",
        "reference": "我爱北京天安门。",
        "hypothesis": "我爱南京天安门",
        "language": "zh",
        "slices": ["zh", "numbers"],
    },
    {
        "id": "zh-2",
        "reference": "今天是2024年5月3日，下雨。",
        "hypothesis": "今天是二零二四年五月三日下雨",
        "language": "zh",
    },
    {
        "id": "zh-3",
        "reference": "我用iPhone打电话",
        "hypothesis": "我用爱疯打电话",
        "language": "zh",
    },
    {
        "id": "en-1",
        "reference": "Hello there, General Kenobi.",
        "hypothesis": "hello there general kenobi",
        "language": "en",
    },
    {
        "id": "en-2",
        "reference": "It costs $25 on May 3rd.",
        "hypothesis": "it cost twenty five dollars on may third",
        "language": "en",
    },
    {"id": "en-3", "reference": "Call me at 5 pm.", "hypothesis": None, "language": "en"},
    {
        "id": "ga-1",
        "reference": "Tá an t-uisce fuar.",
        "hypothesis": "ta an tuisce fuar",
        "language": "ga",
    },
    {
        "id": "ga-2",
        "reference": "Dia dhuit, a chara.",
        "hypothesis": "dia duit a chara",
        "language": "ga",
    },
]

SCORE_FLAGS = {
    "sections": ["--bootstrap", "50", "--punctuation", "--critical-tokens", "--sclite-reports"],
    "minimums": [
        "--bootstrap",
        "0",
        "--min-per-slice",
        "3",
        "--cluster",
        "speaker",
        "--min-speakers",
        "2",
    ],
    "macro": ["--bootstrap", "20", "--aggregate", "macro"],
}


def assert_round_trip(cls: type[Record], path: Path) -> Record:
    text = path.read_text("utf-8")
    record = cls.from_json(text)
    assert record.to_json() == text
    # And from the parsed dictionary, keys in the same order at every level.
    assert json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n" == text
    return record


def assert_rows_round_trip(path: Path, *, orjson_lines: bool) -> int:
    lines = path.read_text("utf-8").splitlines()
    rows = list(read_predictions(path))
    assert len(rows) == len(lines) > 0
    for line, row in zip(lines, rows):
        data = json.loads(line)
        assert row.to_dict() == data
        assert list(row.to_dict()) == list(data)
        if orjson_lines:  # the current writer: orjson, keys sorted
            assert orjson.dumps(row.to_dict(), option=orjson.OPT_SORT_KEYS).decode() == line
        else:  # the checked-in runs: json.dumps, keys sorted
            assert row.to_json() == line
    return len(rows)


@pytest.mark.parametrize("run", EXAMPLES, ids=lambda p: p.parent.parent.name)
def test_checked_in_results_round_trip(run: Path) -> None:
    results = assert_round_trip(Results, run / "results.json")
    assert isinstance(results, Results)
    assert assert_rows_round_trip(run / "predictions.jsonl", orjson_lines=False) == 31


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compare")
    specs = [f"A={EXAMPLES[0]}", f"B={EXAMPLES[1]}"]
    assert (
        main(
            [
                "compare",
                *specs,
                "--normalizer",
                "auto",
                "--bootstrap",
                "50",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return out / "compare.json"


def test_compare_json_round_trips(compared: Path) -> None:
    comparison = assert_round_trip(Comparison, compared)
    assert isinstance(comparison, Comparison)
    assert comparison.arms_order == ("A", "B")


def test_decision_record_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "decision"
    args = ["decide", "--baseline", str(EXAMPLES[0]), "--challenger", str(EXAMPLES[1])]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    (path,) = out.glob("decision-*.json")
    decision = assert_round_trip(Decision, path)
    assert isinstance(decision, Decision)
    assert decision.verdict == "stay"


@pytest.fixture(scope="module")
def predictions_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("score") / "p.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), "utf-8")
    return path


@pytest.mark.parametrize("flags", list(SCORE_FLAGS), ids=str)
def test_score_outputs_round_trip(flags: str, predictions_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["score", str(predictions_file), "--normalizer", "auto", "--out", str(out), "--quiet"]
    assert main([*args, *SCORE_FLAGS[flags]]) == 0
    results = assert_round_trip(Results, out / "results.json")
    assert isinstance(results, Results)
    arm = results.arm()
    assert arm.languages == ("en", "ga", "zh")
    assert tuple(arm.language("zh").views) == ("raw", "punct", "normalized", "script_normalized")
    assert tuple(arm.language("zh").views["normalized"].metrics) == ("cer", "mixed_er")
    assert results.predictions is not None and results.predictions.rows == len(ROWS)
    assert assert_rows_round_trip(out / "predictions.jsonl", orjson_lines=True) == len(ROWS)


def test_score_sections_are_present(predictions_file: Path, tmp_path: Path) -> None:
    """The optional sections the flags add land in typed fields (so the round trip
    above covers them), not in `extra`."""
    out = tmp_path / "out"
    args = ["score", str(predictions_file), "--normalizer", "auto", "--out", str(out), "--quiet"]
    assert main([*args, *SCORE_FLAGS["sections"]]) == 0
    arm = Results.from_path(out).arm()
    assert arm.punctuation is not None and arm.critical_tokens is not None
    assert arm.sclite is not None and arm.sclite["alignment"] == "earmark"
    assert arm.error_analysis is not None
    assert dict(arm.extra) == {}


def test_minimums_null_the_figures_and_keep_the_counts(
    predictions_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = ["score", str(predictions_file), "--normalizer", "auto", "--out", str(out), "--quiet"]
    assert main([*args, *SCORE_FLAGS["minimums"]]) == 0
    arm = Results.from_path(out).arm()
    assert arm.minimums == {"min_per_slice": 3, "min_speakers": 2}
    assert arm.bootstrap.cluster == "speaker"
    en = arm.language("en")
    assert en.below_minimum is not None and en.below_minimum.startswith("below_minimum")
    wer = arm.view("en", "normalized").metric("wer")
    assert wer.value is None and wer.ci is None and wer.mer is None
    assert wer.null_reason == en.below_minimum
    assert wer.ref_units > 0  # counts stay: they were observed


def test_speaker_blocks_round_trip() -> None:
    """`by_speaker` comes from rows that carry a speaker (stm/trn input): scored here
    through the scorer and `build_results`, as `earmark score` does."""
    rows = [
        ScoringRow(
            "a1", "one two three four", "one two three for", "en", ("x",), extra={"speaker": "a"}
        ),
        ScoringRow("b1", "five six", "five six", "en", ("x",), extra={"speaker": "b"}),
        ScoringRow("c1", "seven eight", "", "en", ("y",), extra={"speaker": "c"}),
    ]
    options = ScoringOptions(
        policy=NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=50, seed=7)
    )
    data = build_results({"tiny": score_rows(rows, options).arm}, run_scorer_probes())
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    results = Results.from_json(text)
    assert results.to_json() == text
    en = results.arm("tiny").language("en")
    assert en.n_speakers == 3 and en.by_speaker is not None
    assert sorted(en.by_speaker) == ["a", "b", "c"]
    assert en.by_speaker["c"].view().wer.value == 1.0


def test_prediction_row_keeps_null_and_absent_apart() -> None:
    line = '{"hypothesis": null, "id": "x", "reference": "a b"}'
    row = PredictionRow.from_line(line)
    assert row.hypothesis is None and row.language is None
    assert row.to_json() == line  # null hypothesis written, absent language not
