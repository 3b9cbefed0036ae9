"""The normaliser contract: named, versioned, applied identically to both sides.

A normaliser exposes several *views* (named forms of the text). Every normaliser has a
`raw` view, so each result also carries the metric on raw text (the normalisation
effect). A view can be `None` for a pair, with a reason (e.g. OpenCC missing), and is then
reported as `null`, never as an invented number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Unit = Literal["word", "char"]


@dataclass(frozen=True, slots=True)
class ViewPair:
    """Reference and hypothesis as one view renders them, or why the view is unavailable."""

    reference: str | None
    hypothesis: str | None
    null_reason: str | None = None

    @property
    def available(self) -> bool:
        return self.null_reason is None


@runtime_checkable
class Normalizer(Protocol):
    """A frozen text normaliser. Once released its behaviour never changes: a change is a
    new name (`zh-eval-v2`), with golden tests for both."""

    name: str
    description: str
    #: View names; the first is always "raw".
    views: tuple[str, ...]
    #: The view the headline figures use.
    primary_view: str
    #: Units this normaliser is scored in: ("word", "char") for space-delimited languages,
    #: ("char",) for Chinese (no word segmentation).
    units: tuple[Unit, ...]
    #: True for comparison-only normalisers (e.g. crude-v1) whose absolute numbers must
    #: not be published as comparable to other papers.
    comparison_only: bool

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        """Every view of the pair, keyed by view name (all of `views`)."""
        ...
