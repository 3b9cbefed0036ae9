"""Deterministic English test texts for en-v1: realistic sentences and adversarial soup.

`sentences(n)` builds transcript-like sentences that exercise every rule of Whisper's
English normaliser: numbers spelled out in many styles (cardinals with and without
`and`, hyphens, years, ordinals, plurals, digit strings like `one oh one`, `double`,
decimals, `and a half`), digits with separators, currency (`$ £ € ¢`, cents), percents,
ranges, contractions, titles, British spellings from the map, fillers, brackets and
parentheticals, punctuation, symbols, diacritics, mixed case and odd whitespace.
`soup(n)` glues short fragments (apostrophes, suffixes, digits, currency signs, number
words, brackets) together with little or no space, to reach the corners of the
regular expressions. Both depend only on the seed, never on hash order.
"""

from __future__ import annotations

import json
import random
from importlib.resources import files

_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = [
    (10**12, "trillion"),
    (10**9, "billion"),
    (10**6, "million"),
    (1000, "thousand"),
]
_ORDINAL = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}


def _below_hundred(n: int, rng: random.Random) -> str:
    if n < 20:
        return _SMALL[n]
    tens, ones = divmod(n, 10)
    if not ones:
        return _TENS[tens - 2]
    joiner = rng.choice([" ", " ", "-"])
    return _TENS[tens - 2] + joiner + _SMALL[ones]


def _below_thousand(n: int, rng: random.Random) -> str:
    hundreds, rest = divmod(n, 100)
    parts = []
    if hundreds == 1:
        parts.append(rng.choice(["one hundred", "a hundred", "hundred"]))
    elif hundreds:
        parts.append(_SMALL[hundreds] + " hundred")
    if rest:
        if hundreds and rng.random() < 0.5:
            parts.append("and")
        parts.append(_below_hundred(rest, rng))
    return " ".join(parts)


def spell(n: int, rng: random.Random) -> str:
    """A spelling of the integer n as an English speaker might say it (varied)."""
    if n == 0:
        return rng.choice(["zero", "oh", "o", "nought"])
    words = []
    for scale, name in _SCALES:
        if n >= scale:
            count, n = divmod(n, scale)
            words.append(_below_thousand(count, rng) + " " + name)
            if n and n < 100 and rng.random() < 0.5:
                words.append("and")
    if n:
        words.append(_below_thousand(n, rng))
    return " ".join(words)


def _year(rng: random.Random) -> str:
    year = rng.randint(1100, 2099)
    style = rng.randrange(4)
    if style == 0:
        return str(year)
    if style == 1 and year % 100:
        head, tail = divmod(year, 100)
        tail_words = _below_hundred(tail, rng) if tail >= 10 else "oh " + _SMALL[tail]
        return _below_hundred(head, rng) + " " + tail_words
    if style == 2 and year >= 2000:
        return "two thousand" + rng.choice([" and ", " "]) + _below_hundred(year - 2000, rng)
    return spell(year, rng)


def _ordinal(rng: random.Random) -> str:
    n = rng.randint(1, 99)
    words = _below_hundred(n, rng).replace("-", " ").split()
    last = words[-1]
    if last in _ORDINAL:
        words[-1] = _ORDINAL[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + rng.choice(["th", "th", "h"])  # `nineth`, `eightth` also occur
    if rng.random() < 0.3:
        return str(n) + rng.choice(["st", "nd", "rd", "th", " th", " st"])
    return " ".join(words)


def _digits_spoken(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(2, 6)):
        choice = rng.random()
        digit = rng.choice(_SMALL[:10] + ["oh", "o"])
        if choice < 0.15:
            out.append(rng.choice(["double", "triple"]) + " " + digit)
        else:
            out.append(digit)
    return " ".join(out)


def _decimal(rng: random.Random) -> str:
    style = rng.randrange(5)
    whole = rng.choice([0, 1, 2, 3, 7, 12, 20, 45, 99, 100, 250, 1000])
    frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 3)))
    if style == 0:
        return f"{whole}.{frac}"
    if style == 1:
        return f"{whole} point {frac}"
    if style == 2:
        return spell(whole, rng) + " point " + " ".join(_SMALL[int(d)] for d in frac)
    if style == 3:
        return spell(whole, rng) + " and a half"
    return f"{whole} and a half"


def _money(rng: random.Random) -> str:
    style = rng.randrange(9)
    amount = rng.choice([0, 1, 2, 5, 9, 10, 20, 25, 99, 100, 250, 1500, 20000, 3000000])
    cents = rng.randint(0, 99)
    sign = rng.choice(["$", "£", "€"])
    unit = rng.choice(["dollars", "dollar", "pounds", "pound", "euros", "euro"])
    if style == 0:
        return f"{sign}{amount}"
    if style == 1:
        return f"{sign}{amount}.{cents:02d}"
    if style == 2:
        return f"{sign}{amount:,}"
    if style == 3:
        return spell(amount, rng) + " " + unit
    if style == 4:
        cent_word = rng.choice(["cents", "cent"])
        joiner = rng.choice([" and ", " "])
        return spell(amount, rng) + " " + unit + joiner + spell(cents, rng) + " " + cent_word
    if style == 5:
        return f"{cents} cents"
    if style == 6:
        return f"{sign}{amount} {rng.choice(['million', 'billion', 'thousand', 'thousands'])}"
    if style == 7:
        return f"{sign}0.{cents:02d}"
    return f"{amount}{sign}"


def _percent(rng: random.Random) -> str:
    n = rng.randint(0, 100)
    style = rng.randrange(4)
    if style == 0:
        return f"{n}%"
    if style == 1:
        return spell(n, rng) + " percent"
    if style == 2:
        return spell(n, rng) + " per cent"
    return f"{n} per {rng.choice(['cent', 'hour', 'person'])}"


def _plain_number(rng: random.Random) -> str:
    style = rng.randrange(8)
    n = rng.choice([rng.randint(0, 20), rng.randint(21, 999), rng.randint(1000, 10**7)])
    if style == 0:
        return str(n)
    if style == 1:
        return f"{n:,}"
    if style == 2:
        return f"{rng.randint(1, 20)}-{rng.randint(21, 99)}"  # range
    if style == 3:
        return rng.choice(["minus", "negative", "plus", "positive"]) + " " + spell(n, rng)
    if style == 4:
        return spell(rng.randint(1, 9), rng) + rng.choice(["s", "es"]) + rng.choice(["", " ones"])
    if style == 5:
        return (
            _SMALL[rng.randint(1, 9)]
            + " "
            + rng.choice(["hundreds", "thousands", "millions", "hundredth", "thousandth"])
        )
    if style == 6:
        return f"{rng.choice(['19', '20'])}{rng.randint(0, 9)}0s"
    return spell(n, rng)


_CONTRACTIONS = (
    "won't can't let's ain't y'all wanna gotta gonna i'ma imma woulda coulda shoulda ma'am "
    "don't isn't aren't wasn't they're we're you're it's he's she's that's what's there's "
    "he'd she'd we'd i'd you'll we'll i'll they'll i've we've could've i'm o'clock 'tis "
    "rock'n'roll ne'er-do-well"
).split() + [
    "she's been",
    "he'd been",
    "it's gone",
    "he'd gone",
    "we'd done",
    "it's got",
    "it 's",
    "don 't",
    "I’m",
    "won’t",
    "it`s",
]
_TITLES = (
    "Mr. Mrs. Ms. Dr. St. Prof. Capt. Gov. Ald. Gen. Sen. Rep. Pres. Rev. Hon. Asst. "
    "Assoc. Lt. Col. Jr. Sr. Esq. mr mrs dr st"
).split()
_FILLERS = "hmm mm mhm mmm uh um umm uh-huh mm-hmm er ah".split()
_MARKUP = [
    "[laughter]",
    "[ noise ]",
    "<unk>",
    "<noise>",
    "(inaudible)",
    "(laughs)",
    "( )",
    "()",
    "[]",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "((nested) words)",
    "[a (b] c)",
    "<a [b> c]",
]
_PUNCT = list(",.!?;:") + ["...", "…", "—", "–", "-", "--", '"', "'", "“", "”", "‘", "’", "«", "»"]
_SYMBOLS = list("/&@#*+=^~|\\_") + [
    "©",
    "™",
    "°",
    "℃",
    "½",
    "¼",
    "²",
    "ﬁ",
    "№",
    "¥",
    "₹",
    "🙂",
    "👍🏽",
    "§",
    "±",
    "×",
    "√",
    "µ",
]
_DIACRITICS = [
    "café",
    "naïve",
    "résumé",
    "Zoë",
    "Ångström",
    "Øre",
    "Straße",
    "Łódź",
    "Þór",
    "œuvre",
    "Æsir",
    "façade",
    "jalapeño",
    "coöperate",
    "cafe\u0301",
    "İstanbul",
    "ﬁancé",
    "Đorđe",
    "ðe",
    "ẞ",
    "Crème brûlée",
    "señor",
    "Ⅻ",
    "ℌilbert",
    "x²",
]
_UNICODE_DIGITS = ["٣", "١٢", "۵", "१०", "１２", "３.５", "𝟗", "④", "²³"]
_WORDS = (
    "the a an we they you I he she it people paid for hours in on at room page chapter "
    "flight call me about total was is of and to costs around nearly over only some many "
    "cause death kinda sorta dunno someone anyone none point half quarter dozen score one "
    "ones second minute first last next number numbers per cent cents dollar pound euro "
    "double triple and and and or but so then o oh zero nought a half pass the salt"
).split()
_WHITESPACE = [" "] * 20 + ["  ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\r\n", " \x1c"]


def _spellings() -> list[str]:
    mapping = json.loads(
        files("earmark.text").joinpath("en_v1_spellings.json").read_text(encoding="utf-8")
    )
    return sorted(mapping)


def _case(word: str, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.7:
        return word
    if r < 0.85:
        return word.capitalize()
    if r < 0.95:
        return word.upper()
    return "".join(c.upper() if rng.random() < 0.5 else c for c in word)


def sentences(count: int, seed: int = 11) -> list[str]:
    """`count` transcript-like sentences, each mixing several of the normaliser's rules."""
    rng = random.Random(seed)
    british = _spellings()
    makers = [
        (_plain_number, 6),
        (_year, 3),
        (_ordinal, 3),
        (_digits_spoken, 2),
        (_decimal, 3),
        (_money, 4),
        (_percent, 2),
        (lambda r: r.choice(_CONTRACTIONS), 4),
        (lambda r: r.choice(_TITLES) + " " + r.choice(["Smith", "Jones", "Kim", "Who"]), 2),
        (lambda r: r.choice(british), 5),
        (lambda r: r.choice(_FILLERS), 2),
        (lambda r: r.choice(_MARKUP), 2),
        (lambda r: r.choice(_DIACRITICS), 2),
        (lambda r: r.choice(_SYMBOLS), 1),
        (lambda r: r.choice(_UNICODE_DIGITS), 1),
        (lambda r: r.choice(_WORDS), 30),
    ]
    pool = [maker for maker, weight in makers for _ in range(weight)]
    out = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(2, 14)):
            piece = _case(rng.choice(pool)(rng), rng)
            if rng.random() < 0.2:
                piece += rng.choice(_PUNCT)
            if rng.random() < 0.03:
                piece = rng.choice(_PUNCT) + piece
            pieces.append(piece)
        text = pieces[0]
        for piece in pieces[1:]:
            text += rng.choice(_WHITESPACE) + piece
        if rng.random() < 0.6:
            text = text[:1].upper() + text[1:] + rng.choice([".", ".", "?", "!", ""])
        if rng.random() < 0.05:
            text = rng.choice(_WHITESPACE) + text + rng.choice(_WHITESPACE)
        out.append(text)
    return out


_FRAGMENTS = (
    [
        "'",
        "'",
        "s",
        "t",
        "d",
        "n",
        "m",
        "re",
        "ll",
        "ve",
        "n't",
        "'s",
        "'d",
        "'t",
        "'m",
        " been",
        " gone",
        " done",
        " got",
        "won",
        "can",
        "let",
        "ma",
        "am",
        "i",
        "y",
        "all",
        "mr",
        "mrs",
        "st",
        "dr",
        "col",
        "jr",
        "um",
        "uh",
        "hmm",
        "mm",
        "a",
        "and",
        "half",
        "point",
        "one",
        "ones",
        "oh",
        "o",
        "zero",
        "double",
        "triple",
        "minus",
        "plus",
        "twenty",
        "nine",
        "nineteen",
        "first",
        "second",
        "hundred",
        "thousand",
        "thousandth",
        "millions",
        "per",
        "cent",
        "percent",
        "dollars",
        "pounds",
        "cents",
        "colour",
        "archaeology",
        "th",
        "nd",
        "rd",
    ]
    + list("0123456789")
    + ["1", "1", "0", "00", "1s", ".5", "3.14", "1,000", ",", ".", "..", "$", "£", "€", "¢"]
    + ["%", "(", ")", "[", "]", "<", ">", "-", "—", "’", "é", "\u0301", "١", "２"]
)


def soup(count: int, seed: int = 12) -> list[str]:
    """`count` short strings of fragments glued with and without spaces (corner cases)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = ""
        for _ in range(rng.randint(1, 12)):
            text += rng.choice(_FRAGMENTS)
            if rng.random() < 0.5:
                text += rng.choice([" ", " ", " ", "  ", "\t"])
        out.append(text if rng.random() < 0.8 else text.upper())
    return out
