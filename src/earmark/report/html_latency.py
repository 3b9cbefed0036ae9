"""The latency and resources section: decode-time box plots from the prediction rows,
and the per-arm and per-language resource tables from results.json."""

from __future__ import annotations

from earmark.report.html_page import Markup, chart, html_table, mib, num, seconds, section
from earmark.report.plots import Distribution, latency_plot
from earmark.report.run_directory import RunDirectory, base_language


def render_latency(run: RunDirectory) -> str:
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
        body.append(Markup(chart(latency_plot(dists, title="Decode time per clip (model loaded)"))))
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
                    num(str(res.get("clips", "—"))),
                    num(seconds(res.get("latency_p50_seconds"))),
                    num(seconds(res.get("latency_p95_seconds"))),
                    num(
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
                    num(seconds(res.get("load_seconds"))),
                    num(seconds(res.get("latency_p50_seconds"))),
                    num(seconds(res.get("latency_p95_seconds"))),
                    num("—" if rtf is None else f"{rtf:.3f}"),
                    num("—" if cps is None else f"{cps:.3f}"),
                    num(mib(res.get("peak_rss_bytes"))),
                    num(str(res.get("threads") if res.get("threads") is not None else "—")),
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
    return section("latency", "Latency and resources", body)
