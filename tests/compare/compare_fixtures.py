"""Builders of small predictions files and run directories for the compare tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_rows(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return str(path)


def arm_file(
    folder: Path,
    name: str,
    hyps: dict[str, str | None],
    refs: dict[str, str],
    **extra: dict[str, Any],
) -> str:
    """One predictions file: `hyps` by id; `extra[field][id]` adds per-row fields."""
    rows = []
    for ident, hyp in hyps.items():
        row: dict[str, Any] = {"id": ident, "reference": refs[ident], "hypothesis": hyp}
        for fieldname, values in extra.items():
            if ident in values:
                row[fieldname] = values[ident]
        rows.append(row)
    return write_rows(folder / f"{name}.jsonl", rows)
