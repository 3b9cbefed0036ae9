"""`ga-v1`: Irish-aware normalisation (BlasBench, seed 003 §2.4), scored in words and chars.

Irish spelling carries grammar: fadas (`fear` "man" / `féar` "grass"), lenition (`bean`
-> `bhean`) and eclipsis (`bean` -> `mbean`, `Gaillimh` -> `i nGaillimh`) are contrasts a
normaliser must keep, and the `t-`/`n-` prefixes before vowels must neither be lost nor
turn one word into two. Rules, in order:

1. NFC, never NFD/NFKD, so `á é í ó ú` are single code points and survive:
   `a` + U+0301 -> `á`.
2. Mutation prefixes before a capital vowel get their lower-case hyphen: a word-initial
   lower-case `t` or `n` directly followed by `A E I O U Á É Í Ó Ú` takes a hyphen,
   which is how the same word is spelt in lower case: `an tAthair` -> `an t-athair`
   (same as `an t-athair`), `i nÉirinn` -> `i n-éirinn` (same as `i n-Éirinn`).
   Other prefixes need no hyphen and only lose their capital's case: `na hÉireann` ->
   `na héireann`, `i nGaillimh` -> `i ngaillimh`, `an tSeachtain` -> `an tseachtain`,
   `bhFrainc` -> `bhfrainc`; `bhean`, `mbean` keep their prefix letters.
3. Lower-case (`str.lower`).
4. Apostrophes and hyphens inside a word are part of it and are unified: `’ ‘ ʼ ＇` ->
   `'` and `‐ ‑ －` -> `-`, so `d’athair` = `d'athair` and `t-athair` stay one word each.
   At a word's edge they are quotes or dashes and become spaces: `'sea'` -> `sea`,
   `fear - bean` -> `fear bean`.
5. `.`, `,` and `:` between two digits stay (`3.5`, `1,000`, `10:30` remain one word);
   elsewhere they, and all other punctuation (Unicode P*), become spaces, so removing
   punctuation never merges two words: `fear,féar` -> `fear féar`, `(athair)` -> `athair`.
6. Invisible units (`earmark.text.invisible`: format characters Cf such as the soft
   hyphen, zero-width joiners, BOM and bidi marks; variation selectors; the combining
   grapheme joiner) are removed; other control characters become spaces; symbols
   (S*: `€ % + =`...) are kept.
7. Whitespace collapsed to single spaces, ends stripped; combining marks left at the
   start of a word (their base was punctuation, now a space) are dropped.

`Tá an tAthair i nÉirinn, ach d’fhág sé Gaillimh.` ->
`tá an t-athair i n-éirinn ach d'fhág sé gaillimh`.

BlasBench's own normaliser (registered here as `blasbench-ga-v1`: NFC, lower-case, delete
`[^\\w\\s]`) differs: it deletes apostrophes and hyphens (`d'athair` -> `dathair`,
`t-athair` -> `tathair`), deletes symbols and does not relate `tAthair` to `t-athair`;
`ga-v1` numbers are therefore not identical to the paper's. `GaV1.published_differences`
lists the differences; `earmark normalizers show ga-v1` prints them, and every result
block scored with `ga-v1` carries them (use `--protocol blasbench-v1` to reproduce the
paper's figures).
"""

from __future__ import annotations

import re
import unicodedata

from earmark.text.base import PublishedDifference, Unit, ViewPair
from earmark.text.codepoint_table import Entry, LazyTranslation, category, is_whitespace
from earmark.text.invisible import is_invisible, join_words
from earmark.text.registry import register

_APOSTROPHES = "'\u2019\u2018\u02bc\uff07"
_HYPHENS = "-\u2010\u2011\uff0d"
_DIGIT_SEPARATORS = ".,:"

_MUTATION_PREFIX = re.compile(r"(?<!\w)([tn])(?=[AEIOUÁÉÍÓÚ])")
#: Apostrophes/hyphens not between two word characters; `. , :` not between two digits.
_STRAY_MARKS = re.compile(r"(?<!\w)['-]+|['-]+(?!\w)|(?<!\d)[.,:]|[.,:](?!\d)")


def _entry(code_point: int) -> Entry:
    char = chr(code_point)
    if char in _APOSTROPHES:
        return "'"
    if char in _HYPHENS:
        return "-"
    if char in _DIGIT_SEPARATORS or is_whitespace(code_point):
        return code_point
    major = category(code_point)
    if is_invisible(code_point):
        return " " if major == "Cc" else None
    if major[0] == "P":
        return " "
    return code_point


_TABLE = LazyTranslation(_entry)


def irish_view(text: str) -> str:
    """The `normalized` view of one text."""
    text = _MUTATION_PREFIX.sub(r"\1-", unicodedata.normalize("NFC", text))
    text = _STRAY_MARKS.sub(" ", text.lower().translate(_TABLE))
    return join_words(text.split())


BLASBENCH_DIFFERENCE = PublishedDifference(
    publication="BlasBench (seed 003, arXiv 2604.10736), Irish normaliser",
    normalizer="blasbench-ga-v1",
    protocol="blasbench-v1",
    languages=("ga",),
    differences=(
        "apostrophes: ga-v1 keeps a word-internal apostrophe (d'fhág); BlasBench deletes "
        "it (dfhág)",
        "hyphens: ga-v1 keeps a word-internal hyphen (t-oileán); BlasBench deletes it (toileán)",
        "capital after a mutation prefix: ga-v1 writes tAthair/nÉirinn as t-athair/n-éirinn; "
        "BlasBench lower-cases them to tathair/néirinn",
        "punctuation between words: ga-v1 turns it into a space (fear,féar -> fear féar); "
        "BlasBench deletes it, joining the words (fearféar)",
        "digit separators: ga-v1 keeps . , : between digits (3.5, 10:30); BlasBench deletes "
        "them (35, 1030)",
        "symbols: ga-v1 keeps them (€ + =); BlasBench deletes every non-word character",
    ),
    example=("D'fhág sé an t-oileán", "dfhág sé an toileán"),
)


@register
class GaV1:
    """Irish-aware normalisation `ga-v1` (seed 003); frozen."""

    __slots__ = ()

    name: str = "ga-v1"
    description: str = (
        "Irish-aware: NFC (fadas kept), tAthair/nÉirinn lower-cased as t-athair/n-éirinn, "
        "lenition and eclipsis kept, word-internal apostrophes and hyphens kept, other "
        "punctuation to spaces (never merging words), whitespace collapsed."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = False
    published_differences: tuple[PublishedDifference, ...] = (BLASBENCH_DIFFERENCE,)

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(irish_view(reference), irish_view(hypothesis)),
        }
