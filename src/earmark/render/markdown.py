"""`results.md`: the figures a person reads first, every number traceable to results.json.

`render_results_markdown` reads results.json into the typed model once (`earmark.results`)
and every section reads figures from it. The open-ended analysis sections (punctuation,
critical tokens, timestamps, error analysis) are JSON in the model too, and are read as
such. The Markdown escaping every `.md` goes through lives in `earmark.markdown_cells`, and
the one spelling of a rate in `earmark.results.display`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from earmark.markdown_cells import md_code, md_fence, md_table, md_text
from earmark.render.markdown_sclite import alignment_lines, sclite_markdown
from earmark.render.summary_rows import (
    block_rows,
    n_scored,
    normalizer_choice_lines,
    summary_scopes,
)
from earmark.results import ArmResult, MetricResult, Record, Results, ScopeResult
from earmark.results.display import (
    fmt_decimal,
    fmt_mib,
    fmt_ms,
    fmt_rate,
    fmt_sdi,
    fmt_stat,
)


def typed_results(results: Results | Mapping[str, Any]) -> Results:
    """results.json typed once at a renderer's entry (callers may hold it as read)."""
    return results if isinstance(results, Results) else Results.from_dict(dict(results))


def _has(record: Record, name: str) -> bool:
    """Whether the file had `name` (null counts), or the record holds a value for it."""
    return getattr(record, name) is not None or name in record.key_order


def _headline(block: ScopeResult, view: str) -> MetricResult | None:
    """WER, else CER, of one view (the metric whose N and coverage a row reports)."""
    metrics = block.views[view].metrics
    return metrics.get("wer") or metrics.get("cer")


def _unavailable_notes(scopes: Sequence[tuple[str, ScopeResult]]) -> list[str]:
    """One line per view scored on fewer rows than its scope holds, with the reasons."""
    lines = []
    for label, block in scopes:
        for view in block.views:
            main = _headline(block, view)
            missing = (main.n_unavailable if main else None) or 0
            if main is not None and missing:
                why = ", ".join(f"{k} ×{v}" for k, v in (main.unavailable_reasons or {}).items())
                lines.append(
                    f"- {md_text(label)} / {md_text(view)}: {missing} of "
                    f"{block.n_utterances} row(s) not scored in this view"
                    + (f" ({md_text(why)})" if why else "")
                )
    if not lines:
        return []
    return ["N is the rows scored in each view; rows a view could not score:", "", *lines, ""]


def _median(metric: MetricResult) -> str:
    value = metric.median_per_utterance
    if value is None:
        reason = metric.median_per_utterance_null_reason
        return f"null ({reason})" if reason else "—"
    return f"{100 * value:.2f}%"


def _median_markdown(scopes: Sequence[tuple[str, ScopeResult]]) -> list[str]:
    """Median per-utterance rates (primary view) beside the corpus rate of each scope."""
    rows = []
    for label, block in scopes:
        metrics = block.view().metrics
        wer, cer = metrics.get("wer"), metrics.get("cer")
        main = wer or cer
        if main is None or not _has(main, "median_per_utterance"):
            continue  # results written before the median existed
        rows.append(
            [
                label,
                str(main.median_per_utterance_n or 0),
                f"{fmt_rate(wer)} / {_median(wer)}" if wer else "n/a",
                f"{fmt_rate(cer)} / {_median(cer) if cer else 'n/a'}",
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


def word_information_rows(block: ScopeResult) -> list[list[str]]:
    """Metric, MER, WIL and WIP of the primary view's metrics that carry WIP (only asked
    for, `--metrics wip`; results without it show no such rows)."""
    return [
        [name.upper(), *(_proportion(v) for v in (m.mer, m.wil, m.wip))]
        for name, m in block.view().metrics.items()
        if m.wip is not None
    ]


def _proportion(value: float | None) -> str:
    return "null" if value is None else f"{value:.4f}"


def _word_information_markdown(scopes: Sequence[tuple[str, ScopeResult]]) -> list[str]:
    """MER, WIL and word information preserved (jiwer's measures) where WIP was asked for."""
    rows = [[label, *row] for label, block in scopes for row in word_information_rows(block)]
    if not rows:
        return []
    header = ["scope", "metric", "MER", "WIL", "WIP"]
    return ["### Word information (primary view)", "", md_table(header, rows), ""]


def _unit_notes(scopes: Sequence[tuple[str, ScopeResult]]) -> list[str]:
    """Which unit each headline counts and why (where a block says), and the mixed error
    rate (CJK characters + other words) beside CER for code-switched Mandarin."""
    lines: list[str] = []
    for label, block in scopes:
        norm = block.normalizer
        if norm.headline_unit == "char" and "word" in norm.units:
            lines.append(
                f"- Headline unit, {md_text(label)}: character (CER; WER reported, not "
                f"headline) — {md_text(norm.headline_unit_reason or '')}"
            )
        mixed: Any = norm.mixed_unit
        if not mixed:
            continue
        view = block.views.get(mixed["view"])
        metric = None if view is None else view.metrics.get(mixed["metric"])
        if view is None or metric is None:
            continue
        where = f"{norm.name} / {mixed['view']}"
        lines.append(
            f"- Mixed error rate (CJK characters + other words), {md_text(label)}, "
            f"{md_text(where)}: {md_text(fmt_rate(metric))}, S/D/I {md_text(fmt_sdi(metric))} "
            f"units; CER {md_text(fmt_rate(view.metrics.get('cer')))}"
        )
    return [*lines, ""] if lines else []


def render_results_markdown(
    results: Results | Mapping[str, Any], title: str = "earmark results"
) -> str:
    """results.md of a results file (typed here once when given as read)."""
    typed = typed_results(results)
    parts = [f"# {md_text(title)}", ""]
    if typed.public is False:
        parts += [
            "> **Not public.** The corpus sidecar does not permit redistribution of audio "
            "and transcripts; share aggregate figures only.",
            "",
        ]
    for name, arm in typed.arms.items():
        parts += render_arm_markdown(name, arm)
    probes = typed.probes
    parts += [
        "## Scorer self-check",
        "",
        f"{sum(p.passed for p in probes)}/{len(probes)} known-good/known-bad probes passed.",
        "",
    ]
    return "\n".join(parts)


def _punctuation_markdown(section: Mapping[str, Any] | None) -> list[str]:
    if not section or not section.get("overall"):
        return []
    o = section["overall"]
    rows = [
        [
            kind.replace("_", "+"),
            fmt_stat(o[kind]["precision"]),
            fmt_stat(o[kind]["recall"]),
            fmt_stat(o[kind]["f1"]),
        ]
        for kind in ("position", "position_type")
    ]
    return [
        "### Punctuation (boundary projection)",
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


def _share(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def timestamp_rows(section: Mapping[str, Any] | None) -> list[list[str]]:
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
                row += [fmt_ms(o["mean"]), fmt_ms(o["median"])]
                row += [_share(o["within_100ms"]), _share(o["within_200ms"])]
            rows.append(row)
    return rows


def _streaming_markdown(section: Mapping[str, Any] | None) -> list[str]:
    """The arm's streaming figures (docs/streaming.md); nothing when it did not stream."""
    if not (section or {}).get("by_language"):
        return []  # not streamed: the streaming code (and its dataclasses) stays unloaded
    from earmark.scoring.streaming_section import STREAMING_HEADER, streaming_rows

    rows = streaming_rows(section)
    if not rows:
        return []
    return [
        "### Streaming",
        "",
        "Time to first token (wall time; audio fed), final latency after the last audio "
        "chunk, churn and stability of the partial results (docs/streaming.md).",
        "",
        md_table(STREAMING_HEADER, rows),
        "",
    ]


def _timestamps_markdown(section: Mapping[str, Any] | None) -> list[str]:
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


def _critical_markdown(section: Mapping[str, Any] | None) -> list[str]:
    if not section or not section.get("overall"):
        return []
    rows = [
        [name, str(c["ref"]), str(c["matched"]), str(c["lost"]), fmt_stat(c["recall"])]
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


def _protocol_lines(protocol: Mapping[str, Any] | None) -> list[str]:
    if not protocol:
        return []
    return [f"- Protocol: **{md_text(protocol['name'])}** — {md_text(protocol['source'])}"] + [
        f"  - {md_text(note)}" for note in protocol.get("notes", [])
    ]


def _scopes(arm: ArmResult) -> list[tuple[str, ScopeResult]]:
    """("overall", block) when there is one, then ("language xx", block) per language
    (one block when they are the same figures: `summary_scopes`)."""
    return summary_scopes(arm, "language {}")


def _publication_notes(arm: ArmResult) -> list[str]:
    """† under the table: how a normaliser differs from a publication's rule (ga-v1 vs
    BlasBench), once per normaliser, so a figure never passes for the paper's."""
    seen: dict[tuple[str, str], Any] = {}
    for _, block in _scopes(arm):
        differs: Any = block.normalizer.differs_from_publication or []
        for d in differs:
            seen.setdefault((block.normalizer.name, d["normalizer"]), d)
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


def _resources_markdown(arm: ArmResult) -> list[str]:
    """Speed and memory of a run's arm: what a user feels, beside the error rates."""
    res = arm.resources if arm.resources is not None and arm.resources.to_dict() else None
    by_language = arm.resources_by_language or {}
    if res is None and not by_language:
        return []
    parts = ["### Speed and memory", ""]
    if res is not None:
        threads = res.threads
        source = res.threads_source
        rtf = res.real_time_factor
        parts += [
            f"- Model load: {fmt_decimal(res.load_seconds)} s; memory after load "
            f"{fmt_mib(res.rss_after_load_bytes)}, peak {fmt_mib(res.peak_rss_bytes)}; "
            f"model on disk {fmt_mib(res.model_size_bytes)}" + _runtime_on_disk(arm),
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
        scopes += [(f"{lang} / {sl}", b) for sl, b in (block.by_slice or {}).items()]
        for label, b in scopes:
            rtf = b.real_time_factor
            rows.append(
                [
                    label,
                    str(b.clips),
                    fmt_decimal(b.latency_p50_seconds),
                    fmt_decimal(b.latency_p95_seconds),
                    fmt_decimal(b.end_to_end_p50_seconds),
                    fmt_decimal(b.end_to_end_p95_seconds),
                    "—" if rtf is None else f"{rtf:.3f}",
                ]
            )
    if rows:
        header = ["language / slice", "clips", "decode p50 s", "decode p95 s"]
        header += ["end-to-end p50 s", "end-to-end p95 s", "RTF"]
        parts += [md_table(header, rows), ""]
    return parts


def _runtime_on_disk(arm: ArmResult) -> str:
    """The installed runtime's closure size beside the model's (issue 15), when recorded:
    what shipping this engine costs on disk besides its weights."""
    extra = arm.model.engine_extra if arm.model is not None else None
    record = (extra or {}).get("runtime_footprint")
    if not isinstance(record, Mapping):
        return ""
    total, closure = record.get("total_bytes"), record.get("distributions")
    if not isinstance(total, int) or not isinstance(closure, Mapping) or not closure:
        return ""
    return f", runtime on disk {fmt_mib(total)} ({len(closure)} Python distributions)"


def _network_lines(arm: ArmResult) -> list[str]:
    """A warning when the arm's programs ran with the network reachable although the run
    refused it (no network namespace on that machine): their egress was not enforced."""
    extra = arm.model.engine_extra if arm.model is not None else None
    record = (extra or {}).get("network")
    if not isinstance(record, Mapping) or record.get("programs_isolated") is not False:
        return []
    return [
        "- Network: **not enforced** — the programs this arm started could reach the "
        f"network ({md_text(record.get('reason') or 'no network namespace')}); their "
        "connections were neither refused nor seen (see egress.json)"
    ]


def _units(items: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{md_text(i['unit'])} ×{md_text(i['count'])}" for i in items[:5]) or "—"


def _primary_rows(scopes: Sequence[tuple[str, ScopeResult]]) -> list[list[str]]:
    """label, N, WER, CER of each scope's primary view (slices, speakers)."""
    rows = []
    for label, block in scopes:
        metrics = block.view().metrics
        wer = metrics.get("wer")
        rows.append(
            [
                label,
                str(n_scored(wer or metrics.get("cer"), block)),
                fmt_rate(wer) if wer else "n/a",
                fmt_rate(metrics.get("cer")),
            ]
        )
    return rows


def _speaker_markdown(arm: ArmResult) -> list[str]:
    """Per-speaker figures (primary view); a block below a minimum shows null and why."""
    rows = _primary_rows(
        [
            (f"{lang} / {speaker}", sblock)
            for lang, block in arm.by_language.items()
            for speaker, sblock in (block.by_speaker or {}).items()
        ]
    )
    if not rows:
        return []
    # Each cell escaped once (it was escaped twice, so a speaker `a*b` showed as `a\*b`), and
    # each spelling made once: the counts and rates of 10,000 speakers repeat.
    spelt: dict[object, str] = {}

    def once(text: object) -> str:
        found = spelt.get(text)
        if found is None:
            found = spelt[text] = md_text(text)
        return found

    return [
        "### Speakers (primary view; each speaker's interval resamples its clips)",
        "",
        md_table(["language / speaker", "N", "WER", "CER"], rows, cell=once),
        "",
    ]


def _hallucination_markdown(arm: ArmResult) -> list[str]:
    rows = []
    for lang, block in arm.by_language.items():
        h = block.hallucination
        if h.no_speech_rows or h.repetition_loops or h.runaway_outputs:
            rate = h.no_speech_output_rate
            rows.append(
                [
                    lang,
                    f"{h.no_speech_with_output}/{h.no_speech_rows}"
                    + (f" ({100 * rate:.0f}%)" if rate is not None else ""),
                    str(h.empty_outputs),
                    str(h.repetition_loops),
                    str(h.runaway_outputs),
                ]
            )
    if not rows:
        return []
    header = ["language", "output on no-speech", "empty outputs", "repetition loops"]
    return [
        "### Hallucination diagnostics",
        "",
        md_table([*header, "runaway outputs (over 2× ref)"], rows),
        "",
    ]


def _error_analysis_markdown(analysis: Mapping[str, Any]) -> list[str]:
    parts: list[str] = []
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
    return parts


def render_arm_markdown(name: str, arm: ArmResult) -> list[str]:
    """One arm's section of results.md."""
    boot = arm.bootstrap
    cov = arm.coverage
    aggregate = arm.aggregate
    how = (
        " (corpus-level: summed edits / summed reference units)"
        if aggregate == "micro"
        else " (mean of per-utterance rates — labelled macro, not corpus WER)"
    )
    parts = [
        f"## Arm {md_code(name)}",
        "",
        f"- Aggregate: **{md_text(aggregate)}**{how}",
        f"- Utterances: {md_text(cov.references)} references, {md_text(cov.scored)} "
        "scored; statuses "
        + ", ".join(f"{md_text(k)}: {md_text(v)}" for k, v in cov.statuses.items()),
        f"- CIs: percentile {int(100 * boot.level)}% clip bootstrap, "
        f"{md_text(boot.resamples)} resamples, seed {md_text(boot.seed)}"
        + (f", generator {md_text(boot.generator)}" if boot.generator else ""),
        *_protocol_lines(arm.protocol),
        *alignment_lines(arm),
        *(f"- {md_text(line[:1].upper() + line[1:])}" for line in normalizer_choice_lines(arm)),
        *_network_lines(arm),
        "",
    ]
    header = ["scope", "normaliser / view", "N", "WER [95% CI]", "CER [95% CI]", "S/D/I of N_ref"]
    if arm.overall is None:
        reason = arm.overall_null_reason or "not computable"
        parts += [f"Overall: null — {md_text(reason)}", ""]
    scopes = _scopes(arm)
    rows = [row for label, block in scopes for row in block_rows(label, block)]
    parts += [md_table(header, rows), ""]
    parts += _unit_notes(scopes)
    parts += _unavailable_notes(scopes)
    parts += _publication_notes(arm)
    parts += _median_markdown(scopes)
    parts += _word_information_markdown(scopes)
    slice_rows = _primary_rows(
        [
            (f"{lang} / {sl}", sblock)
            for lang, block in arm.by_language.items()
            for sl, sblock in (block.by_slice or {}).items()
        ]
    )
    if slice_rows:
        parts += ["### Slices (primary view)", ""]
        parts += [md_table(["language / slice", "N", "WER", "CER"], slice_rows), ""]
    parts += _speaker_markdown(arm)
    parts += _hallucination_markdown(arm)
    if cov.not_ok:
        parts += ["### Rows without a usable hypothesis (scored as deletions)", ""]
        parts += [f"- {md_code(r.id)}: {md_text(r.status)}" for r in cov.not_ok[:200]]
        if len(cov.not_ok) > 200:
            parts.append(f"- … and {len(cov.not_ok) - 200} more (see results.json)")
        parts.append("")
    parts += _resources_markdown(arm)
    parts += _punctuation_markdown(arm.punctuation)
    parts += _critical_markdown(arm.critical_tokens)
    parts += _timestamps_markdown(arm.timestamps)
    parts += _streaming_markdown(arm.streaming)
    parts += _error_analysis_markdown(arm.error_analysis or {})
    parts += sclite_markdown(arm)
    if cov.excluded:
        parts += ["### Excluded", ""]
        parts += [f"- {md_code(ex.id)}: {md_text(ex.reason)}" for ex in cov.excluded[:200]]
        parts.append("")
    return parts
