"""`report.html`: the whole run in one self-contained page.

One file a person can open offline or attach to an issue: no script, no CDN, no web font,
no external image (charts are inline SVG from `earmark.render.plots`), and a strict
Content-Security-Policy so that even a transcript that slipped through escaping could not
run or fetch anything. Every piece of user text (transcripts, ids, arm names) is escaped
with `html.escape`; the only unescaped strings are the `Markup` the renderers build.

Every figure is read from results.json, typed once (`html_inputs.ReportInputs`) and
formatted as `markdown.fmt_rate` formats it, so the page and results.md show the same
digits; only the latency plot, the diagnostics examples and the worst-utterance
alignments are built from predictions.jsonl rows.

This module assembles the page; each section has its own renderer (`html_figures`,
`html_errors`, `html_latency`, `html_compare`, `html_diagnostics`, `html_extra_metrics`,
`html_examples`, `html_provenance`) built on the shell and escaping of `html_page`.
"""

from __future__ import annotations

import os
from pathlib import Path

from earmark.artefacts import add_to_listing
from earmark.outputs import atomic_write_text
from earmark.render.html_compare import render_comparison
from earmark.render.html_diagnostics import render_diagnostics
from earmark.render.html_errors import CONFUSION_LIMIT, render_errors, sclite_speaker_rows
from earmark.render.html_examples import (
    ALIGNMENT_LIMIT,
    TEXT_LIMIT,
    alignment_html,
    render_worst,
)
from earmark.render.html_extra_metrics import render_punctuation, render_timestamps
from earmark.render.html_figures import render_headline, render_languages, render_normalization
from earmark.render.html_inputs import ReportInputs
from earmark.render.html_latency import render_latency
from earmark.render.html_page import CSP, STYLE, Markup, esc, html_table, section
from earmark.render.html_provenance import render_probes, render_provenance
from earmark.render.run_directory import RunDirectory, load_run

__all__ = [
    "ALIGNMENT_LIMIT",
    "CONFUSION_LIMIT",
    "CSP",
    "SECTIONS",
    "STYLE",
    "TEXT_LIMIT",
    "Markup",
    "alignment_html",
    "esc",
    "html_table",
    "render_html_report",
    "sclite_speaker_rows",
    "write_html_report",
]

#: Section ids, in page order (tests and readers can link to them).
SECTIONS = (
    "headline",
    "languages",
    "errors",
    "latency",
    "comparison",
    "diagnostics",
    "punctuation",
    "timestamps",
    "worst",
    "normalisation",
    "provenance",
    "probes",
)


def render_html_report(
    run: RunDirectory, *, title: str = "earmark report", worst_k: int = 5
) -> str:
    """The complete page as one string (UTF-8 when written)."""
    page = ReportInputs.of(run)
    results = page.results
    banners = []
    if results.public is False:
        banners.append(
            '<div class="banner private" id="not-public">Not public. The corpus sidecar does '
            "not permit redistribution of audio and transcripts: share aggregate figures only, "
            "never this page.</div>"
        )
    ok, missing = run.verifiable()
    if not ok:
        banners.append(
            '<div class="banner unverifiable" id="unverifiable">Unverifiable: this run lacks '
            f"{esc('; '.join(missing))}. Do not publish a winner from it "
            "(a result nobody can re-check is no basis for a decision).</div>"
        )
    corpus = run.corpus
    subtitle = (
        f"{esc(corpus.get('dataset') or 'scored predictions')} · "
        f"{esc(len(results.arms))} arm(s) · created {esc(results.created)} · "
        f"earmark {esc(results.earmark_version)}"
    )
    nav = "".join(f'<a href="#{s}">{esc(s)}</a>' for s in SECTIONS)
    # Sidecar `redistribute_transcripts: false`: figures only, no text from predictions.
    private = corpus.get("redistribute_transcripts") is False
    withheld = (
        "<p>Withheld: the corpus does not permit sharing transcripts "
        "(redistribute_transcripts: false); figures only.</p>"
    )
    sections = [
        render_headline(page),
        render_languages(page),
        render_errors(page),
        render_latency(page),
        render_comparison(page),
        section("diagnostics", "Diagnostics", [withheld]) if private else render_diagnostics(page),
        render_punctuation(page),
        render_timestamps(page),
        section("worst", "Worst utterances", [withheld])
        if private
        else render_worst(page, worst_k),
        render_normalization(page),
        render_provenance(page),
        render_probes(page),
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f'<header><h1>{esc(title)}</h1><p class="muted">{subtitle}</p>'
        f"{''.join(banners)}<nav>{nav}</nav></header>\n<main>\n"
        + "\n".join(sections)
        + "\n</main>\n<footer>Generated by earmark from results.json, predictions.jsonl and "
        "provenance.json. Self-contained: this page loads nothing from the network.</footer>\n"
        "</body>\n</html>\n"
    )


def write_html_report(
    run_dir: str | os.PathLike[str],
    *,
    compare: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    title: str | None = None,
    worst_k: int = 5,
) -> Path:
    """Read a run directory and write its report (default `RUN_DIR/report.html`)."""
    run = load_run(run_dir, compare=compare)
    target = Path(out) if out is not None else run.path / "report.html"
    html = render_html_report(
        run, title=title or f"earmark report: {run.path.name}", worst_k=worst_k
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, html)
    add_to_listing(run.path, target)  # inside the run folder: artefacts.sha256 names it
    return target
