"""The mixed error rate for code-switched Mandarin (CJK characters + other words).

Hand-computed pairs, the tokeniser's laws, and the promise that adding the unit changed
no figure `zh-eval-v1` already reported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.cli import main
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.rows import ScoringRow
from earmark.metrics.tokens import is_cjk_unit, mixed, words
from earmark.render.markdown import render_results_markdown
from earmark.scoring import counting as counting_module
from earmark.scoring import policy as policy_module
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings
from earmark.text import get_normalizer
from earmark.text.zh_eval_v1 import normalized_view
from earmark.text.zh_mixed import spaced_normalized_view


def _score(pairs: list[tuple[str, str]], language: str = "zh", policy: str = "auto") -> Any:
    rows = [ScoringRow(f"u{i}", ref, hyp, language) for i, (ref, hyp) in enumerate(pairs)]
    return score_rows(
        rows,
        ScoringOptions(NormalizerPolicy.parse(policy), bootstrap=BootstrapSettings(resamples=0)),
    )


def _normalized(result: Any, language: str = "zh") -> dict[str, Any]:
    views: dict[str, Any] = result.to_dict()["by_language"][language]["views"]["normalized"]
    return views


# --- the tokeniser -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("我用iphone拍照", ["我", "用", "iphone", "拍", "照"]),
        ("我用 iphone 拍照", ["我", "用", "iphone", "拍", "照"]),
        ("我喜欢taylor swift", ["我", "喜", "欢", "taylor", "swift"]),
        ("2026年", ["2026", "年"]),
        ("c++和python3", ["c++", "和", "python3"]),
        ("ラーメンを食べた", ["ラ", "ー", "メ", "ン", "を", "食", "べ", "た"]),
        ("ㄅㄆ", ["ㄅ", "ㄆ"]),
        ("二〇二六", ["二", "〇", "二", "六"]),
        ("한국어 단어", ["한국어", "단어"]),  # Hangul: Korean spaces its words
        ("か\u3099き", ["か\u3099", "き"]),  # a combining mark stays on its character
        ("", []),
        (" \t ", []),
    ],
)
def test_mixed_units_by_hand(text: str, units: list[str]) -> None:
    assert mixed(text) == units


def test_cjk_unit_characters() -> None:
    assert all(map(is_cjk_unit, "我かカｶㄅ〇\U00020000"))
    assert not any(map(is_cjk_unit, "a1한,"))


@given(st.text())
def test_mixed_units_cover_every_non_space_character_in_order(text: str) -> None:
    assert "".join(mixed(text)) == "".join(text.split())


@given(st.text(alphabet=st.characters(codec="ascii")))
def test_text_without_cjk_has_word_units(text: str) -> None:
    assert mixed(text) == words(text)


@given(st.text(alphabet="我们今天去北京ひらがなカタカナ"))
def test_text_of_cjk_characters_has_character_units(text: str) -> None:
    assert mixed(text) == list(text)


@given(st.text(alphabet="我们去北京 \u3000\tABCabc123，。！,.%-'\u200b"))
def test_spaced_view_is_the_normalized_view_with_its_word_boundaries(text: str) -> None:
    spaced = spaced_normalized_view(text)
    assert "".join(spaced.split()) == normalized_view(text)
    assert "  " not in spaced and spaced == spaced.strip()


def test_spaced_view_keeps_english_words_apart() -> None:
    assert spaced_normalized_view("我用 MacBook Pro，拍照。") == "我用 macbook pro拍照"
    assert normalized_view("我用 MacBook Pro，拍照。") == "我用macbookpro拍照"


# --- the scorer: hand-computed pairs ---------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "hypothesis", "mixed_sdi", "mixed_n", "cer_sdi", "cer_n"),
    [
        # Case and spacing: identical in both units.
        ("我用iPhone拍照", "我用 iphone 拍照", (0, 0, 0), 5, (0, 0, 0), 10),
        # One wrong Latin letter: one unit of five, one character of ten.
        ("我用iPhone拍照", "我用iPhome拍照", (1, 0, 0), 5, (1, 0, 0), 10),
        # A lost English word: one deletion, against six lost characters.
        ("我用iPhone拍照", "我用拍照", (0, 1, 0), 5, (0, 6, 0), 10),
        # Two English words stay two units (the space is kept for mixed units).
        ("我喜欢Taylor Swift", "我喜欢taylor swiff", (1, 0, 0), 5, (1, 0, 0), 14),
        # Inserted words: 和, vs, code; 和 + 6 letters as characters.
        ("打开GitHub", "打开GitHub和VS Code", (0, 0, 3), 3, (0, 0, 7), 8),
        # Punctuation goes as in zh-eval-v1's normalized view.
        ("你好，世界！", "你好世界", (0, 0, 0), 4, (0, 0, 0), 4),
    ],
)
def test_mixed_error_rate_by_hand(
    reference: str,
    hypothesis: str,
    mixed_sdi: tuple[int, int, int],
    mixed_n: int,
    cer_sdi: tuple[int, int, int],
    cer_n: int,
) -> None:
    view = _normalized(_score([(reference, hypothesis)]))
    for key, sdi, n in (("mixed_er", mixed_sdi, mixed_n), ("cer", cer_sdi, cer_n)):
        metric = view[key]
        assert (metric["substitutions"], metric["deletions"], metric["insertions"]) == sdi
        assert metric["ref_units"] == n
        assert metric["value"] == pytest.approx(sum(sdi) / n)


def test_mixed_error_rate_is_micro_over_the_corpus() -> None:
    result = _score([("我用iPhone拍照", "我用 iphone 拍照"), ("我用iPhone拍照", "我用iPhome拍照")])
    metric = _normalized(result)["mixed_er"]
    assert (metric["ref_units"], metric["substitutions"], metric["value"]) == (10, 1, 0.1)


def test_only_the_primary_view_has_the_mixed_unit_and_the_block_says_where() -> None:
    block = _score([("我用iPhone拍照", "我用iPhome拍照")]).to_dict()["by_language"]["zh"]
    assert block["normalizer"]["mixed_unit"] == {"view": "normalized", "metric": "mixed_er"}
    assert [v for v, m in block["views"].items() if "mixed_er" in m] == ["normalized"]
    assert set(block["views"]["raw"]) == {"cer"}


def test_rows_record_the_mixed_texts_and_counts() -> None:
    (record,) = _score([("我喜欢Taylor Swift。", "我喜欢 taylor swiff")]).records
    view = record["views"]["normalized"]
    assert view["mixed_reference"] == "我喜欢taylor swift"
    assert view["mixed_hypothesis"] == "我喜欢 taylor swiff"
    assert view["mixed_er"]["substitutions"] == 1 and view["mixed_er"]["ref_units"] == 5


def test_space_delimited_languages_have_no_mixed_unit() -> None:
    block = _score([("the cat", "the cap")], language="en").to_dict()["by_language"]["en"]
    assert "mixed_unit" not in block["normalizer"]
    assert all("mixed_er" not in m for m in block["views"].values())


def test_adding_the_unit_changed_no_existing_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    """zh-eval-v1 is frozen: its recorded figures are the same with the unit as without."""
    pairs = [("我用iPhone拍照。", "我用iphone拍照"), ("二零二六年", "2026年"), ("你好", "")]
    rows = [ScoringRow(f"u{i}", r, h, "zh") for i, (r, h) in enumerate(pairs)]
    options = ScoringOptions(
        NormalizerPolicy.parse("auto"), bootstrap=BootstrapSettings(resamples=200)
    )
    with_unit = score_rows(rows, options)
    monkeypatch.setattr(counting_module, "mixed_unit", lambda normalizer: None)
    without = score_rows(rows, options)
    new, old = with_unit.to_dict(), without.to_dict()
    del new["conventions"]["mixed_er"], old["conventions"]["mixed_er"]
    for summary in (new, old):
        for block in (summary["overall"], summary["by_language"]["zh"]):
            block["normalizer"].pop("mixed_unit", None)
            block["views"]["normalized"].pop("mixed_er", None)
    assert new == old
    for a, b in zip(with_unit.records, without.records, strict=True):
        for key in ("mixed_er", "mixed_reference", "mixed_hypothesis"):
            del a["views"]["normalized"][key]
        assert a == b


def test_mixed_unit_is_declared_for_zh_normalisers_only() -> None:
    assert policy_module.mixed_unit(get_normalizer("zh-eval-v1")) is not None
    assert policy_module.mixed_unit(get_normalizer("zh-itn-v1")) is not None
    for name in ("en-v1", "crude-v1", "crude-char-v1", "mmv-cer-v1", "none"):
        assert policy_module.mixed_unit(get_normalizer(name)) is None


# --- results.md and the CLI --------------------------------------------------------


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


ROWS = [
    {"id": "a", "reference": "我用iPhone拍照", "hypothesis": "我用 iphone 拍照", "language": "zh"},
    {"id": "b", "reference": "我用iPhone拍照", "hypothesis": "我用iPhome拍照", "language": "zh"},
]


def test_cli_and_api_agree_and_results_md_shows_the_rate_beside_cer(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", ROWS)
    argv = ["score", str(path), "--normalizer", "auto", "--bootstrap", "50"]
    assert main([*argv, "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    api = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="auto", resamples=50), out_dir=tmp_path / "api"
    ).to_dict()
    cli = json.loads((tmp_path / "cli" / "results.json").read_text("utf-8"))
    (arm,) = cli["arms"].values()
    (api_arm,) = api["arms"].values()
    assert arm["overall"]["views"] == api_arm["overall"]["views"]
    metric = arm["overall"]["views"]["normalized"]["mixed_er"]
    assert (metric["value"], metric["ref_units"]) == (0.1, 10)
    assert arm["conventions"]["mixed_er"].startswith("mixed units")
    md = (tmp_path / "cli" / "results.md").read_text("utf-8")
    assert (
        "Mixed error rate (CJK characters + other words), overall (language zh), zh-eval-v1 / normalized"
        in md
    )
    assert "S/D/I 1/0/0 of 10 units; CER 5.00%" in md
    assert md == render_results_markdown(cli, title=md.splitlines()[0][2:])
