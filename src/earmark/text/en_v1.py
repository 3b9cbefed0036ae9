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
reader, every step skipped when its trigger character is absent, no digit -> no number
reading). Where OpenAI's behaviour is surprising it is kept on purpose (`the point and`
-> `the and`; `$1` -> `one`; `archaeology` -> `archeology</span>`), because equality is
the contract: a differential test compares this module with OpenAI's file on tens of
thousands of texts. The spelling map is
OpenAI's `english.json`, bundled verbatim (MIT; see `en_v1_spellings.NOTICE.md`).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from fractions import Fraction
from importlib.resources import files

from earmark.errors import EarmarkError
from earmark.text.base import Unit, ViewPair
from earmark.text.codepoint_table import Entry, LazyTranslation
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


def _space_after(match: re.Match[str]) -> str:
    return match[0] + " "


def _one(match: re.Match[str]) -> str:
    return "one" + match[1]


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


# --- numbers -----------------------------------------------------------------------------

_ONES = {
    name: value
    for value, name in enumerate(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split(),
        start=1,
    )
}
_TENS = {
    name: 10 * value
    for value, name in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2
    )
}
_MULTIPLIERS = {
    name: 10**exponent
    for name, exponent in (
        ("hundred", 2),
        ("thousand", 3),
        ("million", 6),
        ("billion", 9),
        ("trillion", 12),
        ("quadrillion", 15),
        ("quintillion", 18),
        ("sextillion", 21),
        ("septillion", 24),
        ("octillion", 27),
        ("nonillion", 30),
        ("decillion", 33),
    )
}
_ZEROS = frozenset({"o", "oh", "zero"})
_ORDINAL_SPELLINGS = {"first": 1, "second": 2, "third": 3, "fifth": 5, "twelfth": 12}
_ONES_SUFFIXED = {
    **{("sixes" if name == "six" else name + "s"): (value, "s") for name, value in _ONES.items()},
    "zeroth": (0, "th"),
    **{
        name: (value, ("st", "nd", "rd")[value - 1] if value < 4 else "th")
        for name, value in _ORDINAL_SPELLINGS.items()
    },
    **{
        name + ("h" if name.endswith("t") else "th"): (value, "th")
        for name, value in _ONES.items()
        if value not in _ORDINAL_SPELLINGS.values()
    },
}
_TENS_SUFFIXED = {
    **{name[:-1] + "ies": (value, "s") for name, value in _TENS.items()},
    **{name[:-1] + "ieth": (value, "th") for name, value in _TENS.items()},
}
_MULTIPLIERS_SUFFIXED = {
    name + suffix: (value, suffix) for suffix in ("s", "th") for name, value in _MULTIPLIERS.items()
}
_SIGN_BEFORE = {"minus": "-", "negative": "-", "plus": "+", "positive": "+"}
_CURRENCY_AFTER = {
    "pound": "£",
    "pounds": "£",
    "euro": "€",
    "euros": "€",
    "dollar": "$",
    "dollars": "$",
    "cent": "¢",
    "cents": "¢",
}
_PREFIX_CHARS = frozenset({*_SIGN_BEFORE.values(), *_CURRENCY_AFTER.values()})
_DECIMALS = frozenset({*_ONES, *_TENS, *_ZEROS})

# Word kinds, looked up once per word; a word in several tables takes the first kind in
# OpenAI's order of tests.
ZERO, ONE, ONE_SFX, TEN, TEN_SFX, MULT, MULT_SFX, SIGN, CURRENCY, PERCENT, SPECIAL = range(11)
_KIND: dict[str, int] = {}
for _kind, _table in (
    (ZERO, _ZEROS),
    (ONE, _ONES),
    (ONE_SFX, _ONES_SUFFIXED),
    (TEN, _TENS),
    (TEN_SFX, _TENS_SUFFIXED),
    (MULT, _MULTIPLIERS),
    (MULT_SFX, _MULTIPLIERS_SUFFIXED),
    (SIGN, _SIGN_BEFORE),
    (CURRENCY, _CURRENCY_AFTER),
    (PERCENT, ("per", "percent")),
    (SPECIAL, ("and", "double", "triple", "point")),
):
    for _word in _table:
        _KIND.setdefault(_word, _kind)
#: Number words that leave a word list unchanged while no number is being read: with
#: none of the other number words and no digit in a text, the reader is the identity.
_INERT = frozenset({"and", "double", "triple", "per", "percent", *_CURRENCY_AFTER})
_ACTIVE_WORDS = frozenset(_KIND) - _INERT

_NUMERIC = re.compile(r"^\d+(\.\d+)?$")
_ANY_DIGIT = re.compile(r"\d")
_AND_A_HALF = re.compile(r"\band\s+a\s+half\b")
_LETTER_DIGIT_BOUNDARY = re.compile(r"[a-z](?=[0-9])|[0-9](?=[a-z])")
_SUFFIX = re.compile(r"(?:st|nd|rd|th|s)\b")
_ASCII_DIGITS = frozenset("0123456789")
_DOLLARS_AND_CENTS = re.compile(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b")
_ZERO_DOLLARS = re.compile(r"[€£$]0.([0-9]{1,2})\b")
_LONE_ONE = re.compile(r"\b1(s?)\b")


def _halves(text: str) -> str:
    """`<number> and a half` -> `<number> point five`; a bare `and a half` is dropped."""
    segments = _AND_A_HALF.split(text)
    kept: list[str] = []
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if not segment.strip():
            continue
        kept.append(segment)
        if index < last:
            word = segment.rsplit(maxsplit=2)[-1]
            kept.append("point five" if word in _DECIMALS or word in _MULTIPLIERS else "and a half")
    return " ".join(kept)


def _split_at_digits(words: list[str]) -> list[str]:
    """Words split at ASCII letter-digit boundaries, then a suffix rejoined to its number.

    OpenAI does this with three substitutions on the whole text (`b747` -> `b 747`,
    `10 th` -> `10th`); word by word is the same, since none of them matches across a
    word except the suffix rule, which joins a word ending in a digit to the next word
    when that one starts with `st`, `nd`, `rd`, `th` or `s` and a word boundary.
    """
    out: list[str] = []
    for word in words:
        if not (word.isalpha() or word.isdigit()):
            spaced = _LETTER_DIGIT_BOUNDARY.sub(_space_after, word)
            if len(spaced) != len(word):  # split into number and letters
                for part in spaced.split(" "):
                    if out and out[-1][-1] in _ASCII_DIGITS and _SUFFIX.match(part):
                        out[-1] += part
                    else:
                        out.append(part)
                continue
        if out and out[-1][-1] in _ASCII_DIGITS and _SUFFIX.match(word):
            out[-1] += word
        else:
            out.append(word)
    return out


def _fraction(text: str | int) -> Fraction | None:
    try:
        return Fraction(text)
    except ValueError:
        return None


def _read_numbers(words: list[str]) -> list[str]:
    """Spelled-out numbers (and digits) to digit strings, word by word.

    A left-to-right reader holding the number being built (`value`: an int, or a str once
    digits are concatenated, e.g. `one oh one` -> `"101"`) and a pending sign or currency
    (`prefix`); every emitted word takes and clears both.
    """
    out: list[str] = []
    append = out.append
    kind_of = _KIND.get
    numeric = _NUMERIC.match
    prefix_chars = _PREFIX_CHARS
    prefix: str | None = None
    value: int | str | None = None
    skip = False
    last = len(words) - 1

    def emit(result: int | str) -> None:
        nonlocal prefix, value
        append(str(result) if prefix is None else prefix + str(result))
        prefix = value = None

    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        kind = kind_of(word)
        if kind is None:
            first = word[0]
            if first.isdecimal():
                signed, bare = False, word
            elif first in prefix_chars and word[1:2].isdecimal():
                signed, bare = True, word[1:]
            else:
                signed, bare = False, ""
            if bare and numeric(bare) is not None:
                if value is not None:
                    if isinstance(value, str) and value.endswith("."):
                        value += word  # decimals and IP-address parts run on
                        continue
                    emit(value)
                if signed:
                    prefix = first
                if "." in bare:
                    exact = Fraction(bare)
                    value = exact.numerator if exact.denominator == 1 else bare
                else:
                    value = int(bare)
                continue
            if value is not None:
                emit(value)  # takes the prefix
                append(word)
            elif prefix is not None:
                emit(word)
            else:
                append(word)
            continue

        prev = words[index - 1] if index else None
        nxt = words[index + 1] if index < last else None
        if kind == ZERO:
            value = str(value or "") + "0"
        elif kind == ONE or kind == ONE_SFX:
            if kind == ONE:
                ones, suffix = _ONES[word], ""
            else:
                ones, suffix = _ONES_SUFFIXED[word]
            if value is None:
                number: int | str = ones
            elif isinstance(value, str) or prev in _ONES:
                if prev in _TENS and ones < 10:
                    number = str(value)[:-1] + str(ones)
                else:
                    number = str(value) + str(ones)
            elif value % (10 if ones < 10 else 100) == 0:
                number = value + ones
            else:
                number = str(value) + str(ones)
            if kind == ONE:
                value = number
            else:
                emit(str(number) + suffix)
        elif kind == TEN or kind == TEN_SFX:
            if kind == TEN:
                tens, suffix = _TENS[word], ""
            else:
                tens, suffix = _TENS_SUFFIXED[word]
            if value is None:
                number = tens
            elif isinstance(value, str) or value % 100 != 0:
                number = str(value) + str(tens)
            else:
                number = value + tens
            if kind == TEN:
                value = number
            else:
                emit(str(number) + suffix)
        elif kind == MULT:
            multiplier = _MULTIPLIERS[word]
            if value is None:
                value = multiplier
            elif isinstance(value, str) or value == 0:
                fraction = _fraction(value)
                if fraction is not None and (fraction * multiplier).denominator == 1:
                    value = (fraction * multiplier).numerator
                else:
                    emit(value)
                    value = multiplier
            else:
                value = value // 1000 * 1000 + value % 1000 * multiplier
        elif kind == MULT_SFX:
            multiplier, suffix = _MULTIPLIERS_SUFFIXED[word]
            if value is None:
                emit(str(multiplier) + suffix)
            elif isinstance(value, str):
                fraction = _fraction(value)
                if fraction is not None and (fraction * multiplier).denominator == 1:
                    emit(str((fraction * multiplier).numerator) + suffix)
                else:
                    emit(value)
                    emit(str(multiplier) + suffix)
            else:
                emit(str(value // 1000 * 1000 + value % 1000 * multiplier) + suffix)
        elif kind == SIGN:
            if value is not None:
                emit(value)
            if nxt in _KIND or (nxt is not None and _NUMERIC.match(nxt)):
                prefix = _SIGN_BEFORE[word]
            else:
                emit(word)
        elif kind == CURRENCY:
            if value is not None:
                prefix = _CURRENCY_AFTER[word]
                emit(value)
            else:
                emit(word)
        elif kind == PERCENT:
            if value is None:
                emit(word)
            elif word == "percent":
                emit(str(value) + "%")
            elif nxt == "cent":
                emit(str(value) + "%")
                skip = True
            else:
                emit(value)
                emit(word)
        else:  # SPECIAL: and, double, triple, point
            if nxt not in _KIND and not (nxt is not None and _NUMERIC.match(nxt)):
                if value is not None:
                    emit(value)
                emit(word)
            elif word == "and":
                if prev not in _MULTIPLIERS:  # `hundred and one`: the `and` is dropped
                    if value is not None:
                        emit(value)
                    emit(word)
            elif word == "point":
                if nxt in _DECIMALS or (nxt is not None and _NUMERIC.match(nxt)):
                    value = str(value or "") + "."
            elif nxt in _ONES or nxt in _ZEROS:  # double / triple
                digit = str(_ONES.get(nxt, 0))
                value = str(value or "") + digit * (2 if word == "double" else 3)
                skip = True
            else:
                if value is not None:
                    emit(value)
                emit(word)

    if value is not None:
        emit(value)
    return out


def _combine_cents(match: re.Match[str]) -> str:
    return f"{match.group(1)}{match.group(2)}.{int(match.group(3)):02d}"


def _only_cents(match: re.Match[str]) -> str:
    return f"¢{int(match.group(1))}"


def _standardise_numbers(text: str) -> list[str]:
    """The words of `text` with numbers as digits (OpenAI's `EnglishNumberNormalizer`)."""
    if "half" in text:
        text = _halves(text)
    if _ANY_DIGIT.search(text) is None:
        words = text.split()
        if _ACTIVE_WORDS.isdisjoint(words):
            return words  # nothing numeric to read
    else:
        words = _split_at_digits(text.split())
    if not words:
        return words
    text = " ".join(_read_numbers(words))
    if "¢" in text:
        text = _DOLLARS_AND_CENTS.sub(_combine_cents, text)
    if "$" in text or "€" in text or "£" in text:
        text = _ZERO_DOLLARS.sub(_only_cents, text)
    if "1" in text:
        text = _LONE_ONE.sub(_one, text)
    return text.split()


@functools.cache
def _spellings() -> dict[str, str]:
    source = files("earmark.text").joinpath("en_v1_spellings.json")
    mapping: dict[str, str] = json.loads(source.read_text(encoding="utf-8"))
    return mapping


_SYMBOL_BEFORE_NON_DIGIT = re.compile(r"[.$¢€£]([^0-9])")
_NON_DIGIT_BEFORE_PERCENT = re.compile(r"([^0-9])%")
_SPACES = re.compile(r" +")


#: Words that make a plain text (ASCII letters and spaces) change beyond its spellings:
#: fillers, whole-word rewrites and number words (`_plain`).
_PLAIN_BLOCKERS = frozenset(
    {"hmm", "mm", "mhm", "mmm", "uh", "um", *(w for w in _WORD_REWRITES if w.isalpha())}
    | _ACTIVE_WORDS
)
_AFTER_SPELLING = frozenset(".$¢€£%")


def _plain(s: str) -> str | None:
    """`_normalize` of a lower-cased text of ASCII letters and spaces only, or None.

    On such a text every step but the spellings is the identity unless a word is a
    filler, a rewritten word or a number word (or "half" occurs): markup, apostrophes,
    commas, periods, symbols and digits are absent, and `\\b` falls only at word edges.
    So its words, spelled American, joined by one space, are the output: a third of the
    work of the full path on already normalised text. None: take the full path."""
    if not s.isascii() or "half" in s or not s.replace(" ", "").isalpha():
        return None
    words = s.split()
    if not _PLAIN_BLOCKERS.isdisjoint(words):
        return None
    american = _spellings().get
    out = " ".join(map(american, words, words))
    return None if not _AFTER_SPELLING.isdisjoint(out) else out


def _normalize(text: str) -> str:
    """OpenAI's output before its final whitespace collapse (only spaces remain)."""
    s = text.lower()
    plain = _plain(s)
    if plain is not None:
        return plain
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
    s = _remove_symbols_and_diacritics(s)
    american = _spellings().get
    words = _standardise_numbers(s)
    s = " ".join(map(american, words, words))
    if "." in s or "$" in s or "¢" in s or "€" in s or "£" in s:
        s = _SYMBOL_BEFORE_NON_DIGIT.sub(_space_before_group, s)
    if "%" in s:
        s = _NON_DIGIT_BEFORE_PERCENT.sub(_space_after_group, s)
    return s


def whisper_english(text: str) -> str:
    """Exactly what OpenAI's `EnglishTextNormalizer()(text)` returns, spaces included."""
    return _SPACES.sub(" ", _normalize(text))


@functools.lru_cache(maxsize=1 << 16)
def english_view(text: str) -> str:
    """The `normalized` view of one text: `whisper_english` without edge spaces.

    Memoised because references repeat across arms and runs. OpenAI's code fails on a
    number too long for Python's int/str conversion (over 4,300 digits); so does this,
    as an `EarmarkError` rather than a traceback.
    """
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


def engine_version() -> str:
    """The `openai-whisper` release whose normaliser en-v1 reproduces (for provenance)."""
    return WHISPER_RELEASE


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
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(english_view(reference), english_view(hypothesis)),
        }
