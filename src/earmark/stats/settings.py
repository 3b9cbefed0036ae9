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
#: The generator of every result earmark wrote before results named theirs (a `bootstrap`
#: record without `generator` was drawn with it): grouped conditional binomials and a
#: uniform tail (`earmark.stats.resampling`). Still a named option
#: (`--bootstrap-generator numpy-pcg64`) that redraws those results bit for bit, and the
#: generator of every published protocol's figures (a protocol's numbers are frozen).
UNNAMED_GENERATOR = "numpy-pcg64"
#: The generator every interval is drawn with unless another is named (issue 25): the same
#: multinomial law through Poisson tables with an exact correction
#: (`earmark.stats.poisson_resampling`), about 3x cheaper on character counts, whose
#: thousands of distinct clip totals make `numpy-pcg64`'s binomial chain the bootstrap's cost.
DEFAULT_GENERATOR = "numpy-pcg64-poisson"
#: Every generator earmark can draw with; the same law, other numbers for a seed.
GENERATORS = (UNNAMED_GENERATOR, DEFAULT_GENERATOR)


#: A statistics result as JSON: a flat object of numbers, strings and nulls.
StatRecord = dict[str, float | str | None]


@dataclass(frozen=True)
class BootstrapSettings:
    """Resamples (0: no intervals), seed, confidence level and generator of a percentile
    bootstrap.

    >>> BootstrapSettings(resamples=500).to_dict()
    {'resamples': 500, 'seed': 20260926, 'level': 0.95, 'generator': 'numpy-pcg64-poisson'}
    >>> BootstrapSettings(generator="numpy-pcg64").to_dict()["generator"]
    'numpy-pcg64'
    """

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL
    #: One of `GENERATORS`; results always name it (a record without one: `UNNAMED_GENERATOR`).
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
        """The `bootstrap` record's first fields, in the order results write them: the
        generator always, since the default is no longer what unnamed records mean."""
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "generator": self.generator,
        }


__all__ = [
    "DEFAULT_GENERATOR",
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "GENERATORS",
    "UNNAMED_GENERATOR",
    "BootstrapSettings",
]
