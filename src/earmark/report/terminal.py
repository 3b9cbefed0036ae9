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
