"""`results.md`: the figures a person reads first, every number traceable to results.json.

The Markdown escaping every `.md` goes through lives in `earmark.markdown_cells` (re-exported
here for the renderers that import it from this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from earmark.markdown_cells import fmt_rate, md_code, md_fence, md_table, md_text

__all__ = ["fmt_rate", "md_code", "md_fence", "md_table", "md_text"]


def _sdi(metric: dict[str, Any] | None) -> str:
    if not metric:
        return "—"
    return (
        f"{metric['substitutions']}/{metric['deletions']}/{metric['insertions']}"
        f" of {metric['ref_units']}"
    )


def _n_scored(metric: dict[str, Any] | None, block: dict[str, Any]) -> int:
    """The rows a view's figure was computed from: a view some rows lack (a script-folded
    view of a row it cannot fold) is scored on fewer rows than the block holds."""
    if metric and metric.get("n_scored") is not None:
        return int(metric["n_scored"])
    return int(block["n_utterances"])


def _unavailable_notes(scopes: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """One line per view scored on fewer rows than its scope holds, with the reasons."""
    lines = []
    for label, block in scopes:
        for view, metrics in block["views"].items():
            main = metrics.get("wer") or metrics.get("cer") or {}
            missing = main.get("n_unavailable") or 0
            if missing:
                why = ", ".join(
                    f"{k} ×{v}" for k, v in (main.get("unavailable_reasons") or {}).items()
                )
                lines.append(
                    f"- {md_text(label)} / {md_text(view)}: {missing} of "
                    f"{block['n_utterances']} row(s) not scored in this view"
                    + (f" ({md_text(why)})" if why else "")
                )
    if not lines:
        return []
    return ["N is the rows scored in each view; rows a view could not score:", "", *lines, ""]


def _median(metric: dict[str, Any] | None) -> str:
    if not metric:
        return "n/a"
    value = metric.get("median_per_utterance")
    if value is None:
        reason = metric.get("median_per_utterance_null_reason")
        return f"null ({reason})" if reason else "—"
    return f"{100 * value:.2f}%"


def _median_markdown(scopes: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """Median per-utterance rates (primary view) beside the corpus rate of each scope."""
    rows = []
    for label, block in scopes:
        metrics = block["views"][block["primary_view"]]
        wer, cer = metrics.get("wer"), metrics.get("cer")
        main = wer or cer or {}
        if "median_per_utterance" not in main:
            continue  # results written before the median existed
        rows.append(
            [
                label,
                str(main.get("median_per_utterance_n", 0)),
                f"{fmt_rate(wer)} / {_median(wer)}" if wer else "n/a",
                f"{fmt_rate(cer)} / {_median(cer)}",
            ]
        )
    if not rows:
        return []
    header = ["scope", "N with reference units", "WER: corpus / median", "CER: corpus / median"]
    return [
        "### Corpus rate and median per-utterance rate (primary view)",
        "",
        md_table(header, rows),
        "",
    ]


def block_rows(label: str, block: dict[str, Any]) -> list[list[str]]:
    """One table row per view: label, normaliser/view, N, WER, CER, S/D/I."""
    rows = []
    norm = block["normalizer"]["name"]
    if block["normalizer"].get("differs_from_publication"):
        norm += " †"
    for view, metrics in block["views"].items():
        primary = " (primary)" if view == block["primary_view"] else ""
        wer = metrics.get("wer")
        cer = metrics.get("cer")
        # S/D/I and N follow the headline unit (the normaliser's first): CER for
        # crude-char-v1 although it reports WER too.
        units = block["normalizer"].get("units") or []
        main = (cer if units[:1] == ["char"] else wer) or wer or cer
        rows.append(
            [
                label,
                f"{norm} / {view}{primary}",
                str(_n_scored(main, block)),
                fmt_rate(wer) if wer else "n/a (no word units)",
                fmt_rate(cer),
                _sdi(main),
            ]
        )
    return rows


def _unit_notes(scopes: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Which unit each headline counts and why (where a block says), and the mixed error
    rate (CJK characters + other words) beside CER for code-switched Mandarin."""
    lines: list[str] = []
    for label, block in scopes:
        norm = block["normalizer"]
        if norm.get("headline_unit") == "char" and "word" in norm.get("units", []):
            lines.append(
                f"- Headline unit, {md_text(label)}: character (CER; WER reported, not "
                f"headline) — {md_text(norm.get('headline_unit_reason', ''))}"
            )
        mixed = norm.get("mixed_unit")
        if not mixed:
            continue
        view = block["views"].get(mixed["view"]) or {}
        metric = view.get(mixed["metric"])
        if metric is None:
            continue
        where = f"{norm['name']} / {mixed['view']}"
        lines.append(
            f"- Mixed error rate (CJK characters + other words), {md_text(label)}, "
            f"{md_text(where)}: {md_text(fmt_rate(metric))}, S/D/I {md_text(_sdi(metric))} "
            f"units; CER {md_text(fmt_rate(view.get('cer')))}"
        )
    return [*lines, ""] if lines else []


def render_results_markdown(results: dict[str, Any], title: str = "earmark results") -> str:
    parts = [f"# {md_text(title)}", ""]
    if results.get("public") is False:
        parts += [
            "> **Not public.** The corpus sidecar does not permit redistribution of audio "
            "and transcripts; share aggregate figures only.",
            "",
        ]
    for name, arm in results["arms"].items():
        parts += render_arm_markdown(name, arm)
    probes = results.get("probes", [])
    parts += [
        "## Scorer self-check",
        "",
        f"{sum(p['passed'] for p in probes)}/{len(probes)} known-good/known-bad probes passed.",
        "",
    ]
    return "\n".join(parts)


def _stat(stat: dict[str, Any] | None) -> str:
    """`0.786 [0.667, 0.912]`, or `null (reason)`."""
    if not stat or stat.get("value") is None:
        return f"null ({(stat or {}).get('null_reason', 'not computable')})"
    text = f"{stat['value']:.3f}"
    if stat.get("ci95"):
        text += f" [{stat['ci95'][0]:.3f}, {stat['ci95'][1]:.3f}]"
    return text


def _punctuation_markdown(section: dict[str, Any] | None) -> list[str]:
    if not section or not section.get("overall"):
        return []
    o = section["overall"]
    rows = [
        [
            kind.replace("_", "+"),
            _stat(o[kind]["precision"]),
            _stat(o[kind]["recall"]),
            _stat(o[kind]["f1"]),
        ]
        for kind in ("position", "position_type")
    ]
    return [
        "### Punctuation (seed-001 protocol)",
        "",
        f"{md_text(o['ref_marks'])} reference marks, {md_text(o['hyp_marks'])} hypothesis "
        f"marks; probes passed: {md_text(section.get('probes_passed'))}.",
        "",
        md_table(["match", "precision", "recall", "F1"], rows),
        "",
    ]


#: Column heads of the timestamp-accuracy table (Markdown and HTML share them).
TIMESTAMP_HEADER = (
    "language",
    "unit",
    "paired",
    "unpaired ref / hyp",
    "start |Δ| mean",
    "median",
    "≤100 ms",
    "≤200 ms",
    "end |Δ| mean",
    "median",
    "≤100 ms",
    "≤200 ms",
)


def _ms(value: Any) -> str:
    return "—" if value is None else f"{1000 * value:.0f} ms"


def _share(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def timestamp_rows(section: dict[str, Any] | None) -> list[list[str]]:
    """One row per language and unit (words, segments) of a `timestamps` results section."""
    rows: list[list[str]] = []
    for language, block in ((section or {}).get("by_language") or {}).items():
        for level in ("words", "segments"):
            b = block.get(level)
            if not b:
                continue
            row = [language, level, str(b["matched"])]
            row.append(f"{b['unmatched_reference']} / {b['unmatched_hypothesis']}")
            for side in ("start", "end"):
                o = b[side]
                row += [_ms(o["mean"]), _ms(o["median"])]
                row += [_share(o["within_100ms"]), _share(o["within_200ms"])]
            rows.append(row)
    return rows


def _timestamps_markdown(section: dict[str, Any] | None) -> list[str]:
    rows = timestamp_rows(section)
    if not rows or section is None:
        return []
    excluded = section.get("excluded") or {}
    lines = [
        "### Timestamp accuracy",
        "",
        "Absolute boundary offsets, hypothesis − reference; words paired only where "
        "recognised correctly, segments one-to-one by "
        f"{md_text(section.get('segment_rule', 'overlap'))}.",
        "",
        md_table(TIMESTAMP_HEADER, rows),
        "",
    ]
    for level in ("words", "segments"):
        if excluded.get(level):
            lines.append(
                f"- {len(excluded[level])} recording(s) without hypothesis {level} timings "
                "(listed in results.json)."
            )
    if lines[-1] != "":
        lines.append("")
    return lines


def _critical_markdown(section: dict[str, Any] | None) -> list[str]:
    if not section or not section.get("overall"):
        return []
    rows = [
        [name, str(c["ref"]), str(c["matched"]), str(c["lost"]), _stat(c["recall"])]
        for name, c in section["overall"]["categories"].items()
        if c["ref"] or c["hyp"]
    ]
    if not rows:
        return []
    return [
        "### Critical tokens (exact match, no numeral normalisation)",
        "",
        md_table(["category", "in references", "matched", "lost", "recall"], rows),
        "",
        md_text(_failures_line(section.get("n_failures"))),
        "",
    ]


def _failures_line(n: Any) -> str:
    if isinstance(n, dict):
        return (
            f"{n.get('lost_or_changed', 0)} utterance(s) lost or changed a critical token; "
            f"{n.get('spurious_only', 0)} only added spurious ones (listed in results.json)."
        )
    return f"{n or 0} utterance(s) with critical-token failures (listed in results.json)."


def _protocol_lines(protocol: dict[str, Any] | None) -> list[str]:
    if not protocol:
        return []
    return [f"- Protocol: **{md_text(protocol['name'])}** — {md_text(protocol['source'])}"] + [
        f"  - {md_text(note)}" for note in protocol.get("notes", [])
    ]


def _publication_notes(arm: dict[str, Any]) -> list[str]:
    """† under the table: how a normaliser differs from a publication's rule (ga-v1 vs
    BlasBench), once per normaliser, so a figure never passes for the paper's."""
    blocks = [arm["overall"]] if arm.get("overall") else []
    blocks += list(arm["by_language"].values())
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for block in blocks:
        for d in block["normalizer"].get("differs_from_publication", []):
            seen.setdefault((block["normalizer"]["name"], d["normalizer"]), d)
    lines: list[str] = []
    for (name, _), d in seen.items():
        how = (
            f"; {md_code('--protocol ' + str(d['protocol']))} reproduces it"
            if d.get("protocol")
            else ""
        )
        lines.append(
            f"† {md_code(name)} is not {md_text(d['publication'])} "
            f"({md_code(d['normalizer'])}{how}). It differs in:"
        )
        lines += [f"- {md_text(line)}" for line in d["differences"]]
        lines.append("")
    return lines


def _seconds(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def _mib(value: Any) -> str:
    return "—" if value is None else f"{value / 2**20:.0f} MiB"


def _resources_markdown(arm: dict[str, Any]) -> list[str]:
    """Speed and memory of a run's arm: what a user feels, beside the error rates."""
    res = arm.get("resources") or {}
    by_language = arm.get("resources_by_language") or {}
    if not res and not by_language:
        return []
    parts = ["### Speed and memory", ""]
    if res:
        threads = res.get("threads")
        source = res.get("threads_source")
        rtf = res.get("real_time_factor")
        parts += [
            f"- Model load: {_seconds(res.get('load_seconds'))} s; memory after load "
            f"{_mib(res.get('rss_after_load_bytes'))}, peak {_mib(res.get('peak_rss_bytes'))}; "
            f"model on disk {_mib(res.get('model_size_bytes'))}",
            f"- Threads: {md_text('unknown' if threads is None else threads)}"
            + (f" ({md_text(source)})" if source else "")
            + f"; real-time factor {'—' if rtf is None else f'{rtf:.3f}'} (decode seconds "
            "per audio second)",
            "- Latency per clip: decode = the engine's decode; end to end = audio read + "
            "resample + decode (its batch) + writing the row",
            "",
        ]
    rows = []
    for lang, block in by_language.items():
        scopes = [(lang, block)]
        scopes += [(f"{lang} / {sl}", b) for sl, b in (block.get("by_slice") or {}).items()]
        for label, b in scopes:
            rtf = b.get("real_time_factor")
            rows.append(
                [
                    label,
                    str(b.get("clips", 0)),
                    _seconds(b.get("latency_p50_seconds")),
                    _seconds(b.get("latency_p95_seconds")),
                    _seconds(b.get("end_to_end_p50_seconds")),
                    _seconds(b.get("end_to_end_p95_seconds")),
                    "—" if rtf is None else f"{rtf:.3f}",
                ]
            )
    if rows:
        header = ["language / slice", "clips", "decode p50 s", "decode p95 s"]
        header += ["end-to-end p50 s", "end-to-end p95 s", "RTF"]
        parts += [md_table(header, rows), ""]
    return parts


def _units(items: list[dict[str, Any]]) -> str:
    return ", ".join(f"{md_text(i['unit'])} ×{md_text(i['count'])}" for i in items[:5]) or "—"


def _speaker_markdown(arm: dict[str, Any]) -> list[str]:
    """Per-speaker figures (primary view); a block below a minimum shows null and why."""
    rows: list[list[str]] = []
    for lang, block in arm["by_language"].items():
        for speaker, sblock in (block.get("by_speaker") or {}).items():
            metrics = sblock["views"][sblock["primary_view"]]
            rows.append(
                [
                    f"{lang} / {speaker}",
                    str(_n_scored(metrics.get("wer") or metrics.get("cer"), sblock)),
                    fmt_rate(metrics.get("wer")) if metrics.get("wer") else "n/a",
                    fmt_rate(metrics.get("cer")),
                ]
            )
    if not rows:
        return []
    return [
        "### Speakers (primary view; each speaker's interval resamples its clips)",
        "",
        md_table(
            ["language / speaker", "N", "WER", "CER"], [[md_text(c) for c in r] for r in rows]
        ),
        "",
    ]


def render_arm_markdown(name: str, arm: dict[str, Any]) -> list[str]:
    boot = arm["bootstrap"]
    cov = arm["coverage"]
    aggregate = arm["aggregate"]
    how = (
        " (corpus-level: summed edits / summed reference units)"
        if aggregate == "micro"
        else " (mean of per-utterance rates — labelled macro, not corpus WER)"
    )
    parts = [
        f"## Arm {md_code(name)}",
        "",
        f"- Aggregate: **{md_text(aggregate)}**{how}",
        f"- Utterances: {md_text(cov['references'])} references, {md_text(cov['scored'])} "
        "scored; statuses "
        + ", ".join(f"{md_text(k)}: {md_text(v)}" for k, v in cov["statuses"].items()),
        f"- CIs: percentile {int(100 * boot['level'])}% clip bootstrap, "
        f"{md_text(boot['resamples'])} resamples, seed {md_text(boot['seed'])}"
        + (f", generator {md_text(boot['generator'])}" if boot.get("generator") else ""),
        *_protocol_lines(arm.get("protocol")),
        "",
    ]
    header = ["scope", "normaliser / view", "N", "WER [95% CI]", "CER [95% CI]", "S/D/I of N_ref"]
    rows: list[list[str]] = []
    if arm.get("overall"):
        rows += block_rows("overall", arm["overall"])
    else:
        reason = arm.get("overall_null_reason", "not computable")
        parts += [f"Overall: null — {md_text(reason)}", ""]
    for lang, block in arm["by_language"].items():
        rows += block_rows(f"language {lang}", block)
    parts += [md_table(header, rows), ""]
    scopes = [("overall", arm["overall"])] if arm.get("overall") else []
    scopes += [(f"language {lang}", block) for lang, block in arm["by_language"].items()]
    parts += _unit_notes(scopes)
    parts += _unavailable_notes(scopes)
    parts += _publication_notes(arm)
    parts += _median_markdown(scopes)
    slice_rows: list[list[str]] = []
    for lang, block in arm["by_language"].items():
        for sl, sblock in block.get("by_slice", {}).items():
            metrics = sblock["views"][sblock["primary_view"]]
            slice_rows.append(
                [
                    f"{lang} / {sl}",
                    str(_n_scored(metrics.get("wer") or metrics.get("cer"), sblock)),
                    fmt_rate(metrics.get("wer")) if metrics.get("wer") else "n/a",
                    fmt_rate(metrics.get("cer")),
                ]
            )
    if slice_rows:
        parts += ["### Slices (primary view)", ""]
        parts += [md_table(["language / slice", "N", "WER", "CER"], slice_rows), ""]
    parts += _speaker_markdown(arm)
    hall_rows = []
    for lang, block in arm["by_language"].items():
        h = block["hallucination"]
        if h["no_speech_rows"] or h["repetition_loops"] or h["runaway_outputs"]:
            rate = h["no_speech_output_rate"]
            hall_rows.append(
                [
                    lang,
                    f"{h['no_speech_with_output']}/{h['no_speech_rows']}"
                    + (f" ({100 * rate:.0f}%)" if rate is not None else ""),
                    str(h["empty_outputs"]),
                    str(h["repetition_loops"]),
                    str(h["runaway_outputs"]),
                ]
            )
    if hall_rows:
        parts += ["### Hallucination diagnostics", ""]
        header = ["language", "output on no-speech", "empty outputs", "repetition loops"]
        parts += [md_table([*header, "runaway outputs (over 2× ref)"], hall_rows), ""]
    if cov["not_ok"]:
        parts += ["### Rows without a usable hypothesis (scored as deletions)", ""]
        parts += [f"- {md_code(r['id'])}: {md_text(r['status'])}" for r in cov["not_ok"][:200]]
        if len(cov["not_ok"]) > 200:
            parts.append(f"- … and {len(cov['not_ok']) - 200} more (see results.json)")
        parts.append("")
    parts += _resources_markdown(arm)
    parts += _punctuation_markdown(arm.get("punctuation"))
    parts += _critical_markdown(arm.get("critical_tokens"))
    parts += _timestamps_markdown(arm.get("timestamps"))
    analysis = arm.get("error_analysis") or {}
    for lang, section in analysis.items():
        if not section["worst_utterances"]:
            continue
        subs = ", ".join(
            f"{md_text(s['reference'])}→{md_text(s['hypothesis'])} ×{md_text(s['count'])}"
            for s in section["top_substitutions"][:5]
        )
        parts += [
            f"### Error analysis: {md_text(lang)} ({md_text(section['normalizer'])} / "
            f"{md_text(section['view'])}, {md_text(section['unit'])}s)",
            "",
            f"- Top substitutions: {subs or '—'}",
            f"- Top deletions: {_units(section['top_deletions'])}",
            f"- Top insertions: {_units(section['top_insertions'])}",
            *([f"- {md_text(section['text_withheld'])}"] if section.get("text_withheld") else []),
            "",
        ]
        for worst in section["worst_utterances"][:3]:
            parts += [
                f"{md_code(worst['id'])} — {md_text(worst['substitutions'])} S, "
                f"{md_text(worst['deletions'])} D, {md_text(worst['insertions'])} I",
                "",
                *([*md_fence(str(worst["alignment"])), ""] if "alignment" in worst else []),
            ]
    excluded = cov.get("excluded", [])
    if excluded:
        parts += ["### Excluded", ""]
        parts += [f"- {md_code(ex['id'])}: {md_text(ex['reason'])}" for ex in excluded[:200]]
        parts.append("")
    return parts
