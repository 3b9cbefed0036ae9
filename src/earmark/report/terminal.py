"""The short summary table printed to the terminal (rich), built from results.json."""

from __future__ import annotations

from typing import Any

from earmark.report.markdown import block_rows


def print_summary(results: dict[str, Any], title: str = "earmark") -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for name, arm in results["arms"].items():
        table = Table(title=f"{title}: {name} ({arm['aggregate']} rates, 95% clip-bootstrap CI)")
        for col in ("scope", "normaliser / view", "N", "WER", "CER", "S/D/I of N_ref"):
            table.add_column(col, overflow="fold")
        rows = []
        if arm.get("overall"):
            rows += block_rows("overall", arm["overall"])
        for lang, block in arm["by_language"].items():
            rows += block_rows(lang, block)
        for row in rows:
            table.add_row(*row)
        console.print(table)
        cov = arm["coverage"]
        if cov["not_ok"]:
            console.print(
                f"{len(cov['not_ok'])} row(s) without a usable hypothesis, scored as deletions: "
                + ", ".join(f"{r['id']} ({r['status']})" for r in cov["not_ok"][:10])
            )
        if arm.get("overall") is None and arm.get("overall_null_reason"):
            console.print(f"overall: null — {arm['overall_null_reason']}")
        if arm.get("deterministic") is False:
            console.print(
                f"deterministic: false — {arm.get('determinism_note')}: a rerun can give other "
                "hypotheses, and churn against this arm includes sampling noise."
            )


def print_worst_alignments(
    results: dict[str, Any], predictions: Any, per_language: int = 3
) -> None:
    """The worst utterances of each language, aligned and coloured (rich) in the terminal."""
    import json

    from rich.console import Console

    from earmark.metrics.alignment import align
    from earmark.metrics.analysis import render_alignment
    from earmark.metrics.tokens import chars, words

    wanted: dict[str, tuple[str, str]] = {}
    for arm in results["arms"].values():
        for section in (arm.get("error_analysis") or {}).values():
            for worst in section["worst_utterances"][:per_language]:
                wanted[worst["id"]] = (section["view"], section["unit"])
    if not wanted:
        return
    console = Console()
    with open(predictions, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["id"] not in wanted:
                continue
            view, unit = wanted[row["id"]]
            texts = row["views"][view]
            tok = words if unit == "word" else chars
            console.print(f"[bold]{row['id']}[/bold] ({row.get('language')}, {view})")
            rendered = render_alignment(
                align(tok(texts["reference"]), tok(texts["hypothesis"])), style="rich"
            )
            console.print(rendered)
