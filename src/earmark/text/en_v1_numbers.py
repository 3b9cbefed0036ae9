"""The number reader of `en-v1`: OpenAI's `EnglishNumberNormalizer`, table-driven.

Split from `en_v1` because it is half of the rule and has its own tests to pass (the
differential test against OpenAI's code covers both). It turns spelled-out numbers,
ordinals, signs, currency and percentages into digits word by word (`twenty five
dollars` -> `$25`, `one oh one` -> `101`); a text with no digit and none of the
number words that start a number is returned split, untouched.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction


def _space_after(match: re.Match[str]) -> str:
    return match[0] + " "


def _one(match: re.Match[str]) -> str:
    return "one" + match[1]


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
ACTIVE_WORDS = frozenset(_KIND) - _INERT

_NUMERIC = re.compile(r"^\d+(\.\d+)?$")
_ANY_DIGIT = re.compile(r"\d")
_ASCII_DIGIT_BYTES = b"0123456789"
_AND_A_HALF = re.compile(r"\band\s+a\s+half\b")
_LETTER_DIGIT_BOUNDARY = re.compile(r"[a-z](?=[0-9])|[0-9](?=[a-z])")
_SUFFIX = re.compile(r"(?:st|nd|rd|th|s)\b")
_ASCII_DIGITS = frozenset("0123456789")
_DOLLARS_AND_CENTS = re.compile(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b")
_ZERO_DOLLARS = re.compile(r"[€£$]0.([0-9]{1,2})\b")
# `\b1` as a look-behind after the `1`: a pattern that starts with its literal lets the
# scan jump from `1` to `1`, not test a word boundary at every position (~2.5x quicker).
_LONE_ONE = re.compile(r"1(?<!\w1)(s?)\b")


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
    # imported here: `fractions` (with `decimal`) costs ~2 ms at start-up, and every
    # `earmark score` imports en-v1 for its self-probes; few texts reach this line
    from fractions import Fraction

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
                    from fractions import Fraction  # see `_fraction`

                    exact = Fraction(bare)  # a ValueError (too many digits) goes up
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


def _read_digitless(words: list[str]) -> list[str]:
    """`_read_numbers(words)` for words without a digit: read only around the number
    words where they are few (a long transcript, a sentence with one), every word where
    they are many (a window costs more than the handful of words it would skip)."""
    at = _number_word_positions(words)
    return _read_numbers(words) if 8 * len(at) > len(words) else _read_windows(words, at)


def _number_word_positions(words: list[str]) -> list[int]:
    """The positions of the words the reader has a kind for, in order, found by C scans
    (a set intersection, `list.index`) rather than a Python loop over every word."""
    at: list[int] = []
    for word in _KIND.keys() & words:
        index = -1
        for _ in range(words.count(word)):
            index = words.index(word, index + 1)
            at.append(index)
    at.sort()
    return at


def _read_windows(words: list[str], at: list[int]) -> list[str]:
    """`_read_numbers(words)` for words without a digit whose number words are at `at`:
    the reader run only on each run of number words and the word after it; the other
    words are copied.

    Equal because, with no digit, a word of no kind (not in `_KIND`) is never a number,
    never skipped, and leaves the reader with no number, sign or currency pending: the
    reader starts afresh after it, a word of no kind before a run reads the same as no
    word (`prev` is tested only against number tables), and one ending a window is not
    looked past."""
    out: list[str] = []
    copied = k = 0
    while k < len(at):
        start = end = at[k]
        k += 1
        while k < len(at) and at[k] == end + 1:
            end += 1
            k += 1
        out += words[copied:start]
        copied = end + 2  # the run and the word after it
        out += _read_numbers(words[start:copied])
    out += words[copied:]
    return out


def _combine_cents(match: re.Match[str]) -> str:
    return f"{match.group(1)}{match.group(2)}.{int(match.group(3)):02d}"


def _only_cents(match: re.Match[str]) -> str:
    return f"¢{int(match.group(1))}"


def _has_digit(text: str) -> bool:
    r"""Whether `text` holds a decimal digit (`\d`); an ASCII text by deleting its digits
    in one C pass, ten times quicker than `\d`'s per-character category test."""
    if text.isascii():
        return len(text.encode().translate(None, _ASCII_DIGIT_BYTES)) < len(text)
    return _ANY_DIGIT.search(text) is not None


def standardise_numbers(text: str) -> list[str]:
    """The words of `text` with numbers as digits (OpenAI's `EnglishNumberNormalizer`)."""
    if "half" in text:
        text = _halves(text)
    if not _has_digit(text):
        words = text.split()
        if ACTIVE_WORDS.isdisjoint(words):
            return words  # nothing numeric to read
        return _tidied(_read_digitless(words))
    words = _split_at_digits(text.split())
    return _tidied(_read_numbers(words)) if words else words


def standardise_letter_words(text: str, words: list[str]) -> list[str]:
    """`standardise_numbers(text)` for a text of ASCII letters and spaces that the caller
    has split (`words`): not split again, and no digit to look for."""
    if "half" in text:
        return standardise_numbers(text)
    if ACTIVE_WORDS.isdisjoint(words):
        return words
    return _tidied(_read_digitless(words))


def _tidied(read: list[str]) -> list[str]:
    """The reader's words with OpenAI's last three rules applied to their text: dollars
    and cents combined, `$0.05` as cents, a lone `1` as `one`."""
    text = " ".join(read)
    if "¢" in text:
        text = _DOLLARS_AND_CENTS.sub(_combine_cents, text)
    if "$" in text or "€" in text or "£" in text:
        text = _ZERO_DOLLARS.sub(_only_cents, text)
    if "1" in text:
        text = _LONE_ONE.sub(_one, text)
    return text.split()
