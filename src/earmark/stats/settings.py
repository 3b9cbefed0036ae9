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


#: A statistics result as JSON: a flat object of numbers, strings and nulls.
StatRecord = dict[str, float | str | None]


@dataclass(frozen=True)
class BootstrapSettings:
    """Resamples (0: no intervals), seed and confidence level of a percentile bootstrap.

    >>> BootstrapSettings(resamples=500).to_dict()
    {'resamples': 500, 'seed': 20260926, 'level': 0.95}
    """

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL

    def to_dict(self) -> StatRecord:
        """The `bootstrap` record's first three fields, in the order results write them."""
        return {"resamples": self.resamples, "seed": self.seed, "level": self.level}


__all__ = ["DEFAULT_LEVEL", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "BootstrapSettings"]
