"""`predictions.csv`: the per-utterance rows of `predictions.jsonl`, for spreadsheets.

One row per utterance × repeat × arm with the texts and, in each row's primary view, the
error counts and that row's rate. The JSONL stays the record; the CSV is a view of it.

Choices made for spreadsheets rather than for programs:
- UTF-8 *with* a byte-order mark: Excel reads a CSV without one in the locale's legacy
  code page and turns 你好 or Irish fadas into mojibake; LibreOffice, Numbers, pandas
  (`encoding="utf-8-sig"`) and Python's `csv` with `utf-8-sig` all read the BOM correctly.
- RFC 4180 quoting and CRLF row ends (the `csv` module's defaults), so a transcript with
  commas, quotes or line breaks stays one cell.
- Formula-injection guard: a text cell starting with `=`, `+`, `-`, `@`, tab or carriage
  return is prefixed with `'`, so a hypothesis such as `=HYPERLINK(...)` is shown, never
  evaluated. Only text cells are guarded; the exact text is in `predictions.jsonl`.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earmark.artefacts import add_to_listing
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_bytes, lock_output_folder
from earmark.records import read_records
from earmark.rundir.layout import RESULTS

COLUMNS = (
    "id",
    "repeat",
    "arm",
    "language",
    "normalizer",
    "status",
    "reference",
    "hypothesis",
    "view",
    "metric",
    "substitutions",
    "deletions",
    "insertions",
    "errors",
    "ref_units",
    "rate",
)

#: Cell starts a spreadsheet may read as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

_BOM = "\ufeff"


def guard_cell(text: str) -> str:
    """`text`, prefixed with `'` when a spreadsheet would read it as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def write_predictions_csv(predictions: str | os.PathLike[str], *, command: str = "score") -> Path:
    """Write `predictions.csv` beside `predictions`; returns its path.

    The folder is held for one writer meanwhile, as `earmark score` and `run` hold it
    (`command` names the one to rerun in the refusal). The arm of a row without one
    (`earmark score` output) is the single arm named in the `results.json` beside it.
    """
    source = Path(predictions)
    target = source.with_suffix(".csv")
    with lock_output_folder(source.parent, command, claim=False):
        default_arm = _single_arm(source.parent / RESULTS)
        atomic_write_bytes(target, _chunks(source, default_arm))
        add_to_listing(source.parent, target)  # the folder's artefacts.sha256 names it
    return target


def _chunks(source: Path, default_arm: str) -> Iterator[bytes]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    yield (_BOM + buffer.getvalue()).encode("utf-8")
    primary: dict[str, tuple[str, str] | None] = {}
    for line, text in read_records(source):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(source), line=line) from None
        if not isinstance(row, dict):
            raise EarmarkError("expected a JSON object", file=str(source), line=line)
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(_cells(row, default_arm, primary))
        yield buffer.getvalue().encode("utf-8")


def _cells(
    row: dict[str, Any], default_arm: str, primary: dict[str, tuple[str, str] | None]
) -> list[str | int | float]:
    normalizer = str(row.get("normalizer") or "")
    if normalizer not in primary:
        primary[normalizer] = _primary(normalizer)
    view_and_metric = primary[normalizer]
    counts = None
    if view_and_metric is not None:
        view = (row.get("views") or {}).get(view_and_metric[0]) or {}
        counts = view.get(view_and_metric[1])

    def text(key: str) -> str:
        value = row.get(key)
        return "" if value is None else guard_cell(str(value))

    cells: list[str | int | float] = [
        text("id"),
        int(row.get("repeat") or 0),
        guard_cell(str(row.get("arm") or default_arm)),
        text("language"),
        text("normalizer"),
        text("status"),
        text("reference"),
        text("hypothesis"),
    ]
    if view_and_metric is None or not isinstance(counts, dict):
        return cells + [view_and_metric[0] if view_and_metric else ""] + [""] * 7
    s, d, i = (int(counts.get(k, 0)) for k in ("substitutions", "deletions", "insertions"))
    ref_units, hyp_units = int(counts.get("ref_units", 0)), int(counts.get("hyp_units", 0))
    if ref_units:
        rate: float = (s + d + i) / ref_units
    else:  # results.json's convention for an empty reference
        rate = 0.0 if hyp_units == 0 else 1.0
    return cells + [*view_and_metric, s, d, i, s + d + i, ref_units, rate]


def _primary(normalizer: str) -> tuple[str, str] | None:
    """(primary view, `wer` or `cer`) of a normaliser, or None for an unknown one."""
    from earmark.text import get_normalizer

    try:
        norm = get_normalizer(normalizer)
    except EarmarkError:
        return None
    return norm.primary_view, "wer" if norm.units[0] == "word" else "cer"


def _single_arm(results: Path) -> str:
    try:
        arms = json.loads(results.read_text("utf-8")).get("arms") or {}
    except (OSError, ValueError, AttributeError):
        return ""
    return next(iter(arms)) if len(arms) == 1 else ""
