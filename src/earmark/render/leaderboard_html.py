"""leaderboard.html: the page people share, one file with a sortable, filterable table,
CIs drawn as bars, and the data the script reads in a JSON block."""

from __future__ import annotations

import hashlib
import json

from earmark.render.html_page import CSP, STYLE, Markup, esc, html_table
from earmark.render.leaderboard_entries import SUSPECT, UNVERIFIABLE, Entry
from earmark.render.leaderboard_ranking import MEAN_RULE, Leaderboard
from earmark.render.leaderboard_tables import (
    SELF_REPORTED_HEADER,
    SELF_REPORTED_INTRO,
    contamination_intro,
    contamination_rows,
    coverage_text,
    parameters_text,
    pivot,
    rank_text,
    revision_text,
    rtfx_text,
    self_reported_rows,
    unranked_intro,
)
from earmark.results import MetricResult
from earmark.results.codec import JSONValue
from earmark.results.display import fmt_decimal, fmt_mib, fmt_rate

#: touches no network, and is allowed by its hash alone in the Content-Security-Policy.
BOARD_SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById("board-data").textContent);
  var byId = {};
  data.rows.forEach(function (r) { byId[r.id] = r; });
  function dataRows(tbody) {
    return Array.prototype.filter.call(tbody.rows, function (tr) {
      return tr.hasAttribute("data-row");
    });
  }
  function order(key, dir) {
    return function (a, b) {
      var x = byId[a.getAttribute("data-row")][key];
      var y = byId[b.getAttribute("data-row")][key];
      if (x === y) { return 0; }
      if (x === null || x === undefined) { return 1; }
      if (y === null || y === undefined) { return -1; }
      var c = (typeof x === "number" && typeof y === "number") ?
        x - y : String(x).localeCompare(String(y));
      return dir * c;
    };
  }
  document.querySelectorAll("table.board").forEach(function (table) {
    table.querySelectorAll("th button[data-key]").forEach(function (button) {
      button.addEventListener("click", function () {
        var th = button.parentNode;
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        Array.prototype.forEach.call(table.tBodies, function (tbody) {
          dataRows(tbody).sort(order(button.getAttribute("data-key"), dir))
            .forEach(function (tr) { tbody.appendChild(tr); });
        });
      });
    });
  });
  var selects = document.querySelectorAll("select[data-filter]");
  function applyFilter() {
    var want = {};
    selects.forEach(function (s) {
      if (s.value) { want[s.getAttribute("data-filter")] = s.value; }
    });
    var shown = 0;
    document.querySelectorAll("tr[data-row]").forEach(function (tr) {
      var row = byId[tr.getAttribute("data-row")];
      var show = Object.keys(want).every(function (k) { return row[k] === want[k]; });
      tr.hidden = !show;
      if (show) { shown += 1; }
    });
    document.getElementById("shown").textContent = String(shown);
  }
  selects.forEach(function (s) { s.addEventListener("change", applyFilter); });
})();
"""

BOARD_STYLE = """
body { max-width: 1640px; }
table.board th button { all: unset; cursor: pointer; font-weight: 600; }
table.board th button:focus-visible { outline: 2px solid #2952a3; }
table.board th[aria-sort=ascending] button::after { content: " \\25B2"; font-size: 0.8em; }
table.board th[aria-sort=descending] button::after { content: " \\25BC"; font-size: 0.8em; }
table.board td.sys { min-width: 10em; }
table.board tr.group-label td { background: #fff4d6; font-weight: 600; color: #6b5000; }
table.board tbody.unverifiable tr[data-row] { background: #fffaf0; }
table.board tbody.unverifiable tr[data-row] td:first-child { border-left: 4px solid #d9a400; }
table.board.unranked tr[data-row] { background: #f6f6f6; color: #5b6475; }
table.board.ranked-board tr > :first-child { width: 3.4em; min-width: 3.4em; max-width: 3.4em; }
table.board.ranked-board thead tr > :nth-child(2),
table.board.ranked-board tr[data-row] > :nth-child(2) { position: sticky; left: 3.4em;
  z-index: 1; background: var(--bg); box-shadow: inset -1px 0 var(--line); }
table.board.ranked-board thead tr > :nth-child(2) { background: var(--soft); }
table.board tbody.unverifiable tr[data-row] > :nth-child(-n+2) { background: #fffaf0; }
table.board.unranked tr[data-row] > :first-child { background: #f6f6f6; }
table.board tr.group-label > td:first-child { position: static; box-shadow: none;
  background: #fff4d6; }
table.board tr.group-label span { position: sticky; left: 8px; display: inline-block;
  max-width: calc(100vw - 80px); }
@media (max-width: 640px) {
  table.board td.sys { min-width: 7em; max-width: 9em; white-space: normal;
    overflow-wrap: anywhere; }
  table.board td.num .nowrap { white-space: normal; }
}
svg.ci { display: block; }
svg.ci .track { fill: #eef1f5; } svg.ci .val { fill: #4a6fa5; fill-opacity: 0.35; }
svg.ci .ci-line { stroke: #1d2330; stroke-width: 1.5; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 8px 0; }
"""


def _json_block(value: JSONValue) -> str:
    """JSON for a `<script type="application/json">` block: `<`, `>` and `&` as \\u
    escapes, so no text in it can close the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _script_hash(script: str) -> str:
    import base64

    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()


#: Width of a CI bar cell (px) and its height.
CI_WIDTH, CI_HEIGHT = 140, 16


def _scales(board: Leaderboard) -> dict[tuple[str, ...], tuple[float, bool]]:
    """Per ranking group: the axis end of its CI bars, and whether that end cuts bars
    (the same rule as the report's charts, `plots.axis_cap`)."""
    from earmark.render.plots import axis_cap, nice_ticks

    extents: dict[tuple[str, ...], list[float]] = {}
    for e in board.entries:
        metric = e.ranked_metric
        ci = None if metric is None else metric.ci
        top = ci[1] if ci is not None else e.value
        if top is not None:
            extents.setdefault(e.group, []).append(float(top))
    out = {}
    for group, values in extents.items():
        cap = axis_cap(values)
        out[group] = (cap, True) if cap is not None else (nice_ticks(max(values))[-1], False)
    return out


def _ci_svg(e: Entry, scale: tuple[float, bool] | None) -> str:
    """The value as a light bar and its 95% CI as a line with end ticks, on the group's
    axis; an end past a cut axis runs to the edge with an arrow."""
    metric = e.ranked_metric
    if metric is None or e.value is None or scale is None:
        return ""
    span = scale[0] or 1.0
    inner = CI_WIDTH - 8

    def x(v: float) -> float:
        return 2 + inner * min(max(v, 0.0), span) / span

    mid = CI_HEIGHT / 2
    parts = [
        f'<rect class="track" x="2" y="3" width="{inner}" height="{CI_HEIGHT - 6}"/>',
        f'<rect class="val" x="2" y="3" width="{max(x(e.value) - 2, 0.5):.1f}" '
        f'height="{CI_HEIGHT - 6}"/>',
    ]
    ci = metric.ci
    text = f"{100 * e.value:.2f}%"
    if ci:
        lo, hi = x(float(ci[0])), x(float(ci[1]))
        parts.append(f'<line class="ci-line" x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}"/>')
        parts.append(
            f'<line class="ci-line" x1="{lo:.1f}" y1="{mid - 4}" x2="{lo:.1f}" y2="{mid + 4}"/>'
        )
        if float(ci[1]) <= span:
            parts.append(
                f'<line class="ci-line" x1="{hi:.1f}" y1="{mid - 4}" x2="{hi:.1f}" y2="{mid + 4}"/>'
            )
        else:
            parts.append(
                f'<path class="ci-arrow" d="M{hi:.1f},{mid - 4} L{hi + 5:.1f},{mid} '
                f'L{hi:.1f},{mid + 4} Z"/>'
            )
        text += f" [{100 * float(ci[0]):.2f}, {100 * float(ci[1]):.2f}]"
    axis = f"axis 0–{100 * span:g}%" + (" (cut)" if scale[1] else "")
    return (
        f'<svg class="ci" width="{CI_WIDTH}" height="{CI_HEIGHT}" role="img" '
        f'viewBox="0 0 {CI_WIDTH} {CI_HEIGHT}"><title>{esc(text)}, {esc(axis)}</title>'
        + "".join(parts)
        + f'</svg><span class="nowrap">{esc(e.metric.upper())} {esc(text)}</span>'
    )


def _row_data(e: Entry, row_id: str, table: str) -> dict[str, JSONValue]:
    """What the script sorts and filters by (numbers as numbers, nulls sort last)."""

    def val(metric: MetricResult | None) -> float | None:
        return None if metric is None or metric.value is None else float(metric.value)

    return {
        "id": row_id,
        "table": table,
        "rank": e.rank,
        "system": e.system,
        "corpus": e.corpus,
        "language": e.language,
        "normalizer": f"{e.normalizer} / {e.view}",
        "n": e.n,
        "coverage": e.coverage,
        "value": e.value,
        "wer": val(e.wer),
        "cer": val(e.cer),
        "rtf": e.rtf,
        "rtfx": e.rtfx,
        "rss": e.peak_rss_bytes,
        "revision": e.model_revision,
        "architecture": e.architecture,
        "parameters": e.parameters,
        "model_size": e.model_size_bytes,
        "system_type": e.system_type,
        "verifiable": e.verifiable,
        "suspect": e.contamination is not None,
    }


#: (header, sort key, numeric) of the sortable tables. The figure comes right after the
#: system, so a phone shows it without scrolling sideways.
BOARD_COLUMNS = [
    ("rank", "rank", True),
    ("system", "system", False),
    ("ranked figure [95% CI]", "value", True),
    ("corpus", "corpus", False),
    ("language", "language", False),
    ("normaliser / view", "normalizer", False),
    ("N", "n", True),
    ("coverage", "coverage", True),
    ("WER [95% CI]", "wer", True),
    ("CER [95% CI]", "cer", True),
    ("RTF", "rtf", True),
    ("RTFx", "rtfx", True),
    ("peak RSS", "rss", True),
    ("model revision", "revision", False),
    ("architecture", "architecture", False),
    ("parameters", "parameters", True),
    ("model files", "model_size", True),
    ("system type", "system_type", False),
    ("verifiable", "verifiable", False),
]


def _board_table(
    entries: list[tuple[str, Entry]],
    scales: dict[tuple[str, ...], tuple[float, bool]],
    *,
    ranked: bool,
    table_id: str,
) -> str:
    columns = BOARD_COLUMNS if ranked else [c for c in BOARD_COLUMNS if c[1] != "rank"]
    head = "".join(
        f'<th><button type="button" data-key="{esc(key)}">{esc(title)}</button></th>'
        for title, key, _ in columns
    )
    if not ranked:
        head += "<th>why not ranked</th>"

    def row(row_id: str, e: Entry) -> str:
        cells = {
            "rank": rank_text(e),
            "system": esc(e.system)
            + ("" if e.verifiable else f' <span class="badge bad">⚠ {UNVERIFIABLE}</span>')
            + (
                f' <span class="badge bad" title="{esc(e.contamination)}">⚠ {SUSPECT}</span>'
                if e.contamination
                else ""
            ),
            "corpus": esc(e.corpus)
            + f'<br><code class="muted">{esc(e.corpus_hash_kind)} {esc(e.corpus_hash[:12])}</code>',
            "language": esc(e.language),
            "normalizer": esc(f"{e.normalizer} / {e.view}"),
            "n": esc(e.n),
            "coverage": esc(coverage_text(e)),
            "value": _ci_svg(e, scales.get(e.group)),
            "wer": esc(fmt_rate(e.wer) if e.wer else "n/a"),
            "cer": esc(fmt_rate(e.cer)),
            "rtf": esc(fmt_decimal(e.rtf)),
            "rtfx": f'<span title="{esc(e.rtfx_note or e.rtfx)}">{esc(rtfx_text(e))}</span>',
            "rss": esc(fmt_mib(e.peak_rss_bytes)),
            "revision": f'<code title="{esc(e.model_revision_note or "")}">'
            f"{esc(revision_text(e))}</code>",
            "architecture": esc(e.architecture or "—"),
            "parameters": f'<span title="{esc(e.parameters_note or e.parameters)}">'
            f"{esc(parameters_text(e))}</span>",
            "model_size": f'<span title="{esc(e.model_size_note or e.model_size_bytes)}">'
            f"{esc(fmt_mib(e.model_size_bytes))}</span>",
            "system_type": f'<span title="{esc(e.system_type_source or "nobody declared it")}">'
            f"{esc(e.system_type)}</span>",
            "verifiable": "yes" if e.verifiable else esc(f"no: {'; '.join(e.missing)}"),
        }
        tds = []
        for _, key, numeric in columns:
            klass = ' class="num"' if numeric else (' class="sys"' if key == "system" else "")
            tds.append(f"<td{klass}>{cells[key]}</td>")
        if not ranked:
            tds.append(f"<td>{esc(e.unranked_reason or '')}</td>")
        return f'<tr data-row="{esc(row_id)}">' + "".join(tds) + "</tr>"

    bodies = []
    if ranked:
        good = [row(i, e) for i, e in entries if e.verifiable]
        bad = [row(i, e) for i, e in entries if not e.verifiable]
        if good:
            bodies.append('<tbody class="verifiable">' + "".join(good) + "</tbody>")
        if bad:
            bodies.append(
                '<tbody class="unverifiable"><tr class="group-label"><td colspan="'
                f'{len(columns)}"><span>⚠ Unverifiable: no model revision, corpus hash or host '
                "profile, or saved hypotheses without a declared model; ranked after every "
                "verifiable row of their group</span></td></tr>" + "".join(bad) + "</tbody>"
            )
    else:
        bodies.append("<tbody>" + "".join(row(i, e) for i, e in entries) + "</tbody>")
    klass = "board ranked-board" if ranked else "board unranked"
    return (
        f'<div class="table-scroll"><table class="{klass}" id="{esc(table_id)}"><thead><tr>'
        + head
        + "</tr></thead>"
        + "".join(bodies)
        + "</table></div>"
    )


def render_html(board: Leaderboard) -> str:
    """The page people share: a sortable, filterable table with CIs drawn as bars,
    unverifiable rows apart in the same table and unranked rows in their own; then the
    systems × corpora overview. One file: inline style, one inline script allowed by
    its hash, data in a JSON block; every user string escaped."""
    ranked = [(f"r{i}", e) for i, e in enumerate(board.ranked)]
    unranked = [(f"u{i}", e) for i, e in enumerate(board.unranked)]
    script_rows: list[JSONValue] = [_row_data(e, i, "ranked") for i, e in ranked]
    script_rows += [_row_data(e, i, "unranked") for i, e in unranked]
    data: dict[str, JSONValue] = {"rows": script_rows}
    scales = _scales(board)

    def options(key: str, label: str) -> str:
        values = sorted({getattr(e, key) for e in board.entries})
        return (
            f'<label>{esc(label)} <select data-filter="{esc(key)}"><option value="">all</option>'
            + "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
            + "</select></label>"
        )

    header, rows = pivot(board)
    overview: list[list[object]] = []
    for row in rows:
        cells: list[object] = [row[0]]
        if f"⚠ {UNVERIFIABLE}" in row[0]:
            name = row[0].replace(f" ⚠ {UNVERIFIABLE}", "")
            cells[0] = Markup(f'{esc(name)} <span class="badge bad">⚠ {UNVERIFIABLE}</span>')
        cells += [Markup(f'<span class="nowrap">{esc(c)}</span>') for c in row[1:]]
        overview.append(cells)
    csp = CSP + f"; script-src '{_script_hash(BOARD_SCRIPT)}'"
    total = len(ranked) + len(unranked)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>earmark leaderboard</title>\n<style>{STYLE}{BOARD_STYLE}</style>\n</head>\n"
        "<body>\n<h1>earmark leaderboard</h1>\n"
        "<p>Primary view per language; lower is better. Ranked within each corpus × language "
        "× normaliser; competition ranks (1, 2, 2, 4). Rows marked unverifiable lack model "
        "revision, corpus hash or host profile (or are saved hypotheses without a declared "
        "model) and rank after every verifiable row. RTFx: audio seconds per processing "
        "second. Bars: "
        "the figure (shaded) and its 95% CI (line) on one axis per corpus × language; an "
        "arrow marks a CI past a cut axis. Click a header to sort.</p>\n"
        f'<div class="filters">{options("corpus", "corpus")}{options("language", "language")}'
        f"{options('system_type', 'system type')}"
        f'<span class="muted"><span id="shown">{total}</span> of {total} rows shown</span>'
        "</div>\n<h2>Ranked</h2>\n"
        + _board_table(ranked, scales, ranked=True, table_id="ranked")
        + (
            f"\n<h2>Not ranked</h2>\n<p>{esc(unranked_intro(board))}</p>\n"
            + _board_table(unranked, scales, ranked=False, table_id="unranked")
            if unranked
            else ""
        )
        + (
            f"\n<h2>Contamination</h2>\n<p>{esc(contamination_intro(board))}</p>\n"
            + html_table(["system", "corpus · language", "why suspect"], contamination_rows(board))
            if board.contamination
            else ""
        )
        + "\n<h2>Systems × corpora</h2>\n"
        + html_table(header, overview)
        + (f"\n<p>Mean over corpora: {esc(MEAN_RULE)}.</p>" if board.means else "")
        + (
            f'\n<h2 id="self-reported">Self-reported (not verified)</h2>\n'
            f"<p>{esc(SELF_REPORTED_INTRO)}</p>\n"
            + html_table(SELF_REPORTED_HEADER, self_reported_rows(board))
            if board.self_reported
            else ""
        )
        + f"\n<footer>created {esc(board.created)}</footer>\n"
        f'<script type="application/json" id="board-data">{_json_block(data)}</script>\n'
        f"<script>{BOARD_SCRIPT}</script>\n</body>\n</html>\n"
    )
