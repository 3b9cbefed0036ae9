"""Language tags as corpora write them (`zh-CN`, `ga_IE`, `EN`) reduced to what earmark keys on.

Manifests and prediction files carry BCP-47-ish tags; normaliser policies, per-language
report filters and engines want the primary subtag only. Two questions, two functions:
`base_language` ("which language is this row in", "" when unknown) and
`engine_language` (which hint to hand an engine, None for "detect it yourself").
The `by_language` blocks of results.json are keyed by the row's tag as written (or
`und`), not by either of these.
"""

from __future__ import annotations

#: ISO 639 codes that name no single language: undetermined, multiple, no linguistic content.
NO_SINGLE_LANGUAGE = frozenset({"und", "mul", "zxx"})


def base_language(tag: str | None) -> str:
    """The primary subtag, lower-cased; "" for a missing or empty tag.

    >>> base_language("zh-CN"), base_language("ga_IE"), base_language("EN"), base_language(None)
    ('zh', 'ga', 'en', '')
    """
    if not tag:
        return ""
    return tag.replace("_", "-").split("-")[0].lower()


def engine_language(tag: str | None) -> str | None:
    """The language hint for an engine: the primary subtag, or None (let the engine detect
    it) for a missing tag and for `und`, `mul` and `zxx`, which name no language to force.

    >>> engine_language("zh-CN"), engine_language("und"), engine_language("")
    ('zh', None, None)
    """
    if not tag or tag in NO_SINGLE_LANGUAGE:
        return None
    return base_language(tag)
