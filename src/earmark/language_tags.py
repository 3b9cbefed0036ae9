"""Language tags as corpora write them (`zh-CN`, `ga_IE`, `EN`) reduced to what earmark keys on.

Manifests and prediction files carry BCP-47-ish tags; normaliser policies, per-language
report filters and engines want the primary subtag only. Two questions, two functions:
`base_language` ("which language is this row in", "" when unknown) and
`engine_language` (which hint to hand an engine, None for "detect it yourself").
The `by_language` blocks of results.json are keyed by the row's tag as written (or
`und`), not by either of these.

A three-letter ISO 639-2/3 code names the same language as its two-letter ISO 639-1 code
(`eng` is `en`, `gle` is `ga`, `zho` and Mandarin's `cmn` are `zh`), so both get the same
normaliser; the mapping is langcodes' (a maintained BCP 47 library), with individual
languages folded into their macrolanguage as BCP 47 prefers (`cmn` into `zh`). A
two-letter primary subtag is kept as written (lower-cased): deprecated ones such as `iw`
or `tl` stay what they were, so no released figure changes. A code with no two-letter
equivalent (`yue`, `nan`, `fil`) stays itself.
"""

from __future__ import annotations

import functools

#: ISO 639 codes that name no single language: undetermined, multiple, no linguistic content.
NO_SINGLE_LANGUAGE = frozenset({"und", "mul", "zxx"})


def base_language(tag: str | None) -> str:
    """The primary subtag, lower-cased; "" for a missing or empty tag.

    >>> base_language("zh-CN"), base_language("ga_IE"), base_language("EN"), base_language(None)
    ('zh', 'ga', 'en', '')
    >>> base_language("eng"), base_language("gle-IE"), base_language("cmn-Hans")
    ('en', 'ga', 'zh')
    """
    if not tag:
        return ""
    primary = tag.replace("_", "-").split("-")[0].lower()
    if len(primary) == 3 and primary.isascii() and primary.isalpha():
        return _two_letter(primary)
    return primary


@functools.cache
def _two_letter(code: str) -> str:
    """The ISO 639-1 code of a three-letter code, or the code itself when it has none
    (or names no language: `und`, `mul`, `zxx`, the private-use `qaa`-`qtz`)."""
    import langcodes  # imported here: only three-letter tags need it

    try:
        language = langcodes.Language.get(langcodes.standardize_tag(code, macro=True)).language
    except ValueError:  # langcodes.LanguageTagError
        return code
    if language is None or len(language) != 2:
        return code
    return language


def engine_language(tag: str | None) -> str | None:
    """The language hint for an engine: the primary subtag, or None (let the engine detect
    it) for a missing tag and for `und`, `mul` and `zxx`, which name no language to force.

    >>> engine_language("zh-CN"), engine_language("und"), engine_language("")
    ('zh', None, None)
    """
    if not tag or tag in NO_SINGLE_LANGUAGE:
        return None
    return base_language(tag)
