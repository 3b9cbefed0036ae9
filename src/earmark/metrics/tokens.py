"""How text becomes scoring units. One convention, stated in every result.

- word units: whitespace-split tokens.
- char units: every code point of the view's text, spaces included. Space-delimited views
  collapse whitespace to single spaces, so the space between words counts as one character
  (the jiwer/BlasBench convention); `zh-eval-v1` views other than `raw` remove whitespace.
- mixed units (code-switched Mandarin-English, the SpeechIO/SpeechColab "MER"): each CJK
  character (Han, kana, Bopomofo) is one unit and each run of other characters between
  spaces and CJK characters is one unit, so `我用iphone拍照` is `我 用 iphone 拍 照`: a
  misrecognised English word is one error, not one per Latin letter.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

CHAR_CONVENTION = "code points of the view text; a space between words counts as one character"
WORD_CONVENTION = "whitespace-separated tokens"
MIXED_CONVENTION = (
    "each CJK character (Han, kana, Bopomofo) is one unit; each run of other characters "
    "between whitespace and CJK characters is one unit (an English word, a number)"
)

#: Code points that are a unit each in mixed units: Han ideographs (unified, extensions,
#: compatibility, radicals, 〇 々 〻), Hiragana, Katakana (full- and half-width) and
#: Bopomofo. Hangul is not here: Korean separates its words with spaces.
_CJK_RANGES = (
    "\u2e80-\u2fdf"  # CJK radicals supplement, Kangxi radicals
    "\u3005\u3007\u303b"  # 々 〇 〻
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f\u31a0-\u31bf"  # Bopomofo (and extended)
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han: extension A, unified, compatibility
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0003134f"  # Han: extensions B-G and the compatibility supplement
)


def words(text: str) -> list[str]:
    return text.split()


def chars(text: str) -> list[str]:
    return list(text)


def mixed(text: str) -> list[str]:
    """Mixed units: CJK characters one by one, other runs between spaces as words.

    Combining marks right after a CJK character stay on it (`か` + U+3099 is one unit).

    >>> mixed("我用 iphone15 拍照")
    ['我', '用', 'iphone15', '拍', '照']
    >>> mixed("打开github和vs code")
    ['打', '开', 'github', '和', 'vs', 'code']
    """
    return _mixed_unit().findall(text)


def is_cjk_unit(char: str) -> bool:
    """True for a character that is a mixed unit on its own (`我`, `か`), False for `a`, `한`."""
    return _cjk().fullmatch(char) is not None


@functools.cache
def _cjk() -> re.Pattern[str]:
    """One CJK unit character; compiled on first use (~3 ms, which a start-up whose
    texts need no mixed units would pay for nothing)."""
    return re.compile(f"[{_CJK_RANGES}]")


@functools.cache
def _mixed_unit() -> re.Pattern[str]:
    """One mixed unit: a CJK character with the combining marks (M*) after it, or a run of
    anything else that is not whitespace. Built on first use: listing every combining
    mark takes a scan of the code space (~70 ms)."""
    marks = [cp for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp))[0] == "M"]
    ranges: list[tuple[int, int]] = []
    for cp in marks:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    mark_class = "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges
    )
    return re.compile(rf"[{_CJK_RANGES}][{mark_class}]*|[^\s{_CJK_RANGES}]+")
