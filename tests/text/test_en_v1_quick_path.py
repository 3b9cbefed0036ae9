"""en-v1's short paths against its full path and against OpenAI's own normaliser.

`english_view` answers most texts (ASCII letters, spaces and marks that en-v1 makes
spaces, none of the words it rewrites) with a case fold, a split and one set test, and
sends plain texts with number words straight to the number reader. Both short cuts must
give exactly what every step in order gives (`_every_step`), and what OpenAI's
`EnglishTextNormalizer` gives, on texts drawn from the bench corpus's vocabulary, number
words, rewritten words, British spellings, every mark on either side of the short
path's border, odd Unicode and hostile strings (NUL, lone surrogates, bidi controls,
huge words).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import FrozenInstanceError, fields
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whisper_oracle import load_oracle

import earmark.text.en_v1 as en_v1
import earmark.text.en_v1_numbers as en_v1_numbers
from earmark.errors import EarmarkError
from earmark.text.base import ViewPair
from earmark.text.en_v1 import EnV1, english_view, uncached_view, whisper_english
from earmark.text.en_v1_numbers import ACTIVE_WORDS

ORACLE, WHERE = load_oracle()

# The bench corpus's rule (`benchmarks/bench_cli_scoring.py`): syllables joined, suffixed.
_SYLLABLES = "ka lo mi ren tas vo ul pen dri so ber gan fi tor mel ash quo lin".split()
_BENCH_WORDS = sorted(
    a + b + c for a, b, c in product(_SYLLABLES, _SYLLABLES, ("", "s", "er", "ing", "ed", "ly"))
)[::7]
_COMMON = "the of and to a in that is was he for it with as his on be at by i this had".split()
_NUMBER_WORDS = sorted(ACTIVE_WORDS) + ["and", "double", "triple", "per", "percent", "cent"]
_NUMBER_WORDS += ["dollars", "pounds", "euro", "cents", "half", "and a half", "behalf"]
_MARKUP = ["hmm", "mm", "mhm", "um", "uh", "uh-huh", "mr", "mrs", "dr", "st", "gonna", "wanna"]
_MARKUP += ["imma", "shoulda", "won't", "it's", "y'all", "i'ma", "n't", "'s", "'d been"]
_BRITISH = sorted(en_v1._spellings())[::40]  # every 40th of OpenAI's ~1,700 spellings
#: Marks the short path turns into spaces, and those it must leave to the full path.
_MARKS = list('\t\n\r!"#&*+,-./:;=?@\\^`{|}~') + [". ", ".", "..", "...", "'", "_", "%"]
_MARKS += list("$()[]<>0123456789") + ["1,000", "3.5", "b747", "10th", "$5", "5%"]
_UNICODE = ["é", "\u0301", "’", "½", "²", "ß", "İ", "K", "ａｂｃ", "١", "€", "£", "¢", "æ"]
_HOSTILE = ["\x00", "\x1c", "\x0b", "\ud800", "\udfff", "\u2028", "\u202e", "\ufeff", "\u200d"]
_HOSTILE += ["x" * 5_000, "ka " * 2_000, "<" * 50, "(" * 30 + ")" * 30, "[a" * 40]

_TOKENS = st.one_of(
    st.sampled_from(_BENCH_WORDS + _COMMON),
    st.sampled_from(_NUMBER_WORDS),
    st.sampled_from(_MARKUP),
    st.sampled_from(_BRITISH),
    st.sampled_from(_MARKS),
    st.sampled_from(_UNICODE + _HOSTILE),
)
_SEPARATORS = st.sampled_from(["", " ", " ", " ", "  ", "\t", "\n", ", ", ". "])


_ORDINARY = st.sampled_from(_BENCH_WORDS + _COMMON)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    """A sentence of drawn tokens and separators, in lower, upper or title case: half of
    them ordinary words with at most two others, so that both sides of every border of
    the short paths are drawn often."""
    if draw(st.booleans()):
        tokens = draw(st.lists(_ORDINARY, max_size=12))
        for other in draw(st.lists(_TOKENS, max_size=2)):
            tokens.insert(draw(st.integers(0, len(tokens))), other)
    else:
        tokens = draw(st.lists(_TOKENS, max_size=18))
    text = "".join(token + draw(_SEPARATORS) for token in tokens)
    case = draw(st.sampled_from(["keep", "keep", "upper", "title"]))
    return text.upper() if case == "upper" else text.title() if case == "title" else text


_PLAIN_TEXTS = st.lists(_ORDINARY, min_size=1, max_size=25).map(" ".join)


def _full(text: str) -> str:
    """The view by every step in order, no short cut."""
    return " ".join(en_v1._every_step(text.lower()).split())


@settings(max_examples=1_500, derandomize=True, deadline=None)
@given(_texts())
def test_short_paths_equal_every_step(text: str) -> None:
    assert en_v1._normalize(text) == en_v1._every_step(text.lower())
    assert uncached_view(text) == _full(text)
    assert english_view(text) == _full(text)
    quick = en_v1._quick_view(text)
    assert quick is None or quick == _full(text)


@pytest.mark.skipif(ORACLE is None, reason=WHERE)
@settings(max_examples=1_000, derandomize=True, deadline=None)
@given(_texts())
def test_short_paths_equal_openai(text: str) -> None:
    assert ORACLE is not None
    expected = ORACLE(text)
    assert whisper_english(text) == expected
    assert english_view(text) == " ".join(expected.split())


@pytest.mark.skipif(ORACLE is None, reason=WHERE)
@settings(max_examples=300, derandomize=True, deadline=None)
@given(_PLAIN_TEXTS)
def test_bench_like_texts_take_the_quick_path_and_equal_openai(text: str) -> None:
    """The bench corpus's texts (lower-case invented words, a common word now and then,
    no number word): the quick path answers, and answers what OpenAI's code does."""
    assert ORACLE is not None
    assert en_v1._quick_view(text) == ORACLE(text).strip() == text


#: Spacing around and between words: none (words run together), one, several.
_SPACING = st.sampled_from(["", " ", " ", " ", " ", "  ", "   "])
#: What takes a lower-case text off the quick path: a word a step changes, a capital, a
#: mark, a digit, other whitespace, a non-ASCII letter.
_OFF_THE_QUICK_PATH = st.sampled_from(
    _NUMBER_WORDS + _MARKUP + _BRITISH + list("Ab.,'1\t\n-é\x00") + ["\ud800", "KALO"]
)


@st.composite
def _lower_case_texts(draw: st.DrawFn) -> str:
    """Lower-case ASCII words with any spacing at either edge and between words, now and
    then one thing that takes the text off the quick path: both sides of its border."""
    words = draw(st.lists(st.one_of(_ORDINARY, _ORDINARY, _OFF_THE_QUICK_PATH), max_size=15))
    return draw(_SPACING) + "".join(word + draw(_SPACING) for word in words)


@settings(max_examples=2_000, derandomize=True, deadline=None)
@given(_lower_case_texts())
def test_lower_case_texts_by_every_step(text: str) -> None:
    """The quick path's own branch for lower-case words (its space count stands in for
    a single-spacing scan) gives what every step in order gives."""
    quick = en_v1._quick_view(text)
    assert quick is None or quick == _full(text)
    assert english_view(text) == uncached_view(text) == _full(text)


@pytest.mark.skipif(ORACLE is None, reason=WHERE)
@settings(max_examples=1_000, derandomize=True, deadline=None)
@given(_lower_case_texts())
def test_lower_case_texts_equal_openai(text: str) -> None:
    assert ORACLE is not None
    assert english_view(text) == " ".join(ORACLE(text).split())


#: Every word the number reader has a kind for, and words it has none for.
_READER_WORDS = st.sampled_from(sorted(en_v1_numbers._KIND) + ["o", "a", "half", "cent", "th"])
_READER_TEXTS = st.lists(st.one_of(_READER_WORDS, _ORDINARY, st.sampled_from(_HOSTILE[:6])))
_READER_SENTENCES = st.lists(
    st.one_of(_READER_WORDS, _ORDINARY, st.sampled_from([*_HOSTILE[:6], "and a half"]))
).map(" ".join)


#: Number words among many others, as in a transcript: the reader reads around them.
_SPARSE_READER_TEXTS = st.lists(st.one_of(*[_ORDINARY] * 6, _READER_WORDS), max_size=40)


@settings(max_examples=3_000, derandomize=True, deadline=None)
@given(st.one_of(_READER_TEXTS, _SPARSE_READER_TEXTS))
def test_reading_around_number_words_is_reading_every_word(words: list[str]) -> None:
    """Digit-free words: the reader run only on the runs of number words (and the word
    after each) gives what it gives run on every word, however many number words."""
    expected = en_v1_numbers._read_numbers(words) if words else []
    at = en_v1_numbers._number_word_positions(words)
    assert at == [k for k, word in enumerate(words) if word in en_v1_numbers._KIND]
    assert en_v1_numbers._read_windows(words, at) == expected
    assert en_v1_numbers._read_digitless(words) == expected


@pytest.mark.skipif(ORACLE is None, reason=WHERE)
@settings(max_examples=1_500, derandomize=True, deadline=None)
@given(_READER_SENTENCES)
def test_number_word_texts_equal_openai(text: str) -> None:
    assert ORACLE is not None
    assert whisper_english(text) == ORACLE(text)
    assert english_view(text) == " ".join(ORACLE(text).split())


@settings(max_examples=2_000, derandomize=True, deadline=None)
@given(_READER_SENTENCES)
def test_letter_words_read_as_their_text(text: str) -> None:
    """The number reader given a plain text's words (`standardise_letter_words`, which
    skips the split and the digit test) reads what it reads from the text."""
    if en_v1._plain(text) == text:  # ASCII letters and spaces only
        expected = en_v1_numbers.standardise_numbers(text)
        assert en_v1_numbers.standardise_letter_words(text, text.split()) == expected


_DIGITS_AND_WORDS = st.text(st.sampled_from("1s1s 0a_é\u0661\u00b2x.,-"), max_size=14)


@settings(max_examples=3_000, derandomize=True, deadline=None)
@given(_DIGITS_AND_WORDS)
def test_digit_and_lone_one_scans_equal_their_plain_patterns(text: str) -> None:
    """The digit test and the lone-`1` rule, written for speed, match what `\\d` and
    OpenAI's `\\b1(s?)\\b` match, on ASCII and other digits, `_` and letters."""
    assert en_v1_numbers._has_digit(text) is (re.search(r"\d", text) is not None)
    lone_one = re.compile(r"\b1(s?)\b")
    assert en_v1_numbers._LONE_ONE.sub(en_v1_numbers._one, text) == lone_one.sub(r"one\1", text)


#: Every word some step of en-v1 reacts to, from the rule's own tables (not from the
#: quick path's set, which these tests check): number words, fillers, rewritten words,
#: British spellings, and the `and a half` rule.
_SPECIAL_WORDS = sorted(
    set(en_v1_numbers._KIND)
    | set(en_v1._WORD_REWRITES)
    | set(en_v1._spellings())
    | {"hmm", "mm", "mhm", "mmm", "uh", "um", "half", "a half", "and a half"}
)
_TEMPLATES = ("{}", "kalo {} renvo", "{}, kalo.", "Renvo {}!", "{} and a half", "KALO {}")


def _every_special_word() -> list[str]:
    return [t.format(w) for w in _SPECIAL_WORDS for t in _TEMPLATES]


def _every_ascii_char() -> list[str]:
    templates = ("kalo{}renvo", "kalo {} renvo", "{}kalo", "kalo{}", "{}", "kalo{}{}renvo")
    return [t.format(chr(c), chr(c)) for c in range(128) for t in templates]


@pytest.mark.parametrize("texts", [_every_special_word, _every_ascii_char])
def test_every_special_word_and_ascii_char_by_every_step(texts: Callable[[], list[str]]) -> None:
    """Each word a step reacts to and each ASCII character, among ordinary words, on
    both sides of the quick path's border: the short paths give what every step does."""
    wrong = [t for t in texts() if uncached_view(t) != _full(t) or english_view(t) != _full(t)]
    assert not wrong, wrong[:10]


@pytest.mark.skipif(ORACLE is None, reason=WHERE)
@pytest.mark.parametrize("texts", [_every_special_word, _every_ascii_char])
def test_every_special_word_and_ascii_char_equal_openai(texts: Callable[[], list[str]]) -> None:
    assert ORACLE is not None
    wrong = [t for t in texts() if whisper_english(t) != ORACLE(t)]
    assert not wrong, wrong[:10]


#: (text, view, whether the quick path answers it): checked against OpenAI's code too.
CASES = [
    ("Hello, World!", "hello world", True),
    ("A.B.C.", "a b c", True),
    ("e.g. this", "e g this", True),
    ("x+y=z", "x y z", True),
    ('He said "hi"', "he said hi", True),
    ("tab\there\nnew", "tab here new", True),
    ("On behalf of", "on behalf of", True),
    ("K", "k", True),  # the Kelvin sign folds to ASCII `k`
    ("The colour, please.", "the color please", False),  # a British spelling
    ("Twenty-five dollars.", "$25", False),
    ("two and a half", "2.5", False),
    ("and a half", "", False),  # a bare `and a half` at the start is dropped
    ("And a half kalo.", "kalo", False),
    ("kalo, and a half", "kalo and a half", False),
    ("ten per cent.", "10%", False),
    ("cost: five pounds", "cost £5", False),
    ("one", "one", False),  # OpenAI writes a lone 1 as `one`
    ("um, yes", "yes", False),
    ("uh-huh", "huh", False),
    ("Mr Smith", "mister smith", False),
    ("mr.smith", "mister smith", False),
    ("wanna go?", "want to go", False),
    ("a..b", "a b", False),  # the second period survives the period step
    ("colour...", "color .", False),
    ("...", ".", False),
    ("snake_case", "snake case", False),  # `_` is a word character to `\b`
    ("it's", "it is", False),
    ("\x1cup", "up", False),
    ("\x00a", "\x00a", False),
    ("\ud800 hi", "\ud800 hi", False),
    ("ａｂｃ", "abc", False),
    ("", "", True),
    (" ", "", True),
    ("-", "", True),
]


@pytest.mark.parametrize(("text", "view", "quick"), CASES)
def test_cases_by_hand(text: str, view: str, quick: bool) -> None:
    assert english_view(text) == view
    assert uncached_view(text) == view
    assert (en_v1._quick_view(text) is not None) is quick


@pytest.mark.skipif(ORACLE is None, reason=WHERE)
def test_cases_by_hand_equal_openai() -> None:
    assert ORACLE is not None
    assert [" ".join(ORACLE(text).split()) for text, _, _ in CASES] == [v for _, v, _ in CASES]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(_texts(), _texts())
def test_normalize_pair_is_both_views(reference: str, hypothesis: str) -> None:
    pairs = EnV1().normalize_pair(reference, hypothesis)
    assert pairs == {
        "raw": ViewPair(reference, hypothesis),
        "normalized": ViewPair(_full(reference), _full(hypothesis)),
    }


def test_identical_sides_and_already_normalised_pairs() -> None:
    pairs = EnV1().normalize_pair("Colour, please.", "Colour, please.")
    assert pairs["normalized"] == ViewPair("color please", "color please")
    pairs = EnV1().normalize_pair("kalo renvo", "kalo mi")
    assert pairs["normalized"] == pairs["raw"] == ViewPair("kalo renvo", "kalo mi")


def test_view_pairs_made_without_init_are_the_dataclass() -> None:
    """en-v1 makes its pairs by setting the slots (`_view_pair`): the same value, hash and
    immutability as `ViewPair(...)`, and every field set (a field added to `ViewPair`
    must be added there too)."""
    made, built = en_v1._view_pair("a b", "a"), ViewPair("a b", "a")
    assert type(made) is ViewPair
    assert (made, hash(made), repr(made)) == (built, hash(built), repr(built))
    assert [field.name for field in fields(ViewPair)] == ["reference", "hypothesis", "null_reason"]
    assert made.null_reason is None and made.available
    with pytest.raises(FrozenInstanceError):
        made.reference = "b"  # type: ignore[misc]


def test_the_word_tables_load_only_when_en_v1_normalises() -> None:
    """`import earmark` does not import en-v1, and importing it (every `earmark score`
    does, for its self-probes) builds no word table and imports no `fractions`: the
    spelling map and the quick path's word set load on the first text."""
    probe = (
        "import sys\n"
        "import earmark\n"
        "assert 'earmark.text.en_v1' not in sys.modules\n"
        "had_fractions = 'fractions' in sys.modules\n"
        "import earmark.text.en_v1 as m\n"
        "assert had_fractions or 'fractions' not in sys.modules\n"
        "assert m._spellings.cache_info().currsize == m._changers.cache_info().currsize == 0\n"
        "assert m.english_view('the colour') == 'the color'\n"
        "assert m._changers.cache_info().currsize == 1\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "ok"


def test_a_decimal_beyond_int_limit_is_a_user_error() -> None:
    """The decimal branch of the number reader (`Fraction`, imported late) still fails
    as OpenAI's code does, as an `EarmarkError`."""
    with pytest.raises(EarmarkError, match="en-v1 cannot normalise"):
        english_view("call " + "7" * 5000 + ".5")
    assert english_view("one point five and 2.50 dollars") == "one.5 and $2.50"
