"""`postprocess.md`: the post-processor evaluation in a few lines and one table."""

from __future__ import annotations

from typing import Any

from earmark.markdown_cells import md_code, md_text


def _pct(stat: dict[str, Any]) -> str:
    value = stat.get("value")
    if value is None:
        return f"— ({stat.get('null_reason', 'undefined')})"
    ci = stat.get("ci95")
    text = f"{100 * value:.2f}%"
    return f"{text} [{100 * ci[0]:.2f}%, {100 * ci[1]:.2f}%]" if ci else text


def _num(stat: dict[str, Any], signed: bool = False) -> str:
    value = stat.get("value")
    if value is None:
        return "—"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    ci = stat.get("ci95")
    text = fmt.format(value)
    return f"{text} [{fmt.format(ci[0])}, {fmt.format(ci[1])}]" if ci else text


def render_postprocess_markdown(document: dict[str, Any]) -> str:
    summary = document["summary"]
    overall = summary["overall"]
    processor = document["processor"]
    acc = overall["acceptance"]
    punct = overall["punctuation"]
    cer = overall["cer"]
    det = overall["determinism"]
    lines = [f"# Post-processor evaluation: {md_text(processor['kind'])}", ""]
    for warning in summary["warnings"]:
        lines += [f"> **WARNING: {md_text(warning)}**", ""]
    lines += [
        f"Processor: {md_code(document['processor_spec'])}"
        + (
            f" (prompt sha256 {md_code(str(processor['prompt_sha256'])[:12] + '…')})"
            if "prompt_sha256" in processor
            else ""
        )
        + (
            f" (OpenCC {md_text(processor['opencc_version'])})"
            if "opencc_version" in processor
            else ""
        ),
        *_identity_lines(document),
        f"Source: {md_code(document['source']['predictions'])}"
        + (f", arm {md_code(document['source']['arm'])}" if document["source"].get("arm") else ""),
        f"{overall['n_transcripts']} transcripts ({overall['n_clusters']} clips) × "
        f"{summary['repeats']} repeats = {overall['n_outputs']} outputs; "
        f"guard: {'on' if summary['guarded'] else 'off (changes characters by design)'}.",
        "",
        "| Line | Acceptance | Content CER (95% CI) | Position F1 (95% CI) | "
        "Position+type F1 (95% CI) |",
        "|---|---:|---:|---:|---:|",
        f"| raw | — | {_pct(cer['raw'])} | {_num(punct['raw']['position_f1'])} | "
        f"{_num(punct['raw']['type_f1'])} |",
        f"| delivered | {acc['per_output']['accepted']}/{acc['per_output']['total']} = "
        f"{_pct(acc['per_output'])} | {_pct(cer['delivered'])} | "
        f"{_num(punct['delivered']['position_f1'])} | {_num(punct['delivered']['type_f1'])} |",
        f"| delivered − raw | | {_pct(cer['difference'])} | "
        f"{_num(punct['difference']['position_f1'], True)} | "
        f"{_num(punct['difference']['type_f1'], True)} |",
        "",
        f"- Acceptance per clip (all repeats must pass): {acc['per_clip']['passed']}/"
        f"{acc['per_clip']['total']} = {_pct(acc['per_clip'])}.",
        "- Per repeat: "
        + ", ".join(f"#{r['repeat']}: {r['accepted']}/{r['total']}" for r in acc["per_repeat"])
        + ".",
        f"- Outcomes: {acc['outcomes']['changed_and_delivered']} changed and delivered, "
        f"{acc['outcomes']['accepted_unchanged']} accepted unchanged, "
        f"{acc['outcomes']['source_retained']} source retained"
        + (
            " (" + ", ".join(f"{md_text(k)}: {md_text(v)}" for k, v in acc["reasons"].items()) + ")"
            if acc["reasons"]
            else ""
        )
        + ".",
    ]
    lines.append(
        f"- Delivered text differs from the source in {overall['delivered_changed']}/"
        f"{overall['n_outputs'] - overall['n_skipped']} outputs"
        + ("" if summary["guarded"] else " (whether conversion actually occurred)")
        + "."
    )
    if det.get("value") is not None:
        lines.append(
            f"- Determinism: {det['identical']}/{det['total']} transcripts gave identical "
            "outputs across repeats."
        )
    else:
        lines.append(f"- Determinism: not measured ({det.get('null_reason')}).")
    if cer.get("expected_equal"):
        state = "holds" if cer["invariant"]["holds"] else "**VIOLATED**"
        lines.append(
            f"- CER equality under the guard {state}: equal by construction, not an accuracy gain."
        )
    timing = summary["timing"]
    if timing.get("median") is not None:
        lines.append(
            f"- Processor time: median {timing['median']:.3f} s, p95 {timing['p95']:.3f} s "
            f"per call ({timing['calls']} calls; first-call time included)."
        )
    if summary["skipped"]:
        lines.append(
            f"- {len(summary['skipped'])} outputs skipped (no source transcript), listed in "
            "postprocess.json."
        )
    boot = summary["bootstrap"]
    lines += [
        "",
        f"Intervals: percentile {boot['level']:.0%} from {boot['resamples']} resamples of "
        f"clips (seed {boot['seed']}); all repeats of a clip stay together.",
        "",
    ]
    return "\n".join(lines)


def _identity_lines(document: dict[str, Any]) -> list[str]:
    """The frozen plan, what the server said it served, and a command's file revision:
    what makes "the same formatter" checkable beside its name."""
    lines = []
    plan = document.get("plan")
    if plan:
        state = "frozen, hash checked" if plan.get("frozen") else "not checked against a hash"
        lines.append(
            f"Plan: {md_code(plan['file'])} sha256 {md_code(plan['sha256'][:12] + '…')} "
            f"({state}); prompt {md_text(plan['prompt']['status'])}."
        )
    served = document.get("served_model")
    if served:
        models = ", ".join(f"{md_code(m)} ×{n}" for m, n in served["reported_models"].items())
        prints = ", ".join(f"{md_code(f)} ×{n}" for f, n in served["system_fingerprints"].items())
        lines.append(
            f"Served model (as the server reported it): {models or 'not reported'}"
            + (f"; system fingerprint {prints}" if prints else "")
            + "."
        )
    revision = document["processor"].get("revision")
    if revision:
        lines.append(f"Formatter files: revision {md_code(revision[:19] + '…')}.")
    return lines
