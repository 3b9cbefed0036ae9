"""en-v1: OpenAI Whisper's English normaliser, pinned by hand-checked cases.

These run without the oracle; `test_en_v1_differential.py` compares with OpenAI's code.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from importlib.resources import files

import pytest

from earmark.errors import EarmarkError
from earmark.text import ViewPair, get_normalizer, normalize_text
from earmark.text.en_v1 import engine_version, english_view, whisper_english

EN = get_normalizer("en-v1")

#: openai/whisper `tests/test_normalizer.py`: its number, spelling and text cases, with
#: the outputs that file asserts for `EnglishTextNormalizer`.
WHISPER_REPOSITORY_CASES: list[tuple[str, str]] = [
    ("two", "2"),
    ("thirty one", "31"),
    ("five twenty four", "524"),
    ("nineteen ninety nine", "1999"),
    ("twenty nineteen", "2019"),
    ("two point five million", "2500000"),
    ("four point two billions", "4200000000s"),
    ("200 thousand", "200000"),
    ("200 thousand dollars", "$200000"),
    ("$20 million", "$20000000"),
    ("€52.4 million", "€52400000"),
    ("£77 thousands", "£77000s"),
    ("two double o eight", "2008"),
    ("three thousand twenty nine", "3029"),
    ("forty three thousand two hundred sixty", "43260"),
    ("forty three thousand two hundred and sixty", "43260"),
    ("nineteen fifties", "1950s"),
    ("thirty first", "31st"),
    ("thirty three thousand and three hundred and thirty third", "33333rd"),
    ("three billion", "3000000000"),
    ("millions", "1000000s"),
    ("july third twenty twenty", "july 3rd 2020"),
    ("august twenty sixth twenty twenty one", "august 26th 2021"),
    ("3 14", "3 14"),
    ("3.14", "3.14"),
    ("3 point 2", "3.2"),
    ("3 point 14", "3.14"),
    ("fourteen point 4", "14.4"),
    ("two point two five dollars", "$2.25"),
    ("two hundred million dollars", "$200000000"),
    ("$20.1 million", "$20100000"),
    ("ninety percent", "90%"),
    ("seventy six per cent", "76%"),
    ("double oh seven", "007"),
    ("double zero seven", "007"),
    ("nine one one", "911"),
    ("nine double one", "911"),
    ("one triple oh one", "10001"),
    ("two thousandth", "2000th"),
    ("thirty two thousandth", "32000th"),
    ("minus 500", "-500"),
    ("positive twenty thousand", "+20000"),
    ("two dollars and seventy cents", "$2.70"),
    ("3 cents", "¢3"),
    ("$0.36", "¢36"),
    ("three euros and sixty five cents", "€3.65"),
    ("three and a half million", "3500000"),
    ("forty eight and a half dollars", "$48.5"),
    ("b747", "b 747"),
    ("10 th", "10th"),
    ("10th", "10th"),
    ("mobilisation", "mobilization"),
    ("cancelation", "cancellation"),
    ("Let's", "let us"),
    ("he's like", "he is like"),
    ("she's been like", "she has been like"),
    ("10km", "10 km"),
    ("10mm", "10 mm"),
    ("RC232", "rc 232"),
    (
        "Mr. Park visited Assoc. Prof. Kim Jr.",
        "mister park visited associate professor kim junior",
    ),
]


@pytest.mark.parametrize(("text", "expected"), WHISPER_REPOSITORY_CASES)
def test_whisper_repository_cases(text: str, expected: str) -> None:
    assert english_view(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I won't go, it's late.", "i will not go it is late"),
        ("The colour of the centre", "the color of the center"),
        ("twenty-five dollars", "$25"),
        ("one hundred and one", "101"),
        ("Mr. Smith, uh, left.", "mister smith left"),
        ("  spaced \t out  ", "spaced out"),
    ],
)
def test_hand_checked(text: str, expected: str) -> None:
    assert normalize_text("en-v1", text)["normalized"] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # whisper-normalizer (PyPI) rewrote these; OpenAI's normaliser does not
        ("the cause of death", "the cause of death"),
        ("I kinda sorta dunno", "i kinda sorta dunno"),
        ("'Cause I said so", "cause i said so"),
    ],
)
def test_no_rules_beyond_openais(text: str, expected: str) -> None:
    assert english_view(text) == expected


@pytest.mark.parametrize(
    ("text", "raw", "view"),
    [
        # OpenAI's behaviour, odd as it is, is the contract
        ("$1", " one", "one"),  # `1` -> `one`, then `$` before a letter is dropped
        ("1.5", "one.5", "one.5"),
        ("costs $", "costs $", "costs $"),  # a final `$` has nothing after it to test
        ("the point and", "the and", "the and"),  # `point` before a number word vanishes
        ("archaeology", "archeology</span>", "archeology</span>"),  # the map's own typo
        ("minus and", "-and", "-and"),
        ("$ 5", " 5", "5"),  # OpenAI's output can start with a space; the view trims it
        ("he'dn't", "he would not", "he would not"),  # `n't` first, then `'d`
        ("he's gotta", "he has got to", "he has got to"),  # `gotta` first, then `'s got`
        ("and a half", "", ""),
        ("٣ and ۵", "3 and 5", "3 and 5"),  # any Unicode digit is read as a number
    ],
)
def test_openai_quirks_kept(text: str, raw: str, view: str) -> None:
    assert (whisper_english(text), english_view(text)) == (raw, view)


def test_both_sides_normalised() -> None:
    assert EN.normalize_pair("It's the colour.", "it is the color")["normalized"] == ViewPair(
        "it is the color", "it is the color"
    )


def test_engine_version_names_the_whisper_release() -> None:
    assert engine_version() == "20250625"


def test_bundled_spelling_map_is_openais() -> None:
    data = files("earmark.text").joinpath("en_v1_spellings.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == (
        "6607f948be9824d2e1b2fa2223cd94c06c45afa4e05ea0e3d5e1f2bdffde2465"
    )


def test_number_beyond_int_limit_is_a_user_error() -> None:
    with pytest.raises(EarmarkError, match="en-v1 cannot normalise"):
        english_view("call " + "7" * 5000)


def test_needs_no_third_party_package() -> None:
    probe = (
        "import sys\n"
        "from earmark.text.en_v1 import english_view\n"
        "assert english_view('Twenty-five colours') == '25 colors'\n"
        "print(sorted(m for m in ('whisper_normalizer', 'whisper', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_spellings_hold_no_stray_whitespace() -> None:
    """`english_view` re-splits its text only where a double or edge space shows: that is
    exact only while every American spelling is non-empty and single-spaced."""
    from earmark.text.en_v1 import _spellings

    values = list(_spellings().values())
    assert values and all(v and v == " ".join(v.split()) for v in values)


def test_normalized_view_is_single_spaced_after_symbol_steps() -> None:
    """The last steps of `_normalize` add spaces (`$` before a non-digit, `%` after one):
    the view is still split and re-joined there, as OpenAI's output stripped is."""
    from earmark.text.en_v1 import english_view, whisper_english

    for text in ("pay $ now", "100 % sure", "a . b", "costs $x and 5 %y", "  lead\tand trail  "):
        assert english_view(text) == " ".join(whisper_english(text).split())
        assert "  " not in english_view(text)
