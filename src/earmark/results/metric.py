"""One metric of one view (`wer`, `cer`, `mixed_er`), and the metrics of one view.

In `results.json` a view is `{"wer": {...}, "cer": {...}}`; each metric carries the rate,
its interval and the summed S/D/I/hits it was computed from (counts travel, rates are
computed at the edge), plus how many rows it covers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from earmark.errors import EarmarkError
from earmark.results.codec import (
    AGGREGATE,
    INT,
    INTERVAL,
    NUMBER,
    STR,
    JSONValue,
    MapOf,
    Nullable,
    Via,
    json_key,
)
from earmark.results.counted import Counted
from earmark.results.estimate import Estimate, Estimated
from earmark.results.record import Nested, Record

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, kw_only=True)
class MetricResult(Record, Counted, Estimated):
    """A micro (or macro) rate over a scope's rows, with the counts behind it.

    `value` and `ci` are null with a `null_reason` when nothing can be computed, or when
    the scope is below a pre-registered minimum (counts stay: they were observed).
    """

    value: float | None = field(metadata=json_key(Nullable(NUMBER)))
    ci: tuple[float, float] | None = field(metadata=json_key(Nullable(INTERVAL), "ci95"))
    substitutions: int = field(metadata=json_key(INT))
    deletions: int = field(metadata=json_key(INT))
    insertions: int = field(metadata=json_key(INT))
    hits: int = field(metadata=json_key(INT))
    ref_units: int = field(metadata=json_key(INT))
    hyp_units: int = field(metadata=json_key(INT))
    aggregate: str = field(metadata=json_key(AGGREGATE))
    n_scored: int = field(metadata=json_key(INT))
    n_unavailable: int | None = field(default=None, metadata=json_key(INT))
    unavailable_reasons: Mapping[str, int] | None = field(
        default=None, metadata=json_key(MapOf(INT))
    )
    median_per_utterance: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    median_per_utterance_n: int | None = field(default=None, metadata=json_key(INT))
    median_per_utterance_null_reason: str | None = field(default=None, metadata=json_key(STR))
    null_reason: str | None = field(default=None, metadata=json_key(STR))
    mer: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    wil: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    #: Word information preserved (jiwer's `wip`), only where it was asked for
    #: (`earmark score --metrics wip`): results without it keep their bytes.
    wip: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    ser: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))


_METRICS = MapOf(Nested(MetricResult))


@dataclass(frozen=True)
class ViewResult:
    """The metrics of one view of the text (raw, normalized, ...) in one scope.

    `level` and `method` are not in the JSON (the arm records them once); `ArmResult.view`
    fills them in so `.wer` is a complete `Estimate`.
    """

    metrics: Mapping[str, MetricResult]
    level: float = field(default=0.95, compare=False)
    method: str = field(default="percentile", compare=False)

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> ViewResult:
        return cls(_METRICS.decode(data, path))

    def to_dict(self) -> dict[str, JSONValue]:
        out = _METRICS.encode(self.metrics)
        assert isinstance(out, dict)
        return out

    def metric(self, name: str) -> MetricResult:
        """One metric by name (`wer`, `cer`, `mixed_er`), or an error listing those here."""
        try:
            return self.metrics[name]
        except KeyError:
            raise EarmarkError(
                f"this view has no {name}",
                field=name,
                hint="metrics here: " + (", ".join(self.metrics) or "none"),
            ) from None

    def estimate(self, name: str) -> Estimate:
        """One metric's rate and interval, at the arm's bootstrap level."""
        return self.metric(name).estimate(level=self.level, method=self.method)

    @property
    def wer(self) -> Estimate:
        return self.estimate("wer")

    @property
    def cer(self) -> Estimate:
        return self.estimate("cer")

    @property
    def mixed_er(self) -> Estimate:
        return self.estimate("mixed_er")


class _View(Via[ViewResult]):
    """A view in a scope's `views` mapping: its metrics spelt out in a scope's encoder."""

    def inline(self, expr: str, env: dict[str, object]) -> str:
        return _METRICS.inline(f"{expr}.metrics", env)


#: A view in a scope's `views` mapping.
VIEW: Via[ViewResult] = _View(ViewResult.from_dict, ViewResult.to_dict)
