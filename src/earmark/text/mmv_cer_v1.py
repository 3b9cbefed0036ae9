"""`mmv-cer-v1`: the character-error normalisation of the mmv-voice punctuation study
(seed 001, "Metric definition"), exactly.

For reproducing that study's CER (`--protocol mmv-punct-v024`). Rules, in order:

1. NFKC (full-width forms, compatibility characters to their plain forms).
2. Lower-case (`str.lower`, every script).
3. Remove every punctuation character (Unicode general category P*) and every whitespace
   character (`str.isspace`); symbols (S*) and everything else are kept.

Scored in characters only (Mandarin has no word segmentation).
`ＡＢＣ，你好　世界。` -> `abc你好世界`.

It differs from `zh-eval-v1` (width folding only, no NFKC; Latin-only lower-casing;
invisible units dropped) because the study defined its own rule; the rule is kept
verbatim, so format characters such as ZWSP, which the study did not remove, still count
as characters here.
"""

from __future__ import annotations

import unicodedata

from earmark.text.base import Unit, ViewPair
from earmark.text.codepoint_table import Entry, LazyTranslation, category, is_whitespace
from earmark.text.registry import register


def _entry(code_point: int) -> Entry:
    if is_whitespace(code_point) or category(code_point)[0] == "P":
        return None
    return code_point


_TABLE = LazyTranslation(_entry)


def mmv_cer_view(text: str) -> str:
    """The `normalized` view of one text."""
    return unicodedata.normalize("NFKC", text).lower().translate(_TABLE)


@register
class MmvCerV1:
    """The seed-001 CER normalisation `mmv-cer-v1`; frozen."""

    __slots__ = ()

    name: str = "mmv-cer-v1"
    description: str = (
        "The mmv-voice punctuation study's CER rule (seed 001), verbatim: NFKC, lower-case, "
        "Unicode punctuation (P*) and whitespace removed; characters only. For reproducing "
        "that study (--protocol mmv-punct-v024)."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("char",)
    comparison_only: bool = False

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(mmv_cer_view(reference), mmv_cer_view(hypothesis)),
        }
