"""Transcripts on the page: long text folded into an expander, coloured alignments, and
the worst-utterances section built from predictions.jsonl rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from earmark.language_tags import base_language
from earmark.metrics.alignment import align
from earmark.metrics.analysis import worst_utterances
from earmark.metrics.counts import ErrorCounts
from earmark.render.html_inputs import ReportInputs, primary_metric
from earmark.render.html_page import Markup, esc, html_table, lang_attr, pct, section

#: Characters of a transcript shown before the rest folds into an expander: one runaway
#: hypothesis must not fill the screen.
TEXT_LIMIT = 300
#: Aligned columns shown before the rest folds into an expander.
ALIGNMENT_LIMIT = 60


def transcript(text: str | None, language: str | None, limit: int = TEXT_LIMIT) -> str:
    """The text as written; past `limit` characters the rest opens on a click."""
    if text is None:
        return '<span class="muted">(no hypothesis)</span>'
    lang = lang_attr(language)
    if len(text) <= limit:
        return f'<span class="transcript"{lang}>{esc(text)}</span>'
    return (
        f'<details class="long"><summary><span class="transcript"{lang}>{esc(text[:limit])}'
        f"</span>… ({esc(len(text))} characters: show all)</summary>"
        f'<span class="transcript"{lang}>{esc(text[limit:])}</span></details>'
    )


def examples_table(rows: Sequence[dict[str, Any]]) -> Markup:
    return html_table(
        ["arm", "id", "hypothesis"],
        [
            [
                r.get("arm", ""),
                r.get("id"),
                Markup(transcript(r.get("hypothesis"), r.get("language"))),
            ]
            for r in rows
        ],
    )


def alignment_html(reference: str, hypothesis: str, unit: str, language: str | None) -> Markup:
    """A coloured alignment: each column the reference unit over the hypothesis unit;
    green match, yellow substitution, red deletion, blue insertion (`*` is a gap).
    Character units show a space as `␣` so word boundaries stay visible."""
    if unit == "word":
        ref_units, hyp_units = reference.split(), hypothesis.split()
    else:
        ref_units, hyp_units = list(reference), list(hypothesis)
    alignment = align(ref_units, hyp_units)

    def cell(unit_text: str | None) -> str:
        if unit_text is None:
            return '<span class="gap">*</span>'
        return esc("␣" if unit_text == " " else unit_text)

    cols = [
        f'<span class="al al-{op.kind}" title="{esc(op.kind)}">'
        f'<span class="al-r">{cell(op.ref)}</span><span class="al-h">{cell(op.hyp)}</span></span>'
        for op in alignment.ops
    ]
    lang = lang_attr(language)
    shown = f'<div class="alignment"{lang}>{"".join(cols[:ALIGNMENT_LIMIT])}</div>'
    if len(cols) <= ALIGNMENT_LIMIT:
        return Markup(shown)
    return Markup(
        shown + f'<details class="long"><summary>… {len(cols) - ALIGNMENT_LIMIT} more aligned '
        f'units (show all)</summary><div class="alignment"{lang}>'
        f"{''.join(cols[ALIGNMENT_LIMIT:])}</div></details>"
    )


def render_worst(page: ReportInputs, k: int) -> str:
    body: list[str] = [
        '<p class="legend">Top line reference, bottom line hypothesis (normalised, primary '
        'view): <span class="al-equal">match</span><span class="al-substitute">substitution'
        '</span><span class="al-delete">deletion</span><span class="al-insert">insertion'
        '</span> <span class="gap">*</span> gap.</p>'
    ]
    found = False
    for arm_name, lang, block in page.blocks():
        metric_name = primary_metric(block)
        unit = "word" if metric_name == "wer" else "char"
        view_name = block.primary_view
        candidates: list[tuple[str, ErrorCounts]] = []
        by_key: dict[str, dict[str, Any]] = {}
        for row in page.arm_rows(arm_name):
            if base_language(row.get("language")) != lang:
                continue
            view = (row.get("views") or {}).get(view_name) or {}
            counts = view.get(metric_name)
            if not counts:
                continue
            ec = ErrorCounts(
                int(counts["substitutions"]),
                int(counts["deletions"]),
                int(counts["insertions"]),
                int(counts["hits"]),
            )
            if ec.errors == 0:
                continue
            key = f"{row.get('id')}#{int(row.get('repeat') or 0)}"
            candidates.append((key, ec))
            by_key[key] = row
        worst = worst_utterances(candidates, k)
        if not worst:
            continue
        found = True
        body.append(
            f"<h3>{esc(arm_name)} · {esc(lang)} — {esc(len(worst))} worst by "
            f"{esc(metric_name.upper())}"
            f" errors ({esc(block.normalizer.name)} / {esc(view_name)})</h3>"
        )
        items = []
        for key, ec in worst:
            row = by_key[key]
            view = row["views"][view_name]
            rate = ec.error_rate()
            raw_lang = row.get("language")
            items.append(
                f"<li><code>{esc(row.get('id'))}</code> — {esc(ec.errors)} errors "
                f"(S {esc(ec.substitutions)}, D {esc(ec.deletions)}, I {esc(ec.insertions)}) of "
                f"{esc(ec.ref_units)} reference units"
                + (f", {esc(pct(rate, 1))}" if rate is not None else "")
                + alignment_html(view["reference"], view["hypothesis"], unit, raw_lang)
                + '<details><summary>raw texts</summary><div class="table-scroll"><table>'
                + "<tr><th>reference</th><td>"
                + transcript(row.get("reference"), raw_lang)
                + "</td></tr><tr><th>hypothesis</th><td>"
                + transcript(row.get("hypothesis"), raw_lang)
                + "</td></tr></table></div></details></li>"
            )
        body.append("<ol>" + "".join(items) + "</ol>")
    if not found:
        body.append("<p>No utterance has an error in its primary view.</p>")
    return section("worst", "Worst utterances", body)
