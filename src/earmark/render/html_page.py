"""The page's shell and building blocks: CSP, style sheet, escaping, tables, cells.

Every section renderer builds its HTML from these, so escaping happens in one place: any
`str` is escaped on output, and only `Markup` (HTML a renderer built itself) passes
through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape

#: The page may load nothing: no script, no font, no image but inline data.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

LATIN_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", Arial'
CJK_FONTS = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei", '
    '"WenQuanYi Zen Hei", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "SimHei"'
)

STYLE = f"""
:root {{ --fg:#1d2330; --muted:#5b6475; --line:#d8dce3; --bg:#ffffff; --soft:#f5f7fa; }}
* {{ box-sizing: border-box; }}
body {{ font-family: {LATIN_FONTS}, {CJK_FONTS}, sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; max-width: 1280px; padding: 16px 24px 48px;
  line-height: 1.45; font-size: 15px; }}
:lang(zh), :lang(cmn), :lang(yue), :lang(ja) {{ font-family: {CJK_FONTS}, {LATIN_FONTS},
  sans-serif; }}
h1 {{ font-size: 1.6em; margin: 8px 0 4px; }}
h2 {{ font-size: 1.25em; border-bottom: 2px solid var(--line); padding-bottom: 4px;
  margin-top: 32px; }}
h3 {{ font-size: 1.05em; margin: 18px 0 6px; }}
nav a {{ margin-right: 12px; color: #2952a3; display: inline-block; }}
h1 {{ overflow-wrap: anywhere; }}
.table-scroll {{ max-width: 100%; overflow-x: auto; margin: 8px 0 12px; }}
.table-scroll > table > * > tr > :first-child {{ position: sticky; left: 0; z-index: 1;
  background: var(--bg); box-shadow: inset -1px 0 var(--line); }}
.table-scroll > table > thead > tr > :first-child {{ background: var(--soft); }}
table {{ border-collapse: collapse; font-size: 0.93em; }}
th, td {{ border: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: top; overflow-wrap: normal; word-break: normal; hyphens: none; }}
th {{ background: var(--soft); }}
td {{ min-width: 4em; }}
td:first-child {{ white-space: nowrap; }}
td .transcript {{ display: inline-block; min-width: 12em; }}
td.num, .nowrap, .badge {{ white-space: nowrap; }}
td.num {{ font-variant-numeric: tabular-nums; }}
td.null {{ min-width: 12em; color: var(--muted); }}
td ul {{ margin: 0; padding-left: 1.1em; }}
.muted {{ color: var(--muted); }}
.banner {{ padding: 10px 14px; border-radius: 6px; margin: 10px 0; font-weight: 600; }}
.banner.private {{ background: #fde8e8; border: 1px solid #c8102e; color: #8a0a1f; }}
.banner.unverifiable {{ background: #fff4d6; border: 1px solid #d9a400; color: #6b5000; }}
.badge {{ display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 0.85em; }}
.badge.ok {{ background: #cdebd3; }} .badge.bad {{ background: #fde8e8; }}
svg.chart {{ display: block; margin: 8px 0 16px; max-width: 100%; height: auto;
  font-family: {LATIN_FONTS}, sans-serif; font-size: 12px; }}
svg .chart-title {{ font-weight: 600; font-size: 13px; }}
svg .grid {{ stroke: #e3e6eb; stroke-width: 1; }}
svg .whisker {{ stroke: #1d2330; stroke-width: 1.4; }}
svg .box {{ fill: #dfe8f6; stroke: #4a6fa5; }}
svg .median {{ stroke: #1d2330; stroke-width: 2; }}
svg .dot {{ fill: #c8102e; fill-opacity: 0.55; }}
svg .tick, svg .axis-label {{ fill: var(--muted); font-size: 11px; }}
.alignment {{ display: flex; flex-wrap: wrap; gap: 2px 3px; margin: 4px 0 2px; }}
.al {{ display: inline-flex; flex-direction: column; border-radius: 3px; padding: 0 3px;
  min-width: 1.1em; text-align: center; }}
.al-r, .al-h {{ white-space: pre; }}
.al-r {{ border-bottom: 1px dotted #aab; }}
.al-equal {{ background: #eef6ef; }}
.al-substitute {{ background: #fff0bf; }}
.al-delete {{ background: #fbd5da; }}
.al-insert {{ background: #d6e6fb; }}
.gap {{ color: #9aa2b1; }}
.legend span {{ padding: 0 6px; margin-right: 6px; border-radius: 3px; }}
.transcript {{ white-space: pre-wrap; }}
details.long > summary {{ cursor: pointer; color: #2952a3; }}
details.long > summary .transcript {{ display: inline; color: var(--fg); }}
.chart-scroll {{ max-width: 100%; overflow-x: auto; }}
.chart-scroll svg.chart {{ min-width: 560px; }}
details {{ margin: 6px 0; }}
code, pre {{ font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 0.9em; }}
pre {{ background: var(--soft); padding: 8px; overflow-x: auto; white-space: pre-wrap; }}
footer {{ margin-top: 40px; font-size: 0.85em; color: var(--muted); }}
@media (max-width: 640px) {{
  body {{ padding: 12px 10px 40px; }}
  .table-scroll > table > tbody > tr > td:first-child {{ white-space: normal; max-width: 8.5em; }}
  table.headline td.num {{ white-space: normal; }}
}}
"""


class Markup(str):
    """HTML this module built (already escaped); any other `str` is escaped on output."""


def esc(value: object) -> str:
    """Escape for HTML text and attribute values; `Markup` passes through unchanged."""
    if isinstance(value, Markup):
        return value
    return escape("" if value is None else str(value), quote=True)


def lang_attr(language: str | None) -> str:
    return f' lang="{esc(language)}"' if language else ""


def html_table(header: Sequence[str], rows: Iterable[Sequence[object]], cls: str = "") -> Markup:
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for cell in row:
            klass = ""
            if isinstance(cell, Num):  # digits stay on one line; a null's reason wraps
                klass = ' class="null"' if cell.startswith("null") else ' class="num"'

            cells.append(f"<td{klass}>{esc(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    klass = f' class="{esc(cls)}"' if cls else ""
    return Markup(
        f'<div class="table-scroll"><table{klass}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


class Num(str):
    """A numeric table cell (right-aligned digits); escaped like any text."""


#: Where a figure cell may break: after `view:` and before a `[CI]`.
_FIGURE_BREAKS = re.compile(r"(?<=:) | (?=\[)")


def figure_cell(text: str) -> Markup:
    """A figure cell that may break between its parts (`view:`, `12.28%`, `[4.27, 21.82]`)
    but never inside one, so a table of long figures and long names still fits its page."""
    return Markup(
        " ".join(f'<span class="nowrap">{esc(part)}</span>' for part in _FIGURE_BREAKS.split(text))
    )


def chart(svg: str) -> str:
    """A chart in its own horizontal scroller: on a phone it keeps a readable size
    (at least 560 px) and scrolls, instead of shrinking its text to a few pixels."""
    return f'<div class="chart-scroll">{svg}</div>'


def num(text: str) -> Num:
    return Num(text)


def pct(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f} s"


def section(section_id: str, title: str, body: Sequence[str]) -> str:
    return f'<section id="{section_id}"><h2>{esc(title)}</h2>\n' + "\n".join(body) + "\n</section>"


def p_value(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def short(value: object, n: int = 16) -> str:
    text = str(value)
    return text if len(text) <= n + 8 else text[:n] + "…"
