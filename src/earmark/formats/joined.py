"""A hypotheses file joined to a references file by utterance id (Kaldi `text` or
structured, in any mix).

Joining keeps every reference: a reference without a hypothesis becomes a
`missing_hypothesis` row (all deletions); a hypothesis without a reference is an error
unless the caller allows excluding it, and then it is listed with reason `no_reference`.
"""

from __future__ import annotations

from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.fields import FieldNames, Record, row_from_record, str_field
from earmark.formats.kaldi import read_kaldi_text
from earmark.formats.rows import ReadResult
from earmark.formats.structured import structured_records


def _references(ref_path: Path, ref_fmt: str, fields: FieldNames) -> dict[str, tuple[int, Record]]:
    """id -> (line, record) of every reference, in file order; a repeated id is an error."""
    references: dict[str, tuple[int, Record]] = {}
    if ref_fmt == "kaldi":
        for utt, (line, text) in read_kaldi_text(ref_path).items():
            references[utt] = (line, {fields.id: utt, fields.reference: text})
        return references
    for line, record in structured_records(ref_path, ref_fmt):
        ident = str_field(record, fields.id, ref_path, line, required=True)
        assert ident is not None
        if ident in references:
            raise EarmarkError(
                f"duplicate utterance id {ident!r} (first on line {references[ident][0]})",
                file=str(ref_path),
                line=line,
                field=fields.id,
            )
        if fields.reference not in record and "text" in record:
            record = {**record, fields.reference: record["text"]}
        references[ident] = (line, record)
    return references


def _hypotheses(
    pred_path: Path, pred_fmt: str, fields: FieldNames
) -> tuple[dict[str, str], dict[str, int]]:
    """(id -> hypothesis, id -> line) of every hypothesis; a repeated id is an error."""
    hypotheses: dict[str, str] = {}
    hyp_lines: dict[str, int] = {}
    if pred_fmt == "kaldi":
        for utt, (line, text) in read_kaldi_text(pred_path).items():
            hypotheses[utt] = text
            hyp_lines[utt] = line
        return hypotheses, hyp_lines
    for line, record in structured_records(pred_path, pred_fmt):
        ident = str_field(record, fields.id, pred_path, line, required=True)
        assert ident is not None
        if ident in hypotheses:
            raise EarmarkError(
                f"duplicate utterance id {ident!r} (first on line {hyp_lines[ident]})",
                file=str(pred_path),
                line=line,
                field=fields.id,
            )
        hyp = str_field(record, fields.hypothesis, pred_path, line, required=True)
        assert hyp is not None
        hypotheses[ident] = hyp
        hyp_lines[ident] = line
    return hypotheses, hyp_lines


def read_joined(
    pred_path: Path,
    pred_fmt: str,
    ref_path: Path,
    ref_fmt: str,
    fields: FieldNames,
    allow_extra: bool,
) -> ReadResult:
    """Every reference as a row, with its hypothesis (or missing); see the module docstring."""
    references = _references(ref_path, ref_fmt, fields)
    hypotheses, hyp_lines = _hypotheses(pred_path, pred_fmt, fields)
    excluded: list[dict[str, str]] = []
    for ident in hypotheses:
        if ident not in references:
            if not allow_extra:
                raise EarmarkError(
                    f"hypothesis for id {ident!r} has no reference",
                    file=str(pred_path),
                    line=hyp_lines[ident],
                    field=fields.id,
                    hint="fix the ids, or pass --exclude-unmatched to list and skip them",
                )
            excluded.append({"id": ident, "reason": "no_reference"})
    rows = [
        row_from_record(record, ref_path, line, fields, hypotheses.get(ident))
        for ident, (line, record) in references.items()
    ]
    return ReadResult(
        rows=rows,
        excluded=excluded,
        source_files=[str(pred_path), str(ref_path)],
        formats=[pred_fmt, ref_fmt],
    )
