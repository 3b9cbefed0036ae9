"""Plain sentence files (`--format lines`, jiwer's CLI input): line *i* of the hypotheses
pairs with line *i* of the references, as utterance `line-<i>`."""

from __future__ import annotations

from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.rows import OK, ReadResult, ScoringRow
from earmark.records import read_records


def read_lines_text(path: Path) -> list[str]:
    """One sentence per line (jiwer's CLI input): every line is a record, blank ones too.

    A blank line is an empty sentence (as a hypothesis: all deletions), so line *i* of
    one file always pairs with line *i* of the other; only a file's final newline does
    not start another line.
    """
    lines = [text for _, text in read_records(path)]
    if not lines:
        raise EarmarkError("no records (the file is empty)", file=str(path))
    return lines


def read_lines_pair(pred_path: Path, ref_path: Path) -> ReadResult:
    """jiwer-style files: line *i* of each is utterance `line-<i>` (1-based, as editors count)."""
    hyps, refs = read_lines_text(pred_path), read_lines_text(ref_path)
    if len(hyps) != len(refs):
        raise EarmarkError(
            f"--format lines pairs the files line by line, but {pred_path} has "
            f"{len(hyps)} lines and {ref_path} has {len(refs)}",
            hint="each file needs one line per utterance (a blank line is an empty sentence)",
        )
    rows = [
        ScoringRow(id=f"line-{i}", reference=ref, hypothesis=hyp, status=OK)
        for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True), start=1)
    ]
    return ReadResult(
        rows=rows, source_files=[str(pred_path), str(ref_path)], formats=["lines", "lines"]
    )
