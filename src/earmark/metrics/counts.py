"""Edit-operation counts: the one object that travels between alignment, stats and reports.

Counts only add. Rates are computed at the edge from summed counts, so nobody can average
per-utterance rates by accident (corpus/micro rate is the default everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ErrorCounts:
    """Substitutions, deletions, insertions and hits of one or many aligned pairs.

    `ref_units` (N_ref = S + D + C) and `hyp_units` (N_hyp = S + I + C) are derived, so the
    laws S+D+C = N_ref and S+I+C = N_hyp hold by construction.

    >>> a = ErrorCounts(substitutions=1, hits=3)
    >>> b = ErrorCounts(deletions=1, insertions=2, hits=1)
    >>> (a + b).error_rate()
    0.6666666666666666
    """

    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0
    hits: int = 0

    def __post_init__(self) -> None:
        if min(self.substitutions, self.deletions, self.insertions, self.hits) < 0:
            raise ValueError(f"counts must be non-negative: {self}")

    @classmethod
    def zero(cls) -> ErrorCounts:
        return cls()

    def __add__(self, other: ErrorCounts) -> ErrorCounts:
        if not isinstance(other, ErrorCounts):
            return NotImplemented
        return ErrorCounts(
            self.substitutions + other.substitutions,
            self.deletions + other.deletions,
            self.insertions + other.insertions,
            self.hits + other.hits,
        )

    def __radd__(self, other: object) -> ErrorCounts:
        # Lets sum() start from 0.
        if other == 0:
            return self
        if isinstance(other, ErrorCounts):
            return other + self
        return NotImplemented

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def ref_units(self) -> int:
        return self.substitutions + self.deletions + self.hits

    @property
    def hyp_units(self) -> int:
        return self.substitutions + self.insertions + self.hits

    def error_rate(self) -> float | None:
        """(S + D + I) / N_ref; None when there is no reference unit to divide by."""
        if self.ref_units == 0:
            return None
        return self.errors / self.ref_units

    def match_error_rate(self) -> float | None:
        """MER as jiwer defines it: (S + D + I) / (S + D + I + C)."""
        return match_error_rate(self.errors, self.hits)

    def word_information_lost(self) -> float | None:
        """WIL as jiwer defines it: 1 - (C / N_ref) * (C / N_hyp)."""
        return word_information_lost(self.hits, self.ref_units, self.hyp_units)

    def word_information_preserved(self) -> float:
        """WIP exactly as jiwer computes it: (C / N_ref) * (C / N_hyp); 1.0 when both
        sides are empty (silence rightly transcribed as nothing), 0.0 when one side is.

        >>> ErrorCounts(1, 1, 0, 2).word_information_preserved()  # (2 / 4) * (2 / 3)
        0.3333333333333333
        >>> ErrorCounts(0, 0, 0, 0).word_information_preserved()
        1.0
        """
        return word_information_preserved(self.hits, self.ref_units, self.hyp_units)

    def utterance_rate(self) -> float:
        """Per-utterance rate for macro averaging.

        Convention for an empty reference: 0.0 when the hypothesis is empty too, else 1.0
        (an unbounded insertion rate would let one clip dominate a macro mean).
        """
        if self.ref_units == 0:
            return 0.0 if self.hyp_units == 0 else 1.0
        return self.errors / self.ref_units

    def as_dict(self) -> dict[str, int]:
        return {
            "substitutions": self.substitutions,
            "deletions": self.deletions,
            "insertions": self.insertions,
            "hits": self.hits,
            "ref_units": self.ref_units,
            "hyp_units": self.hyp_units,
        }


# The rates of one set of counts as functions of its integers: what `ErrorCounts`' methods
# return, for a caller holding the integers of many one-row blocks (no object per row).


def match_error_rate(errors: int, hits: int) -> float | None:
    """MER from S + D + I and C; None when both are 0."""
    total = errors + hits
    if total == 0:
        return None
    return errors / total


def word_information_lost(hits: int, ref_units: int, hyp_units: int) -> float | None:
    """WIL from C, N_ref and N_hyp; None when both sides are empty, 1.0 when one is."""
    if ref_units == 0 and hyp_units == 0:
        return None
    if ref_units == 0 or hyp_units == 0:
        return 1.0
    return 1.0 - (hits / ref_units) * (hits / hyp_units)


def word_information_preserved(hits: int, ref_units: int, hyp_units: int) -> float:
    """WIP from C, N_ref and N_hyp (`ErrorCounts.word_information_preserved`)."""
    if ref_units == 0:
        return 1.0 if hyp_units == 0 else 0.0
    if hyp_units == 0:
        return 0.0
    return (hits / ref_units) * (hits / hyp_units)
