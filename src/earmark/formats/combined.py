"""One structured file holding references and hypotheses, read row by row as it is asked.

An earmark run's `predictions.jsonl` is such a file, with rows of several arms (`arm`
field) and repeats (`repeat` field): one arm is picked, repeats become `ID#K` rows
clustered by ID, and a row's recorded `status` is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.fields import FieldNames, row_from_record, str_field
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.formats.structured import structured_records


def iter_combined(
    path: Path, fmt: str, fields: FieldNames, arm: str | None, *, check_ids: bool = True
) -> Iterator[ScoringRow]:
    """The rows of a file holding references and hypotheses, as they are read.

    With `check_ids`, each row's id is remembered with its line (an unclustered row's by
    the id string alone, a clustered one's as (id, clip)), so a repeated id is an error
    naming both lines: the only state that grows with the file. Without, the consumer
    finds repeated ids (`PairStream.recheck`).
    """
    first_line: dict[str | tuple[str, str], int] = {}
    arms_seen: set[str] = set()
    hyp_field, id_field, ref_field = fields.hypothesis, fields.id, fields.reference
    # Keys that change a row beyond its id and texts: a record naming none of them is
    # the common one, built directly (see below).
    lang_field, cluster_field, slices_field = fields.language, fields.cluster, fields.slices
    shaping = frozenset((lang_field, cluster_field, slices_field, "repeat", "status"))
    for line, record in structured_records(path, fmt):
        get = record.get
        record_arm = get("arm")
        if record_arm is not None and isinstance(record_arm, str):
            arms_seen.add(record_arm)
            if arm is not None and record_arm != arm:
                continue
        raw_hyp = get(hyp_field)
        hyp = (
            raw_hyp
            if raw_hyp is None or type(raw_hyp) is str
            else str_field(record, hyp_field, path, line, required=False)
        )
        # The common record (what `row_from_record` checks first), built here without
        # a call per row: id and reference strings, the id not blank, and none of the
        # keys that shape a row. Anything else takes the general path, to the same row.
        ident = get(id_field)
        reference = get(ref_field)
        if (
            type(ident) is str
            and type(reference) is str
            and ident.strip()
            and shaping.isdisjoint(record)
        ):
            row = ScoringRow.plain(
                ident, reference, hyp, OK if hyp is not None else MISSING_HYPOTHESIS
            )
        else:
            row = row_from_record(record, path, line, fields, hyp)
            repeat = get("repeat")
            if isinstance(repeat, int) and not isinstance(repeat, bool):
                row = replace(
                    row,
                    id=row.id if repeat == 0 else f"{row.id}#{repeat}",
                    cluster=row.cluster or row.id,
                )
            status = get("status")
            if hyp is None and isinstance(status, str) and status != OK:
                row = replace(row, status=status)
        if not check_ids:
            yield row
            continue
        key = row.id if row.cluster is None else (row.id, row.cluster)
        first = first_line.get(key)
        if first is not None:
            raise _duplicate(row.id, first, path, line, fields, len(arms_seen) > 1 and arm is None)
        first_line[key] = line
        yield row
    if arm is not None and arm not in arms_seen:
        raise EarmarkError(
            f"no row of arm {arm!r}",
            file=str(path),
            field="arm",
            hint="arms in this file: " + (", ".join(sorted(arms_seen)) or "none"),
        )


def _duplicate(
    ident: str, first: int, path: Path, line: int, fields: FieldNames, several_arms: bool
) -> EarmarkError:
    """A repeated id, naming both its lines and the likely cause."""
    return EarmarkError(
        f"duplicate utterance id {ident!r} (first on line {first})",
        file=str(path),
        line=line,
        field=fields.id,
        hint="this file holds several arms: pass --arm NAME"
        if several_arms
        else f"repeats of one clip need distinct ids and a shared '{fields.cluster}' field",
    )
