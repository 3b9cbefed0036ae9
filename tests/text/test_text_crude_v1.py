"""crude-v1 by hand-computed cases; combining marks stay inside words."""

from __future__ import annotations

import unicodedata

from earmark.metrics.tokens import words
from earmark.text import get_normalizer, normalize_text

CRUDE = get_normalizer("crude-v1")


def _norm(text: str) -> str | None:
    return normalize_text("crude-v1", text)["normalized"]


def test_is_comparison_only_and_says_so() -> None:
    assert CRUDE.comparison_only is True
    assert "comparing arms on identical audio" in CRUDE.description
    assert "not for publishing absolute WER" in CRUDE.description


def test_hand_computed() -> None:
    assert _norm("Hello, World! ＡＢＣ") == "hello world abc"
    assert _norm("don't $5+3") == "don t 5 3"
    assert _norm("ﬁne x²") == "fine x2"


def test_combining_marks_do_not_split_words() -> None:
    text = "नमस्ते दुनिया! यह परीक्षा है।"
    marks = [c for c in text if unicodedata.category(c).startswith("M")]
    assert marks  # the test text does contain vowel signs and a virama
    assert words(_norm(text) or "") == ["नमस्ते", "दुनिया", "यह", "परीक्षा", "है"]


def test_arabic_harakat_kept() -> None:
    assert _norm("كَتَبَ.") == "كَتَبَ"


def test_format_characters_removed_not_spaced() -> None:
    assert _norm("می\u200cخواهم") == "میخواهم"
    assert _norm("Gael\u00adtacht") == "gaeltacht"
