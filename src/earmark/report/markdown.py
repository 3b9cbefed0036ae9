"""`results.md`: the figures a person reads first, every number traceable to results.json."""

from __future__ import annotations

from typing import Any


def fmt_rate(metric: dict[str, Any] | None) -> str:
    """`13.2% [9.1, 17.5]`, or `null (reason)` — never an invented number."""
    if metric is None:
        return "—"
    value = metric.get("value")
    if value is None:
        return f"null ({metric.get('null_reason', 'not computable')})"
    text = f"{100 * value:.2f}%"
    ci = metric.get("ci95")
    if ci:
        text += f" [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
    return text


def _sdi(metric: dict[str, Any] | None) -> str:
    if not metric:
        return "—"
    return (
        f"{metric['substitutions']}/{metric['deletions']}/{metric['insertions']}"
        f" of {metric['ref_units']}"
    )


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
        main = wer or cer
        rows.append(
            [
                label,
                f"{norm} / {view}{primary}",
                str(block["n_utterances"]),
                fmt_rate(wer) if wer else "n/a (no word units)",
                fmt_rate(cer),
                _sdi(main),
            ]
        )
    return rows


def _table(header: list[str], rows: list[list[str]]) -> str:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_results_markdown(results: dict[str, Any], title: str = "earmark results") -> str:
    parts = [f"# {title}", ""]
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
        f"{o['ref_marks']} reference marks, {o['hyp_marks']} hypothesis marks; probes passed: "
        f"{section.get('probes_passed')}.",
        "",
        _table(["match", "precision", "recall", "F1"], rows),
        "",
    ]


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
        _table(["category", "in references", "matched", "lost", "recall"], rows),
        "",
        _failures_line(section.get("n_failures")),
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
    return [f"- Protocol: **{protocol['name']}** — {protocol['source']}"] + [
        f"  - {note}" for note in protocol.get("notes", [])
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
        how = f"; `--protocol {d['protocol']}` reproduces it" if d.get("protocol") else ""
        lines.append(
            f"† `{name}` is not {d['publication']} (`{d['normalizer']}`{how}). It differs in:"
        )
        lines += [f"- {line}" for line in d["differences"]]
        lines.append("")
    return lines


def _units(items: list[dict[str, Any]]) -> str:
    return ", ".join(f"{i['unit']} ×{i['count']}" for i in items[:5]) or "—"


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
        f"## Arm `{name}`",
        "",
        f"- Aggregate: **{aggregate}**{how}",
        f"- Utterances: {cov['references']} references, {cov['scored']} scored; statuses "
        + ", ".join(f"{k}: {v}" for k, v in cov["statuses"].items()),
        f"- CIs: percentile {int(100 * boot['level'])}% clip bootstrap, "
        f"{boot['resamples']} resamples, seed {boot['seed']}"
        + (f", generator {boot['generator']}" if boot.get("generator") else ""),
        *_protocol_lines(arm.get("protocol")),
        "",
    ]
    header = ["scope", "normaliser / view", "N", "WER [95% CI]", "CER [95% CI]", "S/D/I of N_ref"]
    rows: list[list[str]] = []
    if arm.get("overall"):
        rows += block_rows("overall", arm["overall"])
    else:
        parts += [f"Overall: null — {arm.get('overall_null_reason', 'not computable')}", ""]
    for lang, block in arm["by_language"].items():
        rows += block_rows(f"language {lang}", block)
    parts += [_table(header, rows), ""]
    parts += _publication_notes(arm)
    slice_rows: list[list[str]] = []
    for lang, block in arm["by_language"].items():
        for sl, sblock in block.get("by_slice", {}).items():
            metrics = sblock["views"][sblock["primary_view"]]
            slice_rows.append(
                [
                    f"{lang} / {sl}",
                    str(sblock["n_utterances"]),
                    fmt_rate(metrics.get("wer")) if metrics.get("wer") else "n/a",
                    fmt_rate(metrics.get("cer")),
                ]
            )
    if slice_rows:
        parts += ["### Slices (primary view)", ""]
        parts += [_table(["language / slice", "N", "WER", "CER"], slice_rows), ""]
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
        parts += [_table([*header, "runaway outputs (>2× ref)"], hall_rows), ""]
    if cov["not_ok"]:
        parts += ["### Rows without a usable hypothesis (scored as deletions)", ""]
        parts += [f"- `{r['id']}`: {r['status']}" for r in cov["not_ok"][:200]]
        if len(cov["not_ok"]) > 200:
            parts.append(f"- … and {len(cov['not_ok']) - 200} more (see results.json)")
        parts.append("")
    parts += _punctuation_markdown(arm.get("punctuation"))
    parts += _critical_markdown(arm.get("critical_tokens"))
    analysis = arm.get("error_analysis") or {}
    for lang, section in analysis.items():
        if not section["worst_utterances"]:
            continue
        subs = ", ".join(
            f"{s['reference']}→{s['hypothesis']} ×{s['count']}"
            for s in section["top_substitutions"][:5]
        )
        parts += [
            f"### Error analysis: {lang} ({section['normalizer']} / {section['view']}, "
            f"{section['unit']}s)",
            "",
            f"- Top substitutions: {subs or '—'}",
            "- Top deletions: "
            + (
                ", ".join(f"{d['unit']} ×{d['count']}" for d in section["top_deletions"][:5]) or "—"
            ),
            "- Top insertions: "
            + (
                ", ".join(f"{i['unit']} ×{i['count']}" for i in section["top_insertions"][:5])
                or "—"
            ),
            "",
        ]
        for worst in section["worst_utterances"][:3]:
            parts += [
                f"`{worst['id']}` — {worst['substitutions']} S, {worst['deletions']} D, "
                f"{worst['insertions']} I",
                "",
                "```",
                worst["alignment"],
                "```",
                "",
            ]
    excluded = cov.get("excluded", [])
    if excluded:
        parts += ["### Excluded", ""]
        parts += [f"- `{ex['id']}`: {ex['reason']}" for ex in excluded[:200]]
        parts.append("")
    return parts
