"""Punctuation mark rules: apostrophes in words and decimal points in numbers are not marks
by default; `every-mark` (the seed-001 scorer, kept by `mmv-punct-v024`) counts them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.rows import ScoringRow
from earmark.metrics.punctuation import (
    content_characters,
    punctuation_counts,
    split_punctuation,
)
from earmark.scoring.extra_metrics import punctuation_section
from earmark.scoring.protocols import get_protocol, resolve
from earmark.stats.settings import BootstrapSettings


def marks(text: str, rule: str = "word-internal") -> list[tuple[int, str]]:
    return [(m.boundary, m.original) for m in split_punctuation(text, rule).marks]  # type: ignore[arg-type]


def test_apostrophe_in_a_word_is_not_a_mark() -> None:
    # Reference: ' (not a mark) and . -> 1 mark; hypothesis: . -> 1 mark; F1 = 2*1/2.
    counts = punctuation_counts("I don't know.", "I dont know.")
    assert (counts.ref_marks, counts.hyp_marks, counts.position_matches) == (1, 1, 1)
    assert counts.position_f1() == 1.0
    # The old rule: 2 reference marks, 1 hypothesis mark, 1 match: F1 = 2/3.
    old = punctuation_counts("I don't know.", "I dont know.", "every-mark")
    assert (old.ref_marks, old.hyp_marks, old.position_matches) == (2, 1, 1)
    assert old.position_f1() == pytest.approx(2 / 3)


def test_the_issue_case_gave_0_8() -> None:
    # every-mark: reference marks ' , . (3), hypothesis , . (2), both matched:
    # F1 = 2*2/(3+2) = 0.8, the figure issue 15 reports; word-internal: 2, 2, 2 -> 1.0.
    ref, hyp = "Don't go, please.", "Dont go, please."
    assert punctuation_counts(ref, hyp, "every-mark").position_f1() == pytest.approx(0.8)
    assert punctuation_counts(ref, hyp).position_f1() == 1.0


def test_decimal_point_in_a_number_is_not_a_mark() -> None:
    assert marks("It costs 3.5 euro.") == [(13, ".")]
    assert marks("It costs 3.5 euro.", "every-mark") == [(8, "."), (13, ".")]
    # Full-width digits and point, and the Arabic decimal separator.
    assert marks("３．５元。") == [(3, "。")]
    assert marks("3٫5") == []
    assert punctuation_counts("It costs 3.5 euro.", "It costs 35 euro.").position_f1() == 1.0


def test_what_stays_a_mark() -> None:
    # Leading or trailing apostrophes, apostrophes beside spaces or digits, hyphens,
    # thousands separators and a full stop between a digit and a letter stay marks.
    assert marks("'tis") == [(0, "'")]
    assert marks("rock 'n' roll") == [(4, "'"), (5, "'")]
    assert marks("the '90s") == [(3, "'")]
    assert marks("well-known") == [(4, "-")]
    assert marks("1,000") == [(1, ",")]
    assert marks("3.x") == [(1, ".")]
    assert marks("end. 5") == [(3, ".")]


def test_content_is_the_same_under_both_rules() -> None:
    # The skipped characters are not content either: don't and dont align exactly.
    assert split_punctuation("don't 3.5", "word-internal").content == "dont35"
    assert split_punctuation("don't 3.5", "every-mark").content == "dont35"
    assert content_characters("O’Brien's") == "obriens"


def test_unknown_rule_is_refused() -> None:
    with pytest.raises(EarmarkError, match="every-mark"):
        punctuation_counts("a.", "a.", "none")  # type: ignore[arg-type]


def test_mmv_protocol_keeps_the_seed_001_rule() -> None:
    p = get_protocol("mmv-punct-v024")
    assert p.punctuation_marks == "every-mark"
    assert p.settings()["punctuation_marks"] == "every-mark"
    assert resolve("mmv-punct-v024").punctuation_marks == "every-mark"
    assert resolve("mmv-punct-v024", punctuation_marks="every-mark").punctuation_marks == (
        "every-mark"
    )
    with pytest.raises(EarmarkError, match="--punctuation-marks word-internal contradicts"):
        resolve("mmv-punct-v024", punctuation_marks="word-internal")
    # A protocol without punctuation leaves the rule open; no protocol: the default.
    assert "punctuation_marks" not in get_protocol("blasbench-v1").settings()
    assert resolve("blasbench-v1", punctuation_marks="every-mark").punctuation_marks == (
        "every-mark"
    )
    assert resolve(None, normalizer="none").punctuation_marks == "word-internal"


def test_section_records_its_rule() -> None:
    rows = [ScoringRow("a", "I don't know.", "I dont know.", "en")]
    new = punctuation_section(rows, bootstrap=BootstrapSettings(resamples=0))
    old = punctuation_section(
        rows, bootstrap=BootstrapSettings(resamples=0), mark_rule="every-mark"
    )
    assert new["mark_rule"] == "word-internal" and old["mark_rule"] == "every-mark"
    assert new["overall"]["position"]["f1"]["value"] == 1.0
    assert old["overall"]["position"]["f1"]["value"] == pytest.approx(2 / 3)
    assert "decimal points between digits" in new["definition"]


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "p.jsonl"
    row = {"id": "a", "reference": "I don't know.", "hypothesis": "I dont know.", "language": "en"}
    path.write_text(json.dumps(row) + "\n", "utf-8")
    return path


def test_score_path_threads_the_rule(tmp_path: Path) -> None:
    path = _write(tmp_path)
    default = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="none", resamples=0, punctuation=True)
    ).to_dict()
    assert default["arms"]["p"]["punctuation"]["mark_rule"] == "word-internal"
    protocol = score_predictions(
        ScoreInputs(path), ScoreFigures(protocol="mmv-punct-v024")
    ).to_dict()
    section = protocol["arms"]["p"]["punctuation"]
    assert section["mark_rule"] == "every-mark"
    assert section["overall"]["position"]["f1"]["value"] == pytest.approx(2 / 3)


def test_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path)
    out = tmp_path / "out"
    args = ["score", str(path), "--normalizer", "none", "--bootstrap", "50", "--punctuation"]
    assert main([*args, "--punctuation-marks", "every-mark", "--out", str(out), "--quiet"]) == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    assert results["arms"]["p"]["punctuation"]["mark_rule"] == "every-mark"
    refused = ["score", str(path), "--protocol", "mmv-punct-v024", "--punctuation-marks"]
    assert main([*refused, "word-internal", "--out", str(tmp_path / "o2"), "--quiet"]) == 2
    assert "contradicts --protocol mmv-punct-v024" in capsys.readouterr().err
