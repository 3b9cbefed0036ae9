"""zh-eval-v1 by hand-computed cases, and its OpenCC edge cases."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from earmark.metrics.tokens import chars
from earmark.text import ViewPair, get_normalizer, normalize_text
from earmark.text import script as zh_script

ZH = get_normalizer("zh-eval-v1")


def test_shape() -> None:
    assert ZH.views == ("raw", "punct", "normalized", "script_normalized")
    assert ZH.primary_view == "normalized"
    assert ZH.units == ("char",)
    assert not ZH.comparison_only


def test_views_of_a_mixed_width_text() -> None:
    assert normalize_text("zh-eval-v1", "ＡＢＣ１２３，你好　世界！") == {
        "raw": "ＡＢＣ１２３，你好　世界！",
        "punct": "abc123,你好世界!",
        "normalized": "abc123你好世界",
        "script_normalized": "abc123你好世界",
    }


def test_width_folding_covers_exactly_ff01_to_ff5e_and_ideographic_space() -> None:
    for code_point in range(0xFF01, 0xFF5F):
        folded = chr(code_point - 0xFEE0)
        expected = folded.lower() if folded.isalpha() else folded
        assert normalize_text("zh-eval-v1", chr(code_point))["punct"] == expected
    # Outside the range: half-width katakana, full-width cent sign, 。 stay as they are.
    for char in ("ｱ", "￠", "。", "、"):
        assert normalize_text("zh-eval-v1", char)["punct"] == char
    assert normalize_text("zh-eval-v1", "a\u3000b")["punct"] == "ab"


def test_no_nfkc_and_no_numeral_conversion() -> None:
    pair = ZH.normalize_pair("2026年①", "二零二六年1")
    for view in ZH.views:
        assert pair[view].reference != pair[view].hypothesis
    assert pair["normalized"] == ViewPair("2026年①", "二零二六年1")


def test_latin_case_folding_only() -> None:
    views = normalize_text("zh-eval-v1", "ÀÉÎ Ǆ ΣΩ ДЖ")
    assert views["punct"] == "àéîǆΣΩДЖ"


def test_enumeration_comma_distinct_from_comma_in_punct_view() -> None:
    pair = ZH.normalize_pair("苹果、香蕉", "苹果，香蕉")
    assert pair["punct"] == ViewPair("苹果、香蕉", "苹果,香蕉")
    assert pair["normalized"] == ViewPair("苹果香蕉", "苹果香蕉")


def test_char_counts_of_each_view() -> None:
    # raw counts the spaces and punctuation, normalized only content characters.
    pair = ZH.normalize_pair("我 用 Python。", "我用python")
    assert len(chars(pair["raw"].reference or "")) == 11  # 我 ␠ 用 ␠ P y t h o n 。
    assert len(chars(pair["punct"].reference or "")) == 9  # 我 用 p y t h o n 。
    assert pair["normalized"] == ViewPair("我用python", "我用python")


def test_symbols_kept_punctuation_removed() -> None:
    views = normalize_text("zh-eval-v1", "C++、C#、50%、￥5、＄5")
    assert views["normalized"] == "c++c50￥5$5"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我们的头发", "hans"),
        ("我們的頭髮", "hant"),
        ("我們在台灣的公司裡面", "hant"),  # Taiwan 台 and 裡 are not Simplified-only
        ("這裡的麵包很好吃", "hant"),  # s2t would write 喫; Taiwan writes 吃
        ("你好", "neutral"),
        ("台北", "neutral"),
        ("漢字和汉字", "mixed"),
        ("hello 123", "none"),
        ("", "none"),
    ],
)
def test_detect_script(text: str, expected: str) -> None:
    assert zh_script.detect_script(text) == expected


@pytest.mark.parametrize(
    ("reference", "config"),
    [
        ("我们的头发", "t2s"),
        ("你好", "t2s"),
        ("OK", "t2s"),
        ("這裡的麵包", "s2tw"),
        ("我們在台灣的公司裡面", "s2tw"),
        ("這裏的麪包", "s2hk"),
        ("漢字和汉字", None),
    ],
)
def test_fold_config(reference: str, config: str | None) -> None:
    assert zh_script.fold_config(reference) == config


def test_script_view_folds_hypothesis_to_traditional_reference() -> None:
    pair = ZH.normalize_pair("這裡的麵包很好吃。", "这里的面包很好吃")
    assert pair["normalized"] == ViewPair("這裡的麵包很好吃", "这里的面包很好吃")
    assert pair["script_normalized"] == ViewPair("這裡的麵包很好吃", "這裡的麵包很好吃")


def test_script_view_folds_hypothesis_to_simplified_reference() -> None:
    pair = ZH.normalize_pair("后来他的头发很长", "後來他的頭髮很長")
    assert pair["script_normalized"] == ViewPair("后来他的头发很长", "后来他的头发很长")


def test_script_view_keeps_lexical_differences() -> None:
    pair = ZH.normalize_pair("軟體", "软件")
    assert pair["script_normalized"] == ViewPair("軟體", "軟件")


def test_neutral_reference_is_left_unchanged_and_hypothesis_folded_to_simplified() -> None:
    pair = ZH.normalize_pair("你好世界", "你好世界們")
    assert pair["script_normalized"] == ViewPair("你好世界", "你好世界们")


def test_mixed_reference_gives_null_with_reason() -> None:
    pair = ZH.normalize_pair("漢字和汉字", "汉字和汉字")
    assert pair["script_normalized"] == ViewPair(None, None, "reference_script_mixed")
    assert not pair["script_normalized"].available
    assert pair["normalized"].available


def test_script_view_is_pair_dependent() -> None:
    # Swapping sides changes the target script: documented, not symmetric.
    forward = ZH.normalize_pair("頭髮", "头发")["script_normalized"]
    backward = ZH.normalize_pair("头发", "頭髮")["script_normalized"]
    assert forward == ViewPair("頭髮", "頭髮")
    assert backward == ViewPair("头发", "头发")


def test_convert_and_version() -> None:
    assert zh_script.convert("头发", "s2t") == "頭髮"
    assert zh_script.convert("軟件", "t2s") == "软件"
    assert zh_script.convert("软件", "s2twp") == "軟體"
    assert zh_script.opencc_available()
    version = zh_script.opencc_version()
    assert version is not None and version[0].isdigit()


def test_convert_refuses_unknown_config() -> None:
    from earmark.errors import EarmarkError

    with pytest.raises(EarmarkError, match="unknown OpenCC configuration 'x2y'"):
        zh_script.convert("头发", "x2y")


_WITHOUT_OPENCC = """
import json, sys
sys.modules["opencc"] = None  # any `import opencc` now raises ImportError
from earmark.text import get_normalizer, script
pair = get_normalizer("zh-eval-v1").normalize_pair("這裡，Ａ", "这里")
try:
    script.convert("头发", "s2t")
    error = None
except Exception as exc:
    error = type(exc).__name__ + ": " + str(exc)
print(json.dumps({
    "views": {k: [v.reference, v.hypothesis, v.null_reason] for k, v in pair.items()},
    "available": script.opencc_available(),
    "version": script.opencc_version(),
    "error": error,
}))
"""


def test_opencc_missing_gives_null_script_view() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_OPENCC], capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout)
    assert result["views"]["script_normalized"] == [None, None, "opencc_unavailable"]
    assert result["views"]["normalized"] == ["這裡a", "这里", None]
    assert result["available"] is False
    assert result["version"] is None
    assert result["error"].startswith("EarmarkError: OpenCC script conversion (s2t)")
