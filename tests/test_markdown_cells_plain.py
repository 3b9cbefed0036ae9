"""`md_text`'s regex-free path for plain cells gives what the escaping path gives.

A results.md of 10,000 speakers holds 40,000 cells of ids, counts and rates; they skip the
regexes only when the escaping path would return them unchanged. The escaping path is the
oracle, on hostile text built from exactly the characters its rules look at.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.markdown_cells import _escaped, _is_plain, md_text

# Every character a rule of `_escaped` looks at, digits of other scripts, spaces of
# several kinds, and plain letters.
_ALPHABET = list("0123456789.)(%[]_#-+*~|`\\&<> \t\u00a0\u2003\x1f\n\r\v\f\x85\u2028aZé") + [
    "\u0663",  # ARABIC-INDIC DIGIT THREE: `\d` matches it
    "\uff11",  # FULLWIDTH DIGIT ONE
    "\ud800",  # a lone surrogate
    "\x00",
]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=14))
def test_plain_path_agrees_with_the_escaping_path(text: str) -> None:
    assert md_text(text) == _escaped(text)
    if _is_plain(text):
        assert _escaped(text) == text


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("1", True),
        ("17.1% [16.0, 18.2]", True),
        ("und / utt0000001", True),
        ("n/a", True),
        ("", True),
        ("1.", False),  # a numbered-list marker
        ("1) x", False),
        ("123456789. x", False),
        ("1234567890. x", True),  # ten digits start no list
        ("\u0663. x", False),
        ("1\u0663. x", False),
        (" 1", False),
        ("1 ", False),
        ("a_b", False),
        ("x]", True),
        ("x](y)", False),
        ("[x]: y", False),
        ("- x", False),
        ("# x", False),
    ],
)
def test_plain_cells(text: str, plain: bool) -> None:
    assert _is_plain(text) is plain
    assert md_text(text) == _escaped(text)


def test_non_strings_are_written_as_str() -> None:
    assert md_text(12) == "12"
    assert md_text(None) == "None"
    assert md_text(1.5) == "1.5"
