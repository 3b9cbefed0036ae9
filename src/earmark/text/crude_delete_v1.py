"""`crude-delete-v1`: `crude-v1` with punctuation and symbols deleted instead of spaced.

`crude-v1` turns every punctuation mark and symbol into a space, so `don't` scores as two
words; a toolchain that deletes punctuation (`don't` -> `dont`) gets another word count.
This is that variant, under its own name so neither ever changes meaning.

Rules, in order (steps 1, 2, 3 and 5 are crude-v1's but for the deletion):

1. NFKC.
2. Lower-case (`str.lower`).
3. Each character becomes:
   - kept if it is a letter (L*), a number (N*), a combining mark (M*) or whitespace;
   - **deleted** if it is punctuation (P*) or a symbol (S*): `don't` -> `dont`,
     `well-known` -> `wellknown`, `a,b` -> `ab`, `$5` -> `5`, `ok👍yes` -> `okyes`;
   - deleted if it is an invisible unit (format characters, variation selectors, the
     combining grapheme joiner: `earmark.text.invisible`), as in crude-v1;
   - otherwise (controls that are not whitespace, private use, unassigned) a space, as
     in crude-v1.
4. NFKC again: a deletion can bring a letter and a mark together (`e'` + U+0301 -> `é`,
   composed), so normalising the view again changes nothing.
5. Whitespace collapsed to single spaces, ends stripped; combining marks left at the
   start of a word are dropped (a mark whose base was deleted inside a word now sits on
   the letter before it, as in every view without the deleted character).

`Hello, World! Don't` -> `hello world dont`. Comparison only, like crude-v1.
"""

from __future__ import annotations

import unicodedata

from earmark.text.base import Unit, ViewPair
from earmark.text.codepoint_table import Entry, LazyTranslation, category, is_whitespace
from earmark.text.invisible import is_invisible, join_words
from earmark.text.registry import register


def _entry(code_point: int) -> Entry:
    major = category(code_point)
    if is_whitespace(code_point):
        return code_point
    if is_invisible(code_point):
        return " " if major == "Cc" else None
    if major[0] in "LMN":
        return code_point
    return None if major[0] in "PS" else " "


_TABLE = LazyTranslation(_entry)


def crude_delete_view(text: str) -> str:
    """The `normalized` view of one text."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    # A deletion can bring a letter and a mark together (`e'` + U+0301 -> `é`): composed
    # again, so the view is NFKC and normalising it twice changes nothing.
    return join_words(unicodedata.normalize("NFKC", lowered.translate(_TABLE)).split())


@register
class CrudeDeleteV1:
    """Cross-language comparison normalisation that deletes punctuation; frozen."""

    __slots__ = ()

    name: str = "crude-delete-v1"
    description: str = (
        "crude-v1 with punctuation and symbols deleted instead of turned into spaces "
        "(NFKC, lower-case, `don't` -> `dont`; invisible units dropped): for comparing "
        "arms on identical audio, not for publishing absolute WER."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = True

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(crude_delete_view(reference), crude_delete_view(hypothesis)),
        }
