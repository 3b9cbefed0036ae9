"""How text becomes scoring units. One convention, stated in every result.

- word units: whitespace-split tokens.
- char units: every code point of the view's text, spaces included. Space-delimited views
  collapse whitespace to single spaces, so the space between words counts as one character
  (the jiwer/BlasBench convention); `zh-eval-v1` views other than `raw` remove whitespace.
"""

from __future__ import annotations

CHAR_CONVENTION = "code points of the view text; a space between words counts as one character"
WORD_CONVENTION = "whitespace-separated tokens"


def words(text: str) -> list[str]:
    return text.split()


def chars(text: str) -> list[str]:
    return list(text)
