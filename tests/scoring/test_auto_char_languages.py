"""`--normalizer auto` scores languages written without spaces between words in characters.

Japanese, Thai, Lao, Khmer and Burmese go to `crude-char-v1` (headline CER, WER still
reported), Chinese stays on `zh-eval-v1`; every block names its headline unit and why.
Counts are hand-computed in code points.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earmark.cli import main
from earmark.formats.rows import ScoringRow
from earmark.render.run_directory import primary_metric_name
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings
from earmark.text import get_normalizer
from earmark.text.crude_char_v1 import unspaced_view
from earmark.text.crude_v1 import crude_view


def _block(reference: str, hypothesis: str, language: str, policy: str = "auto") -> Any:
    rows = [ScoringRow("u", reference, hypothesis, language)]
    result = score_rows(
        rows,
        ScoringOptions(NormalizerPolicy.parse(policy), bootstrap=BootstrapSettings(resamples=0)),
    )
    return result.to_dict()["by_language"][language]


def _sdi(metric: dict[str, Any]) -> tuple[int, int, int, int]:
    return (
        metric["substitutions"],
        metric["deletions"],
        metric["insertions"],
        metric["ref_units"],
    )


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ja", "crude-char-v1"),
        ("ja-JP", "crude-char-v1"),
        ("jpn", "crude-char-v1"),
        ("th", "crude-char-v1"),
        ("th_TH", "crude-char-v1"),
        ("lo", "crude-char-v1"),
        ("km", "crude-char-v1"),
        ("my", "crude-char-v1"),
        ("zh", "zh-eval-v1"),
        ("cmn", "zh-eval-v1"),
        ("en", "en-v1"),
        ("ko", "crude-v1"),  # Korean spaces its words
        (None, "crude-v1"),
    ],
)
def test_auto_policy(language: str | None, expected: str) -> None:
    assert NormalizerPolicy.parse("auto").for_language(language) == expected


def test_japanese_one_wrong_kana_is_cer_14_not_wer_100() -> None:
    block = _block("今日は晴れです", "今日は晴れでず", "ja")
    assert block["normalizer"]["name"] == "crude-char-v1"
    assert block["normalizer"]["units"] == ["char", "word"]
    assert block["normalizer"]["headline_unit"] == "char"
    assert block["normalizer"]["headline_unit_reason"].startswith("Japanese: written without")
    assert primary_metric_name(block) == "cer"
    primary = block["views"][block["primary_view"]]
    assert _sdi(primary["cer"]) == (1, 0, 0, 7)
    assert primary["cer"]["value"] == pytest.approx(1 / 7)
    # WER is still there, not the headline: the sentence is one space-split "word".
    assert _sdi(block["views"]["spaced"]["wer"]) == (1, 0, 0, 1)
    assert block["views"]["spaced"]["wer"]["value"] == 1.0


def test_japanese_punctuation_leaves_no_space_to_count() -> None:
    block = _block("今日は、晴れ。", "今日は晴れ", "ja")
    assert block["views"]["normalized"]["cer"]["value"] == 0.0
    # crude-v1's text turns the comma into a space, which would count as a character.
    assert _sdi(block["views"]["spaced"]["cer"]) == (0, 1, 0, 6)


def test_thai_headline_cer_without_the_phrase_space() -> None:
    # สวัสดีครับ is 10 code points, ผมชื่อสมชาย 11; ชาย -> ชัย substitutes า with ั.
    block = _block("สวัสดีครับ ผมชื่อสมชาย", "สวัสดีครับ ผมชื่อสมชัย", "th")
    assert block["normalizer"]["headline_unit"] == "char"
    assert block["normalizer"]["headline_unit_reason"].startswith("Thai: ")
    assert _sdi(block["views"]["normalized"]["cer"]) == (1, 0, 0, 21)
    assert _sdi(block["views"]["spaced"]["cer"]) == (1, 0, 0, 22)  # the space counted
    assert _sdi(block["views"]["spaced"]["wer"]) == (1, 0, 0, 2)
    assert block["views"]["spaced"]["wer"]["value"] == 0.5


@pytest.mark.parametrize(
    ("language", "name", "reference", "hypothesis", "n"),
    [
        ("lo", "Lao", "ສະບາຍດີ", "ສະບາຍດ", 7),  # the final vowel sign ີ lost
        ("km", "Khmer", "សួស្តី", "សួស្ត", 6),  # the final vowel sign ី lost
        ("my", "Burmese", "မင်္ဂလာပါ", "မင်္ဂလာ", 9),  # ပ and ါ lost
    ],
)
def test_lao_khmer_burmese_headline_cer(
    language: str, name: str, reference: str, hypothesis: str, n: int
) -> None:
    block = _block(reference, hypothesis, language)
    assert block["normalizer"]["headline_unit"] == "char"
    assert block["normalizer"]["headline_unit_reason"].startswith(f"{name}: ")
    deleted = n - len(hypothesis)
    assert _sdi(block["views"]["normalized"]["cer"]) == (0, deleted, 0, n)


def test_chinese_says_why_it_is_characters() -> None:
    block = _block("今天很好", "今天很好", "zh")
    assert block["normalizer"]["headline_unit"] == "char"
    assert block["normalizer"]["headline_unit_reason"].startswith("Chinese: written without")


def test_space_delimited_languages_keep_the_word() -> None:
    block = _block("the cat sat", "the cat sat", "en")
    assert block["normalizer"]["headline_unit"] == "word"
    assert primary_metric_name(block) == "wer"


def test_a_policy_that_chose_words_for_japanese_says_what_auto_would_do() -> None:
    block = _block("今日は晴れです", "今日は晴れでず", "ja", policy="ja=crude-v1")
    assert block["normalizer"]["headline_unit"] == "word"
    assert "Japanese is written without spaces" in block["normalizer"]["headline_unit_reason"]
    assert "--normalizer auto" in block["normalizer"]["headline_unit_reason"]


def test_crude_char_v1_views() -> None:
    pair = get_normalizer("crude-char-v1").normalize_pair("今日は、ＡＢＣ天気。", "x y")
    assert pair["spaced"].reference == "今日は abc天気"
    assert pair["normalized"].reference == "今日はabc天気"
    assert pair["normalized"].hypothesis == "xy"


@given(st.text())
def test_crude_char_v1_is_crude_v1_without_spaces(text: str) -> None:
    pair = get_normalizer("crude-char-v1").normalize_pair(text, text)
    assert pair["spaced"].reference == crude_view(text)
    assert unspaced_view(text) == pair["normalized"].reference == "".join(crude_view(text).split())


def test_results_md_names_the_headline_unit(tmp_path: Path) -> None:
    rows = [
        {
            "id": "j",
            "reference": "今日は晴れです",
            "hypothesis": "今日は晴れでず",
            "language": "ja",
        },
        {"id": "t", "reference": "สวัสดีครับ", "hypothesis": "สวัสดีครับ", "language": "th"},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "o"
    assert main(["score", str(path), "--normalizer", "auto", "--out", str(out), "--quiet"]) == 0
    md = (out / "results.md").read_text("utf-8")
    assert "- Headline unit, language ja: character (CER; WER reported, not headline)" in md
    assert "- Headline unit, language th: character" in md
    # The S/D/I column follows the headline unit: 1 of 7 characters, not 1 of 1 word.
    ja_primary = [
        line for line in md.splitlines() if "language ja | crude-char-v1 / normalized" in line
    ]
    assert ja_primary and ja_primary[0].endswith("| 1/0/0 of 7 |")
    results = json.loads((out / "results.json").read_text("utf-8"))
    # One normaliser for both languages, so an overall block, whose reason names both.
    overall = results["arms"]["p"]["overall"]["normalizer"]
    assert overall["headline_unit_reason"].startswith("Japanese, Thai: written without")


def test_star_auto_keeps_autos_choice_for_languages_not_named() -> None:
    policy = NormalizerPolicy.parse("zh=zh-itn-v1,*=auto")
    assert policy.for_language("zh") == "zh-itn-v1"
    assert policy.for_language("ja") == "crude-char-v1"
    assert policy.for_language("en") == "en-v1"
    assert policy.for_language("de") == "crude-v1"
    assert NormalizerPolicy.parse("ja=crude-v1,*=auto").for_language("th") == "crude-char-v1"
