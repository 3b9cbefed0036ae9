"""The error-types section: the S/D/I chart, and sclite's per-speaker tables and
confusion pairs for arms scored with --sclite-reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from earmark.render.html_inputs import ReportInputs, primary_metric, primary_view
from earmark.render.html_page import (
    Markup,
    Num,
    chart,
    esc,
    html_table,
    num,
    section,
    short,
)
from earmark.render.plots import ErrorSplit, stacked_error_bars


def render_errors(page: ReportInputs) -> str:
    splits = []
    for arm_name, lang, block in page.blocks():
        name = primary_metric(block)
        metric = primary_view(block).metrics.get(name)
        if metric is None:
            continue
        splits.append(
            ErrorSplit(
                label=f"{arm_name} · {lang} ({name.upper()})",
                substitutions=metric.substitutions,
                deletions=metric.deletions,
                insertions=metric.insertions,
                ref_units=metric.ref_units,
            )
        )
    body: list[str] = [
        Markup(
            chart(
                stacked_error_bars(
                    splits, title="Substitutions, deletions, insertions (primary view)"
                )
            )
            if splits
            else "<p>No error counts.</p>"
        ),
        '<p class="muted">A bar longer than 100% means the system inserted more units '
        "than the reference holds (insertion-driven hallucination).</p>",
        *_sclite_tables(page),
    ]
    return section("errors", "Error types", body)


#: Confusion pairs shown per arm; the rest are in results.json and NAME.dtl.
CONFUSION_LIMIT = 200
SCLITE_HEADER = ("SPKR", "# Snt", "# Wrd", "Corr", "Sub", "Del", "Ins", "Err", "S.Err")


def _count_pct(part: int, whole: int) -> Num:
    return num(f"{part} ({100 * part / whole:.1f}%)" if whole else str(part))


def sclite_speaker_rows(sclite: Mapping[str, Any]) -> list[list[object]]:
    """The `.sys` table of an arm's `sclite` block: each speaker, then the total, as
    counts with sclite's percentages (of # Wrd; S.Err of # Snt)."""
    rows: list[list[object]] = []
    for line in [*sclite.get("speakers", []), sclite["total"]]:
        words, sentences = int(line["words"]), int(line["sentences"])
        label = "Sum/Avg" if line is sclite["total"] else line["speaker"]
        rows.append(
            [
                label,
                num(str(sentences)),
                num(str(words)),
                *(
                    _count_pct(int(line[key]), words)
                    for key in ("correct", "substitutions", "deletions", "insertions", "errors")
                ),
                _count_pct(int(line["sentence_errors"]), sentences),
            ]
        )
    return rows


def _sclite_tables(page: ReportInputs) -> list[str]:
    """Per-speaker tables and confusion pairs of arms scored with --sclite-reports.

    Nothing when no arm has the block (the page is then as before). Confusion pairs are
    transcript words, so a corpus that forbids sharing transcripts shows only counts."""
    private = page.run.corpus.get("redistribute_transcripts") is False
    body: list[str] = []
    for arm_name, arm in page.results.arms.items():
        sclite: Mapping[str, Any] | None = arm.sclite
        if not sclite or "total" not in sclite:
            continue
        notes = [f"alignment: {sclite.get('alignment', '—')}"]
        glm = sclite.get("glm")
        if glm:
            notes.append(
                f"GLM {glm.get('name')} ({glm.get('version')}, sha256 {short(glm.get('sha256'))})"
            )
        if sclite.get("reference_markup"):
            notes.append(f"{sclite['reference_markup']} reference(s) with sclite markup")
        body.append(
            f'<h3 id="sclite-{esc(arm_name)}">{esc(arm_name)}: sclite summary by speaker</h3>'
        )
        body.append(f'<p class="muted">{esc("; ".join(notes))}</p>')
        body.append(html_table(SCLITE_HEADER, sclite_speaker_rows(sclite), cls="sclite"))
        pairs = sclite.get("confusion_pairs", [])
        total = sum(int(p["count"]) for p in pairs)
        summary = f"{esc(arm_name)}: {len(pairs)} confusion pair(s), {total} substitution(s)"
        if private:
            body.append(f"<p>{summary}; words withheld (redistribute_transcripts: false).</p>")
            continue
        shown = pairs[:CONFUSION_LIMIT]
        rows = [[p["reference"], "→", p["hypothesis"], num(str(p["count"]))] for p in shown]
        more = (
            f'<p class="muted">… {len(pairs) - len(shown)} more in results.json and the .dtl '
            "report.</p>"
            if len(pairs) > len(shown)
            else ""
        )
        body.append(
            f'<details class="confusions"><summary>{summary}</summary>'
            + html_table(["reference", "", "hypothesis", "count"], rows)
            + more
            + "</details>"
        )
    return body
