"""How a figure is written for a reader: the one spelling results.md, the terminal, the
HTML page, the leaderboard and the compare and decision reports share.

Kept beside the typed model (not in `report`) so that `compare` and `scoring`, which sit
below `report` in the layers, print rates exactly as the report does without importing it.
A rate is printed as a percentage with two decimals and its interval in points; a null
figure prints its reason, never an invented number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from earmark.results.estimate import Estimate
from earmark.results.metric import MetricResult


def fmt_rate(metric: MetricResult | Estimate | Mapping[str, Any] | None) -> str:
    """`13.20% [9.10, 17.50]`, or `null (reason)`; `—` when there is no figure at all.

    Takes a typed metric (or its `Estimate`), or a metric as compare.json and the decision
    record hold it (`value`, `ci95`, `null_reason`).

    >>> fmt_rate(Estimate(0.132, (0.091, 0.175)))
    '13.20% [9.10, 17.50]'
    >>> fmt_rate({"value": None, "null_reason": "no reference units"})
    'null (no reference units)'
    """
    if metric is None:
        return "—"
    # The exact type first: `isinstance` of a union costs as much as the rest of a
    # speaker's row.
    if type(metric) is MetricResult or isinstance(metric, MetricResult | Estimate):
        value, ci, reason = metric.value, metric.ci, metric.null_reason
    else:
        value, ci, reason = metric.get("value"), metric.get("ci95"), metric.get("null_reason")
    if value is None:
        return f"null ({reason or 'not computable'})"
    if ci:
        return _with_interval(value, ci[0], ci[1])
    return f"{_points(value)}%"


#: `_with_interval`'s spellings so far, by their three numbers (none of them zero).
_INTERVALS: dict[tuple[float, float, float], str] = {}


def _with_interval(value: float, low: float, high: float) -> str:
    """`13.20% [9.10, 17.50]`, spelt once per distinct three numbers: 10,000 speakers of
    one clip repeat a few hundred. A zero is never part of a key (`-0.0 == 0.0`, spelt
    `-0.00` and `0.00`); bounded, like `_POINTS`."""
    key = (value, low, high)
    text = _INTERVALS.get(key)
    if text is None:
        text = f"{_points(value)}% [{_points(low)}, {_points(high)}]"
        if value and low and high and len(_INTERVALS) < 1 << 14:
            _INTERVALS[key] = text
    return text


#: `f"{100 * x:.2f}"` of the rates spelt so far: the rows of 10,000 speakers repeat a few
#: hundred rates, and spelling a float costs ~1 us. Bounded, so odd input cannot grow it.
_POINTS: dict[float, str] = {}


def _points(rate: float) -> str:
    """`rate` in points to two decimals (`0.1320` -> `13.20`), as `f"{100 * rate:.2f}"`.

    Equal numbers are spelt alike but for the zeros (`-0.00`), which are never kept."""
    text = _POINTS.get(rate)
    if text is None:
        text = f"{100 * rate:.2f}"
        if rate and len(_POINTS) < 1 << 14:
            _POINTS[rate] = text
    return text


def fmt_stat(stat: Mapping[str, Any] | None) -> str:
    """`0.786 [0.667, 0.912]`, or `null (reason)`: a precision, recall or F1 (a fraction,
    not a rate) as the punctuation and critical-token sections hold it.

    >>> fmt_stat({"value": 0.786, "ci95": [0.667, 0.912]})
    '0.786 [0.667, 0.912]'
    >>> fmt_stat(None)
    'null (not computable)'
    """
    if not stat or stat.get("value") is None:
        return f"null ({(stat or {}).get('null_reason', 'not computable')})"
    text = f"{stat['value']:.3f}"
    if stat.get("ci95"):
        text += f" [{stat['ci95'][0]:.3f}, {stat['ci95'][1]:.3f}]"
    return text


def fmt_sdi(metric: MetricResult | None) -> str:
    """`11/1/2 of 114`: substitutions, deletions and insertions of the reference units."""
    if metric is None:
        return "—"
    return f"{metric.substitutions}/{metric.deletions}/{metric.insertions} of {metric.ref_units}"


def fmt_pct(value: float | None) -> str:
    """A rate as a percentage with two decimals (`12.50%`); `—` for one not computed."""
    return "—" if value is None else f"{100 * value:.2f}%"


def fmt_decimal(value: float | None) -> str:
    """A measured figure without a unit (seconds, real-time factor, a ratio) to three
    decimals (`0.125`); `—` when it was not measured."""
    return "—" if value is None else f"{value:.3f}"


def fmt_mib(value: float | None) -> str:
    """A size in bytes as whole MiB (`512 MiB`); `—` when it was not measured."""
    return "—" if value is None else f"{value / 2**20:.0f} MiB"


def fmt_ms(value: float | None) -> str:
    """A duration in seconds as whole milliseconds (`120 ms`); `—` when not measured."""
    return "—" if value is None else f"{1000 * value:.0f} ms"
