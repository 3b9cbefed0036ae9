"""What `score` and `run` print to the terminal (rich), built from results.json (typed once
by `print_summary`; rows are the same `block_rows` results.md shows).

Tables are fitted to the terminal by `earmark.terminal_table.print_fitted`:
a number is never split across lines, and narrow terminals get stacked or fewer columns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from earmark.render.markdown import typed_results
from earmark.render.summary_rows import block_rows, normalizer_choice_lines, summary_scopes
from earmark.results.display import fmt_stat
from earmark.terminal_table import Column, print_fitted

if TYPE_CHECKING:
    from rich.console import Console

    from earmark.metrics.alignment import AlignedOp, Alignment
    from earmark.results.arm import ArmResult
    from earmark.results.results_file import Results

SUMMARY_COLUMNS = (
    Column("scope"),
    Column("normaliser / view", breaks=(" / ", " (")),
    Column("N", numeric=True),
    Column("WER [95% CI]", "WER", numeric=True),
    Column("CER [95% CI]", "CER", numeric=True),
    Column("S/D/I of N_ref", "S/D/I of\nN_ref", drop=1, numeric=True, breaks=(" of",)),
)


def _console(console: Console | None) -> Console:
    if console is not None:
        return console
    from rich.console import Console

    return Console()


def print_summary(
    results: Results | Mapping[str, Any], title: str = "earmark", console: Console | None = None
) -> None:
    """Per arm: a row per scope × view (rates with CIs; a single language's once), the
    normaliser chosen when none was named, coverage, punctuation and critical-token
    figures when scored, and the determinism warning."""
    from rich.text import Text

    console = _console(console)
    for name, arm in typed_results(results).arms.items():
        rows = [
            row for label, block in summary_scopes(arm, "{}") for row in block_rows(label, block)
        ]
        print_fitted(
            console,
            SUMMARY_COLUMNS,
            rows,
            title=f"{title}: {name} ({arm.aggregate} rates, 95% clip-bootstrap CI)",
        )
        for line in (
            *normalizer_choice_lines(arm),
            *_alignment_lines(arm),
            *extra_metric_lines(arm),
        ):
            console.print(Text(line))
        not_ok = arm.coverage.not_ok
        if not_ok:
            console.print(
                Text(
                    f"{len(not_ok)} row(s) without a usable hypothesis, scored as "
                    "deletions: " + ", ".join(f"{r.id} ({r.status})" for r in not_ok[:10])
                )
            )
        if arm.overall is None and arm.overall_null_reason:
            console.print(Text(f"overall: null — {arm.overall_null_reason}"))
        if arm.deterministic is False:
            console.print(
                Text(
                    f"deterministic: false — {arm.determinism_note}: a rerun can give "
                    "other hypotheses, and churn against this arm includes sampling noise."
                )
            )


def extra_metric_lines(arm: ArmResult) -> list[str]:
    """Punctuation F1 and critical-token recall, one short line each, as `score` prints
    them under the WER/CER table (absent when they were not asked for)."""
    lines = []
    punct: Any = (arm.punctuation or {}).get("overall")
    if punct:
        lines.append(
            f"punctuation F1 ({punct['ref_marks']} reference / {punct['hyp_marks']} "
            f"hypothesis marks): position {fmt_stat(punct['position']['f1'])}; "
            f"position+type {fmt_stat(punct['position_type']['f1'])}"
        )
    tokens: Any = (arm.critical_tokens or {}).get("overall")
    if tokens:
        found = [
            f"{category} {fmt_stat(c['recall'])} ({c['matched']}/{c['ref']})"
            for category, c in tokens["categories"].items()
            if c.get("ref")
        ]
        lines.append(
            "critical-token recall: " + ("; ".join(found) if found else "no critical tokens")
        )
    return lines


def print_worst_alignments(
    results: Results | Mapping[str, Any],
    predictions: str | os.PathLike[str],
    per_language: int = 3,
    console: Console | None = None,
    max_units: int = 60,
) -> None:
    """The worst utterances of each language, aligned and coloured (rich) in the terminal.

    An alignment longer than `max_units` columns (a runaway output) is cut there and the
    rest counted, so one hallucinated clip cannot fill the screen. Only the rows shown are
    typed (`PredictionRow`); the others are skipped by id."""
    import json

    from rich.text import Text

    from earmark.metrics.alignment import align
    from earmark.metrics.analysis import render_alignment
    from earmark.metrics.tokens import chars, words
    from earmark.results.predictions import PredictionRow

    wanted: dict[str, tuple[str, str]] = {}
    for arm in typed_results(results).arms.values():
        analysis: Any = arm.error_analysis or {}
        for section in analysis.values():
            for worst in section["worst_utterances"][:per_language]:
                wanted[worst["id"]] = (section["view"], section["unit"])
    if not wanted:
        return
    console = _console(console)
    with open(predictions, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if json.loads(line)["id"] not in wanted:
                continue
            row = PredictionRow.from_line(line, file=os.fspath(predictions), number=number)
            view, unit = wanted[row.id]
            texts = row.view(view)
            tok = words if unit == "word" else chars
            # A row without a language is scored in the `und` scope: label it so, as the
            # summary table does (never `None`).
            language = row.language or "und"
            console.print(Text(f"{row.id} ({language}, {view})", style="bold"))
            reference = "" if texts is None else texts.reference or ""
            hypothesis = "" if texts is None else texts.hypothesis or ""
            alignment = align(tok(reference), tok(hypothesis))
            ops = alignment.ops
            for chunk in _alignment_chunks(replace(alignment, ops=ops[:max_units]), console.width):
                console.print(render_alignment(chunk, style="rich"))
            if len(ops) > max_units:
                console.print(Text(f"… {len(ops) - max_units} more aligned units not shown"))


def _alignment_chunks(alignment: Alignment, width: int) -> list[Alignment]:
    """Consecutive runs of aligned columns whose REF/HYP lines fit `width`, so the
    terminal never wraps one of the three lines on its own and misaligns the columns."""
    from earmark.metrics.analysis import display_width, render_alignment

    chunks: list[Alignment] = []
    current: tuple[AlignedOp, ...] = ()
    for op in alignment.ops:
        trial = replace(alignment, ops=(*current, op))
        widest = max(display_width(line) for line in render_alignment(trial).splitlines())
        if current and widest > width:
            chunks.append(replace(alignment, ops=current))
            current = (op,)
        else:
            current = trial.ops
    if current:
        chunks.append(replace(alignment, ops=current))
    return chunks


def _alignment_lines(arm: ArmResult) -> list[str]:
    """A non-default word alignment named under its table (earmark's own says nothing, so
    default summaries keep their bytes)."""
    record = arm.alignment
    if not record:
        return []
    return [f"word alignment: {record.get('name')} ({record.get('applies_to')})"]
