"""The small formats a decision's reasons, gates and Markdown share.

Kept apart from the Markdown renderer so the rule (`decisions.rules`) and the gates can
word their reasons without importing the file that renders their results.
"""

from __future__ import annotations

from collections.abc import Sequence

from earmark.results import display


def fmt_pp_ci(ci: Sequence[float] | None, point: float | None = None) -> str:
    """A difference of rates (and its CI) in signed percentage points:
    `-4.55 pp [-5.91, -2.95]`."""
    head = "" if point is None else f"{100 * point:+.2f} pp "
    return head + ("—" if not ci else f"[{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]")


def fmt_shown(value: str | None) -> str:
    """A setting's value, or that it was not recorded (never an empty cell)."""
    return "not recorded" if value is None else value


def fmt_mib(value: float | None) -> str:
    """Bytes in MiB, or `not recorded`."""
    return "not recorded" if value is None else display.fmt_mib(value)
