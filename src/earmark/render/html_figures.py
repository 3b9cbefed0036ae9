"""The rate sections: headline figures, the per-language chart with its slice and
speaker tables, and the effect of normalisation (raw view against the primary view).

Every figure is read from the typed results and formatted as `markdown.fmt_rate` formats
it, so the page and results.md show the same digits.
"""

from __future__ import annotations

from earmark.render.html_inputs import ReportInputs, primary_metric, primary_view, rate, sdi
from earmark.render.html_page import Markup, chart, esc, figure_cell, html_table, num, section
from earmark.render.markdown import word_information_rows
from earmark.render.plots import Bar, bar_chart
from earmark.results import ScopeResult


def render_headline(page: ReportInputs) -> str:
    """The figures come right after arm and language, so a phone shows them without
    scrolling sideways; how they were computed follows."""
    rows: list[list[object]] = []
    for arm_name, arm in page.results.arms.items():
        scopes: list[tuple[str, ScopeResult]] = []
        if arm.overall is not None:
            scopes.append(("all", arm.overall))
        scopes += list(arm.by_language.items())
        for lang, block in scopes:
            view = primary_view(block)
            n = block.n_utterances
            ok = block.statuses.get("ok", n) if block.statuses else n
            coverage = f"{ok}/{n} ok" + (f", {n - ok} scored as deletions" if ok != n else "")
            wer = view.metrics.get("wer")
            rows.append(
                [
                    arm_name,
                    lang,
                    num(rate(wer) if wer else "n/a (no word units)"),
                    num(rate(view.metrics.get("cer"))),
                    num(sdi(view.metrics.get(primary_metric(block)))),
                    num(str(n)),
                    coverage,
                    f"{block.normalizer.name} / {block.primary_view}",
                ]
            )
    body: list[str] = [
        html_table(
            [
                "arm",
                "language",
                "WER [95% CI]",
                "CER [95% CI]",
                "S/D/I of N_ref (primary metric)",
                "N",
                "coverage",
                "normaliser / primary view",
            ],
            rows,
            "headline",
        )
    ]
    notes = []
    for arm_name, arm in page.results.arms.items():
        cov, boot = arm.coverage, arm.bootstrap
        how = (
            "corpus-level (micro): summed edits / summed reference units"
            if arm.aggregate == "micro"
            else "macro: mean of per-utterance rates, not corpus WER"
        )
        line = (
            f"<li><b>{esc(arm_name)}</b>: {esc(cov.references)} references, "
            f"{esc(cov.scored)} scored, {esc(len(cov.not_ok))} without a usable "
            f"hypothesis (scored as deletions); {esc(how)}; percentile "
            f"{esc(int(100 * boot.level))}% clip bootstrap, {esc(boot.resamples)} "
            f"resamples, seed {esc(boot.seed)}."
        )
        if arm.overall is None and arm.overall_null_reason:
            line += f" Overall: null — {esc(arm.overall_null_reason)}."
        notes.append(line + "</li>")
    body.append("<ul>" + "".join(notes) + "</ul>")
    return section("headline", "Headline figures (primary view, 95% CI)", body)


def render_languages(page: ReportInputs) -> str:
    bars = []
    for arm_name, lang, block in page.blocks():
        metric_name = primary_metric(block)
        metric = primary_view(block).metrics.get(metric_name)
        bars.append(
            Bar(
                label=f"{arm_name} · {lang} ({metric_name.upper()})",
                value=None if metric is None else metric.value,
                low=None if metric is None or metric.ci is None else metric.ci[0],
                high=None if metric is None or metric.ci is None else metric.ci[1],
                note=(metric and metric.null_reason) or "",
            )
        )
    body: list[str] = [
        Markup(
            chart(bar_chart(bars, title="Primary-view error rate by language, with 95% CI"))
            if bars
            else "<p>No per-language figures.</p>"
        )
    ]
    information = [
        [arm_name, lang, *(num(cell) if i else cell for i, cell in enumerate(row))]
        for arm_name, lang, block in page.blocks()
        for row in word_information_rows(block)
    ]
    if information:
        body.append("<h3>Word information (primary view; WIP asked for)</h3>")
        body.append(html_table(["arm", "language", "metric", "MER", "WIL", "WIP"], information))
    slice_rows = _group_rows(page, "by_slice")
    if slice_rows:
        body.append("<h3>Slices (primary view)</h3>")
        body.append(html_table(["arm", "language", "slice", "N", "WER", "CER"], slice_rows))
    speaker_rows = _group_rows(page, "by_speaker")
    if speaker_rows:
        body.append("<h3>Speakers (primary view; intervals resample each speaker's clips)</h3>")
        body.append(html_table(["arm", "language", "speaker", "N", "WER", "CER"], speaker_rows))
    return section("languages", "By language", body)


def _group_rows(page: ReportInputs, key: str) -> list[list[object]]:
    """Arm, language, group, N, WER and CER (primary view) of every group in the blocks'
    `key` breakdown (`by_slice`, `by_speaker`): the two tables read the same figures, so
    they are laid out the same way."""
    rows: list[list[object]] = []
    for arm_name, lang, block in page.blocks():
        groups = block.by_slice if key == "by_slice" else block.by_speaker
        for name, group in (groups or {}).items():
            view = primary_view(group)
            wer = view.metrics.get("wer")
            rows.append(
                [
                    arm_name,
                    lang,
                    name,
                    num(str(group.n_utterances)),
                    num(rate(wer) if wer else "n/a"),
                    num(rate(view.metrics.get("cer"))),
                ]
            )
    return rows


def render_normalization(page: ReportInputs) -> str:
    rows: list[list[object]] = []
    for arm_name, lang, block in page.blocks():
        name = primary_metric(block)
        primary = block.primary_view
        raw_view = block.views.get("raw")
        raw = None if raw_view is None else raw_view.metrics.get(name)
        prim = primary_view(block).metrics.get(name)
        change = "—"
        if raw and prim and raw.value is not None and prim.value is not None:
            change = f"{100 * (prim.value - raw.value):+.2f} pp"
        others = "; ".join(
            f"{v}: {rate(view.metrics[name])}"
            for v, view in block.views.items()
            if v not in ("raw", primary) and name in view.metrics
        )
        rows.append(
            [
                arm_name,
                lang,
                block.normalizer.name,
                name.upper(),
                figure_cell(rate(raw) if raw else "—"),
                figure_cell(f"{primary}: {rate(prim) if prim else 'null (not computable)'}"),
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
