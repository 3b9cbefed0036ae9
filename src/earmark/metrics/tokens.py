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

import re
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
#: One mixed unit: a CJK character, or a run of anything else that is not whitespace.
_MIXED_UNIT = re.compile(rf"[{_CJK_RANGES}]|[^\s{_CJK_RANGES}]+")


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
    if text.isascii():
        return _MIXED_UNIT.findall(text)
    out: list[str] = []
    end = -1
    for match in _MIXED_UNIT.finditer(text):
        unit = match.group()
        if match.start() == end and _is_cjk(out[-1][0]):
            marks = len(unit) - len(_strip_leading_marks(unit))
            out[-1] += unit[:marks]
            unit = unit[marks:]
        if unit:
            out.append(unit)
        end = match.end()
    return out


def is_cjk_unit(char: str) -> bool:
    """True for a character that is a mixed unit on its own (`我`, `か`), False for `a`, `한`."""
    return _is_cjk(char)


def _is_cjk(char: str) -> bool:
    return _CJK.fullmatch(char) is not None


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def _strip_leading_marks(unit: str) -> str:
    for i, ch in enumerate(unit):
        if not _is_mark(ch):
            return unit[i:]
    return ""


_CJK = re.compile(f"[{_CJK_RANGES}]")
