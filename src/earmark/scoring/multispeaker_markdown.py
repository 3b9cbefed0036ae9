"""`multispeaker.md`: the totals of each metric with its interval, then each recording.

Recording ids, the normaliser's name and meeteval's version come from files anyone can
write: every one goes through `earmark.markdown_cells`, so a renderer that allows HTML
shows them as text (issue 24, item 4).
"""

from __future__ import annotations

from earmark.markdown_cells import md_code, md_table, md_text
from earmark.scoring.multispeaker_records import NAMES, MultiSpeakerResult

#: Every column but the first (and the interval's) holds a number: right-aligned.
_TOTAL_RIGHT = (1, 3, 4, 5, 6, 7)
_RECORDING_RIGHT = (1, 2, 3, 4, 5, 6)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def render_markdown(result: MultiSpeakerResult) -> str:
    """The Markdown summary: one total table, then one per-recording table per metric."""
    boot = result.bootstrap
    level = f"{round(100 * boot.level)}%"
    totals = []
    for m in result.metrics.values():
        t = m.total
        ci = "n/a"
        if m.ci is not None and m.ci.low is not None:
            ci = f"{_pct(m.ci.low)}–{_pct(m.ci.high)}"
        totals.append(
            [NAMES[m.metric], _pct(t.rate), ci, t.errors, t.length]
            + [t.substitutions, t.deletions, t.insertions]
        )
    lines = [
        "# Multi-speaker scoring",
        "",
        f"Scored by meeteval {md_text(result.meeteval_version)}; normaliser "
        f"{md_code(result.normalizer)}; "
        + (f"collar {result.collar:g} s; " if result.collar is not None else "")
        + f"{len(result.recordings)} recording{'' if len(result.recordings) == 1 else 's'}"
        + (
            f", bootstrap {boot.resamples} resamples of recordings (seed {boot.seed})."
            if boot.resamples
            else ", no bootstrap."
        ),
        "",
        md_table(
            ["Metric", "Rate %", f"{level} CI", "Errors", "Ref words", "Sub", "Del", "Ins"],
            totals,
            right=_TOTAL_RIGHT,
        ),
    ]
    if result.missing_hypotheses:
        lines += [
            "",
            "Recordings without any hypothesis segment (scored as all deletions): "
            + ", ".join(md_code(r) for r in result.missing_hypotheses),
        ]
    if result.excluded:
        lines += [
            "",
            "Hypothesis recordings without a reference (not scored): "
            + ", ".join(md_code(e.recording) for e in result.excluded),
        ]
    for m in result.metrics.values():
        rows = [
            [r.recording, _pct(r.counts.rate), r.counts.errors, r.counts.length]
            + [r.counts.substitutions, r.counts.deletions, r.counts.insertions]
            for r in m.recordings
        ]
        lines += [
            "",
            f"## {NAMES[m.metric]} per recording",
            "",
            md_table(
                ["Recording", "Rate %", "Errors", "Ref words", "Sub", "Del", "Ins"],
                rows,
                right=_RECORDING_RIGHT,
            ),
        ]
    return "\n".join(lines) + "\n"
