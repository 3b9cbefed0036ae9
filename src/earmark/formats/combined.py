"""One structured file holding references and hypotheses, read row by row as it is asked.

An earmark run's `predictions.jsonl` is such a file, with rows of several arms (`arm`
field) and repeats (`repeat` field): one arm is picked, repeats become `ID#K` rows
clustered by ID, and a row's recorded `status` is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import repeat
from pathlib import Path
from typing import cast

from earmark.errors import EarmarkError
from earmark.formats.fields import FieldNames, Record, row_from_record, str_field
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.formats.structured import structured_blocks
from earmark.results.codec import JSONValue


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
    # Keys that change a row beyond its id and texts: a block of records naming none of
    # them (the common file) is built in one batch (`_plain_rows`).
    shaping = frozenset((fields.language, fields.cluster, fields.slices, "repeat", "status"))
    for start, records in structured_blocks(path, fmt):
        plain = _plain_rows(records, fields, shaping)
        if plain is not None and not check_ids:
            yield from plain
            continue
        numbered = (
            _record_rows(records, start, path, fields, arm, arms_seen, shaping)
            if plain is None
            else enumerate(plain, start=start)
        )
        for line, row in numbered:
            if not check_ids:
                yield row
                continue
            key = row.id if row.cluster is None else (row.id, row.cluster)
            first = first_line.get(key)
            if first is not None:
                several = len(arms_seen) > 1 and arm is None
                raise _duplicate(row.id, first, path, line, fields, several)
            first_line[key] = line
            yield row
    if arm is not None and arm not in arms_seen:
        raise EarmarkError(
            f"no row of arm {arm!r}",
            file=str(path),
            field="arm",
            hint="arms in this file: " + (", ".join(sorted(arms_seen)) or "none"),
        )


_NONE_TYPE = type(None)


def _plain_rows(
    records: Sequence[Record], fields: FieldNames, shaping: frozenset[str]
) -> list[ScoringRow] | None:
    """The rows of a block whose every record is the common one (what `_record_rows`
    builds without `row_from_record`: id and reference strings, the id not blank, the
    hypothesis a string or absent, no key that shapes a row, no `arm`), built with a
    few C-level passes over the block instead of a dozen steps per record; else None."""
    if len(records) < 2:
        return None
    keys: set[str] = set().union(*records)
    if "arm" in keys or not shaping.isdisjoint(keys):
        return None
    get = cast("Callable[[Record, str], JSONValue]", dict.get)
    ids = list(map(get, records, repeat(fields.id)))
    references = list(map(get, records, repeat(fields.reference)))
    hypotheses = list(map(get, records, repeat(fields.hypothesis)))
    hyp_types = set(map(type, hypotheses))
    if (
        set(map(type, ids)) != {str}
        or set(map(type, references)) != {str}
        or not hyp_types <= {str, _NONE_TYPE}
        or not all(map(str.strip, cast("list[str]", ids)))
    ):
        return None
    statuses = (
        repeat(OK)
        if _NONE_TYPE not in hyp_types
        else [OK if hyp is not None else MISSING_HYPOTHESIS for hyp in hypotheses]
    )
    plain = cast("Callable[[JSONValue, JSONValue, JSONValue, str], ScoringRow]", ScoringRow.plain)
    return list(map(plain, ids, references, hypotheses, statuses))


def _record_rows(
    records: Sequence[Record],
    start: int,
    path: Path,
    fields: FieldNames,
    arm: str | None,
    arms_seen: set[str],
    shaping: frozenset[str],
) -> Iterator[tuple[int, ScoringRow]]:
    """(line, row) per record of a block, record by record (rows of another arm left
    out, the arms seen noted in `arms_seen`)."""
    hyp_field, id_field, ref_field = fields.hypothesis, fields.id, fields.reference
    for line, record in enumerate(records, start=start):
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
            repeat_ = get("repeat")
            if isinstance(repeat_, int) and not isinstance(repeat_, bool):
                row = replace(
                    row,
                    id=row.id if repeat_ == 0 else f"{row.id}#{repeat_}",
                    cluster=row.cluster or row.id,
                )
            status = get("status")
            if hyp is None and isinstance(status, str) and status != OK:
                row = replace(row, status=status)
        yield line, row


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
