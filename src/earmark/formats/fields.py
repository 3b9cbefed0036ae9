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


#: Names other tools give each field, most common first, for the suggested mapping in a
#: missing-field error (NeMo: audio_filepath/text/pred_text; Common Voice: path/sentence/locale).
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("utt_id", "utterance_id", "uttid", "key", "audio_filepath", "audio", "path", "file"),
    "reference": ("text", "ref", "ref_text", "transcript", "transcription", "sentence", "label"),
    "hypothesis": ("pred_text", "hyp", "hyp_text", "prediction", "pred", "predicted_text"),
    "language": ("lang", "locale", "language_code", "lang_id"),
}
#: How many of a record's columns a missing-field error lists, and how long each may be.
_LISTED_COLUMNS = 12
_COLUMN_CHARS = 40


def str_field(
    record: Record,
    name: str,
    path: Path,
    line: int,
    *,
    required: bool,
    fields: FieldNames | None = None,
) -> str | None:
    """The string in `record[name]`; None when absent or null, unless `required` (then the
    error names the columns found and the mapping, `fields` being the names configured)."""
    if name not in record or record[name] is None:
        if required:
            raise missing_field(record, name, path, line, fields)
        return None
    value = record[name]
    if not isinstance(value, str):
        raise EarmarkError(
            f"expected a string, got {type(value).__name__}", file=str(path), line=line, field=name
        )
    return value


def missing_field(
    record: Record, name: str, path: Path, line: int, fields: FieldNames | None = None
) -> EarmarkError:
    """A required field absent: the columns the record does have, and the flags that map them.

    A file from another tool names its columns otherwise (NeMo's `audio_filepath`, `text`,
    `pred_text`); the error says what was found and, where the names are recognisable,
    the mapping to type. A field present but null keeps the short message."""
    if name in record:
        return EarmarkError("missing field", file=str(path), line=line, field=name)
    return EarmarkError(
        f"missing field; columns found: {column_list(list(record))}",
        file=str(path),
        line=line,
        field=name,
        hint=mapping_hint(record, fields or DEFAULT_FIELDS),
    )


def column_list(names: list[str]) -> str:
    """Column names for one error line: printable, each cut short, at most a dozen."""
    if not names:
        return "none"
    shown = [_shown_name(n) for n in names[:_LISTED_COLUMNS]]
    more = len(names) - _LISTED_COLUMNS
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _shown_name(name: str) -> str:
    text = name if name and name.isprintable() and name.strip() == name else repr(name)
    return text if len(text) <= _COLUMN_CHARS else text[: _COLUMN_CHARS - 1] + "…"


#: Each field's role, the attribute of `FieldNames` naming it, and the flag that sets it.
_MAPPING_FLAGS = (
    ("id", "--id-field"),
    ("reference", "--reference-field"),
    ("hypothesis", "--hypothesis-field"),
    ("language", "--language-field"),
)


def mapping_hint(record: Record, fields: FieldNames) -> str:
    """The flags that name the fields, with a mapping suggested from recognisable names for
    each field whose configured name the record lacks."""
    flags = "name them with " + ", ".join(flag for _, flag in _MAPPING_FLAGS)
    taken = {getattr(fields, role) for role, _ in _MAPPING_FLAGS}
    suggested: list[str] = []
    for role, flag in _MAPPING_FLAGS:
        if getattr(fields, role) in record:
            continue
        alias = next((a for a in FIELD_ALIASES[role] if a in record and a not in taken), None)
        if alias is not None:
            taken.add(alias)
            suggested.append(f"{flag} {alias}")
    return f"{flags}; here perhaps {' '.join(suggested)}" if suggested else flags


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
    ident = str_field(record, fields.id, path, line, required=True, fields=fields)
    assert ident is not None
    if not ident.strip():
        raise EarmarkError("empty id", file=str(path), line=line, field=fields.id)
    reference = str_field(record, fields.reference, path, line, required=True, fields=fields)
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
