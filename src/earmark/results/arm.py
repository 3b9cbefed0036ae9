"""One arm's results: its scoring settings, coverage, per-language blocks and metadata.

An arm is one system (engine, model, settings) scored on the corpus; `earmark score`
writes one, `earmark run` one per arm of its plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from earmark.results.codec import (
    AGGREGATE,
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
    malformed,
)
from earmark.results.metric import ViewResult
from earmark.results.record import Nested, Record, lookup
from earmark.results.scope import ScopeResult


@dataclass(frozen=True, kw_only=True)
class NormalizerPolicy(Record):
    """Which normaliser scores which language (`auto`, or `LANG=NAME,...,*=NAME`)."""

    default: str = field(metadata=json_key(STR))
    by_language: Mapping[str, str] = field(metadata=json_key(MapOf(STR)))


@dataclass(frozen=True, kw_only=True)
class NormalizerChoice(Record):
    """Why each language got its normaliser when none was named (`earmark score` without
    `--normalizer` or `--protocol`): the policy applied and, per language, the reason.
    Absent when the normaliser was given, so those results keep their bytes."""

    policy: str = field(metadata=json_key(STR))
    reasons: Mapping[str, str] = field(metadata=json_key(MapOf(STR)))


@dataclass(frozen=True, kw_only=True)
class BootstrapRecord(Record):
    """The results file's `bootstrap` block: how every interval of the arm was drawn.

    A record, not the settings (`earmark.stats.settings.BootstrapSettings`, the three numbers that
    draw an interval): it adds what the file says about them (method, unit, cluster,
    generator), and reads back every field earmark has ever written there.
    """

    resamples: int = field(metadata=json_key(INT))
    seed: int = field(metadata=json_key(INT))
    level: float = field(metadata=json_key(NUMBER))
    method: str = field(metadata=json_key(STR))
    #: What one resampling unit is, in words.
    unit: str | None = field(default=None, metadata=json_key(STR))
    #: `speaker` when rows of one speaker are resampled together (absent: clip).
    cluster: str | None = field(default=None, metadata=json_key(STR))
    #: Set by a published protocol: its random generator and quantile rule.
    generator: str | None = field(default=None, metadata=json_key(STR))
    quantile_rule: str | None = field(default=None, metadata=json_key(STR))
    #: compare.json: how every interval is seeded, and (with a protocol) which generator
    #: draws the paired and exact-match intervals.
    seeding: str | None = field(default=None, metadata=json_key(STR))
    paired_and_exact_match: str | None = field(default=None, metadata=json_key(STR))

    def _check(self, path: str) -> None:
        if not 0 < self.level < 1:
            raise malformed(f"{path}.level", f"a level must lie between 0 and 1, not {self.level}")


@dataclass(frozen=True, kw_only=True)
class RowStatus(Record):
    """A row whose engine status is not `ok` (it is still scored, as a deletion)."""

    id: str = field(metadata=json_key(STR))
    status: str = field(metadata=json_key(STR))


@dataclass(frozen=True, kw_only=True)
class Exclusion(Record):
    """A row left out of scoring, with its reason code."""

    id: str = field(metadata=json_key(STR))
    reason: str = field(metadata=json_key(STR))


@dataclass(frozen=True, kw_only=True)
class Coverage(Record):
    """Every reference accounted for: how many, how many scored, and which were not ok."""

    references: int = field(metadata=json_key(INT))
    scored: int = field(metadata=json_key(INT))
    statuses: Mapping[str, int] = field(metadata=json_key(MapOf(INT)))
    not_ok: tuple[RowStatus, ...] = field(metadata=json_key(TupleOf(Nested(RowStatus))))
    excluded: tuple[Exclusion, ...] | None = field(
        default=None, metadata=json_key(TupleOf(Nested(Exclusion)))
    )


@dataclass(frozen=True, kw_only=True)
class ModelInfo(Record):
    """What was loaded: the artefact, its revision and hashes, licence and runtime."""

    backend: str | None = field(default=None, metadata=json_key(STR))
    artifact_id: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    revision: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    file_sha256: Mapping[str, str] | None = field(default=None, metadata=json_key(MapOf(STR)))
    licence: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    licence_source: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    runtime: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    runtime_version: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    compute_type: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    load_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    size_bytes: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    languages: JSONValue = field(default=None, metadata=json_key(ANY))
    english_only: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    deterministic: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    determinism_note: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    #: The engine's own figures (runtime versions, device, decode options): the JSON key
    #: is `extra`, kept apart from this record's own `extra` (keys it does not model).
    engine_extra: JSONObject | None = field(default=None, metadata=json_key(OBJECT, "extra"))


@dataclass(frozen=True, kw_only=True)
class Resources(Record):
    """Speed and memory of the arm's process: latency percentiles, RTF, RSS, CPU time."""

    load_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    rss_after_load_bytes: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    peak_rss_bytes: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    cpu_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    cpu_seconds_per_audio_second: float | None = field(
        default=None, metadata=json_key(Nullable(NUMBER))
    )
    wall_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    audio_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    decode_seconds_total: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    latency_p50_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    latency_p95_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    latency_max_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_p50_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_p95_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_max_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    clips_timed_end_to_end: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    real_time_factor: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    rtfx: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    model_size_bytes: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    threads: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    threads_source: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    clips_timed: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    #: What each figure means, in words.
    definitions: Mapping[str, str] | None = field(default=None, metadata=json_key(MapOf(STR)))
    #: This session's row counts (transcribed, skipped as already finished, failed).
    session: Mapping[str, int] | None = field(default=None, metadata=json_key(MapOf(INT)))


@dataclass(frozen=True, kw_only=True)
class ScopeResources(Record):
    """Latency and RTF of one language's (or slice's) clips."""

    clips: int = field(metadata=json_key(INT))
    latency_p50_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    latency_p95_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    real_time_factor: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_p50_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_p95_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    end_to_end_max_seconds: float | None = field(default=None, metadata=json_key(Nullable(NUMBER)))
    clips_timed_end_to_end: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    by_slice: Mapping[str, ScopeResources] | None = field(
        default=None, metadata=json_key(MapOf(Nested(lambda: ScopeResources)))
    )


@dataclass(frozen=True, kw_only=True)
class ArmSpec(Record):
    """The arm as the plan names it: backend, model reference and decoding settings."""

    name: str = field(metadata=json_key(STR))
    backend: str = field(metadata=json_key(STR))
    model: str | None = field(default=None, metadata=json_key(Nullable(STR)))
    settings: Mapping[str, JSONValue] | None = field(default=None, metadata=json_key(OBJECT))


@dataclass(frozen=True, kw_only=True)
class ArmResult(Record):
    """`results.json`'s `arms.<name>`: settings, coverage, blocks, and run metadata.

    `overall` is null (with `overall_null_reason`) when languages are scored with
    different normalisers: their rates do not add up to one number.
    """

    #: The published protocol the figures follow, when one was named.
    protocol: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    normalizer_policy: NormalizerPolicy = field(metadata=json_key(Nested(NormalizerPolicy)))
    #: How the policy was chosen when no normaliser was named (`earmark score`'s default).
    normalizer_choice: NormalizerChoice | None = field(
        default=None, metadata=json_key(Nested(NormalizerChoice))
    )
    aggregate: str = field(metadata=json_key(AGGREGATE))
    bootstrap: BootstrapRecord = field(metadata=json_key(Nested(BootstrapRecord)))
    #: Pre-registered minimums (`min_per_slice`, `min_speakers`) when set.
    minimums: Mapping[str, int] | None = field(default=None, metadata=json_key(MapOf(INT)))
    #: The GLM rules the word counts followed (`--glm`): their component and hash.
    glm: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    #: The word alignment of every figure when not earmark's (`--alignment sclite|kaldi`).
    alignment: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    conventions: Mapping[str, str] = field(metadata=json_key(MapOf(STR)))
    coverage: Coverage = field(metadata=json_key(Nested(Coverage)))
    overall: ScopeResult | None = field(metadata=json_key(Nullable(Nested(ScopeResult))))
    overall_null_reason: str | None = field(default=None, metadata=json_key(STR))
    by_language: Mapping[str, ScopeResult] = field(metadata=json_key(MapOf(Nested(ScopeResult))))
    # Open-ended analysis sections (each documented in docs/): kept as JSON.
    error_analysis: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    punctuation: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    critical_tokens: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    long_form: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    timestamps: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    #: Streaming figures per language (docs/streaming.md); by_language null with a reason
    #: when the arm did not stream.
    streaming: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    sclite: JSONObject | None = field(default=None, metadata=json_key(OBJECT))
    # Set by `earmark run`.
    #: Null for an arm that failed before its model loaded (as are its `resources`).
    model: ModelInfo | None = field(default=None, metadata=json_key(Nullable(Nested(ModelInfo))))
    deterministic: bool | None = field(default=None, metadata=json_key(Nullable(BOOL)))
    determinism_note: str | None = field(default=None, metadata=json_key(STR))
    resources: Resources | None = field(
        default=None, metadata=json_key(Nullable(Nested(Resources)))
    )
    spec: ArmSpec | None = field(default=None, metadata=json_key(Nullable(Nested(ArmSpec))))
    language_mismatches: int | None = field(default=None, metadata=json_key(INT))
    resources_by_language: Mapping[str, ScopeResources] | None = field(
        default=None, metadata=json_key(MapOf(Nested(ScopeResources)))
    )
    arm_exit_code: int | None = field(default=None, metadata=json_key(Nullable(INT)))
    failure: JSONObject | None = field(default=None, metadata=json_key(OBJECT))

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages scored, in the file's order."""
        return tuple(self.by_language)

    def language(self, language: str) -> ScopeResult:
        """One language's block (`by_language.<language>`)."""
        return lookup(self.by_language, language, "language", lambda: f"by_language.{language}")

    def view(self, language: str, view: str | None = None) -> ViewResult:
        """One language's view (default: its primary view), its estimates at this arm's
        bootstrap level: `arm.view("en", "normalized").wer.ci`."""
        found = self.language(language).view(view)
        return replace(found, level=self.bootstrap.level, method=self.bootstrap.method)
