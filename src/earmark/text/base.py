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


@dataclass(frozen=True, slots=True)
class PublishedDifference:
    """How a normaliser differs from a publication's own rule for the same language.

    Carried by a normaliser as the optional attribute `published_differences`, printed by
    `earmark normalizers show NAME` and copied into every result block it scores (for
    rows in `languages`), so a figure never passes for the publication's when it is not.
    """

    #: The publication and its rule, in words.
    publication: str
    #: The registered normaliser that implements the publication's rule exactly.
    normalizer: str
    #: The `--protocol` that reproduces the publication (normaliser, aggregation, CIs).
    protocol: str | None
    #: Base language codes the publication's rule is for.
    languages: tuple[str, ...]
    #: One line per difference, each with an example.
    differences: tuple[str, ...]
    #: A (reference, hypothesis) pair the two rules score differently.
    example: tuple[str, str] | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "publication": self.publication,
            "normalizer": self.normalizer,
            "protocol": self.protocol,
            "languages": list(self.languages),
            "differences": list(self.differences),
            **({"example": list(self.example)} if self.example else {}),
        }


def published_differences(normalizer: object) -> tuple[PublishedDifference, ...]:
    """The normaliser's `published_differences`, or () for one that declares none."""
    return tuple(getattr(normalizer, "published_differences", ()))


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
