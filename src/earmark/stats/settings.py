"""The bootstrap's settings as one value: how many resamples, which seed, which level.

Every interval earmark draws re-seeds its generator from these three numbers, so they
travel together (one object, recorded beside the figures) instead of as three loose
arguments per option class. Pure: no I/O, no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The one default seed of every earmark bootstrap (and of a run's clip samplers).
DEFAULT_SEED = 20260926
DEFAULT_RESAMPLES = 10_000
DEFAULT_LEVEL = 0.95
#: The generator every interval is drawn with unless another is named: grouped conditional
#: binomials and a uniform tail (`earmark.stats.resampling`).
DEFAULT_GENERATOR = "numpy-pcg64"
#: Every generator earmark can draw with; the same law, other numbers for a seed.
#: `numpy-pcg64-poisson` (`earmark.stats.poisson_resampling`) is about twice as fast.
GENERATORS = ("numpy-pcg64", "numpy-pcg64-poisson")


#: A statistics result as JSON: a flat object of numbers, strings and nulls.
StatRecord = dict[str, float | str | None]


@dataclass(frozen=True)
class BootstrapSettings:
    """Resamples (0: no intervals), seed, confidence level and generator of a percentile
    bootstrap.

    >>> BootstrapSettings(resamples=500).to_dict()
    {'resamples': 500, 'seed': 20260926, 'level': 0.95}
    >>> BootstrapSettings(generator="numpy-pcg64-poisson").to_dict()["generator"]
    'numpy-pcg64-poisson'
    """

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL
    #: One of `GENERATORS`; results name it only when it is not the default.
    generator: str = DEFAULT_GENERATOR

    def __post_init__(self) -> None:
        # Refused here, not at the first draw: with 0 resamples nothing draws, yet the
        # results would still name the generator.
        if self.generator not in GENERATORS:
            from earmark.errors import EarmarkError

            raise EarmarkError(
                f"unknown generator {self.generator!r}",
                field="generator",
                hint="use one of " + ", ".join(GENERATORS),
            )

    def to_dict(self) -> StatRecord:
        """The `bootstrap` record's first fields, in the order results write them (the
        generator only when it is not the default, so default results keep their bytes)."""
        record: StatRecord = {"resamples": self.resamples, "seed": self.seed, "level": self.level}
        if self.generator != DEFAULT_GENERATOR:
            record["generator"] = self.generator
        return record


__all__ = [
    "DEFAULT_GENERATOR",
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "GENERATORS",
    "BootstrapSettings",
]
