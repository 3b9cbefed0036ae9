"""`postprocess.md`: the post-processor evaluation in a few lines and one table."""

from __future__ import annotations

from earmark.markdown_cells import md_code, md_text
from earmark.postprocess.report import Figure, PostprocessReport


def _pct(stat: Figure) -> str:
    if stat.value is None:
        return f"— ({stat.null_reason or 'undefined'})"
    text = f"{100 * stat.value:.2f}%"
    ci = stat.ci
    return f"{text} [{100 * ci[0]:.2f}%, {100 * ci[1]:.2f}%]" if ci else text


def _num(stat: Figure, signed: bool = False) -> str:
    if stat.value is None:
        return "—"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    text = fmt.format(stat.value)
    ci = stat.ci
    return f"{text} [{fmt.format(ci[0])}, {fmt.format(ci[1])}]" if ci else text


def render_postprocess_markdown(report: PostprocessReport) -> str:
    """The headline table (raw, delivered, their difference) and the lines that qualify
    it: acceptance per clip and repeat, outcomes, determinism, the CER invariant, time."""
    summary = report.summary
    overall = summary.overall
    processor = report.processor
    acc = overall.acceptance
    punct = overall.punctuation
    cer = overall.cer
    lines = [f"# Post-processor evaluation: {md_text(str(processor['kind']))}", ""]
    for warning in summary.warnings:
        lines += [f"> **WARNING: {md_text(warning)}**", ""]
    lines += [
        f"Processor: {md_code(report.processor_spec)}"
        + (
            f" (prompt sha256 {md_code(str(processor['prompt_sha256'])[:12] + '…')})"
            if "prompt_sha256" in processor
            else ""
        )
        + (
            f" (OpenCC {md_text(str(processor['opencc_version']))})"
            if "opencc_version" in processor
            else ""
        ),
        *_identity_lines(report),
        f"Source: {md_code(report.source.predictions)}"
        + (f", arm {md_code(report.source.arm)}" if report.source.arm else ""),
        f"{overall.n_transcripts} transcripts ({overall.n_clusters} clips) × "
        f"{summary.repeats} repeats = {overall.n_outputs} outputs; "
        f"guard: {'on' if summary.guarded else 'off (changes characters by design)'}.",
        "",
        "| Line | Acceptance | Content CER (95% CI) | Position F1 (95% CI) | "
        "Position+type F1 (95% CI) |",
        "|---|---:|---:|---:|---:|",
        f"| raw | — | {_pct(cer.raw)} | {_num(punct.raw.position_f1)} | "
        f"{_num(punct.raw.type_f1)} |",
        f"| delivered | {acc.accepted}/{acc.total} = "
        f"{_pct(acc.per_output)} | {_pct(cer.delivered)} | "
        f"{_num(punct.delivered.position_f1)} | {_num(punct.delivered.type_f1)} |",
        f"| delivered − raw | | {_pct(cer.difference)} | "
        f"{_num(punct.position_f1_difference, True)} | "
        f"{_num(punct.type_f1_difference, True)} |",
    ]
    lines += ["", *_detail_lines(report)]
    boot = summary.bootstrap
    lines += [
        "",
        f"Intervals: percentile {boot.level:.0%} from {boot.resamples} resamples of "
        f"clips (seed {boot.seed}); all repeats of a clip stay together.",
        "",
    ]
    return "\n".join(lines)


def _detail_lines(report: PostprocessReport) -> list[str]:
    """What qualifies the table: acceptance per clip and repeat, outcomes, changed texts,
    determinism, the CER invariant, processor time and skipped outputs."""
    summary = report.summary
    overall = summary.overall
    acc = overall.acceptance
    cer = overall.cer
    det = overall.determinism
    lines = [
        f"- Acceptance per clip (all repeats must pass): {acc.clips_passed}/"
        f"{acc.clips_total} = {_pct(acc.per_clip)}.",
        "- Per repeat: " + ", ".join(f"#{k}: {a}/{n}" for k, a, n in acc.per_repeat) + ".",
        f"- Outcomes: {acc.changed_and_delivered} changed and delivered, "
        f"{acc.accepted_unchanged} accepted unchanged, "
        f"{acc.source_retained} source retained"
        + (
            " (" + ", ".join(f"{md_text(k)}: {md_text(v)}" for k, v in acc.reasons.items()) + ")"
            if acc.reasons
            else ""
        )
        + ".",
    ]
    lines.append(
        f"- Delivered text differs from the source in {overall.delivered_changed}/"
        f"{overall.n_outputs - overall.n_skipped} outputs"
        + ("" if summary.guarded else " (whether conversion actually occurred)")
        + "."
    )
    if det.value is not None:
        lines.append(
            f"- Determinism: {det.identical}/{det.total} transcripts gave identical "
            "outputs across repeats."
        )
    else:
        lines.append(f"- Determinism: not measured ({det.null_reason}).")
    if cer.expected_equal:
        state = "holds" if cer.invariant_holds else "**VIOLATED**"
        lines.append(
            f"- CER equality under the guard {state}: equal by construction, not an accuracy gain."
        )
    timing = summary.timing
    if timing.median is not None and timing.p95 is not None:
        lines.append(
            f"- Processor time: median {timing.median:.3f} s, p95 {timing.p95:.3f} s "
            f"per call ({timing.calls} calls; first-call time included)."
        )
    if summary.skipped:
        lines.append(
            f"- {len(summary.skipped)} outputs skipped (no source transcript), listed in "
            "postprocess.json."
        )
    return lines


def _identity_lines(report: PostprocessReport) -> list[str]:
    """The frozen plan, what the server said it served, and a command's file revision:
    what makes "the same formatter" checkable beside its name."""
    lines = []
    plan = report.plan
    if plan:
        state = "frozen, hash checked" if plan.get("frozen") else "not checked against a hash"
        prompt = plan["prompt"]
        status = prompt.get("status") if isinstance(prompt, dict) else None
        lines.append(
            f"Plan: {md_code(str(plan['file']))} sha256 {md_code(str(plan['sha256'])[:12] + '…')} "
            f"({state}); prompt {md_text(str(status))}."
        )
    served = report.served_model
    if served:
        reported, fingerprints = served["reported_models"], served["system_fingerprints"]
        assert isinstance(reported, dict) and isinstance(fingerprints, dict)
        models = ", ".join(f"{md_code(m)} ×{n}" for m, n in reported.items())
        prints = ", ".join(f"{md_code(f)} ×{n}" for f, n in fingerprints.items())
        lines.append(
            f"Served model (as the server reported it): {models or 'not reported'}"
            + (f"; system fingerprint {prints}" if prints else "")
            + "."
        )
    revision = report.processor.get("revision")
    if revision:
        lines.append(f"Formatter files: revision {md_code(str(revision)[:19] + '…')}.")
    return lines
