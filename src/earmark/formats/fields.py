"""The named fields of a structured record (a JSON line, a CSV/TSV row), read strictly.

JSONL, CSV and TSV records (`formats.structured`) and the rows joined from them
(`formats.combined`, `formats.joined`) name their fields the same way; a field of the
wrong type raises `EarmarkError` naming the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.results.codec import JSONValue

#: One record of a structured file: a JSON object, or a CSV/TSV row (all strings).
Record = Mapping[str, JSONValue]


@dataclass(frozen=True)
class FieldNames:
    """Column/field names of a predictions file (configurable on the CLI)."""

    id: str = "id"
    reference: str = "reference"
    hypothesis: str = "hypothesis"
    language: str = "language"
    slices: str = "slices"
    cluster: str = "clip"


#: The default names, one shared instance (a default argument is built once anyway).
DEFAULT_FIELDS = FieldNames()


def str_field(record: Record, name: str, path: Path, line: int, *, required: bool) -> str | None:
    """The string in `record[name]`; None when absent or null, unless `required`."""
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


def slices_field(record: Record, name: str, path: Path, line: int) -> tuple[str, ...]:
    """A list of strings, or one string cut at `,` or `;` (what a CSV cell can hold)."""
    value = record.get(name)
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return tuple(s for s in value.replace(";", ",").split(",") if s)
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return tuple(s for s in value if isinstance(s, str))
    raise EarmarkError("expected a list of strings", file=str(path), line=line, field=name)


def row_from_record(
    record: Record, path: Path, line: int, fields: FieldNames, hypothesis: str | None
) -> ScoringRow:
    """The scoring row a reference record gives, with `hypothesis` (None: missing)."""
    # The common record first: id and reference strings (the id not blank), language and
    # cluster strings or absent, checked with four dict look-ups instead of five
    # `str_field` calls. Any other shape takes the checked path below, which gives the
    # same row or the error at its line.
    get = record.get
    ident = get(fields.id)
    reference = get(fields.reference)
    language = get(fields.language)
    cluster = get(fields.cluster)
    if (
        type(ident) is str
        and type(reference) is str
        and (language is None or type(language) is str)
        and (cluster is None or type(cluster) is str)
        and ident.strip()
    ):
        return ScoringRow(
            id=ident,
            reference=reference,
            hypothesis=hypothesis,
            language=language or None,
            slices=slices_field(record, fields.slices, path, line)
            if fields.slices in record
            else (),
            status=OK if hypothesis is not None else MISSING_HYPOTHESIS,
            cluster=cluster or None,
        )
    ident = str_field(record, fields.id, path, line, required=True)
    assert ident is not None
    if not ident.strip():
        raise EarmarkError("empty id", file=str(path), line=line, field=fields.id)
    reference = str_field(record, fields.reference, path, line, required=True)
    assert reference is not None
    return ScoringRow(
        id=ident,
        reference=reference,
        hypothesis=hypothesis,
        language=str_field(record, fields.language, path, line, required=False) or None,
        slices=slices_field(record, fields.slices, path, line),
        status=OK if hypothesis is not None else MISSING_HYPOTHESIS,
        cluster=str_field(record, fields.cluster, path, line, required=False) or None,
    )
