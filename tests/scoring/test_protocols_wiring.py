"""`earmark score --protocol` end to end: results.json, results.md, the Python API mirror."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from test_protocols import IRISH, _jsonl, published_figures

from earmark.cli import main
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.render.results import results_schema


def _score(tmp_path: Path, *extra: str) -> tuple[dict, str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = _jsonl(tmp_path / "p.jsonl", IRISH)
    out = tmp_path / "out"
    assert main(["score", str(data), "--out", str(out), "--quiet", *extra]) == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    jsonschema.validate(results, results_schema())
    return results, (out / "results.md").read_text("utf-8")


def test_score_with_blasbench_v1_reproduces_and_names_the_protocol(tmp_path: Path) -> None:
    results, markdown = _score(tmp_path, "--protocol", "blasbench-v1")
    (arm,) = results["arms"].values()
    assert arm["protocol"]["name"] == "blasbench-v1"
    assert arm["protocol"]["settings"]["bootstrap"] == {
        "resamples": 1000,
        "seed": 42,
        "level": 0.95,
        "generator": "python-random",
        "quantile_rule": arm["bootstrap"]["quantile_rule"],
    }
    assert (arm["aggregate"], arm["bootstrap"]["resamples"], arm["bootstrap"]["seed"]) == (
        "micro",
        1000,
        42,
    )
    for metric, char in (("wer", False), ("cer", True)):
        rate, low, high = published_figures(IRISH, char)
        figure = arm["overall"]["views"]["normalized"][metric]
        assert (figure["value"], figure["ci95"]) == (rate, [low, high])
    assert "- Protocol: **blasbench-v1**" in markdown
    assert "generator python-random" in markdown
    assert "†" not in markdown


def test_flags_that_agree_with_the_protocol_change_nothing(tmp_path: Path) -> None:
    plain, _ = _score(tmp_path / "a", "--protocol", "blasbench-v1")
    agreed, _ = _score(
        tmp_path / "b",
        *("--protocol", "blasbench-v1", "--normalizer", "blasbench-ga-v1"),
        *("--bootstrap", "1000", "--seed", "42", "--aggregate", "micro"),
    )
    (a,) = plain["arms"].values()
    (b,) = agreed["arms"].values()
    assert a["overall"] == b["overall"]


def test_the_python_api_mirrors_the_cli(tmp_path: Path) -> None:
    results, _ = _score(tmp_path, "--protocol", "blasbench-v1")
    api = score_predictions(
        ScoreInputs(_jsonl(tmp_path / "q.jsonl", IRISH)), ScoreFigures(protocol="blasbench-v1")
    ).to_dict()
    (cli_arm,) = results["arms"].values()
    (api_arm,) = api["arms"].values()
    assert api_arm["overall"] == cli_arm["overall"]
    assert api_arm["protocol"] == cli_arm["protocol"]


def test_results_md_says_ga_v1_is_not_blasbench(tmp_path: Path) -> None:
    results, markdown = _score(tmp_path, "--normalizer", "ga-v1", "--bootstrap", "20")
    assert "ga-v1 † / normalized (primary)" in markdown
    assert "† `ga-v1` is not BlasBench" in markdown
    assert "`--protocol blasbench-v1` reproduces it" in markdown
    assert "- apostrophes: ga-v1 keeps a word-internal apostrophe" in markdown


def test_parakeet_protocol_scores_macro_without_intervals(tmp_path: Path) -> None:
    results, markdown = _score(tmp_path, "--protocol", "parakeet-weight-types-v1")
    (arm,) = results["arms"].values()
    wer = arm["overall"]["views"]["normalized"]["wer"]
    assert (wer["aggregate"], wer["ci95"], arm["overall"]["normalizer"]["name"]) == (
        "macro",
        None,
        "crude-v1",
    )
    assert "mean of per-utterance rates" in markdown


def test_mmv_protocol_adds_the_punctuation_section(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "z.jsonl", [("你好，世界。", "你好世界"), ("再见！", "再见。")], "zh")
    out = tmp_path / "out"
    args = ["score", str(data), "--protocol", "mmv-punct-v024", "--bootstrap", "10000"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    (arm,) = json.loads((out / "results.json").read_text("utf-8"))["arms"].values()
    assert arm["protocol"]["name"] == "mmv-punct-v024"
    assert arm["punctuation"]["overall"]["position"]["f1"]["value"] is not None
    assert arm["overall"]["normalizer"]["name"] == "mmv-cer-v1"
