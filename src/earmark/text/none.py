"""`none`: the text exactly as given, for systems whose output is already normalised.

Scoring with it is the honest "no normalisation" baseline: every difference counts.
"""

from __future__ import annotations

from earmark.text.base import Unit, ViewPair
from earmark.text.registry import register


@register
class NoNormalizer:
    """The identity: one view, `raw`."""

    __slots__ = ()

    name: str = "none"
    description: str = "No normalisation: the text exactly as given (raw view only)."
    views: tuple[str, ...] = ("raw",)
    primary_view: str = "raw"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = False

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {"raw": ViewPair(reference, hypothesis)}
