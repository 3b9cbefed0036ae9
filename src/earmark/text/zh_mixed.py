"""The text Mandarin's mixed unit is counted on: `zh-eval-v1`'s `normalized` view with
the spaces between words kept.

`zh-eval-v1` removes every space, which is right for characters but merges English words
(`MacBook Pro` -> `macbookpro`): counted as mixed units that would be one word instead of
two. So each whitespace-separated chunk of the raw text gets the `normalized` rules on its
own, and the chunks are joined by one space. With the spaces taken out again, the text is
exactly the `normalized` view (except a combining mark that a space separated from its
base), so mixed units and CER count the same content: `我用 iPhone 拍照。` ->
`我用 iphone 拍照` -> units `我 用 iphone 拍 照`.
"""

from __future__ import annotations

from collections.abc import Callable

from earmark.text.base import ViewPair
from earmark.text.zh_eval_v1 import normalized_view

#: Stands for a space while a view runs (the views remove whitespace but keep private-use
#: code points), so a text is normalised in one call instead of one per chunk.
_BOUNDARY = "\U0010fffd"


def spaced(view: Callable[[str], str], text: str) -> str:
    """`view` applied to each whitespace-separated chunk of `text`, chunks joined by a space.

    `view` must keep U+10FFFD (private use) and never join text across it.
    """
    if _BOUNDARY in text:
        return " ".join(part for part in map(view, text.split()) if part)
    return " ".join(part for part in view(_BOUNDARY.join(text.split())).split(_BOUNDARY) if part)


def spaced_normalized_view(text: str) -> str:
    """`zh-eval-v1`'s `normalized` view with word boundaries kept.

    >>> spaced_normalized_view("我用 MacBook Pro，拍照。")
    '我用 macbook pro拍照'
    """
    return spaced(normalized_view, text)


def mixed_pair(reference: str, hypothesis: str) -> ViewPair:
    """Both sides' text for the mixed unit under `zh-eval-v1`."""
    return ViewPair(spaced_normalized_view(reference), spaced_normalized_view(hypothesis))
