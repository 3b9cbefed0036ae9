"""The thresholds of the promotion rule (`earmark decide --rules FILE.toml`).

Every threshold the rule applies, its default (seed 000's) and its check, in one frozen
value; the verdict itself is drawn in `decisions.rules`, and the record lists these as
`RulesApplied`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.results.decision import RulesApplied
from earmark.stats.settings import BootstrapSettings


@dataclass(frozen=True)
class DecisionRules:
    """Thresholds of the promotion rule; every field can be set in a TOML file."""

    min_relative_error_reduction: float = 0.20
    min_latency_reduction: float = 0.30
    min_core_cost_reduction: float = 0.30
    non_inferiority_margin: float = 0.0
    metric: str = "auto"
    latency_statistic: str = "p95"
    require_significant_improvement: bool = True
    #: The paired bootstrap's resamples, seed and level; the TOML file (and the record)
    #: spell them as three top-level keys, `resamples`, `seed` and `level`.
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    max_peak_rss_bytes: int | None = None
    max_real_time_factor: float | None = None
    max_latency_seconds: float | None = None
    #: Share of rows (per language) that must have a hypothesis from the engine.
    min_coverage: float = 1.0
    #: Decoding settings allowed to differ between the sides (`compare_settings`
    #: keys), or `("all",)`; anything else that differs refuses the comparison.
    allow_setting_differences: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from earmark.render.leaderboard_entries import check_min_coverage

        check_min_coverage(self.min_coverage)
        allowed = self.allow_setting_differences
        if isinstance(allowed, str):
            allowed = tuple(allowed.split(","))
        if not isinstance(allowed, (list, tuple)) or not all(isinstance(k, str) for k in allowed):
            raise EarmarkError(
                "allow_setting_differences must be a list of setting names",
                field="allow_setting_differences",
                hint='e.g. ["beam_size", "threads"] or ["all"]',
            )
        allowed = tuple(sorted({k.strip() for k in allowed if k.strip()}))
        if "all" in allowed:
            allowed = ("all",)
        object.__setattr__(self, "allow_setting_differences", allowed)
        if self.metric not in ("auto", "cer", "wer"):
            raise EarmarkError(
                f"unknown metric {self.metric!r}", field="metric", hint="auto, cer or wer"
            )
        if self.latency_statistic not in ("p50", "p95"):
            raise EarmarkError(
                f"unknown latency statistic {self.latency_statistic!r}",
                field="latency_statistic",
                hint="p50 or p95",
            )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> DecisionRules:
        """Read thresholds from a TOML file: top-level keys, or a `[decision]` table."""
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            try:
                import tomli as tomllib  # type: ignore[no-redef,unused-ignore]
            except ModuleNotFoundError:
                raise EarmarkError(
                    "reading --rules needs Python 3.11 or the 'tomli' package",
                    file=str(path),
                    hint="pip install tomli",
                ) from None
        try:
            data = tomllib.loads(Path(path).read_text("utf-8"))
        except FileNotFoundError:
            raise EarmarkError("rules file not found", file=str(path)) from None
        except tomllib.TOMLDecodeError as exc:
            raise EarmarkError(f"invalid TOML: {exc}", file=str(path)) from None
        data = dict(data.get("decision", data))
        known = {f.name for f in fields(cls) if f.name != "bootstrap"} | set(_BOOTSTRAP_KEYS)
        for key in data:
            if key not in known:
                raise EarmarkError(
                    f"unknown rule {key!r}",
                    file=str(path),
                    field=key,
                    hint="known: " + ", ".join(sorted(known)),
                )
        given = {key: data.pop(key) for key in _BOOTSTRAP_KEYS if key in data}
        try:
            return cls(bootstrap=BootstrapSettings(**given), **data)
        except TypeError as exc:
            raise EarmarkError(str(exc), file=str(path)) from None

    def applied(self) -> RulesApplied:
        """The rules as the decision record and decision.md list them: flat, with the
        bootstrap's keys where they always stood (after the significance switch)."""
        b = self.bootstrap
        return RulesApplied(
            min_relative_error_reduction=self.min_relative_error_reduction,
            min_latency_reduction=self.min_latency_reduction,
            min_core_cost_reduction=self.min_core_cost_reduction,
            non_inferiority_margin=self.non_inferiority_margin,
            metric=self.metric,
            latency_statistic=self.latency_statistic,
            require_significant_improvement=self.require_significant_improvement,
            resamples=b.resamples,
            seed=b.seed,
            level=b.level,
            generator=b.generator,
            max_peak_rss_bytes=self.max_peak_rss_bytes,
            max_real_time_factor=self.max_real_time_factor,
            max_latency_seconds=self.max_latency_seconds,
            min_coverage=self.min_coverage,
            allow_setting_differences=self.allow_setting_differences,
        )


#: How the rules file spells the bootstrap's settings (one key each, at the top level).
_BOOTSTRAP_KEYS = ("resamples", "seed", "level", "generator")
