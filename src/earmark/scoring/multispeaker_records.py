"""The records of a multi-speaker scoring (`multispeaker.json`, `earmark.multispeaker/1`).

meeteval's counts per recording and metric, their totals and bootstrap interval, and
what was scored (inputs, normaliser, collar, recordings without a hypothesis, hypothesis
recordings without a reference). Built by `scoring.multispeaker`; the JSON is written
from them once, by `MultiSpeakerResult.to_json`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from earmark.results.codec import JSONValue
from earmark.stats.bootstrap import BootstrapResult
from earmark.stats.settings import BootstrapSettings

SCHEMA = "earmark.multispeaker/1"
NAMES = {
    "cpwer": "cpWER",
    "orcwer": "ORC-WER",
    "tcpwer": "tcpWER",
    "dicpwer": "DI-cpWER (greedy)",
    "mimower": "MIMO-WER",
    "tcorcwer": "tcORC-WER",
}
#: meeteval's extra per-recording fields that are counts (they add across recordings).
SPEAKER_COUNTS = ("missed_speaker", "falarm_speaker", "scored_speaker")


@dataclass(frozen=True, slots=True)
class MultiSpeakerCounts:
    """Word error counts as meeteval reports them; they only add (no averaged rates).

    `length` is the number of reference words; `errors = insertions + deletions +
    substitutions`.
    """

    errors: int = 0
    length: int = 0
    insertions: int = 0
    deletions: int = 0
    substitutions: int = 0

    def __add__(self, other: MultiSpeakerCounts) -> MultiSpeakerCounts:
        if not isinstance(other, MultiSpeakerCounts):
            return NotImplemented
        return MultiSpeakerCounts(
            errors=self.errors + other.errors,
            length=self.length + other.length,
            insertions=self.insertions + other.insertions,
            deletions=self.deletions + other.deletions,
            substitutions=self.substitutions + other.substitutions,
        )

    @property
    def rate(self) -> float | None:
        """errors / length; None when there are no reference words."""
        return self.errors / self.length if self.length else None

    def to_dict(self) -> dict[str, JSONValue]:
        return {**dataclasses.asdict(self), "rate": self.rate}


@dataclass(frozen=True, slots=True)
class RecordingScore:
    """One recording under one metric: meeteval's counts plus what it says beside them."""

    recording: str
    counts: MultiSpeakerCounts
    #: meeteval's other fields: speaker counts, the speaker assignment (as lists).
    details: Mapping[str, JSONValue] = field(default_factory=dict)
    #: True when the hypothesis had no segment for this recording (all deletions).
    missing_hypothesis: bool = False

    def to_dict(self) -> dict[str, JSONValue]:
        out = {"recording": self.recording, **self.counts.to_dict(), **self.details}
        if self.missing_hypothesis:
            out["missing_hypothesis"] = True
        return out


@dataclass(frozen=True)
class MultiSpeakerMetric:
    """A metric over the scored recordings: per recording, total, and the bootstrap CI
    over recordings (None without resamples)."""

    metric: str
    recordings: tuple[RecordingScore, ...]
    total: MultiSpeakerCounts
    speaker_totals: Mapping[str, int]
    ci: BootstrapResult | None

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "name": NAMES[self.metric],
            "total": {**self.total.to_dict(), **self.speaker_totals},
            "ci": None if self.ci is None else {k: v for k, v in self.ci.to_dict().items()},
            "per_recording": [r.to_dict() for r in self.recordings],
        }


@dataclass(frozen=True)
class SegmentFile:
    """One input file: its path, its segment format and the SHA-256 of its bytes."""

    path: str
    format: str
    sha256: str

    def to_dict(self) -> dict[str, JSONValue]:
        return {"path": self.path, "format": self.format, "sha256": self.sha256}


@dataclass(frozen=True)
class ExcludedRecording:
    """A hypothesis recording left unscored, and why (`no_reference`)."""

    recording: str
    reason: str

    def to_dict(self) -> dict[str, JSONValue]:
        return {"recording": self.recording, "reason": self.reason}


@dataclass(frozen=True)
class MultiSpeakerResult:
    """Everything `earmark multispeaker` writes to multispeaker.json."""

    metrics: Mapping[str, MultiSpeakerMetric]
    normalizer: str
    collar: float | None
    #: Resamples of recordings (0: no intervals), seed and level of the CIs.
    bootstrap: BootstrapSettings
    recordings: tuple[str, ...]
    missing_hypotheses: tuple[str, ...]
    excluded: tuple[ExcludedRecording, ...]
    #: `references` and `hypotheses` when read from files; empty for segments in memory.
    inputs: Mapping[str, SegmentFile]
    meeteval_version: str

    def to_json(self) -> dict[str, JSONValue]:
        from earmark import __version__

        return {
            "schema": SCHEMA,
            "earmark_version": __version__,
            "scorer": {"name": "meeteval", "version": self.meeteval_version},
            "inputs": {k: v.to_dict() for k, v in self.inputs.items()},
            "normalizer": self.normalizer,
            "collar": self.collar,
            "bootstrap": {**self.bootstrap.to_dict(), "unit": "recording"},
            "n_recordings": len(self.recordings),
            "recordings_without_hypothesis": list(self.missing_hypotheses),
            "excluded": [e.to_dict() for e in self.excluded],
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
        }
