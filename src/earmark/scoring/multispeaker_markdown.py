"""`multispeaker.md`: the totals of each metric with its interval, then each recording."""

from __future__ import annotations

from earmark.scoring.multispeaker_records import NAMES, MultiSpeakerResult


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def render_markdown(result: MultiSpeakerResult) -> str:
    """The Markdown summary: one total table, then one per-recording table per metric."""
    boot = result.bootstrap
    level = f"{round(100 * boot.level)}%"
    lines = [
        "# Multi-speaker scoring",
        "",
        f"Scored by meeteval {result.meeteval_version}; normaliser `{result.normalizer}`; "
        + (f"collar {result.collar:g} s; " if result.collar is not None else "")
        + f"{len(result.recordings)} recording{'' if len(result.recordings) == 1 else 's'}"
        + (
            f", bootstrap {boot.resamples} resamples of recordings (seed {boot.seed})."
            if boot.resamples
            else ", no bootstrap."
        ),
        "",
        f"| Metric | Rate % | {level} CI | Errors | Ref words | Sub | Del | Ins |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for m in result.metrics.values():
        t = m.total
        ci = "n/a"
        if m.ci is not None and m.ci.low is not None:
            ci = f"{_pct(m.ci.low)}–{_pct(m.ci.high)}"
        lines.append(
            f"| {NAMES[m.metric]} | {_pct(t.rate)} | {ci} | {t.errors} | {t.length} | "
            f"{t.substitutions} | {t.deletions} | {t.insertions} |"
        )
    if result.missing_hypotheses:
        lines += [
            "",
            "Recordings without any hypothesis segment (scored as all deletions): "
            + ", ".join(f"`{r}`" for r in result.missing_hypotheses),
        ]
    if result.excluded:
        lines += [
            "",
            "Hypothesis recordings without a reference (not scored): "
            + ", ".join(f"`{e.recording}`" for e in result.excluded),
        ]
    for m in result.metrics.values():
        lines += [
            "",
            f"## {NAMES[m.metric]} per recording",
            "",
            "| Recording | Rate % | Errors | Ref words | Sub | Del | Ins |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in m.recordings:
            c = r.counts
            name = r.recording.replace("|", "\\|")
            lines.append(
                f"| {name} | {_pct(c.rate)} | {c.errors} | {c.length} | "
                f"{c.substitutions} | {c.deletions} | {c.insertions} |"
            )
    return "\n".join(lines) + "\n"
