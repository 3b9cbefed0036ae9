"""Invisible units never reach a normalised view (issue 11): the set, goldens, a property."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.metrics.alignment import count_errors_array
from earmark.text import get_normalizer, normalize_text
from earmark.text.invisible import invisible_units, is_invisible, join_words

#: The normalisers whose every non-raw view must be free of invisible units.
CLEAN_NORMALISERS = ["crude-v1", "ga-v1", "zh-eval-v1", "blasbench-ga-v1"]

#: Each code point the issue names, one by one.
NAMED = [
    0xFE00,
    0xFE0F,
    0xE0100,
    0xE01EF,
    0x200D,
    0x200C,
    0x200B,
    0x2060,
    0xFEFF,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    0x00AD,
]

_INVISIBLE_HEAVY = (
    "\ufe0f\ufe0e\U000e0100\u200d\u200c\u200b\u2060\ufeff\u200e\u200f\u202a\u202b\u202c"
    "\u202d\u202e\u2066\u2067\u2068\u2069\u00ad\u034f\u180b\u180e\u061c\U000e0041\x07\x7f"
    "\u0301\u0308\u20e3\u093f\u064e"
)
_VISIBLE = "aáeéioóuú tnhAÉ 你好，。'-.,!?#*👍❤☺✌ 1 \t\u3000"
_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(_INVISIBLE_HEAVY + _VISIBLE)), st.characters(codec="utf-8")
    ),
    max_size=40,
)


@pytest.mark.parametrize("code_point", NAMED, ids=lambda cp: f"U+{cp:04X}")
def test_every_named_code_point_is_invisible(code_point: int) -> None:
    assert is_invisible(code_point)


@pytest.mark.parametrize("char", ["a", "á", " ", "\t", "\n", "你", "👍", "'", "\u0301", "\u3000"])
def test_visible_characters_and_whitespace_are_not_in_the_context_free_set(char: str) -> None:
    assert not is_invisible(ord(char))


def test_orphaned_marks_are_found_only_without_a_base() -> None:
    assert invisible_units("e\u0301 \u0301x \u20e3") == ["\u0301", "\u20e3"]
    assert invisible_units("\u0301\u0308a") == ["\u0301", "\u0308"]
    assert invisible_units("नमस्ते") == []  # vowel signs and virama sit on consonants


def test_join_words_drops_mark_only_words_and_leading_marks() -> None:
    assert join_words(["\ufe0f"[:0] + "\u20e3", "ok", "\u0301sea"]) == "ok sea"
    assert join_words(["plain", "ascii"]) == "plain ascii"


def test_emoji_variation_selector_is_no_longer_a_word_under_crude_v1() -> None:
    """The issue's case: `👍️ ok` once normalised to a word made of U+FE0F, then `ok`."""
    view = normalize_text("crude-v1", "👍️ ok")["normalized"]
    assert view == "ok"
    assert view.split() == ["ok"]
    # Against a reference `ok`, the emoji costs nothing (it used to be an insertion).
    pair = get_normalizer("crude-v1").normalize_pair("ok", "👍️ ok")["normalized"]
    assert count_errors_array([(pair.reference, pair.hypothesis)], units="words").tolist() == [
        [0, 0, 0, 1]
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("crude-v1", "a\u200bb \ufeffc\u2060d", "ab cd"),
        ("crude-v1", "co\u00adop \u200eok\u200f", "coop ok"),
        ("crude-v1", "#️⃣ go", "go"),
        ("ga-v1", "Dia\u200b dhuit\u2060", "dia dhuit"),
        ("ga-v1", "Go hiontach 👍️", "go hiontach 👍"),
        ("ga-v1", "'\u0301sea", "sea"),
        ("zh-eval-v1", "你\u200b好", "你好"),
        ("zh-eval-v1", "好❤️", "好❤"),
        ("zh-eval-v1", "，\u0301你好", "你好"),
    ],
)
def test_goldens(name: str, text: str, expected: str) -> None:
    views = normalize_text(name, text)
    assert views[get_normalizer(name).primary_view] == expected
    assert views["raw"] == text  # raw is exact code points, invisible ones included


@settings(max_examples=400, deadline=None)
@given(reference=_TEXT, hypothesis=_TEXT)
def test_no_normalised_view_contains_an_invisible_unit(reference: str, hypothesis: str) -> None:
    for name in CLEAN_NORMALISERS:
        pairs = get_normalizer(name).normalize_pair(reference, hypothesis)
        for view, pair in pairs.items():
            if view == "raw" or not pair.available:
                continue
            for side in (pair.reference, pair.hypothesis):
                assert side is not None
                found = invisible_units(side)
                assert not found, (name, view, side, [f"U+{ord(c):04X}" for c in found])


@settings(max_examples=200, deadline=None)
@given(text=_TEXT)
def test_no_view_word_is_made_only_of_marks(text: str) -> None:
    for name in ["crude-v1", "ga-v1", "blasbench-ga-v1"]:
        for word in (normalize_text(name, text)["normalized"] or "").split():
            assert not all(unicodedata.category(c)[0] == "M" for c in word), (name, word)
