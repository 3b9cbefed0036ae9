"""The figures of one scope: all rows, one language, one slice or one speaker.

`results.json` calls it a block: the normaliser that scored it, how many rows and
clusters, the metrics per view, the statuses, the hallucination counters and, for a
language, its slices (and speakers) as blocks of the same shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from earmark.results.codec import (
    ANY,
    BOOL,
    INT,
    NUMBER,
    OBJECT,
    STR,
    JSONObject,
    JSONValue,
    MapOf,
    Nullable,
    TupleOf,
    json_key,
)
from earmark.results.metric import VIEW, ViewResult
from earmark.results.record import Nested, Record, lookup


@dataclass(frozen=True, kw_only=True)
class NormalizerInfo(Record):
    """The normaliser that scored a scope, its units and which one is the headline."""

    name: str = field(metadata=json_key(STR))
    comparison_only: bool = field(metadata=json_key(BOOL))
    units: tuple[str, ...] = field(metadata=json_key(TupleOf(STR)))
    headline_unit: str | None = field(default=None, metadata=json_key(STR))
    headline_unit_reason: str | None = field(default=None, metadata=json_key(STR))
    #: `{"view": ..., "metric": "mixed_er"}` for code-switched Mandarin.
    mixed_unit: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    #: The library a normaliser delegates to and its version (zh-itn-v1: cn2an).
    engines: JSONValue = field(default=None, metadata=json_key(ANY))
    differs_from_publication: JSONValue = field(default=None, metadata=json_key(ANY))


@dataclass(frozen=True, kw_only=True)
class Hallucination(Record):
    """Rows that produced text where there was no speech, or nothing where there was."""

    rows: int = field(metadata=json_key(INT))
    no_speech_rows: int = field(metadata=json_key(INT))
    no_speech_with_output: int = field(metadata=json_key(INT))
    no_speech_output_rate: float | None = field(metadata=json_key(Nullable(NUMBER)))
    empty_outputs: int = field(metadata=json_key(INT))
    empty_output_rate: float | None = field(metadata=json_key(Nullable(NUMBER)))
    repetition_loops: int = field(metadata=json_key(INT))
    runaway_outputs: int = field(metadata=json_key(INT))


def _scope() -> type[ScopeResult]:
    return ScopeResult


_SCOPES = MapOf(Nested(_scope))


@dataclass(frozen=True, kw_only=True)
class ScopeResult(Record):
    """One block of `results.json` (`overall`, `by_language.<lang>`, `by_slice.<name>`)."""

    normalizer: NormalizerInfo = field(metadata=json_key(Nested(NormalizerInfo)))
    n_utterances: int = field(metadata=json_key(INT))
    n_clusters: int | None = field(default=None, metadata=json_key(INT))
    n_speakers: int | None = field(default=None, metadata=json_key(INT))
    primary_view: str = field(metadata=json_key(STR))
    views: Mapping[str, ViewResult] = field(metadata=json_key(MapOf(VIEW)))
    statuses: Mapping[str, int] | None = field(default=None, metadata=json_key(MapOf(INT)))
    hallucination: Hallucination = field(metadata=json_key(Nested(Hallucination)))
    #: Why the figures are null: fewer rows or speakers than a pre-registered minimum.
    below_minimum: str | None = field(default=None, metadata=json_key(STR))
    by_slice: Mapping[str, ScopeResult] | None = field(default=None, metadata=json_key(_SCOPES))
    by_speaker: Mapping[str, ScopeResult] | None = field(default=None, metadata=json_key(_SCOPES))

    def view(self, name: str | None = None) -> ViewResult:
        """One view's metrics (default: the primary view)."""
        name = self.primary_view if name is None else name
        found = self.views.get(name)  # no error path built for each of 10,000 speakers
        return (
            found
            if found is not None
            else lookup(self.views, name, "view", lambda: f"views.{name}")
        )

    def slice(self, name: str) -> ScopeResult:
        """One slice's block (`by_slice.<name>`)."""
        return lookup(self.by_slice or {}, name, "slice", lambda: f"by_slice.{name}")
