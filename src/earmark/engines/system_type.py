"""What kind of system an arm is, as its user declares it: BlasBench's four classes.

earmark cannot see whether a system's weights or training recipe are published, so the
class is never guessed from a backend or a model name: it is declared (an arm setting
`system_type=` where the backend reads it, or `earmark leaderboard --system-type ARM=TYPE`)
and shown as declared; a system nobody declared is `undeclared`.

- `open`: weights and the training code (or recipe and data) are published;
- `open-weights`: the weights are published, the training code or data are not;
- `api`: reached only through a vendor's service (the weights are not available);
- `closed`: neither weights nor a public service (an in-house system).
"""

from __future__ import annotations

from earmark.errors import EarmarkError

SYSTEM_TYPES = ("open", "open-weights", "api", "closed")
#: Shown for a system whose type nobody declared.
UNDECLARED = "undeclared"


def parse_system_type(value: str, *, field: str = "system_type") -> str:
    """The declared class, lower-cased; anything outside the four is refused.

    >>> parse_system_type("Open-Weights")
    'open-weights'
    """
    cleaned = value.strip().lower()
    if cleaned not in SYSTEM_TYPES:
        raise EarmarkError(
            f"system type {value[:80]!r} is not one of {', '.join(SYSTEM_TYPES)}",
            field=field,
            hint="open (weights and training code published), open-weights (weights only), "
            "api (a vendor's service) or closed (neither)",
        )
    return cleaned
