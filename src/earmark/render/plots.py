"""Inline SVG charts written by hand, so the HTML report needs no plotting library,
no script and no network: bars with CI whiskers, stacked S/D/I bars, a latency box/strip
plot and a comparison matrix.

Every label passes through `html.escape`: labels carry arm names and language codes that
come from user files. Each function returns one `<svg>` element as a string, sized by
its content, with a `<title>` for screen readers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

WIDTH = 760
LABEL_WIDTH = 200
ROW_HEIGHT = 24
TOP = 34
BOTTOM = 34
RIGHT = 110
#: Extra right margin of the latency plot, for its value label past the longest whisker.
VALUE_ROOM = 70

#: Substitutions, deletions, insertions: the colours the alignment view uses too.
SDI_COLOURS = {"S": "#d9a400", "D": "#c8102e", "I": "#1f6fd1"}
BAR_COLOUR = "#4a6fa5"
NULL_COLOUR = "#888888"

XScale = Callable[[float], float]


@dataclass(frozen=True)
class Bar:
    """One horizontal bar: a rate with its CI; `value=None` draws the `note` instead."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


@dataclass(frozen=True)
class ErrorSplit:
    """S/D/I counts of one scope, drawn as shares of its reference units."""

    label: str
    substitutions: int
    deletions: int
    insertions: int
    ref_units: int


@dataclass(frozen=True)
class Distribution:
    """Per-clip values (e.g. decode seconds) of one arm × language."""

    label: str
    values: Sequence[float]


@dataclass(frozen=True)
class MatrixCell:
    """Challenger − reference difference of one pair; `significant` after multiplicity
    adjustment. Negative is better (lower error)."""

    row: str
    column: str
    difference: float | None
    low: float | None = None
    high: float | None = None
    significant: bool = False


def nice_ticks(upper: float, count: int = 5) -> list[float]:
    """Round tick positions from 0 to at least `upper` (steps of 1, 2, 2.5 or 5 × 10^k).

    >>> nice_ticks(0.37)
    [0.0, 0.1, 0.2, 0.3, 0.4]
    """
    if upper <= 0 or not math.isfinite(upper):
        return [0.0, 1.0]
    raw = upper / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(upper / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


#: Characters of a row label that fit left of the plot (12 px text, about 7 px a character).
LABEL_CHARS = 26


def _label(text: str, chars: int = LABEL_CHARS) -> str:
    """An escaped label that fits its room: a long arm name keeps its start and its end
    (where `-int8` and `-beam5` differ) around an ellipsis, and the whole name shows
    as the label's tooltip."""
    if len(text) <= chars:
        return escape(text)
    head = (chars - 1) // 2
    tail = chars - 1 - head
    return f"<title>{escape(text)}</title>{escape(text[:head] + '…' + text[-tail:])}"


def _fmt(value: float, scale: float, digits: int = 1) -> str:
    return f"{value * scale:.{digits}f}"


def _open(height: int, title: str, width: int = WIDTH) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{escape(title)}</title>",
        f'<text x="4" y="18" class="chart-title">{escape(title)}</text>',
    ]


def _axis(
    lines: list[str], ticks: list[float], x_of: XScale, y0: int, y1: int, scale: float, label: str
) -> None:
    for t in ticks:
        x = x_of(t)
        lines.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" class="grid"/>')
        lines.append(
            f'<text x="{x:.1f}" y="{y1 + 14}" text-anchor="middle" class="tick">'
            f"{escape(_fmt(t, scale, 0 if scale * ticks[-1] >= 10 else 2))}</text>"
        )
    mid = (x_of(ticks[0]) + x_of(ticks[-1])) / 2
    lines.append(
        f'<text x="{mid:.1f}" y="{y1 + 28}" text-anchor="middle" class="axis-label">'
        f"{escape(label)}</text>"
    )


def _scale(upper: float, width: int) -> tuple[list[float], XScale]:
    """Ticks up to `upper` and the x position of a value, clamped to the axis (a value past
    a cut axis ends at its right edge)."""
    ticks = nice_ticks(upper)
    span = ticks[-1] or 1.0
    plot = width - LABEL_WIDTH - RIGHT

    def x_of(v: float) -> float:
        return LABEL_WIDTH + plot * min(max(0.0, v), span) / span

    return ticks, x_of


def axis_cap(extents: Sequence[float | None]) -> float | None:
    """Where to cut a linear axis so that one runaway figure (a CER of 2,343%) does not
    squash every other bar to a few pixels: the round ceiling of the largest extent once
    the top quarter of the bars (at least one) is set aside, never below 100% (a rate
    under 100% is not a runaway) — used only with three bars or more, when the longest
    passes 1.5 times that ceiling. `None`: no cut.

    >>> axis_cap([0.22, 1.71, 4.72])
    2.0
    >>> axis_cap([0.12, 0.15, 23.43])
    1.0
    >>> axis_cap([0.12, 0.15, 0.98]) is None
    True
    """
    values = sorted(e for e in extents if e is not None and math.isfinite(e) and e > 0)
    if len(values) < 3:
        return None
    over = max(1, len(values) // 4)
    cap = max(1.0, nice_ticks(values[-(over + 1)])[-1])
    return cap if values[-1] > 1.5 * cap else None


def _break_marker(x_end: float, y: float, height: float) -> str:
    """Two white slashes across the end of a bar that runs past a cut axis."""
    marks = []
    for dx in (-14.0, -8.0):
        x = x_end + dx
        marks.append(
            f'<line x1="{x:.1f}" y1="{y + height + 2:.1f}" x2="{x + 5:.1f}" y2="{y - 2:.1f}" '
            'stroke="#ffffff" stroke-width="2.5" class="axis-break"/>'
        )
    return "".join(marks)


def _cut_label(label: str, cap: float | None, scale: float) -> str:
    if cap is None:
        return label
    return f"{label}; axis cut at {cap * scale:g}%: longer bars broken (//) and labelled"


def bar_chart(
    bars: Sequence[Bar], *, title: str, axis_label: str = "error rate (%)", scale: float = 100.0
) -> str:
    """Horizontal bars with 95% CI whiskers; a null value shows its reason, not a bar."""
    height = TOP + ROW_HEIGHT * max(len(bars), 1) + BOTTOM
    lines = _open(height, title)
    extents = [b.high if b.high is not None else (b.value or 0.0) for b in bars]
    cap = axis_cap(extents)
    upper = cap if cap is not None else max([*extents, 1e-9])
    ticks, x_of = _scale(upper, WIDTH)
    span = ticks[-1]
    y_end = TOP + ROW_HEIGHT * len(bars)
    _axis(lines, ticks, x_of, TOP - 4, y_end, scale, _cut_label(axis_label, cap, scale))
    for i, bar in enumerate(bars):
        y = TOP + i * ROW_HEIGHT
        mid = y + ROW_HEIGHT / 2
        lines.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{mid + 4:.1f}" text-anchor="end" class="label">'
            f"{_label(bar.label)}</text>"
        )
        if bar.value is None:
            lines.append(
                f'<text x="{LABEL_WIDTH + 4}" y="{mid + 4:.1f}" class="null" fill="{NULL_COLOUR}">'
                f"null: {escape(bar.note or 'not computable')}</text>"
            )
            continue
        x1 = x_of(bar.value)
        lines.append(
            f'<rect x="{LABEL_WIDTH}" y="{y + 5}" width="{max(x1 - LABEL_WIDTH, 0.5):.1f}" '
            f'height="{ROW_HEIGHT - 10}" fill="{BAR_COLOUR}" class="bar"/>'
        )
        if bar.value > span:
            lines.append(_break_marker(x1, y + 5, ROW_HEIGHT - 10))
        text_x = x1
        if bar.low is not None and bar.high is not None:
            lo, hi = x_of(bar.low), x_of(bar.high)
            lines.append(
                f'<line x1="{lo:.1f}" y1="{mid:.1f}" x2="{hi:.1f}" y2="{mid:.1f}" class="whisker"/>'
            )
            for end, bound in ((lo, bar.low), (hi, bar.high)):
                if bound <= span:  # an end past the cut has no cap: it goes on
                    lines.append(
                        f'<line x1="{end:.1f}" y1="{mid - 5:.1f}" x2="{end:.1f}" '
                        f'y2="{mid + 5:.1f}" class="whisker"/>'
                    )
            text_x = hi
        ci = (
            f" [{_fmt(bar.low, scale, 1)}, {_fmt(bar.high, scale, 1)}]"
            if bar.low is not None and bar.high is not None
            else ""
        )
        lines.append(
            f'<text x="{text_x + 6:.1f}" y="{mid + 4:.1f}" class="value">'
            f"<title>{escape(bar.label)}: {escape(_fmt(bar.value, scale, 2))}%{escape(ci)}</title>"
            f"{escape(_fmt(bar.value, scale, 1))}%</text>"
        )
    lines.append("</svg>")
    return "\n".join(lines)


def stacked_error_bars(splits: Sequence[ErrorSplit], *, title: str) -> str:
    """Substitutions, deletions and insertions as % of reference units, stacked; the bar
    length is the error rate (it passes 100% when insertions run away)."""
    height = TOP + 18 + ROW_HEIGHT * max(len(splits), 1) + BOTTOM
    lines = _open(height, title)
    legend_x = LABEL_WIDTH
    for key, name in (("S", "substitutions"), ("D", "deletions"), ("I", "insertions")):
        lines.append(
            f'<rect x="{legend_x}" y="{TOP - 8}" width="12" height="12" '
            f'fill="{SDI_COLOURS[key]}"/><text x="{legend_x + 16}" y="{TOP + 2}" '
            f'class="legend">{name}</text>'
        )
        legend_x += 130
    top = TOP + 18

    def share(n: int, ref: int) -> float:
        return n / ref if ref else 0.0

    extents = [share(s.substitutions + s.deletions + s.insertions, s.ref_units) for s in splits]
    cap = axis_cap(extents)
    ticks, x_of = _scale(cap if cap is not None else max([*extents, 1e-9]), WIDTH)
    span = ticks[-1]
    y_end = top + ROW_HEIGHT * len(splits)
    _axis(lines, ticks, x_of, top - 4, y_end, 100.0, _cut_label("% of reference units", cap, 100))
    for i, split in enumerate(splits):
        y = top + i * ROW_HEIGHT
        mid = y + ROW_HEIGHT / 2
        lines.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{mid + 4:.1f}" text-anchor="end" class="label">'
            f"{_label(split.label)}</text>"
        )
        if not split.ref_units:
            lines.append(
                f'<text x="{LABEL_WIDTH + 4}" y="{mid + 4:.1f}" fill="{NULL_COLOUR}">'
                "null: no reference units</text>"
            )
            continue
        start = 0.0
        for key, n in (("S", split.substitutions), ("D", split.deletions), ("I", split.insertions)):
            part = share(n, split.ref_units)
            if part <= 0 or start >= span:
                start += part
                continue
            x0, x1 = x_of(start), x_of(start + part)
            lines.append(
                f'<rect x="{x0:.1f}" y="{y + 5}" width="{max(x1 - x0, 0.5):.1f}" '
                f'height="{ROW_HEIGHT - 10}" fill="{SDI_COLOURS[key]}" class="seg-{key}">'
                f"<title>{escape(split.label)}: {key} {n} of {split.ref_units}</title></rect>"
            )
            start += part
        if start > span:
            lines.append(_break_marker(x_of(start), y + 5, ROW_HEIGHT - 10))
        lines.append(
            f'<text x="{x_of(start) + 6:.1f}" y="{mid + 4:.1f}" class="value">'
            f"{split.substitutions}/{split.deletions}/{split.insertions} of "
            f"{split.ref_units}</text>"
        )
    lines.append("</svg>")
    return "\n".join(lines)


def latency_plot(distributions: Sequence[Distribution], *, title: str, unit: str = "s") -> str:
    """Box (quartiles, median) with whiskers from min to max, and every clip as a dot,
    spread vertically by a fixed pattern (deterministic: the same file each time)."""
    height = TOP + 30 * max(len(distributions), 1) + BOTTOM
    lines = _open(height, title)
    upper = max([max(d.values) for d in distributions if len(d.values)] + [1e-9])
    # The "p50 … · p95 …" label sits right of the longest whisker: keep room for it.
    ticks, x_of = _scale(upper, WIDTH - VALUE_ROOM)
    y_end = TOP + 30 * len(distributions)
    _axis(lines, ticks, x_of, TOP - 4, y_end, 1.0, f"decode time per clip ({unit})")
    for i, dist in enumerate(distributions):
        y = TOP + i * 30
        mid = y + 15
        lines.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{mid + 4}" text-anchor="end" class="label">'
            f"{_label(dist.label)}</text>"
        )
        values = np.asarray(list(dist.values), dtype=np.float64)
        if values.size == 0:
            lines.append(
                f'<text x="{LABEL_WIDTH + 4}" y="{mid + 4}" fill="{NULL_COLOUR}">'
                "no timed clips</text>"
            )
            continue
        q1, med, q3, p95 = (float(v) for v in np.percentile(values, [25, 50, 75, 95]))
        lo, hi = float(values.min()), float(values.max())
        lines.append(
            f'<line x1="{x_of(lo):.1f}" y1="{mid}" x2="{x_of(hi):.1f}" y2="{mid}" '
            f'class="whisker"/>'
            f'<rect x="{x_of(q1):.1f}" y="{mid - 9}" width="{max(x_of(q3) - x_of(q1), 1):.1f}" '
            f'height="18" class="box"/>'
            f'<line x1="{x_of(med):.1f}" y1="{mid - 9}" x2="{x_of(med):.1f}" y2="{mid + 9}" '
            f'class="median"/>'
        )
        for k, v in enumerate(values):
            dy = ((k * 7) % 11 - 5) * 1.3
            lines.append(
                f'<circle cx="{x_of(float(v)):.1f}" cy="{mid + dy:.1f}" r="2.2" class="dot"/>'
            )
        lines.append(
            f'<text x="{x_of(hi) + 6:.1f}" y="{mid + 4}" class="value">'
            f"p50 {med:.2f} · p95 {p95:.2f} {escape(unit)}</text>"
        )
    lines.append("</svg>")
    return "\n".join(lines)


def comparison_matrix(
    rows: Sequence[str], columns: Sequence[str], cells: Sequence[MatrixCell], *, title: str
) -> str:
    """Rows are reference arms, columns challengers; each cell the challenger − reference
    difference in percentage points with its CI. Green: CI below 0 (challenger better);
    red: CI above 0 (worse); grey: the CI covers 0. `*` marks significance after Holm."""
    cell_w, cell_h = 150, 46
    left = LABEL_WIDTH
    width = max(WIDTH, left + cell_w * len(columns) + 10)
    height = TOP + 24 + cell_h * max(len(rows), 1) + 20
    lines = _open(height, title, width)
    by_pos = {(c.row, c.column): c for c in cells}
    for j, col in enumerate(columns):
        lines.append(
            f'<text x="{left + j * cell_w + cell_w / 2:.1f}" y="{TOP + 12}" '
            f'text-anchor="middle" class="label">{_label(col, 20)}</text>'
        )
    for i, row in enumerate(rows):
        y = TOP + 24 + i * cell_h
        lines.append(
            f'<text x="{left - 6}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="end" '
            f'class="label">{_label(row)}</text>'
        )
        for j, col in enumerate(columns):
            x = left + j * cell_w
            cell = by_pos.get((row, col))
            fill, first, second = "#f3f3f3", "—", ""
            if cell is not None and cell.difference is not None:
                if cell.high is not None and cell.high < 0:
                    fill = "#cdebd3"
                elif cell.low is not None and cell.low > 0:
                    fill = "#f6cfcf"
                else:
                    fill = "#e4e4e4"
                star = " *" if cell.significant else ""
                first = f"{100 * cell.difference:+.2f} pp{star}"
                if cell.low is not None and cell.high is not None:
                    second = f"[{100 * cell.low:+.2f}, {100 * cell.high:+.2f}]"
            elif cell is not None:
                first = "null"
            lines.append(
                f'<rect x="{x + 1}" y="{y + 1}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="{fill}" class="cell"/>'
                f'<text x="{x + cell_w / 2:.1f}" y="{y + 19}" text-anchor="middle" '
                f'class="value">{escape(first)}</text>'
                f'<text x="{x + cell_w / 2:.1f}" y="{y + 36}" text-anchor="middle" '
                f'class="tick">{escape(second)}</text>'
            )
    lines.append("</svg>")
    return "\n".join(lines)
