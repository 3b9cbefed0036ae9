"""`zh-itn-v1`: Mandarin characters with Chinese numerals written as digits (the `zh-itn` view).

For comparing systems that write numbers differently (`二零二六年` vs `2026年`), which
`zh-eval-v1` deliberately counts as errors. It is a separate normaliser, so `zh-eval-v1`
and its views never change: score with `--normalizer zh=zh-itn-v1` beside a
`zh-eval-v1` run.

Views, in code points:

- `raw`: the text exactly as given.
- `normalized`: `zh-eval-v1`'s `punct` view, then cn2an's `transform(..., "cn2an")`
  (Chinese numerals, dates, percentages, fractions and temperatures to Arabic digits),
  then punctuation (P*) removed as in `zh-eval-v1`'s `normalized`. The conversion runs
  before punctuation is removed, so sentence punctuation keeps two numbers apart and
  `百分之五十` and `50%` both end as `50`. Identical on both sides; idioms cn2an leaves
  alone stay (`万一` is never 10001).
  `我有三个苹果。` -> `我有3个苹果`; `二零二六年` -> `2026年`.

The conversion is cn2an's; its version is recorded in every result block this normaliser
scores (`normalizer.engines.cn2an`, null when cn2an is missing).
When cn2an is not installed (`pip install earmark[zh-itn]`) the `normalized` view is null
with reason `cn2an_unavailable`, never an invented number. Mixed units (CJK characters +
other words) are counted on the `normalized` view too, its chunks between spaces
converted one by one.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

from earmark.text.base import Unit, ViewPair
from earmark.text.registry import register
from earmark.text.zh_eval_v1 import punct_view, strip_punctuation
from earmark.text.zh_mixed import spaced

#: The extra that installs cn2an.
INSTALL_HINT = "pip install 'earmark[zh-itn]' (or: pip install cn2an)"
UNAVAILABLE = "cn2an_unavailable"


@functools.cache
def _transform() -> Callable[[str, str], str] | None:
    """cn2an's `transform`, or None when cn2an cannot be imported (remembered)."""
    try:
        import cn2an
    except ImportError:
        return None
    transform: Callable[[str, str], str] = cn2an.transform
    return transform


def cn2an_available() -> bool:
    return _transform() is not None


def cn2an_version() -> str | None:
    """The installed cn2an version (for provenance), or None when it is not importable."""
    if _transform() is None:
        return None
    import cn2an

    return str(getattr(cn2an, "__version__", "unknown"))


def _numerals_to_digits(text: str) -> str:
    transform = _transform()
    assert transform is not None
    with warnings.catch_warnings():
        # cn2an warns for each numeral-looking run it keeps (`万一`); keeping it is right.
        warnings.simplefilter("ignore")
        return transform(text, "cn2an")


def itn_view(text: str) -> str:
    """The `normalized` view of one text (cn2an must be importable).

    >>> itn_view("我有三个苹果。") if cn2an_available() else "我有3个苹果"
    '我有3个苹果'
    """
    return strip_punctuation(_numerals_to_digits(punct_view(text)))


@register
class ZhItnV1:
    """Mandarin CER with Chinese numerals as digits, `zh-itn-v1`; frozen."""

    __slots__ = ()

    name: str = "zh-itn-v1"
    description: str = (
        "Mandarin characters with numbers unified: zh-eval-v1's punct view, Chinese "
        "numerals to digits by cn2an, punctuation (P*) removed. Optional (cn2an); null "
        "without it. zh-eval-v1 is unchanged."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("char",)
    comparison_only: bool = False
    #: The view the mixed unit (CJK characters + other words) is counted on.
    mixed_view: str = "normalized"

    def engine_versions(self) -> dict[str, str | None]:
        """The library behind the conversion, for each result block it scores."""
        return {"cn2an": cn2an_version()}

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        if not cn2an_available():
            normalized = ViewPair(None, None, UNAVAILABLE)
        else:
            normalized = ViewPair(itn_view(reference), itn_view(hypothesis))
        return {"raw": ViewPair(reference, hypothesis), "normalized": normalized}

    def mixed_pair(self, reference: str, hypothesis: str) -> ViewPair:
        """Both sides' `normalized` text with the spaces between words kept."""
        if not cn2an_available():
            return ViewPair(None, None, UNAVAILABLE)
        return ViewPair(spaced(itn_view, reference), spaced(itn_view, hypothesis))
