"""Per-code-point translation tables for `str.translate`, filled on first use.

The normalisers classify characters by Unicode general category (punctuation `P*`,
format `Cf`, ...). Building a table over all 1.1 million code points at import would cost
~0.1 s, so each table computes a code point's entry the first time it is seen and keeps
it: the entry depends only on the code point (and the Unicode version of `unicodedata`),
so the cache never changes behaviour, only speed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping

#: What a code point becomes: itself or another code point (int), a string, or nothing.
Entry = int | str | None


class LazyTranslation(dict[int, Entry]):
    """A `str.translate` table whose entries come from `rule(code_point)`, memoised.

    `fixed` entries are set up front and win over the rule.
    """

    __slots__ = ("_rule",)

    def __init__(self, rule: Callable[[int], Entry], fixed: Mapping[int, Entry] | None = None):
        super().__init__(fixed or {})
        self._rule = rule

    def __missing__(self, code_point: int) -> Entry:
        entry = self._rule(code_point)
        self[code_point] = entry
        return entry


def category(code_point: int) -> str:
    """The Unicode general category of a code point, e.g. `Po`, `Lu`, `Mn`."""
    return unicodedata.category(chr(code_point))


def is_punctuation(code_point: int) -> bool:
    """Unicode general category P* (Pc Pd Ps Pe Pi Pf Po)."""
    return unicodedata.category(chr(code_point))[0] == "P"


def is_whitespace(code_point: int) -> bool:
    """Python's `str.isspace`, the same test `str.split()` uses to cut words."""
    return chr(code_point).isspace()
