"""The latency and resources section: decode-time box plots from the prediction rows,
the per-arm and per-language resource tables from results.json, and, for arms that
streamed, their streaming figures (the same table results.md shows)."""

from __future__ import annotations

from earmark.language_tags import base_language
from earmark.render.html_inputs import ReportInputs
from earmark.render.html_page import Markup, chart, html_table, num, seconds, section
from earmark.render.plots import Distribution, latency_plot
from earmark.results.display import fmt_decimal, fmt_mib
from earmark.scoring.streaming_section import STREAMING_HEADER, streaming_rows


def render_latency(page: ReportInputs) -> str:
    dists = []
    for arm_name in page.results.arm_names:
        by_lang: dict[str, list[float]] = {}
        for row in page.arm_rows(arm_name):
            if row.get("status", "ok") != "ok" or row.get("decode_seconds") is None:
                continue
            lang = base_language(row.get("language")) or "und"
            by_lang.setdefault(lang, []).append(float(row["decode_seconds"]))
        for lang, values in sorted(by_lang.items()):
            dists.append(Distribution(f"{arm_name} · {lang}", values))
    body: list[str] = []
    if dists:
        body.append(Markup(chart(latency_plot(dists, title="Decode time per clip (model loaded)"))))
    else:
        body.append("<p>No per-clip timings in predictions.jsonl (e.g. a `score` run).</p>")
    lang_rows: list[list[object]] = []
    arm_rows: list[list[object]] = []
    for arm_name, arm in page.results.arms.items():
        for lang, scope in (arm.resources_by_language or {}).items():
            lang_rows.append(
                [
                    arm_name,
                    lang,
                    num(str(scope.clips)),
                    num(seconds(scope.latency_p50_seconds)),
                    num(seconds(scope.latency_p95_seconds)),
                    num(fmt_decimal(scope.real_time_factor)),
                ]
            )
        res = arm.resources
        if res is not None:
            arm_rows.append(
                [
                    arm_name,
                    num(seconds(res.load_seconds)),
                    num(seconds(res.latency_p50_seconds)),
                    num(seconds(res.latency_p95_seconds)),
                    num(fmt_decimal(res.real_time_factor)),
                    num(fmt_decimal(res.cpu_seconds_per_audio_second)),
                    num(fmt_mib(res.peak_rss_bytes)),
                    num("—" if res.threads is None else str(res.threads)),
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
    body += _streaming(page)
    return section("latency", "Latency and resources", body)


def _streaming(page: ReportInputs) -> list[str]:
    """Streaming arms' figures per language; nothing when no arm streamed."""
    rows: list[list[object]] = []
    for arm_name, arm in page.results.arms.items():
        for row in streaming_rows(arm.streaming):
            rows.append([arm_name, row[0], row[1], *(num(cell) for cell in row[2:])])
    if not rows:
        return []
    return [
        "<h3>Streaming</h3>",
        "<p>Time to first token (wall time; audio fed), final latency after the last audio "
        "chunk, churn and stability of the partial results (docs/streaming.md).</p>",
        html_table(["arm", *STREAMING_HEADER], rows),
    ]
