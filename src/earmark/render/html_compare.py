"""The arm-comparison section, from compare.json: per-arm agreement, the paired
difference matrix, every pair's tests, the churn list and the unpaired rows."""

from __future__ import annotations

from typing import Any

from earmark.render.html_inputs import ReportInputs
from earmark.render.html_page import Markup, chart, esc, html_table, num, p_value, pct, section
from earmark.render.plots import MatrixCell, comparison_matrix
from earmark.results.codec import JSONObject, JSONValue
from earmark.results.display import fmt_rate


def render_comparison(page: ReportInputs) -> str:
    cmp = page.run.compare
    if not cmp:
        return section(
            "comparison",
            "Arm comparison",
            [
                '<p class="muted">No compare.json: run <code>earmark compare</code> and pass '
                "<code>--compare</code> to add the comparison matrix and churn list.</p>"
            ],
        )
    ref = str(cmp.get("reference_arm", ""))
    body: list[str] = [
        f"<p>Reference arm <b>{esc(ref)}</b>; {esc(cmp.get('n_shared', '—'))} shared rows; "
        f"aggregate {esc(cmp.get('aggregate', '—'))}. Differences are challenger − reference "
        "(negative: fewer errors).</p>"
    ]
    arm_rows: list[list[object]] = []
    for name, arm in (cmp.get("arms") or {}).items():
        exact = arm.get("exact_match_vs_reference") or {}
        ci = exact.get("ci95")
        exact_text = "—"
        if exact.get("value") is not None:
            exact_text = pct(exact["value"])
            if ci:
                exact_text += f" [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
            exact_text += f" ({exact.get('matches', '?')}/{exact.get('n', '?')})"
        vs_ref = arm.get("vs_reference_arm") or {}
        vs_human = arm.get("vs_human") or {}
        arm_rows.append(
            [
                name,
                num(exact_text),
                num(fmt_rate(vs_ref.get("wer"))),
                num(fmt_rate(vs_ref.get("cer"))),
                num(fmt_rate(vs_human.get("wer"))),
                num(fmt_rate(vs_human.get("cer"))),
                num(str(len(arm.get("differs_from_reference") or []))),
            ]
        )
    if arm_rows:
        body.append(
            html_table(
                [
                    "arm",
                    "exact match vs reference arm",
                    "WER vs reference arm",
                    "CER vs reference arm",
                    "WER vs human",
                    "CER vs human",
                    "rows that differ",
                ],
                arm_rows,
            )
        )
    pairs = list(cmp.get("pairs") or [])
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for pair in pairs:
        scope = str(pair.get("language") or "all languages")
        key = (scope, str(pair.get("metric")), str(pair.get("view")))
        groups.setdefault(key, []).append(pair)
    for (scope, metric, view), group in groups.items():
        refs = sorted({str(p["reference"]) for p in group})
        cols = sorted({str(p["challenger"]) for p in group})
        cells = [
            MatrixCell(
                row=str(p["reference"]),
                column=str(p["challenger"]),
                difference=p.get("difference"),
                low=(p.get("ci95") or [None, None])[0],
                high=(p.get("ci95") or [None, None])[1],
                significant=p.get("p_holm") is not None and float(p["p_holm"]) < 0.05,
            )
            for p in group
        ]
        shown_view = f" ({view})" if view not in ("None", "") else ""
        title = f"{scope}, {metric.upper()}{shown_view}: challenger (column) − reference (row)"
        body.append(Markup(chart(comparison_matrix(refs, cols, cells, title=title))))
    if pairs:
        rows = []
        for p in pairs:
            ci = p.get("ci95")
            rows.append(
                [
                    p.get("reference"),
                    p.get("challenger"),
                    p.get("language") or "all",
                    _metric_view(p),
                    num(pct(p.get("reference_value"))),
                    num(pct(p.get("challenger_value"))),
                    num(
                        "—"
                        if p.get("difference") is None
                        else f"{100 * p['difference']:+.2f} pp"
                        + (f" [{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]" if ci else "")
                    ),
                    num(pct(p.get("share_challenger_better"), 1)),
                    _p_values(p),
                ]
            )
        body.append(
            html_table(
                [
                    "reference",
                    "challenger",
                    "language",
                    "metric / view",
                    "reference",
                    "challenger",
                    "difference [95% CI]",
                    "resamples challenger better",
                    "p-values",
                ],
                rows,
            )
        )
        body.append(
            '<p class="muted">Green cell: the CI lies below 0 (challenger better); red: '
            "above 0 (worse); grey: it covers 0. <code>*</code>: Holm-adjusted p &lt; 0.05."
            "</p>"
        )
    churn = []
    for name, arm in (cmp.get("arms") or {}).items():
        ids = list(arm.get("differs_from_reference") or [])
        if not ids or name == ref:
            continue
        shown = ", ".join(f"<code>{esc(i)}</code>" for i in ids[:200])
        more = f" … and {len(ids) - 200} more (see compare.json)" if len(ids) > 200 else ""
        churn.append(
            f"<details><summary>{esc(name)}: {len(ids)} rows differ from {esc(ref)}</summary>"
            f"<p>{shown}{esc(more)}</p></details>"
        )
    if churn:
        body.append("<h3>Churn: rows whose text differs from the reference arm</h3>")
        body += churn
    unpaired = list(cmp.get("unpaired") or [])
    if unpaired:
        body.append("<h3>Unpaired rows (left out of every paired figure)</h3>")
        body.append(
            html_table(
                ["arm", "id", "repeat", "reason"],
                [[u.get("arm"), u.get("id"), u.get("repeat"), u.get("reason")] for u in unpaired],
            )
        )
    return section("comparison", "Arm comparison", body)


#: The paired tests' p-values, one line each in one cell (five columns of their own made
#: the table wider than a 1280 px page): (label, compare.json key).
P_VALUES = (
    ("sign test", "sign_test_p"),
    ("Wilcoxon", "wilcoxon_p"),
    ("Holm-adjusted", "p_holm"),
    ("McNemar", "mcnemar_p"),
    ("MAPSSWE", "mapsswe_p"),
)


def _p_values(pair: JSONObject) -> Markup:
    return Markup(
        "<br>".join(
            f'<span class="nowrap">{esc(label)} {esc(p_value(_number(pair.get(key))))}</span>'
            for label, key in P_VALUES
        )
    )


def _number(value: JSONValue | None) -> float | None:
    """A p-value as compare.json holds it (a number, or null with its reason elsewhere)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _metric_view(pair: JSONObject) -> str:
    """`wer / normalized`; the metric alone where the pair names no view (never `None`)."""
    view = pair.get("view")
    metric = str(pair.get("metric"))
    return metric if view in (None, "None", "") else f"{metric} / {view}"
