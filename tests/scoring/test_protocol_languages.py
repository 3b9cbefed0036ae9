"""A protocol for one language refuses rows of another (issue 23): `--protocol
blasbench-v1` applied BlasBench's Irish rule to Mandarin and English without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.scoring.protocols import get_protocol

ROWS = [
    {"id": "g1", "language": "ga", "reference": "Tá sé go maith", "hypothesis": "ta se go maith"},
    {"id": "g2", "language": "ga-IE", "reference": "an tAthair", "hypothesis": "an t-athair"},
    {"id": "g3", "language": "gle", "reference": "féar", "hypothesis": "fear"},
    {"id": "e1", "language": "en", "reference": "the cat", "hypothesis": "the cat"},
    {"id": "z1", "language": "zh", "reference": "你好", "hypothesis": "你好"},
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_blasbench_is_for_irish_and_says_so() -> None:
    protocol = get_protocol("blasbench-v1")
    assert protocol.languages == ("ga",)
    protocol.check_languages(["ga", "ga-IE", "GA", "gle", "gle-IE", "ga_IE"])
    with pytest.raises(EarmarkError) as caught:
        protocol.check_languages(["ga", "zh", "en", None, "en"])
    message = caught.value.message
    assert message == (
        "--protocol blasbench-v1 is for language ga only; rows are in '(none)', 'en', 'zh'"
    )
    assert "--normalizer auto" in (caught.value.hint or "")


def test_protocols_for_every_language_accept_any() -> None:
    for name in ("parakeet-weight-types-v1", "mmv-punct-v024"):
        get_protocol(name).check_languages(["en", "zh", None, "xx-\x00"])


def test_hostile_tags_are_cut_short_and_counted() -> None:
    tags = [f"x{k}-{'a' * 1000}" for k in range(50)] + ["\x00", "\ud800"]
    with pytest.raises(EarmarkError) as caught:
        get_protocol("blasbench-v1").check_languages(tags)
    assert "and 47 more" in caught.value.message
    assert len(caught.value.message) < 300


def test_score_refuses_mixed_languages(tmp_path: Path, capsys) -> None:
    source = _write(tmp_path / "rows.jsonl", ROWS)
    out = tmp_path / "out"
    assert main(["score", str(source), "--protocol", "blasbench-v1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "rows are in 'en', 'zh'" in err
    assert not (out / "results.json").exists()


def test_score_of_irish_rows_is_unchanged(tmp_path: Path) -> None:
    source = _write(tmp_path / "rows.jsonl", ROWS[:3])
    out = tmp_path / "out"
    assert (
        main(["score", str(source), "--protocol", "blasbench-v1", "--out", str(out), "--quiet"])
        == 0
    )
    results = json.loads((out / "results.json").read_text("utf-8"))
    (arm,) = results["arms"].values()
    assert sorted(arm["by_language"]) == ["ga", "ga-IE", "gle"]


def test_compare_refuses_mixed_languages(tmp_path: Path, capsys) -> None:
    a = _write(tmp_path / "a.jsonl", ROWS)
    b = _write(tmp_path / "b.jsonl", ROWS)
    out = tmp_path / "cmp"
    args = ["compare", str(a), str(b), "--protocol", "blasbench-v1", "--out", str(out)]
    assert main(args) == 2
    assert "rows are in 'en', 'zh'" in capsys.readouterr().err
