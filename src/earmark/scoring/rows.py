"""One utterance as the scorer sees it: reference, hypothesis (or why there is none)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Status of a row whose hypothesis is present and scored as is.
OK = "ok"
#: The hypothesis is missing: scored as all deletions and listed, never dropped.
MISSING_HYPOTHESIS = "missing_hypothesis"


class ClusterKeyed:
    """A row whose bootstrap cluster is its `cluster`, or its own id when it has none:
    repeats of a clip share a cluster and are resampled together."""

    id: str
    cluster: str | None

    @property
    def cluster_key(self) -> str:
        return self.cluster if self.cluster is not None else self.id


@dataclass(frozen=True)
class ScoringRow(ClusterKeyed):
    """A reference/hypothesis pair. `hypothesis=None` means missing (all deletions).

    `status` carries the reason code when the system produced no usable output
    (`missing_hypothesis`, `engine_exception:...`, `unreadable`, ...); such rows are
    scored with an empty hypothesis so N_ref never shrinks. `cluster` groups rows for the
    bootstrap (repeats of one clip stay together); it defaults to the id.
    """

    id: str
    reference: str
    hypothesis: str | None
    language: str | None = None
    slices: tuple[str, ...] = ()
    status: str = OK
    cluster: str | None = None
    duration: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def hypothesis_text(self) -> str:
        return self.hypothesis if self.hypothesis is not None else ""
