"""What a comparison is asked for: the settings that change a compare number."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from earmark.results.arm import NormalizerPolicy as PolicyRecord
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.protocols import Protocol
from earmark.stats.settings import BootstrapSettings

Aggregate = Literal["micro", "macro"]
#: Whose alignment MAPSSWE segments: earmark's (the one behind every count) or sclite's
#: weighted one, as `sctk sc_stats` reads it from `sclite -o sgml`.
MapssweAlignment = Literal["earmark", "sclite"]
MAPSSWE_ALIGNMENTS: tuple[MapssweAlignment, ...] = ("earmark", "sclite")


@dataclass(frozen=True)
class CompareOptions:
    """Everything that changes a compare number; recorded in compare.json."""

    normalizer: str
    reference: str | None = None
    aggregate: Aggregate = "micro"
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    #: A published protocol (`--protocol`): with the python-random generator it draws the
    #: per-arm intervals; paired and exact-match intervals stay earmark's (PCG64).
    protocol: Protocol | None = None
    #: `--mapsswe sclite`: MAPSSWE's segments from sclite's alignment, as sc_stats finds them.
    mapsswe: MapssweAlignment = "earmark"

    @property
    def python_random(self) -> bool:
        return self.protocol is not None and self.protocol.generator == "python-random"


def policy_record(policy: NormalizerPolicy) -> PolicyRecord:
    """The `normalizer_policy` record compare.json and gap.json write (languages sorted)."""
    return PolicyRecord(
        default=policy.default, by_language=dict(sorted(policy.by_language.items()))
    )
