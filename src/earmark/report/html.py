"""`report.html`: the whole run in one self-contained page.

One file a person can open offline or attach to an issue: no script, no CDN, no web font,
no external image (charts are inline SVG from `earmark.report.plots`), and a strict
Content-Security-Policy so that even a transcript that slipped through escaping could not
run or fetch anything. Every piece of user text (transcripts, ids, arm names) is escaped
with `html.escape`; the only unescaped strings are the `Markup` this module builds itself.

Every figure is read from results.json (formatted by `markdown.fmt_rate`, so the page and
results.md show the same digits); only the latency plot, the diagnostics examples and the
worst-utterance alignments are built from predictions.jsonl rows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import Any

from earmark.artefacts import add_to_listing
from earmark.metrics.alignment import align
from earmark.metrics.analysis import worst_utterances
from earmark.metrics.counts import ErrorCounts
from earmark.outputs import atomic_write_text
from earmark.report.markdown import TIMESTAMP_HEADER, fmt_rate, timestamp_rows
from earmark.report.plots import (
    Bar,
    Distribution,
    ErrorSplit,
    MatrixCell,
    bar_chart,
    comparison_matrix,
    latency_plot,
    stacked_error_bars,
)
from earmark.report.run_directory import (
    RunDirectory,
    base_language,
    load_run,
    primary_metric_name,
)

#: The page may load nothing: no script, no font, no image but inline data.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

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

LATIN_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", Arial'
CJK_FONTS = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei", '
    '"WenQuanYi Zen Hei", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "SimHei"'
)

STYLE = f"""
:root {{ --fg:#1d2330; --muted:#5b6475; --line:#d8dce3; --bg:#ffffff; --soft:#f5f7fa; }}
* {{ box-sizing: border-box; }}
body {{ font-family: {LATIN_FONTS}, {CJK_FONTS}, sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; max-width: 1180px; padding: 16px 24px 48px;
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
"""


class Markup(str):
    """HTML this module built (already escaped); any other `str` is escaped on output."""


def esc(value: object) -> str:
    """Escape for HTML text and attribute values; `Markup` passes through unchanged."""
    if isinstance(value, Markup):
        return value
    return escape("" if value is None else str(value), quote=True)


def _lang_attr(language: str | None) -> str:
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


def _chart(svg: str) -> str:
    """A chart in its own horizontal scroller: on a phone it keeps a readable size
    (at least 560 px) and scrolls, instead of shrinking its text to a few pixels."""
    return f'<div class="chart-scroll">{svg}</div>'


def _num(text: str) -> Num:
    return Num(text)


def _pct(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f} s"


def _mib(value: float | None) -> str:
    return "—" if value is None else f"{value / 2**20:.0f} MiB"


def _sdi(metric: dict[str, Any] | None) -> str:
    if not metric:
        return "—"
    return (
        f"{metric['substitutions']}/{metric['deletions']}/{metric['insertions']}"
        f" of {metric['ref_units']}"
    )


def _section(section_id: str, title: str, body: Sequence[str]) -> str:
    return f'<section id="{section_id}"><h2>{esc(title)}</h2>\n' + "\n".join(body) + "\n</section>"


def _primary(block: dict[str, Any]) -> dict[str, Any]:
    views: dict[str, Any] = block.get("views", {})
    return dict(views.get(block.get("primary_view", ""), {}))


# --- sections ------------------------------------------------------------------------


def _headline(run: RunDirectory) -> str:
    rows: list[list[object]] = []
    for arm_name, arm in run.results["arms"].items():
        scopes: list[tuple[str, dict[str, Any]]] = []
        if arm.get("overall"):
            scopes.append(("all", arm["overall"]))
        scopes += list(arm.get("by_language", {}).items())
        for lang, block in scopes:
            view = _primary(block)
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
                    _num(str(n)),
                    coverage,
                    _num(fmt_rate(wer) if wer else "n/a (no word units)"),
                    _num(fmt_rate(view.get("cer"))),
                    _num(_sdi(view.get(primary_metric_name(block)))),
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
    return _section("headline", "Headline figures (primary view, 95% CI)", body)


def _languages(run: RunDirectory) -> str:
    bars = []
    for arm_name, lang, block in run.blocks():
        metric_name = primary_metric_name(block)
        metric = _primary(block).get(metric_name) or {}
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
            _chart(bar_chart(bars, title="Primary-view error rate by language, with 95% CI"))
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
    return _section("languages", "By language", body)


def _group_rows(run: RunDirectory, key: str) -> list[list[object]]:
    """Arm, language, group, N, WER and CER (primary view) of every group in the blocks'
    `key` breakdown (`by_slice`, `by_speaker`): the two tables read the same figures, so
    they are laid out the same way."""
    rows: list[list[object]] = []
    for arm_name, lang, block in run.blocks():
        for name, group in (block.get(key) or {}).items():
            view = _primary(group)
            wer = view.get("wer")
            rows.append(
                [
                    arm_name,
                    lang,
                    name,
                    _num(str(group["n_utterances"])),
                    _num(fmt_rate(wer) if wer else "n/a"),
                    _num(fmt_rate(view.get("cer"))),
                ]
            )
    return rows


def _errors(run: RunDirectory) -> str:
    splits = []
    for arm_name, lang, block in run.blocks():
        name = primary_metric_name(block)
        metric = _primary(block).get(name)
        if not metric:
            continue
        splits.append(
            ErrorSplit(
                label=f"{arm_name} · {lang} ({name.upper()})",
                substitutions=int(metric["substitutions"]),
                deletions=int(metric["deletions"]),
                insertions=int(metric["insertions"]),
                ref_units=int(metric["ref_units"]),
            )
        )
    body: list[str] = [
        Markup(
            _chart(
                stacked_error_bars(
                    splits, title="Substitutions, deletions, insertions (primary view)"
                )
            )
            if splits
            else "<p>No error counts.</p>"
        ),
        '<p class="muted">A bar longer than 100% means the system inserted more units '
        "than the reference holds (insertion-driven hallucination).</p>",
        *_sclite_tables(run),
    ]
    return _section("errors", "Error types", body)


#: Confusion pairs shown per arm; the rest are in results.json and NAME.dtl.
CONFUSION_LIMIT = 200
SCLITE_HEADER = ("SPKR", "# Snt", "# Wrd", "Corr", "Sub", "Del", "Ins", "Err", "S.Err")


def _count_pct(part: int, whole: int) -> Num:
    return _num(f"{part} ({100 * part / whole:.1f}%)" if whole else str(part))


def sclite_speaker_rows(section: dict[str, Any]) -> list[list[object]]:
    """The `.sys` table of an arm's `sclite` block: each speaker, then the total, as
    counts with sclite's percentages (of # Wrd; S.Err of # Snt)."""
    rows: list[list[object]] = []
    for line in [*section.get("speakers", []), section["total"]]:
        words, sentences = int(line["words"]), int(line["sentences"])
        label = "Sum/Avg" if line is section["total"] else line["speaker"]
        rows.append(
            [
                label,
                _num(str(sentences)),
                _num(str(words)),
                *(
                    _count_pct(int(line[key]), words)
                    for key in ("correct", "substitutions", "deletions", "insertions", "errors")
                ),
                _count_pct(int(line["sentence_errors"]), sentences),
            ]
        )
    return rows


def _sclite_tables(run: RunDirectory) -> list[str]:
    """Per-speaker tables and confusion pairs of arms scored with --sclite-reports.

    Nothing when no arm has the block (the page is then as before). Confusion pairs are
    transcript words, so a corpus that forbids sharing transcripts shows only counts."""
    private = run.corpus.get("redistribute_transcripts") is False
    body: list[str] = []
    for arm_name in run.arm_names:
        section = run.arm(arm_name).get("sclite")
        if not section or "total" not in section:
            continue
        notes = [f"alignment: {section.get('alignment', '—')}"]
        glm = section.get("glm")
        if glm:
            notes.append(
                f"GLM {glm.get('name')} ({glm.get('version')}, sha256 {_short(glm.get('sha256'))})"
            )
        if section.get("reference_markup"):
            notes.append(f"{section['reference_markup']} reference(s) with sclite markup")
        body.append(
            f'<h3 id="sclite-{esc(arm_name)}">{esc(arm_name)}: sclite summary by speaker</h3>'
        )
        body.append(f'<p class="muted">{esc("; ".join(notes))}</p>')
        body.append(html_table(SCLITE_HEADER, sclite_speaker_rows(section), cls="sclite"))
        pairs = section.get("confusion_pairs", [])
        total = sum(int(p["count"]) for p in pairs)
        summary = f"{esc(arm_name)}: {len(pairs)} confusion pair(s), {total} substitution(s)"
        if private:
            body.append(f"<p>{summary}; words withheld (redistribute_transcripts: false).</p>")
            continue
        shown = pairs[:CONFUSION_LIMIT]
        rows = [[p["reference"], "→", p["hypothesis"], _num(str(p["count"]))] for p in shown]
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


def _latency(run: RunDirectory) -> str:
    dists = []
    for arm_name in run.arm_names:
        by_lang: dict[str, list[float]] = {}
        for row in run.arm_rows(arm_name):
            if row.get("status", "ok") != "ok" or row.get("decode_seconds") is None:
                continue
            lang = base_language(row.get("language")) or "und"
            by_lang.setdefault(lang, []).append(float(row["decode_seconds"]))
        for lang, values in sorted(by_lang.items()):
            dists.append(Distribution(f"{arm_name} · {lang}", values))
    body: list[str] = []
    if dists:
        body.append(
            Markup(_chart(latency_plot(dists, title="Decode time per clip (model loaded)")))
        )
    else:
        body.append("<p>No per-clip timings in predictions.jsonl (e.g. a `score` run).</p>")
    lang_rows: list[list[object]] = []
    arm_rows: list[list[object]] = []
    for arm_name, arm in run.results["arms"].items():
        for lang, res in (arm.get("resources_by_language") or {}).items():
            lang_rows.append(
                [
                    arm_name,
                    lang,
                    _num(str(res.get("clips", "—"))),
                    _num(_seconds(res.get("latency_p50_seconds"))),
                    _num(_seconds(res.get("latency_p95_seconds"))),
                    _num(
                        "—"
                        if res.get("real_time_factor") is None
                        else f"{res['real_time_factor']:.3f}"
                    ),
                ]
            )
        res = arm.get("resources") or {}
        if res:
            cps = res.get("cpu_seconds_per_audio_second")
            rtf = res.get("real_time_factor")
            arm_rows.append(
                [
                    arm_name,
                    _num(_seconds(res.get("load_seconds"))),
                    _num(_seconds(res.get("latency_p50_seconds"))),
                    _num(_seconds(res.get("latency_p95_seconds"))),
                    _num("—" if rtf is None else f"{rtf:.3f}"),
                    _num("—" if cps is None else f"{cps:.3f}"),
                    _num(_mib(res.get("peak_rss_bytes"))),
                    _num(str(res.get("threads") if res.get("threads") is not None else "—")),
                ]
            )
    if arm_rows:
        body.append("<h3>Per arm</h3>")
        body.append(
            html_table(
                [
                    "arm",
                    "model load",
                    "latency p50",
                    "latency p95",
                    "RTF (decode s / audio s)",
                    "CPU s per audio s",
                    "peak RSS",
                    "threads",
                ],
                arm_rows,
            )
        )
    if lang_rows:
        body.append("<h3>Per language</h3>")
        body.append(html_table(["arm", "language", "clips", "p50", "p95", "RTF"], lang_rows))
    return _section("latency", "Latency and resources", body)


def _comparison(run: RunDirectory) -> str:
    cmp = run.compare
    if not cmp:
        return _section(
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
            exact_text = _pct(exact["value"])
            if ci:
                exact_text += f" [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
            exact_text += f" ({exact.get('matches', '?')}/{exact.get('n', '?')})"
        vs_ref = arm.get("vs_reference_arm") or {}
        vs_human = arm.get("vs_human") or {}
        arm_rows.append(
            [
                name,
                _num(exact_text),
                _num(fmt_rate(vs_ref.get("wer"))),
                _num(fmt_rate(vs_ref.get("cer"))),
                _num(fmt_rate(vs_human.get("wer"))),
                _num(fmt_rate(vs_human.get("cer"))),
                _num(str(len(arm.get("differs_from_reference") or []))),
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
        body.append(Markup(_chart(comparison_matrix(refs, cols, cells, title=title))))
    if pairs:
        rows = []
        for p in pairs:
            ci = p.get("ci95")
            rows.append(
                [
                    p.get("reference"),
                    p.get("challenger"),
                    p.get("language") or "all",
                    f"{p.get('metric')} / {p.get('view')}",
                    _num(_pct(p.get("reference_value"))),
                    _num(_pct(p.get("challenger_value"))),
                    _num(
                        "—"
                        if p.get("difference") is None
                        else f"{100 * p['difference']:+.2f} pp"
                        + (f" [{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]" if ci else "")
                    ),
                    _num(_pct(p.get("share_challenger_better"), 1)),
                    _num(_p(p.get("sign_test_p"))),
                    _num(_p(p.get("wilcoxon_p"))),
                    _num(_p(p.get("p_holm"))),
                    _num(_p(p.get("mcnemar_p"))),
                    _num(_p(p.get("mapsswe_p"))),
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
                    "sign test p",
                    "Wilcoxon p",
                    "Holm-adjusted p",
                    "McNemar p",
                    "MAPSSWE p",
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
    return _section("comparison", "Arm comparison", body)


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _diagnostics(run: RunDirectory, examples: int = 10) -> str:
    rows: list[list[object]] = []
    mismatch_examples: list[dict[str, Any]] = []
    no_speech_examples: list[dict[str, Any]] = []
    for arm_name in run.arm_names:
        arm = run.arm(arm_name)
        arm_rows = run.arm_rows(arm_name)
        for lang, block in arm.get("by_language", {}).items():
            h = block.get("hallucination") or {}
            lang_rows = [r for r in arm_rows if base_language(r.get("language")) == lang]
            mismatches = [r for r in lang_rows if r.get("language_mismatch")]
            mismatch_examples += mismatches
            primary = block.get("primary_view", "")
            for r in lang_rows:
                view = (r.get("views") or {}).get(primary) or {}
                if view.get("reference") == "" and view.get("hypothesis"):
                    no_speech_examples.append(r)
            rate = h.get("no_speech_output_rate")
            rows.append(
                [
                    arm_name,
                    lang,
                    _num(
                        f"{h.get('no_speech_with_output', 0)}/{h.get('no_speech_rows', 0)}"
                        + (f" ({100 * rate:.0f}%)" if rate is not None else "")
                    ),
                    _num(str(h.get("empty_outputs", 0))),
                    _num(str(h.get("repetition_loops", 0))),
                    _num(str(h.get("runaway_outputs", 0))),
                    _num(f"{len(mismatches)}/{len(lang_rows)}" if lang_rows else "—"),
                ]
            )
    body: list[str] = [
        html_table(
            [
                "arm",
                "language",
                "output on no-speech",
                "empty outputs",
                "repetition loops",
                "runaway outputs (>2× ref)",
                "decoded in another language",
            ],
            rows,
        )
    ]
    if no_speech_examples:
        body.append("<h3>Output on no-speech clips</h3>")
        body.append(_exampleshtml_table(no_speech_examples[:examples]))
    if mismatch_examples:
        body.append("<h3>Language mismatches (requested → used)</h3>")
        body.append(
            html_table(
                ["arm", "id", "requested → used", "hypothesis"],
                [
                    [
                        r.get("arm", ""),
                        r.get("id"),
                        f"{r.get('language_requested', r.get('language'))} → "
                        f"{r.get('language_used', '?')}",
                        Markup(_transcript(r.get("hypothesis"), r.get("language_used"))),
                    ]
                    for r in mismatch_examples[:examples]
                ],
            )
        )
        if len(mismatch_examples) > examples:
            body.append(f'<p class="muted">… and {len(mismatch_examples) - examples} more.</p>')
    flagged = run.results.get("diagnostics") or {}
    if flagged:
        body.append("<h3>Flags</h3>")
        flag_rows: list[list[object]] = []
        for name, diag in flagged.items():
            for kind in ("insertion", "truncation", "script_mismatch", "empty_outputs"):
                block = diag.get(kind) or {}
                reasons: list[str] = []
                for sub in (block.get("by_normalizer") or {}).values():
                    reasons += sub.get("reasons") or []
                reasons += block.get("reasons") or []
                flag_rows.append(
                    [
                        name,
                        kind.replace("_", " "),
                        _flag_badge(block.get("flagged")),
                        _list(reasons),
                    ]
                )
            flips = diag.get("normalizer_ranking_flip") or {}
            if flips.get("flagged"):
                flag_rows.append(
                    [
                        name,
                        "normaliser changes ranking",
                        _flag_badge(True),
                        _list([_flip_text(name, f) for f in flips.get("flips") or []]),
                    ]
                )
        body.append(html_table(["arm", "diagnostic", "status", "why"], flag_rows))
    extra = (run.compare or {}).get("diagnostics") or {}
    if extra:
        body.append("<h3>Diagnostics from compare.json</h3>")
        body.append(
            html_table(
                ["arm", "flags"],
                [
                    [
                        name,
                        ", ".join(str(f).replace("_", " ") for f in diag.get("flags") or [])
                        or "none",
                    ]
                    for name, diag in extra.items()
                ],
            )
        )
        for name, diag in extra.items():
            body.append(
                f"<details><summary>{esc(name)}: every figure (JSON)</summary><pre>"
                f"{esc(json.dumps(diag, ensure_ascii=False, indent=2))}</pre></details>"
            )
    return _section("diagnostics", "Diagnostics: hallucination and language", body)


#: Characters of a transcript shown before the rest folds into an expander: one runaway
#: hypothesis must not fill the screen.
TEXT_LIMIT = 300
#: Aligned columns shown before the rest folds into an expander.
ALIGNMENT_LIMIT = 60


def _flag_badge(flagged: object) -> Markup:
    if flagged:
        return Markup('<span class="badge bad">flagged</span>')
    return Markup('<span class="badge ok">ok</span>')


def _list(items: Sequence[str]) -> Markup | str:
    """Reasons as a short list (one line each), or a dash."""
    if not items:
        return "—"
    if len(items) == 1:
        return items[0]
    return Markup("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")


def _flip_text(arm: str, flip: dict[str, Any]) -> str:
    """`against b (en-v1): raw 10.00% vs 12.00%, normalised 8.00% vs 7.00%` — the order
    of the two arms on the raw texts is the reverse of their order once normalised."""
    raw = flip.get("raw") or [None, None]
    norm = flip.get("normalized") or [None, None]
    return (
        f"{arm} vs {flip.get('with')} ({flip.get('normalizer')}): raw {_pct(raw[0])} vs "
        f"{_pct(raw[1])}, normalised {_pct(norm[0])} vs {_pct(norm[1])}"
    )


def _transcript(text: str | None, language: str | None, limit: int = TEXT_LIMIT) -> str:
    """The text as written; past `limit` characters the rest opens on a click."""
    if text is None:
        return '<span class="muted">(no hypothesis)</span>'
    lang = _lang_attr(language)
    if len(text) <= limit:
        return f'<span class="transcript"{lang}>{esc(text)}</span>'
    return (
        f'<details class="long"><summary><span class="transcript"{lang}>{esc(text[:limit])}'
        f"</span>… ({esc(len(text))} characters: show all)</summary>"
        f'<span class="transcript"{lang}>{esc(text[limit:])}</span></details>'
    )


def _exampleshtml_table(rows: Sequence[dict[str, Any]]) -> Markup:
    return html_table(
        ["arm", "id", "hypothesis"],
        [
            [
                r.get("arm", ""),
                r.get("id"),
                Markup(_transcript(r.get("hypothesis"), r.get("language"))),
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
    lang = _lang_attr(language)
    shown = f'<div class="alignment"{lang}>{"".join(cols[:ALIGNMENT_LIMIT])}</div>'
    if len(cols) <= ALIGNMENT_LIMIT:
        return Markup(shown)
    return Markup(
        shown + f'<details class="long"><summary>… {len(cols) - ALIGNMENT_LIMIT} more aligned '
        f'units (show all)</summary><div class="alignment"{lang}>'
        f"{''.join(cols[ALIGNMENT_LIMIT:])}</div></details>"
    )


def _worst(run: RunDirectory, k: int) -> str:
    body: list[str] = [
        '<p class="legend">Top line reference, bottom line hypothesis (normalised, primary '
        'view): <span class="al-equal">match</span><span class="al-substitute">substitution'
        '</span><span class="al-delete">deletion</span><span class="al-insert">insertion'
        '</span> <span class="gap">*</span> gap.</p>'
    ]
    found = False
    for arm_name, lang, block in run.blocks():
        metric_name = primary_metric_name(block)
        unit = "word" if metric_name == "wer" else "char"
        view_name = block.get("primary_view", "")
        candidates: list[tuple[str, ErrorCounts]] = []
        by_key: dict[str, dict[str, Any]] = {}
        for row in run.arm_rows(arm_name):
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
            f" errors ({esc(block['normalizer']['name'])} / {esc(view_name)})</h3>"
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
                + (f", {esc(_pct(rate, 1))}" if rate is not None else "")
                + alignment_html(view["reference"], view["hypothesis"], unit, raw_lang)
                + '<details><summary>raw texts</summary><div class="table-scroll"><table>'
                + "<tr><th>reference</th><td>"
                + _transcript(row.get("reference"), raw_lang)
                + "</td></tr><tr><th>hypothesis</th><td>"
                + _transcript(row.get("hypothesis"), raw_lang)
                + "</td></tr></table></div></details></li>"
            )
        body.append("<ol>" + "".join(items) + "</ol>")
    if not found:
        body.append("<p>No utterance has an error in its primary view.</p>")
    return _section("worst", "Worst utterances", body)


def _stat_text(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("value") is None:
        return f"null ({(stat or {}).get('null_reason', 'not computable')})"
    text = f"{stat['value']:.3f}"
    if stat.get("ci95"):
        text += f" [{stat['ci95'][0]:.3f}, {stat['ci95'][1]:.3f}]"
    return text


def _punctuation_and_tokens(run: RunDirectory) -> str:
    """Seed 001's punctuation F1 and seed 000's critical tokens, when the arm has them."""
    punct_rows: list[list[object]] = []
    token_rows: list[list[object]] = []
    for arm_name in run.arm_names:
        arm = run.arm(arm_name)
        overall = (arm.get("punctuation") or {}).get("overall")
        if overall:
            for kind in ("position", "position_type"):
                punct_rows.append(
                    [
                        arm_name,
                        kind.replace("_", "+"),
                        _num(f"{overall['ref_marks']} / {overall['hyp_marks']}"),
                        _num(_stat_text(overall[kind]["precision"])),
                        _num(_stat_text(overall[kind]["recall"])),
                        _num(_stat_text(overall[kind]["f1"])),
                    ]
                )
        tokens = (arm.get("critical_tokens") or {}).get("overall")
        if tokens:
            for category, c in tokens["categories"].items():
                if c["ref"] or c["hyp"]:
                    token_rows.append(
                        [
                            arm_name,
                            category,
                            _num(str(c["ref"])),
                            _num(str(c["matched"])),
                            _num(str(c["lost"])),
                            _num(_stat_text(c["recall"])),
                        ]
                    )
    body: list[str] = []
    if punct_rows:
        body.append("<h3>Punctuation F1 (boundary projection, seed 001)</h3>")
        header = ["arm", "match", "marks ref / hyp", "precision", "recall", "F1"]
        body.append(html_table(header, punct_rows))
    if token_rows:
        body.append("<h3>Critical tokens (exact, no numeral normalisation)</h3>")
        header = ["arm", "category", "in references", "matched", "lost", "recall"]
        body.append(html_table(header, token_rows))
    if not body:
        body.append(
            '<p class="muted">Not computed for this result (earmark score --punctuation '
            "--critical-tokens adds them).</p>"
        )
    return _section("punctuation", "Punctuation and critical tokens", body)


def _timestamps(run: RunDirectory) -> str:
    """Word and segment boundary offsets, when the manifest had reference timings."""
    rows: list[list[object]] = []
    for arm_name in run.arm_names:
        for row in timestamp_rows(run.arm(arm_name).get("timestamps")):
            rows.append([arm_name, row[0], row[1], *(_num(cell) for cell in row[2:])])
    if not rows:
        body = [
            '<p class="muted">No reference timings in the manifest (custom.segments or '
            "custom.words), or no timestamps from the system.</p>"
        ]
    else:
        body = [
            "<p>Absolute boundary offsets, hypothesis − reference. Words are paired only "
            "where recognised correctly; segments one-to-one by overlap.</p>",
            html_table(["arm", *TIMESTAMP_HEADER], rows),
        ]
    return _section("timestamps", "Timestamp accuracy", body)


def _normalisation(run: RunDirectory) -> str:
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
                _num(fmt_rate(raw) if raw else "—"),
                _num(f"{primary}: {fmt_rate(prim)}"),
                _num(change),
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
    return _section("normalisation", "Effect of normalisation", body)


def _short(value: object, n: int = 16) -> str:
    text = str(value)
    return text if len(text) <= n + 8 else text[:n] + "…"


def _provenance(run: RunDirectory) -> str:
    ok, missing = run.verifiable()
    badge = (
        '<span class="badge ok">verifiable</span>'
        if ok
        else '<span class="badge bad">unverifiable</span>'
    )
    body: list[str] = [
        f"<p>{badge}" + (f" — missing: {esc('; '.join(missing))}" if missing else "") + "</p>"
    ]
    model_rows: list[list[object]] = []
    for arm_name in run.arm_names:
        model = run.model(arm_name)
        hashes = model.get("file_sha256") or {}
        hash_html = (
            "<details><summary>"
            + esc(f"{len(hashes)} files")
            + "</summary>"
            + "<br>".join(
                f"<code>{esc(f)}</code>: <code>{esc(h)}</code>" for f, h in hashes.items()
            )
            + "</details>"
            if hashes
            else "—"
        )
        model_rows.append(
            [
                arm_name,
                model.get("artifact_id", "—"),
                Markup(f"<code>{esc(model.get('revision') or '—')}</code>"),
                Markup(hash_html),
                f"{model.get('runtime', '—')} {model.get('runtime_version', '')}".strip(),
                model.get("compute_type", "—"),
                _determinism_cell(model),
                _cpu_path_cell(model),
                f"{model.get('licence', '—')} (source: {model.get('licence_source', '—')})",
            ]
        )
    body.append("<h3>Models</h3>")
    body.append(
        html_table(
            [
                "arm",
                "artifact",
                "revision",
                "file SHA-256",
                "runtime",
                "compute type",
                "deterministic",
                "CPU code path",
                "declared licence",
            ],
            model_rows,
        )
    )
    corpus = run.corpus
    sel = corpus.get("selection") or {}
    corpus_rows = [
        ["dataset", corpus.get("dataset", "—")],
        ["manifest SHA-256", Markup(f"<code>{esc(corpus.get('manifest_sha256') or '—')}</code>")],
        ["manifest", corpus.get("manifest", "—")],
        ["licence (declared)", corpus.get("licence", "—")],
        ["consent basis", corpus.get("consent_basis", "—")],
        [
            "selection",
            f"{sel.get('rule', '—')}; kept {sel.get('kept_rows', '—')} of "
            f"{sel.get('input_rows', '—')} rows",
        ],
        [
            "public",
            "no — aggregate figures only"
            if run.results.get("public") is False
            else ("yes" if run.results.get("public") else "not recorded"),
        ],
    ]
    if not corpus and run.results.get("inputs"):
        corpus_rows.append(["inputs", json.dumps(run.results["inputs"], ensure_ascii=False)])
    body.append("<h3>Corpus</h3>")
    body.append(html_table(["field", "value"], corpus_rows))
    host = run.host
    prov = run.provenance or {}
    software = prov.get("software") or {}
    host_rows = [
        ["OS", f"{host.get('os', '—')} {host.get('os_release', '')}".strip()],
        ["architecture", host.get("arch", "—")],
        ["CPU", host.get("cpu_model", "—")],
        [
            "cores (available / total)",
            f"{host.get('cores_available', '—')} / {host.get('cpu_count', '—')}",
        ],
        ["memory", _mib(host.get("memory_bytes"))],
        ["CPU governor", host.get("cpu_governor") or "—"],
        ["CPU flags (numeric)", " ".join(host.get("cpu_flags") or []) or "—"],
        [
            "earmark",
            f"{software.get('earmark_version', run.results.get('earmark_version', '—'))}"
            f" (commit {software.get('earmark_git_commit') or '—'})",
        ],
        ["Python", software.get("python", "—")],
        ["plan SHA-256", Markup(f"<code>{esc(prov.get('plan_sha256') or '—')}</code>")],
    ]
    body.append("<h3>Host and software</h3>")
    body.append(html_table(["field", "value"], host_rows))
    packages = software.get("packages") or {}
    if packages:
        body.append(
            "<details><summary>package versions</summary>"
            + html_table(["package", "version"], sorted(packages.items()))
            + "</details>"
        )
    deviations = prov.get("deviations") or []
    if deviations:
        body.append("<h3>Deviations recorded by the run</h3>")
        body.append(
            "<ul>"
            + "".join(
                f"<li>{esc(json.dumps(d, ensure_ascii=False, sort_keys=True))}</li>"
                for d in deviations[:100]
            )
            + "</ul>"
        )
    return _section("provenance", "Provenance", body)


def _probes(run: RunDirectory) -> str:
    probes = run.results.get("probes", [])
    passed = sum(bool(p.get("passed")) for p in probes)
    body: list[str] = [
        f"<p>{passed}/{len(probes)} known-good/known-bad scorer probes passed.</p>",
        "<details><summary>probes</summary><ul>"
        + "".join(
            f"<li>{'✓' if p.get('passed') else '✗'} {esc(p.get('name'))}</li>" for p in probes
        )
        + "</ul></details>",
    ]
    return _section("probes", "Scorer self-check", body)


# --- page ------------------------------------------------------------------------------


def render_html_report(
    run: RunDirectory, *, title: str = "earmark report", worst_k: int = 5
) -> str:
    """The complete page as one string (UTF-8 when written)."""
    results = run.results
    banners = []
    if results.get("public") is False:
        banners.append(
            '<div class="banner private" id="not-public">Not public. The corpus sidecar does '
            "not permit redistribution of audio and transcripts: share aggregate figures only, "
            "never this page.</div>"
        )
    ok, missing = run.verifiable()
    if not ok:
        banners.append(
            '<div class="banner unverifiable" id="unverifiable">Unverifiable: this run lacks '
            f"{esc('; '.join(missing))}. Do not publish a winner from it (seed 000).</div>"
        )
    corpus = run.corpus
    subtitle = (
        f"{esc(corpus.get('dataset') or 'scored predictions')} · "
        f"{esc(len(results['arms']))} arm(s) · created {esc(results.get('created', '—'))} · "
        f"earmark {esc(results.get('earmark_version', '—'))}"
    )
    nav = "".join(f'<a href="#{s}">{esc(s)}</a>' for s in SECTIONS)
    # Sidecar `redistribute_transcripts: false`: figures only, no text from predictions.
    private = corpus.get("redistribute_transcripts") is False
    withheld = (
        "<p>Withheld: the corpus does not permit sharing transcripts "
        "(redistribute_transcripts: false); figures only.</p>"
    )
    sections = [
        _headline(run),
        _languages(run),
        _errors(run),
        _latency(run),
        _comparison(run),
        _section("diagnostics", "Diagnostics", [withheld]) if private else _diagnostics(run),
        _punctuation_and_tokens(run),
        _timestamps(run),
        _section("worst", "Worst utterances", [withheld]) if private else _worst(run, worst_k),
        _normalisation(run),
        _provenance(run),
        _probes(run),
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
    page = render_html_report(
        run, title=title or f"earmark report: {run.path.name}", worst_k=worst_k
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, page)
    add_to_listing(run.path, target)  # inside the run folder: artefacts.sha256 names it
    return target


def _determinism_cell(model: dict[str, Any]) -> Markup:
    """Yes/no with the engine's reason; an engine that does not say counts as no."""
    note = model.get("determinism_note") or "the engine does not declare it"
    if model.get("deterministic"):
        return Markup(f'<span class="badge ok">yes</span> {esc(note)}')
    return Markup(
        f'<span class="badge bad">no</span> {esc(note)}; churn against this arm includes '
        "sampling noise"
    )


def _cpu_path_cell(model: dict[str, Any]) -> str:
    """The ISA and GEMM backends the runtime reported (CTranslate2), and what was pinned."""
    cpu = (model.get("extra") or {}).get("cpu_runtime") or {}
    if not cpu:
        return "—"
    parts = [f"ISA {cpu.get('isa') or '?'}"]
    if cpu.get("sgemm_backend"):
        parts.append(f"SGEMM {cpu['sgemm_backend']}")
    if cpu.get("gemm_s8_backend"):
        parts.append(f"GEMM_S8 {cpu['gemm_s8_backend']}")
    pinned = cpu.get("pinned") or {}
    parts.append("pinned: " + (", ".join(f"{k}={v}" for k, v in pinned.items()) or "no"))
    return "; ".join(parts)
