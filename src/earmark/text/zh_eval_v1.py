"""`zh-eval-v1`: the Mandarin character-error normalisation of the evaluation protocol.

Four views, each scored in code points (no word segmentation):

- `raw`: the text exactly as given; punctuation, spaces and script all count.
- `punct`: NFC; width folding of the full-width ASCII forms U+FF01-U+FF5E to U+0021-U+007E
  and of the ideographic space U+3000 to a space (an explicit table, *not* NFKC, which
  would also rewrite ①, ㎏, ﬁ...); Latin case folding (upper-case Latin letters to their
  single-code-point lower case; Greek, Cyrillic... untouched); every whitespace character
  (`str.isspace`) and every invisible unit (`earmark.text.invisible`: format characters
  such as ZWSP, ZWJ, BOM and bidi marks, variation selectors, the combining grapheme
  joiner, non-whitespace controls) removed; punctuation kept. A final NFC re-composes any
  combining mark the removals brought next to a new base letter, and combining marks
  left at the very start (with no base at all) are dropped.
  `ＡＢＣ１２３，你好　世界` -> `abc123,你好世界`; `你\u200b好` -> `你好`.
- `normalized`: `punct` with punctuation removed (and marks the removal left at the very
  start dropped). Punctuation is exactly Unicode general
  category P* (Pc Pd Ps Pe Pi Pf Po): `，。、！？；：「」《》…—·` and the ASCII
  `!"#%&'()*,-./:;?@[\\]_{}`.
  Symbols (S*: `$ + < = > ^ | ~ ¥ ℃`, backtick...) are kept: they carry content (currency,
  units, maths, code tokens). So `C++` stays `c++` but `C#` becomes `c`, and `50%`
  becomes `50` because `%` is P* in Unicode.
- `script_normalized`: both sides' `punct` view converted by OpenCC to the *reference's*
  script, then punctuation removed as in `normalized` (converting before removing lets
  sentence punctuation bound OpenCC's phrase matching). The reference script comes from
  `earmark.text.script.fold_config`: Simplified, script-neutral (`你好`, `台北`) and
  Han-free references fold with `t2s`; Traditional references with `s2t`/`s2tw`/`s2hk`,
  whichever leaves the reference most unchanged; a reference mixing Simplified-only and
  Traditional-only characters is null (`reference_script_mixed`), and so is every pair
  when OpenCC is not importable (`opencc_unavailable`). This view depends on the
  reference, so swapping reference and hypothesis can change it.

Deliberately absent: NFKC and numeral conversion (`2026` and `二零二六` stay different).
"""

from __future__ import annotations

import unicodedata

from earmark.text import script
from earmark.text.base import Unit, ViewPair
from earmark.text.codepoint_table import Entry, LazyTranslation, is_punctuation, is_whitespace
from earmark.text.invisible import is_invisible, strip_leading_marks
from earmark.text.registry import register

#: Full-width ASCII forms U+FF01-U+FF5E -> U+0021-U+007E, ideographic space -> space.
WIDTH_FOLDING: dict[int, int] = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
WIDTH_FOLDING[0x3000] = 0x20


def _latin_lower(code_point: int) -> int:
    """The single-code-point lower case of a Latin capital, else the code point itself."""
    char = chr(code_point)
    if unicodedata.category(char) in ("Lu", "Lt") and unicodedata.name(char, "").startswith(
        "LATIN "
    ):
        lower = char.lower()
        if len(lower) == 1:
            return ord(lower)
    return code_point


def _punct_entry(code_point: int) -> Entry:
    folded = WIDTH_FOLDING.get(code_point, code_point)
    if is_whitespace(folded) or is_invisible(folded):
        return None
    return _latin_lower(folded)


def _normalized_entry(code_point: int) -> Entry:
    entry = _punct_entry(code_point)
    if entry is None:
        return None
    assert isinstance(entry, int)
    return None if is_punctuation(entry) else entry


_PUNCT_TABLE = LazyTranslation(_punct_entry)
_NORMALIZED_TABLE = LazyTranslation(_normalized_entry)


def punct_view(text: str) -> str:
    """The `punct` view of one text."""
    folded = unicodedata.normalize("NFC", text).translate(_PUNCT_TABLE)
    return strip_leading_marks(unicodedata.normalize("NFC", folded))


def strip_punctuation(punct_text: str) -> str:
    """The `normalized` view from a `punct` view: punctuation (P*) removed."""
    return strip_leading_marks(
        unicodedata.normalize("NFC", punct_text.translate(_NORMALIZED_TABLE))
    )


def normalized_view(text: str) -> str:
    """The `normalized` view of one text."""
    return strip_punctuation(punct_view(text))


def script_normalized_pair(reference_punct: str, hypothesis_punct: str) -> ViewPair:
    """The `script_normalized` view from both sides' `punct` views."""
    if not script.opencc_available():
        return ViewPair(None, None, "opencc_unavailable")
    config = script.fold_config(reference_punct)
    if config is None:
        return ViewPair(None, None, "reference_script_mixed")
    return ViewPair(
        strip_punctuation(script.convert(reference_punct, config)),
        strip_punctuation(script.convert(hypothesis_punct, config)),
    )


@register
class ZhEvalV1:
    """Mandarin CER normalisation `zh-eval-v1` (seed 000); frozen."""

    __slots__ = ()

    name: str = "zh-eval-v1"
    description: str = (
        "Mandarin character views: raw; punct (NFC, full-width ASCII and ideographic space "
        "folded, Latin lower-cased, whitespace removed); normalized (punct without P* "
        "punctuation); script_normalized (normalized after OpenCC folding to the "
        "reference's script). No NFKC, no numeral conversion."
    )
    views: tuple[str, ...] = ("raw", "punct", "normalized", "script_normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("char",)
    comparison_only: bool = False

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        reference_punct = punct_view(reference)
        hypothesis_punct = punct_view(hypothesis)
        return {
            "raw": ViewPair(reference, hypothesis),
            "punct": ViewPair(reference_punct, hypothesis_punct),
            "normalized": ViewPair(
                strip_punctuation(reference_punct), strip_punctuation(hypothesis_punct)
            ),
            "script_normalized": script_normalized_pair(reference_punct, hypothesis_punct),
        }
