"""Invisible units: code points a normalised view must never contain.

A reader cannot see them, so a word or character made of them is an error nobody can
find in an alignment (`crude-v1` once scored an emoji's variation selector U+FE0F as a
word of its own). Every normalised view of `crude-v1`, `ga-v1` and `zh-eval-v1` drops
them; `raw` views keep them, because raw is the exact code points by definition.

The set, exactly:

1. **Format characters**, Unicode general category `Cf`: soft hyphen U+00AD, Arabic
   letter mark U+061C, Mongolian vowel separator U+180E, ZWSP U+200B, ZWNJ U+200C,
   ZWJ U+200D, LRM/RLM U+200E/U+200F, bidi embeddings and overrides U+202A-U+202E,
   word joiner and invisible operators U+2060-U+2064, bidi isolates U+2066-U+2069,
   BOM U+FEFF, interlinear annotation U+FFF9-U+FFFB, tag characters U+E0001-U+E007F...
2. **Variation selectors** (category `Mn`, but they select a glyph, they carry no sound):
   U+FE00-U+FE0F, U+E0100-U+E01EF and the Mongolian free variation selectors
   U+180B-U+180D, U+180F.
3. **Combining grapheme joiner** U+034F (`Mn`, invisible by definition).
4. **Control characters** (`Cc`) that are not whitespace (whitespace controls such as
   TAB and LF separate words and are collapsed, not dropped).
5. **Orphaned combining marks**: a combining mark (`M*`) with no base character before
   it in its word, e.g. the U+20E3 keycap left over when `#` is removed from `#️⃣`, or an
   accent that followed a removed quote. A mark that sits on a letter (`é` as `e` + U+0301,
   Devanagari vowel signs, Arabic harakat) is part of that letter and is kept.

`invisible_units(text)` lists what a view still contains; a property test checks it is
empty for every normalised view.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from earmark.text.codepoint_table import category, is_whitespace

#: Inclusive ranges of variation selectors (all `Mn`).
VARIATION_SELECTORS: tuple[tuple[int, int], ...] = (
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
)
COMBINING_GRAPHEME_JOINER = 0x034F


def is_variation_selector(code_point: int) -> bool:
    return any(low <= code_point <= high for low, high in VARIATION_SELECTORS)


def is_invisible(code_point: int) -> bool:
    """Items 1-4 of the set: dropped wherever they stand (item 5 depends on context)."""
    major = category(code_point)
    if major == "Cf":
        return True
    if major == "Cc":
        return not is_whitespace(code_point)
    return code_point == COMBINING_GRAPHEME_JOINER or is_variation_selector(code_point)


def is_mark(char: str) -> bool:
    """Unicode general category M* (Mn, Mc, Me)."""
    return unicodedata.category(char)[0] == "M"


def _strip_leading_marks(word: str) -> str:
    start = 0
    while start < len(word) and is_mark(word[start]):
        start += 1
    return word[start:]


class _MarkTable(dict[str, bool]):
    """`table[char]`: is it a combining mark? Memoised, so a check is one dict lookup."""

    def __missing__(self, char: str) -> bool:
        self[char] = mark = is_mark(char)
        return mark


_IS_MARK = _MarkTable()


def join_words(words: Sequence[str]) -> str:
    """Words joined by single spaces, each without leading (orphaned) combining marks;
    a word made only of marks disappears instead of leaving an invisible word."""
    text = " ".join(words)
    if text.isascii():
        return text
    marks = _IS_MARK
    if not any([marks[word[0]] for word in words]):
        return text
    kept = []
    for word in words:
        if marks[word[0]]:
            word = _strip_leading_marks(word)
            if not word:
                continue
        kept.append(word)
    return " ".join(kept)


def strip_leading_marks(text: str) -> str:
    """`text` without combining marks at its start (for views without spaces, where a
    mark after a removed character attaches to the character before it instead)."""
    return _strip_leading_marks(text) if text and is_mark(text[0]) else text


def invisible_units(text: str) -> list[str]:
    """Every invisible unit in `text` (items 1-5), in order: the check of a view."""
    found: list[str] = []
    has_base = False
    for char in text:
        if is_invisible(ord(char)):
            found.append(char)
        elif char.isspace():
            has_base = False
        elif is_mark(char):
            if not has_base:
                found.append(char)
        else:
            has_base = True
    return found
