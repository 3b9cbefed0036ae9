"""`crude-v1`: a deliberately crude cross-language normalisation, for comparing arms only.

For measuring whether two systems (e.g. two weight types of one model) transcribe the
*same audio* differently, in any language. Its absolute WER is not comparable with
published figures, hence `comparison_only = True`.

Rules, in order:

1. NFKC (full-width forms, ligatures, superscripts... to their plain forms: `ﬁ` -> `fi`,
   `²` -> `2`, `１２` -> `12`).
2. Lower-case (`str.lower`, every script).
3. Each character becomes:
   - kept if it is a letter (L*), a number (N*) or whitespace;
   - kept if it is a combining mark (M*): marks are part of the letter they sit on
     (Devanagari vowel signs, Arabic harakat, Thai vowels), and turning them into spaces
     would split words: `नमस्ते` stays one word;
   - removed if it is a format character (Cf: zero-width joiner/non-joiner, soft hyphen,
     byte-order mark, bidi marks), a variation selector or the combining grapheme joiner
     (`earmark.text.invisible`): they are invisible and word-internal (`می‌خواهم` stays
     one word, `❤️` loses its U+FE0F);
   - otherwise (punctuation P*, symbols S*, controls) a space: `don't` -> `don t`,
     `a,b` -> `a b`, `$5` -> `5`, `👍` -> ` `.
4. Whitespace collapsed to single spaces, ends stripped; combining marks left at the
   start of a word (their base was punctuation or a symbol, now a space) are dropped, and
   a word made only of them disappears: `👍️ ok` -> `ok`, never a word made of U+FE0F.

`Hello, World! ＡＢＣ` -> `hello world abc`.

Punctuation is *replaced by a space*, not deleted (as Whisper's basic normaliser does), so
a mark inside a word splits it: `don't` is two words, `well-known` two. `crude-delete-v1`
is the variant that deletes punctuation and symbols instead (`dont`, `wellknown`).
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
    return " "


_TABLE = LazyTranslation(_entry)


def crude_view(text: str) -> str:
    """The `normalized` view of one text."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    return join_words(lowered.translate(_TABLE).split())


@register
class CrudeV1:
    """Cross-language comparison normalisation `crude-v1` (seed 002); frozen."""

    __slots__ = ()

    name: str = "crude-v1"
    description: str = (
        "Crude cross-language normalisation (NFKC, lower-case, every non-letter/number "
        "character to a space; combining marks kept on their letter; invisible units "
        "dropped): for comparing arms on identical audio, not for publishing absolute WER."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = True

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(crude_view(reference), crude_view(hypothesis)),
        }
