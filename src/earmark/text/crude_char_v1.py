"""`crude-char-v1`: `crude-v1` for languages written without spaces between words,
scored in characters first.

Japanese, Thai, Lao, Khmer and Burmese put no space between words (Thai and Lao space
phrases, not words). Split on spaces, a "word" is a phrase or a whole sentence, and one
wrong kana makes it wrong: `今日は晴れです` vs `今日は晴れでず` is a crude-v1 WER of 100%
where the CER is 1/7 (14%). `--normalizer auto` therefore scores these
languages with this normaliser, whose headline unit is the character.

Views:

- `raw`: the text exactly as given.
- `spaced`: `crude-v1`'s `normalized` view exactly (NFKC, lower-case, punctuation and
  symbols to spaces, invisible units dropped); its WER equals crude-v1's WER.
- `normalized` (primary): `spaced` with every space removed, so neither the spaces a
  writer puts between phrases nor the ones punctuation left behind count as characters:
  `今日は、晴れ。` -> `今日は晴れ`. Its word count is one per utterance: read WER on
  `spaced`.

Units: character (the headline), then word. Like crude-v1 it is comparison-only.
"""

from __future__ import annotations

from earmark.text.base import Unit, ViewPair
from earmark.text.crude_v1 import crude_view
from earmark.text.registry import register


def unspaced_view(text: str) -> str:
    """The `normalized` view of one text.

    >>> unspaced_view("今日は、ＡＢＣ天気。")
    '今日はabc天気'
    """
    return "".join(crude_view(text).split())


@register
class CrudeCharV1:
    """`crude-v1` scored in characters without spaces, `crude-char-v1`; frozen."""

    __slots__ = ()

    name: str = "crude-char-v1"
    description: str = (
        "crude-v1 for languages without spaces between words (ja, th, lo, km, my): "
        "headline CER on crude-v1's text with spaces removed; WER on the spaced view. "
        "Comparison-only, like crude-v1."
    )
    views: tuple[str, ...] = ("raw", "spaced", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("char", "word")
    comparison_only: bool = True
    #: Why the character is the headline unit (copied into each result's normaliser block).
    headline_unit_reason: str = (
        "written without spaces between words: a space-split word is a phrase or a whole "
        "sentence, so the character is the headline unit"
    )

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        ref_spaced, hyp_spaced = crude_view(reference), crude_view(hypothesis)
        return {
            "raw": ViewPair(reference, hypothesis),
            "spaced": ViewPair(ref_spaced, hyp_spaced),
            "normalized": ViewPair("".join(ref_spaced.split()), "".join(hyp_spaced.split())),
        }
