"""A figure with its uncertainty: what every reader of a rate wants in one object."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Estimate:
    """A rate, its confidence interval and how the interval was drawn.

    `value` is None when the figure cannot be computed (no rows, no reference units, a
    scope below a pre-registered minimum); `null_reason` then says why. `ci` is None when
    no interval was drawn (`--bootstrap 0`) or the value is null. `level` and `method`
    come from the arm's bootstrap settings (`results.json` stores them once per arm).

    >>> e = Estimate(0.25, (0.125, 0.5))
    >>> e.value, e.low, e.high, e.level, e.method
    (0.25, 0.125, 0.5, 0.95, 'percentile')
    """

    value: float | None
    ci: tuple[float, float] | None = None
    level: float = 0.95
    method: str = "percentile"
    null_reason: str | None = None

    @property
    def low(self) -> float | None:
        """The interval's lower end (None without an interval)."""
        return None if self.ci is None else self.ci[0]

    @property
    def high(self) -> float | None:
        """The interval's upper end (None without an interval)."""
        return None if self.ci is None else self.ci[1]


class Estimated:
    """What a record holding a rate (`value`, `ci`, `null_reason`) gives its readers: the
    rate as an `Estimate`. Shared by results.json's and compare.json's metrics, so a rate
    reads the same whichever file it came from."""

    value: float | None
    ci: tuple[float, float] | None
    null_reason: str | None

    def estimate(self, *, level: float = 0.95, method: str = "percentile") -> Estimate:
        """The rate with its interval; `level`/`method` are the arm's bootstrap settings."""
        return Estimate(self.value, self.ci, level, method, self.null_reason)
