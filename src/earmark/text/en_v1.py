"""`en-v1`: OpenAI Whisper's English normaliser, reproduced exactly and fast.

The rule is `EnglishTextNormalizer` of the `openai-whisper` package (20250625,
`whisper/normalizers/english.py`), the normaliser of the Whisper paper: lower-case;
`[...]`, `<...>` and `(...)` spans and fillers (`hmm`, `mm`, `mhm`, `mmm`, `uh`, `um`)
removed; contractions and titles expanded (`won't` -> `will not`, `it's` -> `it is`,
`Mr.` -> `mister`); marks, symbols and punctuation removed except `. % $ ¢ € £` next to
digits; diacritics removed (`café` -> `cafe`); spelled-out numbers written as digits
(`twenty-five` -> `25`, `one hundred and one` -> `101`, `twenty five dollars` -> `$25`);
British spellings made American with OpenAI's own map (`colour` -> `color`). The
`normalized` view is that output with its leading/trailing space removed.

Why not a package: `whisper-normalizer` on PyPI adds rules OpenAI's code lacks
(`cause` -> `because`, `kinda`, `sorta`, `dunno`), and OpenAI's package imports torch.
This is our own code, written for speed (four scans instead of 42 substitutions for
contractions and titles, a `str.translate` table for symbols, a table-driven number
reader in `en_v1_numbers`, every step skipped when its trigger character is absent, no
digit -> no number reading, and a quick path for texts whose words no step changes: for
lower-case words two C scans, a split and one set test, the text its own view). Where
OpenAI's behaviour is surprising it is kept on purpose (`the point and` -> `the and`;
`$1` -> `one`; `archaeology` -> `archeology</span>`), because equality is the contract:
a differential test compares this module with OpenAI's file on tens of thousands of
texts. The spelling map is OpenAI's `english.json`, bundled verbatim (MIT; see
`en_v1_spellings.NOTICE.md`).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib.resources import files

from earmark.errors import EarmarkError
from earmark.text.base import Unit, ViewPair
from earmark.text.codepoint_table import Entry, LazyTranslation
from earmark.text.en_v1_numbers import (
    ACTIVE_WORDS,
    standardise_letter_words,
    standardise_numbers,
)
from earmark.text.registry import register

#: The `openai-whisper` release whose `EnglishTextNormalizer` en-v1 reproduces.
WHISPER_RELEASE = "20250625"

# --- markup, fillers, contractions -------------------------------------------------------

_BRACKETED = re.compile(r"[<\[][^>\]]*[>\]]")
_PARENTHESISED = re.compile(r"\(([^)]+?)\)")
_FILLERS = re.compile(r"\b(hmm|mm|mhm|mmm|uh|um)\b")
_SPACE_BEFORE_APOSTROPHE = re.compile(r"\s+'")
_DIGIT_COMMA_DIGIT = re.compile(r"(\d),(\d)")
_PERIOD_NOT_BEFORE_DIGIT = re.compile(r"\.([^0-9]|$)")

#: Whole words rewritten, in OpenAI's order (the order decides overlaps).
_WORD_REWRITES = {
    "won't": "will not",
    "can't": "can not",
    "let's": "let us",
    "ain't": "aint",
    "y'all": "you all",
    "wanna": "want to",
    "gotta": "got to",
    "gonna": "going to",
    "i'ma": "i am going to",
    "imma": "i am going to",
    "woulda": "would have",
    "coulda": "could have",
    "shoulda": "should have",
    "ma'am": "madam",
    **{
        title: full + " "
        for title, full in (
            ("mr", "mister"),
            ("mrs", "missus"),
            ("st", "saint"),
            ("dr", "doctor"),
            ("prof", "professor"),
            ("capt", "captain"),
            ("gov", "governor"),
            ("ald", "alderman"),
            ("gen", "general"),
            ("sen", "senator"),
            ("rep", "representative"),
            ("pres", "president"),
            ("rev", "reverend"),
            ("hon", "honorable"),
            ("asst", "assistant"),
            ("assoc", "associate"),
            ("lt", "lieutenant"),
            ("col", "colonel"),
            ("jr", "junior"),
            ("sr", "senior"),
            ("esq", "esquire"),
        )
    },
}
#: Perfect tenses, before the general contractions (`'s been` -> `has been`).
_PERFECT_REWRITES = {
    "'d been": " had been",
    "'s been": " has been",
    "'d gone": " had gone",
    "'s gone": " has gone",
    "'d done": " had done",
    "'s got": " has got",
}
#: Contractions, in OpenAI's order.
_CONTRACTION_REWRITES = {
    "'re": " are",
    "'s": " is",
    "'d": " would",
    "'ll": " will",
    "'t": " not",
    "'ve": " have",
    "'m": " am",
}
_REWRITES = {**_WORD_REWRITES, **_PERFECT_REWRITES, "n't": " not", **_CONTRACTION_REWRITES}


def _alternation(words: dict[str, str]) -> str:
    return "(?:" + "|".join(map(re.escape, words)) + ")"


# OpenAI applies 42 substitutions one after another. Four passes give the same result:
# within a pass, at any position the earlier rule wins (alternation order) and no output
# creates or breaks a match of the same pass; between passes outputs do matter
# (`gotta` -> `got to` makes `'s got` match; `n't` -> ` not` puts the word boundary
# after `'d` in `'dn't`), so those passes keep OpenAI's order. The differential test
# checks all of this against OpenAI's code.
_WORD_PASS = re.compile(
    # the look-ahead on first letters only lets the scan skip ahead faster
    r"\b(?=["
    + "".join(sorted({word[0] for word in _WORD_REWRITES}))
    + "])"
    + _alternation(_WORD_REWRITES)
    + r"\b"
)
_PERFECT_PASS = re.compile(_alternation(_PERFECT_REWRITES) + r"\b")
_NOT_PASS = re.compile(r"n't\b")
_CONTRACTION_PASS = re.compile(_alternation(_CONTRACTION_REWRITES) + r"\b")


def _rewrite(match: re.Match[str]) -> str:
    return _REWRITES[match.group()]


# Replacements as functions: with a template string (`r"\1 \2"`) every `sub` call pays
# for a template look-up in Python even when nothing matches; a function costs only per
# match.
def _join_groups(match: re.Match[str]) -> str:
    return match[1] + match[2]


def _space_before_group(match: re.Match[str]) -> str:
    return " " + match[1]


def _space_after_group(match: re.Match[str]) -> str:
    return match[1] + " "


# --- symbols and diacritics --------------------------------------------------------------

#: Letters NFKD does not decompose, spelled as OpenAI spells them (`Þ` -> `th`).
_EXTRA_DIACRITICS = {
    "œ": "oe",
    "Œ": "OE",
    "ø": "o",
    "Ø": "O",
    "æ": "ae",
    "Æ": "AE",
    "ß": "ss",
    "ẞ": "SS",
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "þ": "th",
    "Þ": "th",
    "ł": "l",
    "Ł": "L",
}
_KEEP = ".%$¢€£"


def _symbol_entry(code_point: int) -> Entry:
    char = chr(code_point)
    if char in _KEEP:
        return code_point
    if char in _EXTRA_DIACRITICS:
        return _EXTRA_DIACRITICS[char]
    category = unicodedata.category(char)
    if category == "Mn":
        return None
    return " " if category[0] in "MSP" else code_point


_SYMBOLS = LazyTranslation(_symbol_entry)
_ASCII_SYMBOLS = {cp: _symbol_entry(cp) for cp in range(128)}


def _remove_symbols_and_diacritics(text: str) -> str:
    """NFKD, then marks dropped, other marks/symbols/punctuation a space (numeric kept)."""
    if text.isascii():  # NFKD leaves ASCII unchanged
        return text.translate(_ASCII_SYMBOLS)
    return unicodedata.normalize("NFKD", text).translate(_SYMBOLS)


@functools.cache
def _spellings() -> dict[str, str]:
    source = files("earmark.text").joinpath("en_v1_spellings.json")
    mapping: dict[str, str] = json.loads(source.read_text(encoding="utf-8"))
    return mapping


_SYMBOL_BEFORE_NON_DIGIT = re.compile(r"[.$¢€£]([^0-9])")
_NON_DIGIT_BEFORE_PERCENT = re.compile(r"([^0-9])%")
_SPACES = re.compile(r" +")

# --- the short paths ---------------------------------------------------------------------

#: ASCII marks every step of en-v1 turns into a space when the text holds no digit, no
#: apostrophe, no markup and no `..`: they are not word characters (so `\b` falls where a
#: space would put it), not kept (`.` is, but only next to a digit), not read as signs
#: (`+ -` are spaces before the number reader runs). Tab, newline and return are
#: whitespace to every step. `' _ ( ) [ ] < > % $` and digits are left out.
_MARKS = '\t\n\r!"#&*+,-./:;=?@\\^`{|}~'
_SPACED_MARKS = dict.fromkeys(map(ord, _MARKS), " ")
_MARK_BYTES = _MARKS.encode()
_LETTERS_AND_SPACE = b" abcdefghijklmnopqrstuvwxyz"
_LOWER_CASE = _LETTERS_AND_SPACE[1:]
_CAPITALS = _LOWER_CASE.upper()

#: Words that change a plain text (`_plain`) before the number reader: fillers and
#: whole-word rewrites (`\b` falls only at word edges there, so they match whole words).
_MARKUP_WORDS = frozenset(
    {"hmm", "mm", "mhm", "mmm", "uh", "um", *(w for w in _WORD_REWRITES if w.isalpha())}
)


@functools.cache
def _changers() -> frozenset[str]:
    """Every word that makes a plain text's output differ from its words joined by one
    space: markup words, number words that start a number, `half` (`and a half`), and
    the British spellings. Built on first use, so a run without en-v1 never pays for it."""
    return frozenset(_MARKUP_WORDS | ACTIVE_WORDS | {"half"} | _spellings().keys())


def _plain(text: str) -> str | None:
    """`text` lower-cased with its spaced marks made spaces, when nothing but ASCII
    letters and spaces is left; else None. A text already of lower-case letters and
    spaces (the commonest) is returned itself, not a copy: no case fold, and the caller's
    `==` with the raw text is an identity test.

    On such a text every step before the number reader is the identity but for fillers
    and rewritten words (`_MARKUP_WORDS`): markup, apostrophes, digits and kept symbols
    are absent, a lone `.` becomes a space (`_PERIOD_NOT_BEFORE_DIGIT`) and the other
    marks become spaces (`_remove_symbols_and_diacritics`)."""
    if not text.isascii():
        return None
    # bytes.translate deletes in one C pass: three times quicker than replace + isalpha
    others = text.encode().translate(None, _LETTERS_AND_SPACE)
    if not others:
        return text
    s = text.lower()
    others = others.translate(None, _CAPITALS)
    if not others:
        return s
    if others.translate(None, _MARK_BYTES) or ".." in s:  # `a..b`: the second period
        return None  # survives the period step
    return s.translate(_SPACED_MARKS)


def _quick_view(text: str) -> str | None:
    """The view of a text whose words en-v1 leaves alone (most already-normalised
    transcripts), or None otherwise. A text of lower-case ASCII words takes three C scans
    (delete its letters, see that only spaces are left, split), one set test, and no
    copy: it is its own view when its spaces number one less than its words."""
    if not text.isascii():
        return None
    spaces = text.encode().translate(None, _LOWER_CASE)
    if spaces.lstrip(b" "):  # capitals or marks: folded and spaced first
        plain = _plain(text)
        if plain is None:
            return None
        words = plain.split()
        if not _changers().isdisjoint(words):
            return None
        return plain if len(words) == plain.count(" ") + 1 else " ".join(words)
    words = text.split()
    if not _changers().isdisjoint(words):
        return None
    return text if len(spaces) == len(words) - 1 else " ".join(words)  # single-spaced


def _finish(words: list[str]) -> str:
    """British spellings made American, then the two symbol steps OpenAI ends with."""
    american = _spellings().get
    s = " ".join(map(american, words, words))
    if "." in s or "$" in s or "¢" in s or "€" in s or "£" in s:
        s = _SYMBOL_BEFORE_NON_DIGIT.sub(_space_before_group, s)
    if "%" in s:
        s = _NON_DIGIT_BEFORE_PERCENT.sub(_space_after_group, s)
    return s


def _normalize(text: str) -> str:
    """OpenAI's output before its final whitespace collapse (only spaces remain)."""
    plain = _plain(text)
    if plain is not None:
        words = plain.split()
        if _changers().isdisjoint(words):
            return " ".join(words)
        if _MARKUP_WORDS.isdisjoint(words):  # straight to the numbers
            return _finish(standardise_letter_words(plain, words))
    return _every_step(text.lower())


def _every_step(s: str) -> str:
    """`_normalize` of a lower-cased text by OpenAI's steps in order, each skipped only
    where its trigger character is absent (the reference the short paths are tested on)."""
    if "[" in s or "<" in s:
        s = _BRACKETED.sub("", s)
    if "(" in s:
        s = _PARENTHESISED.sub("", s)
    if "mm" in s or "mh" in s or "uh" in s or "um" in s:  # every filler has one
        s = _FILLERS.sub("", s)
    if "'" in s:
        s = _SPACE_BEFORE_APOSTROPHE.sub("'", s)
    s = _WORD_PASS.sub(_rewrite, s)
    if "'" in s:
        s = _PERFECT_PASS.sub(_rewrite, s)
        s = _NOT_PASS.sub(" not", s)
        s = _CONTRACTION_PASS.sub(_rewrite, s)
    if "," in s:
        s = _DIGIT_COMMA_DIGIT.sub(_join_groups, s)
    if "." in s:
        s = _PERIOD_NOT_BEFORE_DIGIT.sub(_space_before_group, s)
    return _finish(standardise_numbers(_remove_symbols_and_diacritics(s)))


def whisper_english(text: str) -> str:
    """Exactly what OpenAI's `EnglishTextNormalizer()(text)` returns, spaces included."""
    return _SPACES.sub(" ", _normalize(text))


def _full_view(text: str) -> str:
    """`whisper_english` without edge spaces, by the full path; a number too long for
    Python's int/str conversion (over 4,300 digits, where OpenAI's code fails too) is an
    `EarmarkError` rather than a traceback."""
    try:
        s = _normalize(text)
    except ValueError as exc:
        raise EarmarkError(
            f"en-v1 cannot normalise the text {text[:60]!r}: {exc}",
            hint="a number this long has no digit form; check the transcript",
        ) from exc
    # `_normalize` joins whitespace-split words with one space (the spellings hold no
    # whitespace: a test checks), and only its last two steps can add spaces: the text
    # is re-split only where one did.
    if "  " in s or s.startswith(" ") or s.endswith(" "):
        return " ".join(s.split())
    return s


#: Memoised because references repeat across arms and runs (and words across a
#: timestamped transcript); the quick path is cheaper than a miss, so it goes first.
_cached_full_view = functools.lru_cache(maxsize=1 << 16)(_full_view)


def english_view(text: str) -> str:
    """The `normalized` view of one text: `whisper_english` without edge spaces."""
    quick = _quick_view(text)
    return _cached_full_view(text) if quick is None else quick


def uncached_view(text: str) -> str:
    """`english_view` without its memo, for benchmarks that time the rule itself."""
    quick = _quick_view(text)
    return _full_view(text) if quick is None else quick


def engine_version() -> str:
    """The `openai-whisper` release whose normaliser en-v1 reproduces (for provenance)."""
    return WHISPER_RELEASE


_new_pair = functools.partial(object.__new__, ViewPair)
_set_reference = vars(ViewPair)["reference"].__set__
_set_hypothesis = vars(ViewPair)["hypothesis"].__set__
_set_null_reason = vars(ViewPair)["null_reason"].__set__


def _view_pair(reference: str, hypothesis: str) -> ViewPair:
    """`ViewPair(reference, hypothesis)`, its slots set directly: the frozen dataclass's
    `__init__` sets each through `object.__setattr__`, half of the ~1 us it takes, and
    en-v1 makes a pair or two for every row it scores."""
    pair: ViewPair = _new_pair()
    _set_reference(pair, reference)
    _set_hypothesis(pair, hypothesis)
    _set_null_reason(pair, None)
    return pair


@register
class EnV1:
    """Whisper's English normalisation `en-v1`; frozen."""

    __slots__ = ()

    name: str = "en-v1"
    description: str = (
        "English (OpenAI Whisper's EnglishTextNormalizer, reproduced exactly): lower-case, "
        "punctuation removed, contractions expanded, numbers as digits, British spellings "
        "Americanised."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = False

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        ref = english_view(reference)
        hyp = ref if hypothesis == reference else english_view(hypothesis)
        raw = _view_pair(reference, hypothesis)
        # Texts already normalised (most of a normalised system's output) share the raw
        # pair: one object fewer per row, and the same values.
        if ref == reference and hyp == hypothesis:
            return {"raw": raw, "normalized": raw}
        return {"raw": raw, "normalized": _view_pair(ref, hyp)}
