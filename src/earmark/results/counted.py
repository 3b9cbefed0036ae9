"""A record that carries a scope's or a row's S/D/I/hits gives them as the core's counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earmark.metrics.counts import ErrorCounts


class Counted:
    """Mixin of the records holding `substitutions`, `deletions`, `insertions` and `hits`
    (a metric over a scope, one row's counts in one unit): `.counts` is the `ErrorCounts`
    they make, so sums and rates come from the one core type, never from the JSON fields."""

    substitutions: int
    deletions: int
    insertions: int
    hits: int

    @property
    def counts(self) -> ErrorCounts:
        """The counts as the core's `ErrorCounts` (they add; rates come from them)."""
        from earmark.metrics.counts import ErrorCounts  # the core, loaded when first asked

        return ErrorCounts(self.substitutions, self.deletions, self.insertions, self.hits)
