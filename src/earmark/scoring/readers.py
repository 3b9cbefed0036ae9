"""Reading saved hypotheses from any system: JSONL, CSV/TSV, Kaldi `text` pairs, earmark runs.

Every reader is strict: a bad line raises `EarmarkError` naming the file, the line and
the field, so the CLI can print one clear line. Joining hypotheses to references keeps
every reference: a reference without a hypothesis becomes a `missing_hypothesis` row
(all deletions); a hypothesis without a reference is an error unless the caller allows
excluding it, and then it is listed with reason `no_reference`.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.scoring.rows import MISSING_HYPOTHESIS, OK, ScoringRow


@dataclass(frozen=True)
class FieldNames:
    """Column/field names of a predictions file (configurable on the CLI)."""

    id: str = "id"
    reference: str = "reference"
    hypothesis: str = "hypothesis"
    language: str = "language"
    slices: str = "slices"
    cluster: str = "clip"


@dataclass
class ReadResult:
    rows: list[ScoringRow]
    excluded: list[dict[str, str]] = field(default_factory=list)
    source_files: list[str] = field(default_factory=list)


def _open_text(path: Path) -> Iterator[tuple[int, str]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise EarmarkError("file not found", file=str(path)) from None
    except IsADirectoryError:
        raise EarmarkError("is a directory, expected a file", file=str(path)) from None
    except OSError as exc:
        raise EarmarkError(f"cannot read file: {exc.strerror}", file=str(path)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise EarmarkError(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
            file=str(path),
            line=line,
            hint="re-encode the file as UTF-8",
        ) from None
    yield from enumerate(text.splitlines(), start=1)


def _str_field(
    record: dict[str, Any], name: str, path: Path, line: int, *, required: bool
) -> str | None:
    if name not in record or record[name] is None:
        if required:
            raise EarmarkError("missing field", file=str(path), line=line, field=name)
        return None
    value = record[name]
    if not isinstance(value, str):
        raise EarmarkError(
            f"expected a string, got {type(value).__name__}", file=str(path), line=line, field=name
        )
    return value


def _slices(record: dict[str, Any], name: str, path: Path, line: int) -> tuple[str, ...]:
    value = record.get(name)
    if value in (None, ""):
        return ()
    if isinstance(value, str):
        return tuple(s for s in value.replace(";", ",").split(",") if s)
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return tuple(value)
    raise EarmarkError("expected a list of strings", file=str(path), line=line, field=name)


def _records_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, text in _open_text(path):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EarmarkError(
                f"invalid JSON ({exc.msg} at column {exc.colno})", file=str(path), line=number
            ) from None
        if not isinstance(record, dict):
            raise EarmarkError("expected a JSON object per line", file=str(path), line=number)
        yield number, record


def _records_delimited(path: Path, delimiter: str) -> Iterator[tuple[int, dict[str, Any]]]:
    text = "\n".join(line for _, line in _open_text(path))
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise EarmarkError("empty file (expected a header row)", file=str(path), line=1)
        other = "\t" if delimiter == "," else ","
        if len(header) == 1 and other in header[0]:
            raise EarmarkError(
                f"the header has one column but contains {other!r}: wrong delimiter",
                file=str(path),
                line=1,
                hint="use --format tsv for tab-separated files, --format csv for commas",
            )
        for values in reader:
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                raise EarmarkError(
                    f"expected {len(header)} columns, found {len(values)}",
                    file=str(path),
                    line=reader.line_num,
                    hint=f"is the delimiter {delimiter!r} right? (--format csv|tsv)",
                )
            yield reader.line_num, dict(zip(header, values, strict=True))
    except csv.Error as exc:
        raise EarmarkError(f"malformed CSV: {exc}", file=str(path), line=reader.line_num) from None


def _detect_format(path: Path, fmt: str | None) -> str:
    if fmt:
        return fmt
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix == ".tsv":
        return "tsv"
    return "kaldi"


def _records(path: Path, fmt: str) -> Iterator[tuple[int, dict[str, Any]]]:
    if fmt == "jsonl":
        return _records_jsonl(path)
    if fmt == "csv":
        return _records_delimited(path, ",")
    if fmt == "tsv":
        return _records_delimited(path, "\t")
    raise EarmarkError(f"unknown format {fmt!r}", file=str(path), hint="jsonl, csv, tsv or kaldi")


def read_kaldi_text(path: Path) -> dict[str, tuple[int, str]]:
    """A Kaldi `text` file: `utt-id word word ...` per line -> id -> (line, text)."""
    out: dict[str, tuple[int, str]] = {}
    for number, text in _open_text(path):
        if not text.strip():
            continue
        utt, _, words = text.strip().partition(" ")
        if utt in out:
            raise EarmarkError(
                f"duplicate utterance id {utt!r} (first on line {out[utt][0]})",
                file=str(path),
                line=number,
                field="id",
            )
        out[utt] = (number, " ".join(words.split()))
    return out


def read_pairs(
    predictions: str | os.PathLike[str],
    *,
    refs: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldNames = FieldNames(),
    allow_extra_hypotheses: bool = False,
    arm: str | None = None,
) -> ReadResult:
    """Read scoring rows from a predictions file, optionally joined to a references file.

    An earmark run's `predictions.jsonl` holds rows of several arms (`arm` field) and
    repeats (`repeat` field): pass `arm` to pick one; repeats become `ID#K` rows clustered
    by ID, and a row's recorded `status` is kept.
    """
    pred_path = Path(predictions)
    pred_fmt = _detect_format(pred_path, fmt)
    if refs is None and pred_fmt == "kaldi":
        raise EarmarkError(
            "a Kaldi-style hypothesis file needs --refs (the reference `text` file)",
            file=str(pred_path),
        )
    if refs is None:
        return _read_combined(pred_path, pred_fmt, fields, arm)
    return _read_joined(pred_path, pred_fmt, Path(refs), fmt, fields, allow_extra_hypotheses)


def _row_from_record(
    record: dict[str, Any], path: Path, line: int, fields: FieldNames, hypothesis: str | None
) -> ScoringRow:
    ident = _str_field(record, fields.id, path, line, required=True)
    assert ident is not None
    if not ident.strip():
        raise EarmarkError("empty id", file=str(path), line=line, field=fields.id)
    reference = _str_field(record, fields.reference, path, line, required=True)
    assert reference is not None
    return ScoringRow(
        id=ident,
        reference=reference,
        hypothesis=hypothesis,
        language=_str_field(record, fields.language, path, line, required=False) or None,
        slices=_slices(record, fields.slices, path, line),
        status=OK if hypothesis is not None else MISSING_HYPOTHESIS,
        cluster=_str_field(record, fields.cluster, path, line, required=False) or None,
    )


def _read_combined(path: Path, fmt: str, fields: FieldNames, arm: str | None) -> ReadResult:
    rows: list[ScoringRow] = []
    first_line: dict[tuple[str, str | None], int] = {}
    arms_seen: set[str] = set()
    for line, record in _records(path, fmt):
        record_arm = record.get("arm")
        if isinstance(record_arm, str):
            arms_seen.add(record_arm)
            if arm is not None and record_arm != arm:
                continue
        hyp = _str_field(record, fields.hypothesis, path, line, required=False)
        row = _row_from_record(record, path, line, fields, hyp)
        repeat = record.get("repeat")
        if isinstance(repeat, int) and not isinstance(repeat, bool):
            row = replace(
                row,
                id=row.id if repeat == 0 else f"{row.id}#{repeat}",
                cluster=row.cluster or row.id,
            )
        status = record.get("status")
        if hyp is None and isinstance(status, str) and status != OK:
            row = replace(row, status=status)
        key = (row.id, row.cluster)
        if key in first_line:
            several = len(arms_seen) > 1 and arm is None
            raise EarmarkError(
                f"duplicate utterance id {row.id!r} (first on line {first_line[key]})",
                file=str(path),
                line=line,
                field=fields.id,
                hint="this file holds several arms: pass --arm NAME"
                if several
                else f"repeats of one clip need distinct ids and a shared '{fields.cluster}' field",
            )
        first_line[key] = line
        rows.append(row)
    if arm is not None and arm not in arms_seen:
        raise EarmarkError(
            f"no row of arm {arm!r}",
            file=str(path),
            field="arm",
            hint="arms in this file: " + (", ".join(sorted(arms_seen)) or "none"),
        )
    return ReadResult(rows=rows, source_files=[str(path)])


def _read_joined(
    pred_path: Path,
    pred_fmt: str,
    ref_path: Path,
    fmt: str | None,
    fields: FieldNames,
    allow_extra: bool,
) -> ReadResult:
    ref_fmt = _detect_format(ref_path, fmt if fmt != "kaldi" else None)
    references: dict[str, tuple[int, dict[str, Any]]] = {}
    if ref_fmt == "kaldi":
        for utt, (line, text) in read_kaldi_text(ref_path).items():
            references[utt] = (line, {fields.id: utt, fields.reference: text})
    else:
        for line, record in _records(ref_path, ref_fmt):
            ident = _str_field(record, fields.id, ref_path, line, required=True)
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

    hypotheses: dict[str, str] = {}
    hyp_lines: dict[str, int] = {}
    if pred_fmt == "kaldi":
        for utt, (line, text) in read_kaldi_text(pred_path).items():
            hypotheses[utt] = text
            hyp_lines[utt] = line
    else:
        for line, record in _records(pred_path, pred_fmt):
            ident = _str_field(record, fields.id, pred_path, line, required=True)
            assert ident is not None
            if ident in hypotheses:
                raise EarmarkError(
                    f"duplicate utterance id {ident!r} (first on line {hyp_lines[ident]})",
                    file=str(pred_path),
                    line=line,
                    field=fields.id,
                )
            hyp = _str_field(record, fields.hypothesis, pred_path, line, required=True)
            assert hyp is not None
            hypotheses[ident] = hyp
            hyp_lines[ident] = line

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
        _row_from_record(record, ref_path, line, fields, hypotheses.get(ident))
        for ident, (line, record) in references.items()
    ]
    return ReadResult(rows=rows, excluded=excluded, source_files=[str(pred_path), str(ref_path)])
