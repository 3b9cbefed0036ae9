"""One chunk's rows under one normaliser, and the predictions.jsonl records built from it.

A part holds the rows' normalised texts and per-view counts while its records are written;
a streamed corpus drops it then, keeping only the counts (`groups.Group`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import repeat
from operator import attrgetter, is_, itemgetter
from typing import cast

import numpy as np

from earmark.formats.rows import ScoringRow
from earmark.results.codec import JSONValue
from earmark.scoring.metric import METRIC_FOR_UNIT, MIXED_METRIC
from earmark.scoring.row_facts import speaker_of_row
from earmark.text.base import Normalizer

#: One predictions.jsonl record as the scorer builds it (rows stay plain JSON objects:
#: a typed object per row would cost `earmark score` its speed).
RowRecord = dict[str, JSONValue]
COUNT_KEYS = ("substitutions", "deletions", "insertions", "hits", "ref_units", "hyp_units")
#: One unit's counts as orjson writes them with sorted keys, and where each of its values
#: sits in a `_count_rows` row (S, D, I, hits, ref_units, hyp_units).
_COUNTS_JSON = (
    b'{"deletions":%d,"hits":%d,"hyp_units":%d,"insertions":%d,"ref_units":%d,"substitutions":%d}'
)
_COUNTS_ORDER = (1, 3, 5, 2, 4, 0)


def _counts_dict(s: int, d: int, i: int, h: int) -> dict[str, JSONValue]:
    # Same keys and values as ErrorCounts.as_dict(), without building the object per row.
    return {
        "substitutions": s,
        "deletions": d,
        "insertions": i,
        "hits": h,
        "ref_units": s + d + h,
        "hyp_units": s + i + h,
    }


@dataclass
class Part:
    """One chunk's rows under one normaliser: texts and counts per view.

    What a row's predictions.jsonl record is built from. `score_rows` keeps every part
    (records on demand); a streamed corpus drops each once its records are written, and
    its `Group` keeps only the counts.
    """

    normalizer: Normalizer
    rows: list[ScoringRow]
    #: Each row's index in the whole input.
    index: list[int]
    counts: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    available: dict[str, np.ndarray] = field(default_factory=dict)
    #: Per position and view: why the view is unavailable ("" when it is available).
    reasons: dict[str, list[str]] = field(default_factory=dict)
    #: Per position: does the primary view's hypothesis loop (repeated n-grams)?
    repetition: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: Per view and position: the normalised (reference, hypothesis), None if unavailable.
    texts: dict[str, list[tuple[str, str] | None]] = field(default_factory=dict)
    count_rows: dict[tuple[str, str], list[list[int]]] = field(default_factory=dict)
    #: `_record_plan`'s cache (None until the first per-row record is built).
    plan: (
        list[tuple[str, list[tuple[str, str] | None], list[tuple[str, list[list[int]]]]]] | None
    ) = None
    #: The view the mixed unit is counted on (None: this normaliser has no mixed unit),
    #: its per-row counts, texts (None where unavailable) and null reasons.
    mixed_view: str | None = None
    mixed_counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    mixed_texts: list[tuple[str, str] | None] = field(default_factory=list)
    mixed_reasons: list[str] = field(default_factory=list)

    def records(self) -> Iterator[RowRecord]:
        """The part's predictions.jsonl records in row order: raw texts, status, and per
        view the normalised texts and counts. What every row reaches for (the plan of
        views and units, the lists) is bound once per part, not looked up per row."""
        plan = self._record_plan()
        name = self.normalizer.name
        reasons = self.reasons
        mixed_view = self.mixed_view
        mixed_texts = self.mixed_texts
        mixed_counts = self.mixed_counts.tolist() if mixed_view is not None else []
        for pos, r in enumerate(self.rows):
            record: RowRecord = {
                "id": r.id,
                "language": r.language,
                "slices": list(r.slices),
                "status": r.status,
                "reference": r.reference,
                "hypothesis": r.hypothesis,
            }
            if r.cluster is not None:
                record["cluster"] = r.cluster
            if r.extra:
                speaker = speaker_of_row(r)
                if speaker is not None:
                    record["speaker"] = speaker
                markup = r.extra.get("reference_markup")
                if markup is not None:  # what the counts honoured (`scoring.word_counter`)
                    record["reference_markup"] = markup
            record["normalizer"] = name
            views: dict[str, JSONValue] = {}
            for view, texts, per_unit in plan:
                pair = texts[pos]
                if pair is None:
                    views[view] = {"null_reason": reasons[view][pos]}
                    continue
                entry: dict[str, JSONValue] = {"reference": pair[0], "hypothesis": pair[1]}
                for metric, count_rows in per_unit:
                    # Six keys and six counts: zip without `strict` (checked once, in
                    # `_record_plan`), as this runs per unit per row.
                    entry[metric] = dict(zip(COUNT_KEYS, count_rows[pos], strict=False))
                if view == mixed_view:
                    mixed_pair = mixed_texts[pos]
                    if mixed_pair is not None:
                        s, d, i, h = mixed_counts[pos]
                        entry["mixed_reference"], entry["mixed_hypothesis"] = mixed_pair
                        entry[MIXED_METRIC] = _counts_dict(s, d, i, h)
                views[view] = entry
            record["views"] = views
            yield record

    def record_lines(self) -> list[bytes]:
        """The records' predictions.jsonl lines: the bytes `orjson.dumps(record,
        option=OPT_SORT_KEYS | OPT_APPEND_NEWLINE)` gives each record of `records`.

        Built as bytes, each text encoded once (a view's text that is the raw one reuses
        its bytes), without the five dicts a record costs per row. A part with a mixed
        unit takes the records themselves (tests pin both paths to the same bytes)."""
        import orjson

        batch = self._batch_lines()
        if batch is not None:
            return batch
        dumps = orjson.dumps
        views = self._line_plan()
        if views is None:
            option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
            return [dumps(record, option=option) for record in self.records()]
        name = dumps(self.normalizer.name)
        encoded: dict[str | None, bytes] = {}  # languages and statuses: a handful each
        lines = []
        for pos, r in enumerate(self.rows):
            reference, hypothesis = r.reference, r.hypothesis
            ref_json, hyp_json = dumps(reference), dumps(hypothesis)
            language = encoded.get(r.language)
            if language is None:
                language = encoded[r.language] = dumps(r.language)
            status = encoded.get(r.status)
            if status is None:
                status = encoded[r.status] = dumps(r.status)
            head = b"{" if r.cluster is None else b'{"cluster":%b,' % dumps(r.cluster)
            speaker = markup = None
            if r.extra:
                speaker = speaker_of_row(r)
                markup = r.extra.get("reference_markup")
            tail = b"" if speaker is None else b',"speaker":%b' % dumps(speaker)
            marked = b"" if markup is None else b',"reference_markup":%b' % dumps(markup)
            entries = []
            for view_key, texts, reasons, before, after in views:
                pair = texts[pos]
                if pair is None:
                    entries.append(b'%b{"null_reason":%b}' % (view_key, dumps(reasons[pos])))
                    continue
                ref, hyp = pair
                entries.append(
                    b'%b{%b"hypothesis":%b,"reference":%b%b}'
                    % (
                        view_key,
                        before[pos],
                        hyp_json if hyp is hypothesis else dumps(hyp),
                        ref_json if ref is reference else dumps(ref),
                        after[pos],
                    )
                )
            lines.append(
                b'%b"hypothesis":%b,"id":%b,"language":%b,"normalizer":%b,"reference":%b%b,'
                b'"slices":%b%b,"status":%b,"views":{%b}}\n'
                % (
                    head,
                    hyp_json,
                    dumps(r.id),
                    language,
                    name,
                    ref_json,
                    marked,
                    dumps(r.slices) if r.slices else b"[]",
                    tail,
                    status,
                    b",".join(entries),
                )
            )
        return lines

    def _batch_lines(self) -> list[bytes] | None:
        """`record_lines` for the common part, built column by column: every string
        column encoded by one `orjson.dumps` of the whole column (`json_contents`), each
        distinct count block once, and each line joined from its columns' pieces and
        the bytes all rows share, with no Python step per row. None (the row-by-row
        path) where a row has a cluster, a speaker or markup (`extra`), no hypothesis,
        or a view it cannot render, or the part has a mixed unit."""
        rows = self.rows
        if self.mixed_view is not None or not rows:
            return None
        hypotheses = list(map(_HYPOTHESIS, rows))
        if None in hypotheses or any(map(_EXTRA, rows)) or set(map(_CLUSTER, rows)) != {None}:
            return None
        metrics = sorted((METRIC_FOR_UNIT[unit], unit) for unit in self.normalizer.units)
        views = sorted(self.normalizer.views)
        if any("hypothesis" < metric < "reference" for metric, _ in metrics) or any(
            None in self.texts[view] for view in views
        ):
            return None
        references = list(map(_REFERENCE, rows))
        raw_hyp, raw_ref = json_contents(hypotheses), json_contents(references)
        line = _Line()
        line.add(b'{"hypothesis":"', raw_hyp, b'","id":"', json_contents(list(map(_ID, rows))))
        line.add(b'","language":', *_shared_or_column(list(map(_LANGUAGE, rows))))
        line.add(b',"normalizer":' + orjson_dumps(self.normalizer.name))
        line.add(b',"reference":"', raw_ref, b'","slices":')
        slices = list(map(_SLICES, rows))
        line.add([orjson_dumps(s) if s else b"[]" for s in slices] if any(slices) else b"[]")
        line.add(b',"status":', *_shared_or_column(list(map(_STATUS, rows))))
        line.add(b',"views":{')
        for k, view in enumerate(views):
            pairs = cast("list[tuple[str, str]]", self.texts[view])
            view_refs, view_hyps = list(map(_FIRST, pairs)), list(map(_SECOND, pairs))
            line.add((b"," if k else b"") + orjson_dumps(view) + b":{")
            for metric, unit in metrics:
                if metric < "hypothesis":
                    line.add(orjson_dumps(metric) + b":", *self._count_pieces(view, unit), b",")
            same_hyp = all(map(is_, view_hyps, hypotheses))
            same_ref = all(map(is_, view_refs, references))
            line.add(b'"hypothesis":"', raw_hyp if same_hyp else json_contents(view_hyps))
            line.add(b'","reference":"', raw_ref if same_ref else json_contents(view_refs), b'"')
            for metric, unit in metrics:
                if metric > "reference":
                    line.add(b"," + orjson_dumps(metric) + b":", *self._count_pieces(view, unit))
            line.add(b"}")
        line.add(b"}}\n")
        return line.join()

    def _count_pieces(self, view: str, unit: str) -> list[bytes | list[bytes]]:
        """The (view, unit) counts' pieces of each line (`count_pieces`)."""
        return count_pieces(self.counts[(view, unit)])

    def _line_plan(
        self,
    ) -> (
        list[tuple[bytes, list[tuple[str, str] | None], list[str], list[bytes], list[bytes]]] | None
    ):
        """Per view in key order: its key (`"name":`), texts and null reasons, and per row
        the counts its entry holds before `"hypothesis"` (`"cer":{...},`) and after
        `"reference"` (`,"wer":{...}`). None where a key falls between the two texts
        (the mixed unit's `mixed_er`): `record_lines` then encodes the records."""
        import orjson

        if self.mixed_view is not None:
            return None
        order = itemgetter(*_COUNTS_ORDER)
        plan = []
        for view, texts, per_unit in sorted(self._record_plan(), key=lambda p: p[0]):
            if any("hypothesis" < metric < "reference" for metric, _ in per_unit):
                return None
            sides = []
            for first in (True, False):
                side = sorted(
                    (metric, rows) for metric, rows in per_unit if (metric < "hypothesis") == first
                )
                if not side:
                    sides.append([b""] * len(self.rows))
                    continue
                # One template a side: `"cer":{...},` before the texts, `,"wer":{...}` after.
                keys = [orjson.dumps(metric) + b":" + _COUNTS_JSON for metric, _ in side]
                template = (
                    b"".join(k + b"," for k in keys) if first else b"".join(b"," + k for k in keys)
                )
                columns = [rows for _, rows in side]
                if len(columns) == 1:
                    sides.append([template % order(row) for row in columns[0]])
                else:
                    sides.append(
                        [
                            template % sum((order(row) for row in at), ())
                            for at in zip(*columns, strict=True)
                        ]
                    )
            before, after = sides
            view_key = orjson.dumps(view) + b":"
            plan.append((view_key, texts, self.reasons[view], before, after))
        return plan

    def _record_plan(
        self,
    ) -> list[tuple[str, list[tuple[str, str] | None], list[tuple[str, list[list[int]]]]]]:
        """Per view: its texts and, per unit, (metric name, per-row counts), looked up
        once per part rather than once per row by `view_records`."""
        if self.plan is None:
            plan = []
            for view in self.normalizer.views:
                per_unit = [
                    (METRIC_FOR_UNIT[unit], self._count_rows(view, unit))
                    for unit in self.normalizer.units
                ]
                for _, rows in per_unit:
                    if rows and len(rows[0]) != len(COUNT_KEYS):
                        raise AssertionError("per-row counts do not match COUNT_KEYS")
                plan.append((view, self.texts[view], per_unit))
            self.plan = plan
        return self.plan

    def _count_rows(self, view: str, unit: str) -> list[list[int]]:
        """Per row [S, D, I, hits, ref_units, hyp_units] as ints, converted once per
        (view, unit) instead of once per row."""
        key = (view, unit)
        if key not in self.count_rows:
            a = self.counts[key]
            units = [a[:, 0] + a[:, 1] + a[:, 3], a[:, 0] + a[:, 2] + a[:, 3]]
            self.count_rows[key] = np.column_stack([a, *units]).tolist()
        return self.count_rows[key]


_ID, _REFERENCE, _HYPOTHESIS = attrgetter("id"), attrgetter("reference"), attrgetter("hypothesis")
_LANGUAGE, _STATUS, _SLICES = attrgetter("language"), attrgetter("status"), attrgetter("slices")
_CLUSTER, _EXTRA = attrgetter("cluster"), attrgetter("extra")
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


#: Decimal bytes of the counts below this are looked up (`_decimals`), not formatted.
_DECIMAL_TABLE = 1 << 12
#: A counts block's bytes around its six values, in key order: `{"deletions":`, ...,
#: `,"substitutions":`, `}`.
_COUNTS_AROUND = _COUNTS_JSON.split(b"%d")


def count_pieces(counts: np.ndarray) -> list[bytes | list[bytes]]:
    """Per row of an n x 4 S/D/I/hits array, the pieces of its counts as orjson writes
    them with sorted keys (`_COUNTS_JSON`): the bytes every row shares, and a column of
    each row's decimal bytes per value, for `_Line` to join into each row's line.

    Each value is a look-up, with no block formatted per row: a corpus's character
    counts hold tens of thousands of distinct blocks, each formatted once costing more
    than the six look-ups.

    >>> _Line.of(count_pieces(np.array([[1, 0, 2, 3]]))).join()
    [b'{"deletions":0,"hits":3,"hyp_units":6,"insertions":2,"ref_units":4,"substitutions":1}']
    """
    s, d, i, h = counts[:, 0], counts[:, 1], counts[:, 2], counts[:, 3]
    pieces: list[bytes | list[bytes]] = []
    for before, values in zip(_COUNTS_AROUND, (d, h, s + i + h, i, s + d + h, s), strict=False):
        pieces += [before, _decimals(values)]
    pieces.append(_COUNTS_AROUND[-1])
    return pieces


def _decimals(values: np.ndarray) -> list[bytes]:
    """Each value's decimal bytes (as orjson writes an int), looked up where small."""
    ints = values.tolist()
    if not ints or (int(values.min()) >= 0 and int(values.max()) < _DECIMAL_TABLE):
        return list(map(_decimal_table().__getitem__, ints))
    return [b"%d" % value for value in ints]


@cache
def _decimal_table() -> list[bytes]:
    """`b"%d" % n` for every n below `_DECIMAL_TABLE`, made once per process."""
    return [b"%d" % n for n in range(_DECIMAL_TABLE)]


def orjson_dumps(value: object) -> bytes:
    """`orjson.dumps(value)`, imported when first written (not at start-up)."""
    import orjson

    return orjson.dumps(value)


def json_contents(strings: list[str]) -> list[bytes]:
    r"""Each string as orjson writes it, without its quotes, from one `orjson.dumps` of
    the whole list.

    The list is written `["a","b",...]`; inside a string orjson escapes every `"` (as
    `\"`), so a `"` right after a `,` always opens a string and `","` always sits
    between two: splitting on it gives the strings' bytes exactly.

    >>> json_contents(['say "hi"', "", 'a","b', "\\"])
    [b'say \\"hi\\"', b'', b'a\\",\\"b', b'\\\\']
    """
    if not strings:
        return []
    return orjson_dumps(strings)[2:-2].split(b'","')


def _shared_or_column(values: list[str | None]) -> tuple[bytes | list[bytes]]:
    """A field's JSON where every row has the same value, else its per-row JSON (a
    handful of distinct values, each encoded once)."""
    distinct = set(values)
    if len(distinct) == 1:
        return (orjson_dumps(values[0]),)
    encoded = {value: orjson_dumps(value) for value in distinct}
    return ([encoded[value] for value in values],)


class _Line:
    """A predictions.jsonl line template: bytes every row shares and per-row columns of
    bytes, in line order; `join` gives each row's line."""

    def __init__(self) -> None:
        self.pieces: list[bytes | list[bytes]] = []

    @classmethod
    def of(cls, pieces: Sequence[bytes | list[bytes]]) -> _Line:
        """The line of `pieces`, in order."""
        line = cls()
        line.add(*pieces)
        return line

    def add(self, *pieces: bytes | list[bytes]) -> None:
        for piece in pieces:
            last = self.pieces[-1] if self.pieces else None
            if isinstance(piece, bytes) and isinstance(last, bytes):
                self.pieces[-1] = last + piece
            else:
                self.pieces.append(piece)

    def join(self) -> list[bytes]:
        columns = [repeat(p) if isinstance(p, bytes) else p for p in self.pieces]
        # the shared bytes repeat without end: the per-row columns (all one length) stop it
        return list(map(b"".join, zip(*columns, strict=False)))


def records_in_order(parts: Sequence[Part], start: int, n: int) -> Iterator[RowRecord]:
    """The records of `parts`, which hold the rows start..start+n-1, in row order."""
    if len(parts) == 1:
        # One part holding every row (one normaliser, the common case).
        yield from parts[0].records()
        return
    # Each part's records come in row order: take the next one of the row's part.
    owner: list[Iterator[RowRecord]] = [iter(())] * n
    for part in parts:
        records = part.records()
        for at in part.index:
            owner[at - start] = records
    for records in owner:
        yield next(records)


def record_lines_in_order(parts: Sequence[Part], start: int, n: int) -> list[bytes]:
    """`records_in_order`'s records as predictions.jsonl lines (`Part.record_lines`)."""
    if len(parts) == 1:
        return parts[0].record_lines()
    lines: list[bytes] = [b""] * n
    for part in parts:
        for at, line in zip(part.index, part.record_lines(), strict=True):
            lines[at - start] = line
    return lines
