"""What changes a number: the scoring options every result records.

The normaliser policy, the aggregate, the bootstrap's settings and unit, the pre-registered
minimums and the GLM rules; a published protocol fixes most of them (`protocols.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, cast

from earmark.errors import EarmarkError
from earmark.results.arm import BootstrapRecord
from earmark.results.arm import NormalizerPolicy as PolicyRecord
from earmark.results.codec import JSONObject, JSONValue
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.protocols import Protocol
from earmark.stats.settings import UNNAMED_GENERATOR, BootstrapSettings

if TYPE_CHECKING:
    from earmark.scoring.glm import Glm
    from earmark.scoring.metric import MetricSettings
    from earmark.scoring.word_counter import WordCounter

Aggregate = Literal["micro", "macro"]
#: The bootstrap's resampling unit: the clip (rows sharing a `cluster` key, i.e. repeats of
#: one clip, go together), or the speaker (every row of one speaker goes together; rows
#: without a speaker stay clip clusters).
ClusterUnit = Literal["clip", "speaker"]
CLUSTER_UNITS: tuple[str, ...] = ("clip", "speaker")


@dataclass(frozen=True)
class ArmSettings:
    """What an arm's results record of its scoring settings, as typed records (the head of
    `ArmResult`, in its field order)."""

    protocol: JSONObject | None
    normalizer_policy: PolicyRecord
    aggregate: str
    bootstrap: BootstrapRecord
    minimums: Mapping[str, int] | None
    glm: JSONObject | None
    alignment: JSONObject | None


@dataclass(frozen=True)
class ScoringOptions:
    """Everything that changes a number; recorded in every result."""

    policy: NormalizerPolicy
    aggregate: Aggregate = "micro"
    #: Resamples (0: no intervals), seed and level of every interval these options draw.
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    #: Break figures down by slice too (manifest `slices`).
    by_slice: bool = True
    #: The published protocol these settings follow (`--protocol`); it also chooses the
    #: bootstrap generator and quantile rule.
    protocol: Protocol | None = None
    #: The bootstrap unit of every block except a single speaker's (see `ClusterUnit`).
    #: "clip" by default: seed 000 asks for independent speakers and a minimum speaker
    #: count, not for speaker-level intervals; "speaker" widens intervals honestly when
    #: one speaker contributes many rows.
    cluster: ClusterUnit = "clip"
    #: Break figures down by speaker too (when rows carry one; `row.extra["speaker"]`).
    by_speaker: bool = True
    #: Pre-registered minimums (seed 000): a language, slice or speaker block with fewer
    #: rows than `min_per_slice`, or a language or slice block with fewer distinct speakers
    #: than `min_speakers`, reports null figures with a `below_minimum` reason.
    min_per_slice: int | None = None
    min_speakers: int | None = None
    #: Alternate spellings and optional words (`--glm`): word counts of every view come
    #: from the GLM-aware alignment (`earmark.scoring.glm.Glm.count_pairs`).
    glm: Glm | None = None
    #: The word alignment of every figure (`--alignment`): "earmark" (fewest edits),
    #: "sclite" or "kaldi" (`earmark.scoring.word_counter`).
    alignment: str = "earmark"
    #: Figures computed only when asked (`EXTRA_METRICS`: "wip"), so results that do not
    #: ask keep their bytes.
    extra_metrics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from earmark.scoring.word_counter import checked_alignment

        checked_alignment(self.alignment)
        if self.cluster not in CLUSTER_UNITS:
            raise EarmarkError(
                f"unknown bootstrap cluster unit {self.cluster!r}",
                field="cluster",
                hint="one of " + ", ".join(CLUSTER_UNITS),
            )
        if self.extra_metrics:
            self._check_extra_metrics()
        for name in ("min_per_slice", "min_speakers"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise EarmarkError(f"{name} must be at least 1, not {value!r}", field=name)
        # Options naming a protocol follow it; resamples may also be 0 (no intervals, e.g.
        # when they are drawn elsewhere), never another count.
        p = self.protocol
        if p is None:
            return
        b = self.bootstrap
        ours = (self.policy.to_dict(), self.aggregate, b.seed, b.level)
        theirs = (NormalizerPolicy.parse(p.normalizer).to_dict(), p.aggregate, p.seed, p.level)
        if ours != theirs or b.resamples not in (0, p.resamples):
            raise EarmarkError(
                f"scoring options contradict protocol {p.name}: it fixes normalizer "
                f"{p.normalizer}, aggregate {p.aggregate}, {p.resamples} resamples, seed "
                f"{p.seed}, level {p.level}",
                field="protocol",
                hint="build the options from earmark.scoring.protocols.resolve()",
            )
        if b.generator != UNNAMED_GENERATOR:
            # A protocol's figures are frozen: every interval its own generator does not
            # draw is drawn as when it was published (`ScoringChoice.generator`).
            raise EarmarkError(
                f"protocol {p.name} draws its intervals with {UNNAMED_GENERATOR}, "
                f"not {b.generator}",
                field="generator",
                hint="build the options from earmark.scoring.protocols.resolve()",
            )

    def _check_extra_metrics(self) -> None:
        """Only options asking for extra figures read the metric module (and numpy)."""
        from earmark.scoring.metric import EXTRA_METRICS

        unknown = sorted(set(self.extra_metrics) - set(EXTRA_METRICS))
        if unknown:
            raise EarmarkError(
                f"unknown extra metric {', '.join(unknown)}",
                field="metrics",
                hint="one of " + ", ".join(EXTRA_METRICS),
            )

    @property
    def word_counter(self) -> WordCounter:
        """How word units are counted: the alignment, the GLM and each row's markup."""
        from earmark.scoring.word_counter import WordCounter, checked_alignment

        return WordCounter(checked_alignment(self.alignment), self.glm)

    @property
    def metric_settings(self) -> MetricSettings:
        """How each metric is drawn: the aggregate, the bootstrap and the extra figures."""
        from earmark.scoring.metric import MetricSettings

        b = self.bootstrap
        return MetricSettings(
            self.aggregate,
            b.resamples,
            b.seed,
            b.level,
            wip="wip" in self.extra_metrics,
            generator=b.generator,
        )

    def bootstrap_record(self) -> BootstrapRecord:
        """The results file's `bootstrap` record: the settings and how they resample."""
        b, p = self.bootstrap, self.protocol
        return BootstrapRecord(
            resamples=b.resamples,
            seed=b.seed,
            level=b.level,
            method="percentile",
            unit="clip (rows sharing a cluster key are resampled together)"
            if self.cluster == "clip"
            else "speaker (rows of one speaker are resampled together; a speaker's own "
            "block resamples its clips)",
            cluster=None if self.cluster == "clip" else self.cluster,
            # Always named (issue 25): a record without one means `UNNAMED_GENERATOR`.
            # A protocol's is its own (python-random, or numpy-pcg64 for every interval).
            generator=b.generator if p is None else p.generator,
            quantile_rule=None if p is None else p.quantile_rule,
        )

    def arm_settings(self) -> ArmSettings:
        """The settings an arm's results record before its figures."""
        return ArmSettings(
            protocol=None if self.protocol is None else cast("JSONObject", self.protocol.to_dict()),
            normalizer_policy=PolicyRecord(
                default=self.policy.default,
                by_language=dict(sorted(self.policy.by_language.items())),
            ),
            aggregate=self.aggregate,
            bootstrap=self.bootstrap_record(),
            # Only when set, so results without minimums keep the shape they always had.
            minimums=self.minimums() or None,
            # Only with --glm, so results without one keep their shape (and bytes).
            glm=None if self.glm is None else dict(self.glm.headline_component),
            # Only when not earmark's, so results with the default keep their bytes.
            alignment=None if self.alignment == "earmark" else self._alignment_record(),
        )

    def _alignment_record(self) -> JSONObject:
        from earmark.scoring.word_counter import ALIGNMENT_RULES, ALIGNMENT_SCOPE

        name = self.word_counter.alignment
        return {"name": name, "rule": ALIGNMENT_RULES[name], "applies_to": ALIGNMENT_SCOPE}

    def to_dict(self) -> dict[str, JSONValue]:
        """The settings as results.json writes them at the head of an arm."""
        s = self.arm_settings()
        out: dict[str, JSONValue] = {}
        if s.protocol is not None:
            out["protocol"] = dict(s.protocol)
        out["normalizer_policy"] = s.normalizer_policy.to_dict()
        out["aggregate"] = s.aggregate
        out["bootstrap"] = s.bootstrap.to_dict()
        if s.minimums is not None:
            out["minimums"] = dict(s.minimums)
        if s.glm is not None:
            out["glm"] = dict(s.glm)
        if s.alignment is not None:
            out["alignment"] = dict(s.alignment)
        return out

    def minimums(self) -> dict[str, int]:
        out = {"min_per_slice": self.min_per_slice, "min_speakers": self.min_speakers}
        return {k: v for k, v in out.items() if v is not None}
