"""The rate sections: headline figures, the per-language chart with its slice and
speaker tables, and the effect of normalisation (raw view against the primary view).

Every figure is read from results.json and formatted by `markdown.fmt_rate`, so the page
and results.md show the same digits.
"""

from __future__ import annotations

from typing import Any

from earmark.report.html_page import (
    Markup,
    chart,
    esc,
    html_table,
    num,
    primary_figures,
    sdi,
    section,
)
from earmark.report.markdown import fmt_rate
from earmark.report.plots import Bar, bar_chart
from earmark.report.run_directory import RunDirectory, primary_metric_name


def render_headline(run: RunDirectory) -> str:
    rows: list[list[object]] = []
    for arm_name, arm in run.results["arms"].items():
        scopes: list[tuple[str, dict[str, Any]]] = []
        if arm.get("overall"):
            scopes.append(("all", arm["overall"]))
        scopes += list(arm.get("by_language", {}).items())
        for lang, block in scopes:
            view = primary_figures(block)
            statuses = block.get("statuses") or {}
            n = block.get("n_utterances", 0)
            ok = statuses.get("ok", n) if statuses else n
            coverage = f"{ok}/{n} ok" + (f", {n - ok} scored as deletions" if ok != n else "")
            wer = view.get("wer")
            rows.append(
                [
                    arm_name,
                    lang,
                    f"{block['normalizer']['name']} / {block['primary_view']}",
                    num(str(n)),
                    coverage,
                    num(fmt_rate(wer) if wer else "n/a (no word units)"),
                    num(fmt_rate(view.get("cer"))),
                    num(sdi(view.get(primary_metric_name(block)))),
                ]
            )
    body: list[str] = [
        html_table(
            [
                "arm",
                "language",
                "normaliser / primary view",
                "N",
                "coverage",
                "WER [95% CI]",
                "CER [95% CI]",
                "S/D/I of N_ref (primary metric)",
            ],
            rows,
            "headline",
        )
    ]
    notes = []
    for arm_name, arm in run.results["arms"].items():
        cov = arm["coverage"]
        boot = arm["bootstrap"]
        how = (
            "corpus-level (micro): summed edits / summed reference units"
            if arm["aggregate"] == "micro"
            else "macro: mean of per-utterance rates, not corpus WER"
        )
        line = (
            f"<li><b>{esc(arm_name)}</b>: {esc(cov['references'])} references, "
            f"{esc(cov['scored'])} scored, {esc(len(cov.get('not_ok', [])))} without a usable "
            f"hypothesis (scored as deletions); {esc(how)}; percentile "
            f"{esc(int(100 * boot['level']))}% clip bootstrap, {esc(boot['resamples'])} "
            f"resamples, seed {esc(boot['seed'])}."
        )
        if not arm.get("overall") and arm.get("overall_null_reason"):
            line += f" Overall: null — {esc(arm['overall_null_reason'])}."
        notes.append(line + "</li>")
    body.append("<ul>" + "".join(notes) + "</ul>")
    return section("headline", "Headline figures (primary view, 95% CI)", body)


def render_languages(run: RunDirectory) -> str:
    bars = []
    for arm_name, lang, block in run.blocks():
        metric_name = primary_metric_name(block)
        metric = primary_figures(block).get(metric_name) or {}
        ci = metric.get("ci95") or [None, None]
        bars.append(
            Bar(
                label=f"{arm_name} · {lang} ({metric_name.upper()})",
                value=metric.get("value"),
                low=ci[0],
                high=ci[1],
                note=str(metric.get("null_reason", "")),
            )
        )
    body: list[str] = [
        Markup(
            chart(bar_chart(bars, title="Primary-view error rate by language, with 95% CI"))
            if bars
            else "<p>No per-language figures.</p>"
        )
    ]
    slice_rows = _group_rows(run, "by_slice")
    if slice_rows:
        body.append("<h3>Slices (primary view)</h3>")
        body.append(html_table(["arm", "language", "slice", "N", "WER", "CER"], slice_rows))
    speaker_rows = _group_rows(run, "by_speaker")
    if speaker_rows:
        body.append("<h3>Speakers (primary view; intervals resample each speaker's clips)</h3>")
        body.append(html_table(["arm", "language", "speaker", "N", "WER", "CER"], speaker_rows))
    return section("languages", "By language", body)


def _group_rows(run: RunDirectory, key: str) -> list[list[object]]:
    """Arm, language, group, N, WER and CER (primary view) of every group in the blocks'
    `key` breakdown (`by_slice`, `by_speaker`): the two tables read the same figures, so
    they are laid out the same way."""
    rows: list[list[object]] = []
    for arm_name, lang, block in run.blocks():
        for name, group in (block.get(key) or {}).items():
            view = primary_figures(group)
            wer = view.get("wer")
            rows.append(
                [
                    arm_name,
                    lang,
                    name,
                    num(str(group["n_utterances"])),
                    num(fmt_rate(wer) if wer else "n/a"),
                    num(fmt_rate(view.get("cer"))),
                ]
            )
    return rows


def render_normalisation(run: RunDirectory) -> str:
    rows: list[list[object]] = []
    for arm_name, lang, block in run.blocks():
        name = primary_metric_name(block)
        views = block.get("views", {})
        primary = block.get("primary_view", "")
        raw = (views.get("raw") or {}).get(name) or {}
        prim = (views.get(primary) or {}).get(name) or {}
        change = "—"
        if raw.get("value") is not None and prim.get("value") is not None:
            change = f"{100 * (prim['value'] - raw['value']):+.2f} pp"
        others = "; ".join(
            f"{v}: {fmt_rate(m.get(name))}"
            for v, m in views.items()
            if v not in ("raw", primary) and m.get(name)
        )
        rows.append(
            [
                arm_name,
                lang,
                block["normalizer"]["name"],
                name.upper(),
                num(fmt_rate(raw) if raw else "—"),
                num(f"{primary}: {fmt_rate(prim)}"),
                num(change),
                others or "—",
            ]
        )
    body: list[str] = [
        "<p>How much of the raw error is formatting (case, punctuation, width, script) "
        "rather than recognition: the same rows scored on the raw texts and on the "
        "normaliser's primary view.</p>",
        html_table(
            [
                "arm",
                "language",
                "normaliser",
                "metric",
                "raw view",
                "primary view",
                "change",
                "other views",
            ],
            rows,
        ),
    ]
    return section("normalisation", "Effect of normalisation", body)
