"""`blasbench-ga-v1`: BlasBench's own Irish normaliser, exactly (seed 003 §2.4).

For reproducing the paper's figures (`--protocol blasbench-v1`). Rules, in order, as the
benchmark's `IrishNormalizer` applies them:

1. NFC (fadas become single code points and survive).
2. `str.lower`.
3. Delete every character that is neither a word character nor whitespace: Python `re`
   `[^\\w\\s]` (so apostrophes, hyphens, punctuation, symbols, format characters and
   combining marks that NFC could not compose are *deleted*, not turned into spaces).
4. `_` (a word character to `re`) becomes a space.
5. Every whitespace run becomes one space; ends stripped.

`D'fhág sé an t-oileán.` -> `dfhág sé an toileán`; `fear,féar` -> `fearféar`;
`an tAthair` -> `an tathair`.

It differs from earmark's `ga-v1` in ways that change WER (`earmark normalizers show
ga-v1` lists them); it is kept verbatim so that a figure labelled BlasBench is one.
Deleting `[^\\w\\s]` leaves no invisible unit (`earmark.text.invisible`) in the view.
"""

from __future__ import annotations

import re
import unicodedata

from earmark.text.base import Unit, ViewPair
from earmark.text.registry import register

_NON_WORD = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


def blasbench_view(text: str) -> str:
    """The `normalized` view of one text."""
    text = unicodedata.normalize("NFC", text).lower()
    text = _NON_WORD.sub("", text).replace("_", " ")
    return _SPACES.sub(" ", text).strip()


@register
class BlasBenchGaV1:
    """BlasBench's Irish normaliser `blasbench-ga-v1` (seed 003); frozen."""

    __slots__ = ()

    name: str = "blasbench-ga-v1"
    description: str = (
        "BlasBench's Irish rule, verbatim: NFC, lower-case, delete every character that is "
        "neither word nor whitespace (apostrophes and hyphens too: t-oileán -> toileán), "
        "_ to space, whitespace collapsed. For reproducing the paper (--protocol "
        "blasbench-v1)."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = False

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(blasbench_view(reference), blasbench_view(hypothesis)),
        }
