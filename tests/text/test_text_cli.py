"""`earmark normalizers`: the CLI prints what the library computes."""

from __future__ import annotations

import json

import pytest

from earmark.cli import main
from earmark.text import available_normalizers, get_normalizer, normalize_text


def test_list_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalizers"]) == 0
    out = capsys.readouterr().out
    for name in available_normalizers():
        assert name in out
    assert "normalized*" in out  # the primary view is marked
    assert "comparison only" in out


def test_list_json_mirrors_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalizers", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in rows] == available_normalizers()
    for row in rows:
        normalizer = get_normalizer(row["name"])
        assert tuple(row["views"]) == normalizer.views
        assert tuple(row["units"]) == normalizer.units
        assert row["primary_view"] == normalizer.primary_view
        assert row["comparison_only"] == normalizer.comparison_only


def test_show_json_equals_normalize_text(capsys: pytest.CaptureFixture[str]) -> None:
    text = "ＡＢＣ，你好　世界！"
    assert main(["normalizers", "show", "zh-eval-v1", text, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {view: v["text"] for view, v in shown.items()} == normalize_text("zh-eval-v1", text)


def test_show_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalizers", "show", "ga-v1", "An tAthair!"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["raw          An tAthair!", "normalized*  an t-athair"]


def test_show_pair_with_null_view(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalizers", "show", "zh-eval-v1", "汉字", "--reference", "漢字汉字"]) == 0
    out = capsys.readouterr().out
    assert "script_normalized   null (reference_script_mixed)" in out
    assert "ref: 漢字汉字" in out and "hyp: 汉字" in out


def test_unknown_normaliser_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalizers", "show", "xx-v1", "text"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("earmark: error:") and "zh-eval-v1" in err
    assert len(err.strip().splitlines()) == 1
