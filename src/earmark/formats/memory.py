"""Prediction rows handed over in memory (`earmark.score_rows`), checked as a file's rows are.

A Python caller gives either parallel lists (`references`, `hypotheses`, optional `ids`
and `languages`) or one mapping per row (`id`, `reference`, `hypothesis`, `language`,
as a JSONL line names them). What a file reader refuses is refused here too, with the
row's index instead of a line number: a value that is not a string, text that is not
Unicode (a lone surrogate), a repeated or blank id, a row larger than a record may be.
A NUL character is refused as well: in a Python string it is almost always bytes
decoded by mistake, and it would reach the written files unseen.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from earmark.errors import EarmarkError
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.formats.stream import PairStream
from earmark.records import MAX_RECORD_BYTES_ENV, max_record_bytes

#: results.json's `inputs.format` for rows given in memory.
MEMORY_FORMAT = "memory"
#: The keys of a row given as a mapping (those a JSONL line of `earmark score` names).
ROW_KEYS = ("id", "reference", "hypothesis", "language")


@dataclass(frozen=True)
class MemoryRows:
    """Rows given in memory, as parallel lists or as mappings (exactly one of the two).

    `hypotheses[i]` (or a mapping's `hypothesis`) may be None: a missing hypothesis,
    scored as all deletions and listed, as a JSONL `null` is. `ids` default to "1", "2",
    ...; `languages` is one tag for every row or one per row (None: the row names none).
    """

    rows: Sequence[Mapping[str, object]] | None = None
    references: Sequence[str] | str | None = None
    hypotheses: Sequence[str | None] | str | None = None
    ids: Sequence[str] | None = None
    languages: Sequence[str | None] | str | None = None

    def scoring_rows(self) -> list[ScoringRow]:
        """The checked rows, in order; the first problem raises, naming the row's index."""
        if self.rows is not None:
            if any(x is not None for x in (self.references, self.hypotheses, self.ids)):
                raise EarmarkError(
                    "give rows, or references and hypotheses, not both",
                    field="rows",
                    hint="a row mapping holds its own id, reference and hypothesis",
                )
            return _checked(_from_mappings(self.rows, self.languages))
        if self.references is None or self.hypotheses is None:
            raise EarmarkError(
                "no rows to score",
                field="references" if self.references is None else "hypotheses",
                hint="give references and hypotheses (lists of strings), or rows",
            )
        return _checked(_from_lists(self))

    def stream(self) -> PairStream:
        """The rows as the scorer reads a file's (already checked, so no recheck)."""
        rows = self.scoring_rows()

        def reread() -> Iterator[ScoringRow]:
            return iter(rows)

        return PairStream(rows=iter(rows), formats=[MEMORY_FORMAT], _reread=reread)


def _sequence(value: object, name: str) -> list[object]:
    """A list from a sequence that is not text (a string is one row, as in `earmark.score`)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes | bytearray | Mapping) or not isinstance(value, Sequence):
        raise EarmarkError(
            f"{name} must be a list, not {type(value).__name__}",
            field=name,
            hint="one entry per row, in the same order",
        )
    return list(value)


def _same_length(values: list[object], name: str, n: int) -> None:
    if len(values) != n:
        raise EarmarkError(
            f"{n} reference(s) but {len(values)} {name}",
            field=name,
            hint="give one entry per reference, in the same order",
        )


def _from_lists(given: MemoryRows) -> Iterator[tuple[str, dict[str, object]]]:
    """(where, fields) of each row of parallel lists; `where` names its index."""
    refs = _sequence(given.references, "references")
    hyps = _sequence(given.hypotheses, "hypotheses")
    _same_length(hyps, "hypotheses", len(refs))
    ids: list[object] = [str(i) for i in range(1, len(refs) + 1)]
    if given.ids is not None:
        ids = _sequence(given.ids, "ids")
        _same_length(ids, "ids", len(refs))
    languages = _languages(given.languages, len(refs))
    for i, (ident, ref, hyp, lang) in enumerate(zip(ids, refs, hyps, languages, strict=True)):
        yield f"[{i}]", {"id": ident, "reference": ref, "hypothesis": hyp, "language": lang}


def _languages(value: Sequence[str | None] | str | None, n: int) -> list[object]:
    if value is None or isinstance(value, str):
        return [value] * n
    languages = _sequence(value, "languages")
    _same_length(languages, "languages", n)
    return languages


def _from_mappings(
    rows: Sequence[Mapping[str, object]], languages: Sequence[str | None] | str | None
) -> Iterator[tuple[str, dict[str, object]]]:
    """(where, fields) of each row mapping; `languages` fills a row naming none."""
    given = _sequence(rows, "rows")
    fill = _languages(languages, len(given))
    for i, row in enumerate(given):
        if not isinstance(row, Mapping):
            raise EarmarkError(
                f"a row must be a mapping, not {type(row).__name__}",
                field=f"rows[{i}]",
                hint="{'id': ..., 'reference': ..., 'hypothesis': ..., 'language': ...}",
            )
        fields = {key: row.get(key) for key in ROW_KEYS}
        if "id" not in row:
            fields["id"] = str(i + 1)
        if "reference" not in row:
            raise EarmarkError("missing field", field=f"rows[{i}].reference")
        if "hypothesis" not in row:
            raise EarmarkError(
                "missing field",
                field=f"rows[{i}].hypothesis",
                hint="None marks a missing hypothesis (scored as all deletions)",
            )
        if fields["language"] is None:
            fields["language"] = fill[i]
        yield f"rows[{i}]", fields


def _checked(rows: Iterator[tuple[str, dict[str, object]]]) -> list[ScoringRow]:
    """ScoringRows of checked fields; repeated ids name both rows' indexes."""
    limit = max_record_bytes()
    first: dict[str, str] = {}
    out = []
    for where, fields in rows:
        texts = {key: _text(fields[key], key, where) for key in ROW_KEYS}
        ident, reference = texts["id"], texts["reference"]
        if ident is None or not ident.strip():
            raise EarmarkError("empty id", field=_name("id", where))
        if reference is None:
            raise EarmarkError(
                "a reference must be a string, not None",
                field=_name("reference", where),
                hint="an empty reference is ''",
            )
        size = sum(len(t.encode("utf-8")) for t in texts.values() if t is not None)
        if size > limit:
            raise EarmarkError(
                f"{size} bytes of text, over the {limit} a record may hold",
                field=_name("hypothesis", where),
                hint=f"set {MAX_RECORD_BYTES_ENV} to raise the bound",
            )
        seen = first.get(ident)
        if seen is not None:
            raise EarmarkError(
                f"duplicate utterance id {ident!r} (first at {seen})",
                field=_name("id", where),
                hint="each row needs its own id",
            )
        first[ident] = _name("id", where)
        hypothesis = texts["hypothesis"]
        out.append(
            ScoringRow(
                id=ident,
                reference=reference,
                hypothesis=hypothesis,
                language=texts["language"] or None,
                status=OK if hypothesis is not None else MISSING_HYPOTHESIS,
            )
        )
    if not out:
        raise EarmarkError("no rows to score", field="references", hint="give at least one row")
    return out


def _name(key: str, where: str) -> str:
    """How an error names a field: `ids[3]` for a list, `rows[3].id` for a mapping."""
    if where.startswith("rows"):
        return f"{where}.{key}"
    plural = {"id": "ids", "reference": "references", "hypothesis": "hypotheses"}
    return f"{plural.get(key, 'languages')}{where}"


def _text(value: object, key: str, where: str) -> str | None:
    """The string `value` (None stays None); a non-string, a lone surrogate or a NUL
    raises, naming the field and the row."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise EarmarkError(
            f"expected a string, got {type(value).__name__}",
            field=_name(key, where),
            hint="decode bytes first; None marks a missing hypothesis",
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise EarmarkError(
            "text that is not Unicode (a lone surrogate such as \\ud800)",
            field=_name(key, where),
            hint="decode the text with errors='replace', or fix its source",
        ) from None
    if "\x00" in value:
        raise EarmarkError(
            "text holding a NUL character (U+0000)",
            field=_name(key, where),
            hint="bytes decoded as text? remove the NUL characters",
        )
    return value
