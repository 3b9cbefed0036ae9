"""Arms to compare, read from the command line's arm specs: a run directory, one arm of a
multi-arm run, or a predictions file.

An arm spec is one of

- `RUN_DIR` — every arm of an `earmark run` directory, or the one arm of an `earmark
  score` output directory (its `predictions.jsonl` is read);
- `RUN_DIR#ARM` — one arm of a multi-arm run (`#`, not `:`, so Windows drive letters and
  URLs stay unambiguous; a path that exists with a `#` in its name is taken whole);
- `FILE` — a predictions file: JSONL rows with `id`, `reference`, `hypothesis` (null when
  missing) and optionally `arm`, `repeat`, `language`, `slices`, `status`,
  `audio_seconds`, `language_mismatch`, `clip`/`cluster`; CSV/TSV go through
  `earmark.formats.pairs`;
- `NAME=SPEC` — any of the above under another arm name (two score directories would
  otherwise both be called by their folder name).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import chain, islice
from pathlib import Path
from typing import cast

from earmark.collector import collector_paused
from earmark.comparison.loading import ArmData, ArmTransfer, SharedValues
from earmark.errors import EarmarkError
from earmark.records import (
    decode_records,
    json_objects,
    max_record_bytes,
    read_records,
    require_regular_file,
)
from earmark.results.codec import JSONObject, JSONValue
from earmark.rundir.layout import PREDICTIONS, RESULTS

_LABEL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._+-]*)=(.+)$")
_JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


def _split_spec(spec: str) -> tuple[str | None, Path, str | None]:
    """(label, path, arm) from `[NAME=]PATH[#ARM]`."""
    label = None
    match = _LABEL.match(spec)
    if match and not Path(spec).exists():
        label, spec = match.group(1), match.group(2)
    if Path(spec).exists() or "#" not in spec:
        return label, Path(spec), None
    path, _, arm = spec.rpartition("#")
    return label, Path(path), arm or None


def _rows_from_delimited(path: Path) -> list[tuple[int, dict[str, JSONValue]]]:
    from earmark.formats.pairs import read_pairs

    read = read_pairs(path)
    return [
        (
            number,
            {
                "id": r.id,
                "reference": r.reference,
                "hypothesis": r.hypothesis,
                "language": r.language,
                "slices": list(r.slices),
                "status": r.status,
                "clip": r.cluster,
            },
        )
        for number, r in enumerate(read.rows, start=2)
    ]


def _columns(
    rows: list[tuple[int, dict[str, JSONValue]]],
) -> tuple[list[int], list[JSONObject]]:
    """Rows as the (line numbers, objects) block the JSONL reader gives."""
    return [line for line, _ in rows], [record for _, record in rows]


def _recorded_arms(folder: Path) -> dict[str, JSONObject]:
    """The arm summaries of the folder's results.json (what compare reads of each arm's
    run: its determinism); none when there is no readable results.json."""
    path = folder / RESULTS
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    arms = data.get("arms") if isinstance(data, dict) else None
    if not isinstance(arms, dict):
        return {}
    return {name: arm for name, arm in arms.items() if isinstance(arm, dict)}


def load_arms(spec: str, shared: SharedValues | None = None) -> list[ArmData]:
    """Every arm a spec names (one, or all arms of a run directory); equal values are
    shared with the other arms read with the same `shared`."""
    label, path, wanted = _split_spec(spec)
    recorded: dict[str, JSONObject] = {}
    if path.is_dir():
        recorded = _recorded_arms(path)
        file = path / PREDICTIONS
        if not file.is_file():
            raise EarmarkError(
                f"no {PREDICTIONS} in this directory",
                file=str(path),
                hint="give an `earmark run` or `earmark score` output directory, or a file",
            )
        default_name = next(iter(recorded)) if len(recorded) == 1 else path.name
    elif path.is_file():
        file = path
        default_name = path.stem
    else:
        raise EarmarkError("no such file or directory", file=str(path))
    with collector_paused():
        return _arms_in_file(
            file, label, spec, wanted, (default_name, recorded), shared or SharedValues()
        )


#: Value types orjson and `json` read alike (a float: the same correctly rounded double).
_SAME_TYPES = frozenset((str, int, bool, type(None), float))
_SAME_OR_LIST = _SAME_TYPES | {list}
_STR = frozenset((str,))


def _jsonl_rows(file: Path) -> Iterator[tuple[list[int], list[JSONObject]]]:
    """`json_objects(read_records(file))` as blocks of (line numbers, objects): the same
    rows and errors, fewer steps per row.

    A block of lines all of which orjson parses into objects whose values are strings,
    integers, booleans, nulls, floats or lists of strings (`repeat` no float) is taken as
    orjson read it, in one pass: where orjson and `json` differ (an integer beyond 64
    bits becomes a float in orjson) compare reads the value as a float or not at all,
    except `repeat`. Any other block goes line by line as `_careful_rows` reads a line
    (blank lines, a BOM, over-long lines, bad UTF-8, NaN, surrogates, bad JSON), one row
    at a time, so its rows and its first error come in the order reading line by line
    gives them. Unlike `json_objects` alone, a row's floats do not send it the slow way:
    `audio_seconds` is a float in every earmark predictions file.
    """
    import orjson

    loads, refused = orjson.loads, orjson.JSONDecodeError
    name, limit = str(file), max_record_bytes()
    require_regular_file(name)
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed below
    except OSError:
        for _ in read_records(name):  # the reader's own error for this file
            pass
        raise
    try:
        read = iter(lambda: handle.readline(limit + 2), b"")
        number = 1
        while lines := list(islice(read, _READ_LINES)):
            objects = None
            if max(map(len, lines)) <= limit and not (number == 1 and lines[0][:3] == _BOM):
                try:
                    objects = list(map(loads, lines))
                except refused:
                    objects = None
            if objects is not None and _plain_block(objects):
                yield list(range(number, number + len(lines))), objects
            else:
                for at, raw in enumerate(lines, start=number):
                    for row in _careful_rows(raw, at, name, limit):
                        yield [row[0]], [row[1]]
            number += len(lines)
    finally:
        handle.close()


#: Lines read and parsed at a time; a UTF-8 byte-order mark, which only a first line has.
_READ_LINES = 4096
_BOM = "\ufeff".encode()
_DICT = frozenset((dict,))


def _plain_block(objects: list[JSONValue]) -> bool:
    """`_same_in_both` of every object of a block, a pass over all of their values."""
    if not _DICT.issuperset(map(type, objects)):
        return False
    rows = cast("list[dict[str, JSONValue]]", objects)
    values = list(chain.from_iterable(map(dict.values, rows)))
    kinds = set(map(type, values))
    if not kinds <= _SAME_TYPES:
        if not kinds <= _SAME_OR_LIST:
            return False
        lists = [v for v in values if type(v) is list]
        if not _STR.issuperset(map(type, chain.from_iterable(lists))):
            return False
    return float not in kinds or float not in set(map(type, [r.get("repeat") for r in rows]))


def _careful_rows(
    raw: bytes, number: int, name: str, limit: int
) -> Iterator[tuple[int, JSONObject]]:
    """One line, as `json_objects(read_records(file))` reads it (orjson's object where
    `json`'s is the same): its object, nothing (a blank line) or its error."""
    import orjson

    for at, text in decode_records([raw], name, max_bytes=limit, start=number):
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            obj = None
        if type(obj) is dict and _same_in_both(obj):
            yield at, obj
        else:
            yield from json_objects([(at, text)], name)


def _same_in_both(obj: dict[str, JSONValue]) -> bool:
    """Every value one of `_SAME_TYPES` or a list of strings (slices), `repeat` no float."""
    kinds = set(map(type, obj.values()))
    if not kinds <= _SAME_TYPES:
        if not kinds <= _SAME_OR_LIST:
            return False
        for value in obj.values():
            if type(value) is list and not _STR.issuperset(map(type, value)):
                return False
    return float not in kinds or type(obj.get("repeat")) is not float


#: Rows validated and added at a time, a column at a time (`ArmData.prepare`).
_BLOCK_ROWS = 4096


def _add_block(
    pending: dict[str, tuple[list[int], list[JSONObject]]],
    arms: dict[str, ArmData],
    source: str,
    shared: SharedValues,
) -> None:
    """Add a block of rows (per arm: their lines and records) to their arms, column-wise
    when every row is valid; otherwise row by row in file order, so the first bad row
    raises its own error."""
    prepared = [
        (arms[name], arms[name].prepare(lines, records, source, shared))
        for name, (lines, records) in pending.items()
    ]
    if all(rows is not None for _, rows in prepared):
        for arm, rows in prepared:
            assert rows is not None
            arm.commit(rows)
        return
    in_order = sorted(
        (
            (line, record, name)
            for name, (lines, records) in pending.items()
            for line, record in zip(lines, records, strict=True)
        ),
        key=lambda row: row[0],
    )
    for line, record, name in in_order:
        arms[name].add(record, source, line, shared)


def _arms_in_file(
    file: Path,
    label: str | None,
    spec: str,
    wanted: str | None,
    defaults: tuple[str, dict[str, JSONObject]],
    shared: SharedValues,
) -> list[ArmData]:
    default_name, recorded = defaults
    blocks = (
        _jsonl_rows(file)
        if file.suffix.lower() in _JSONL_SUFFIXES or file.name == PREDICTIONS
        else iter([_columns(_rows_from_delimited(file))])
    )
    arms: dict[str, ArmData] = {}
    seen: dict[str, None] = {}
    source = str(file)
    # Per arm, the lines and records not added yet (two lists: no tuple per row).
    pending: dict[str, tuple[list[int], list[JSONObject]]] = {}
    count = 0
    for lines, found in blocks:
        if found and wanted is None and not any([r.get("arm") for r in found]):
            # No row of the block names an arm (a predictions file of one): every row is
            # the default arm's, added in the same blocks of `_BLOCK_ROWS` as row by row.
            if default_name not in arms:
                arms[default_name] = ArmData(
                    name=default_name, source=source, recorded=recorded.get(default_name)
                )
            at = 0
            while at < len(found):
                mine = pending.setdefault(default_name, ([], []))
                take = min(_BLOCK_ROWS - count, len(found) - at)
                mine[0].extend(lines[at : at + take])
                mine[1].extend(found[at : at + take])
                at, count = at + take, count + take
                if count == _BLOCK_ROWS:
                    _add_block(pending, arms, source, shared)
                    pending, count = {}, 0
            continue
        for line, record in zip(lines, found, strict=True):
            arm_field = record.get("arm")
            name = arm_field if isinstance(arm_field, str) and arm_field else default_name
            if wanted is not None and name != wanted:
                seen[str(arm_field or default_name)] = None
                continue
            block = pending.get(name)
            if block is None:
                if name not in arms:
                    arms[name] = ArmData(name=name, source=source, recorded=recorded.get(name))
                block = pending[name] = ([], [])
            block[0].append(line)
            block[1].append(record)
            count += 1
            if count == _BLOCK_ROWS:
                _add_block(pending, arms, source, shared)
                pending, count = {}, 0
    _add_block(pending, arms, source, shared)
    if wanted is not None and wanted not in arms:
        names = sorted(seen)
        raise EarmarkError(
            f"no arm {wanted!r} in {file}",
            file=str(file),
            field="arm",
            hint="arms there: " + (", ".join(names) or "(none)"),
        )
    if not arms:
        raise EarmarkError("no prediction rows", file=str(file))
    if label is not None:
        if len(arms) > 1:
            raise EarmarkError(
                f"{spec!r} names {len(arms)} arms; a NAME= label needs exactly one",
                hint="select one arm with RUN_DIR#ARM",
            )
        (only,) = arms.values()
        only.name = label
        return [only]
    return list(arms.values())


def load_arm_specs(specs: list[str], jobs: int = 1) -> dict[str, ArmData]:
    """Arms by name from several specs; a name given twice is refused, not overwritten.

    With `jobs` > 1 the specs are read in forked workers, a spec each at a time (a row
    costs ~5x more to read than to send back); what arrives shares one copy of each
    equal text with the other arms (`ArmData.received`), as when read here. Errors are
    raised in spec order, as reading them one after another raises them."""
    shared = SharedValues()
    if jobs > 1 and len(specs) > 1:
        from earmark.comparison.parallel import fork_map

        # Per spec index, the arms that arrived: a later spec's may be patched onto them.
        bases: dict[int, list[ArmData]] = {}

        def arrived(found: _Read) -> list[ArmData] | Exception:
            if isinstance(found, Exception):
                return found
            at, sent = found
            arms = [
                ArmData.received(s, shared, None if s.base is None else bases[s.base][0])
                for s in sent
            ]
            bases[at] = arms
            return arms

        read: list[list[ArmData] | Exception] = fork_map(
            _SpecReader(), list(enumerate(specs)), jobs, arrived
        )
    else:
        read = []
    out: dict[str, ArmData] = {}
    for at, spec in enumerate(specs):
        found = read[at] if read else load_arms(spec, shared)
        if isinstance(found, Exception):
            raise found
        for arm in found:
            if arm.name in out:
                raise EarmarkError(
                    f"two arms are named {arm.name!r} ({out[arm.name].source} and {arm.source})",
                    hint="rename one with NAME=SPEC, e.g. q8=runs/q8",
                )
            out[arm.name] = arm
    return out


#: What a worker sends back for one spec: its index and arms, or the error reading it gave.
_Read = tuple[int, list[ArmTransfer]] | Exception


class _SpecReader:
    """A worker's reading of specs, one at a time: the first spec it reads whole is the
    base of the rest, which share its values (one `SharedValues` per worker) and travel
    as the rows where they differ from its first arm (`ArmData.for_transfer`). Each
    forked worker has its own copy of this object."""

    def __init__(self) -> None:
        self.shared = SharedValues()
        self.base: tuple[int, ArmData] | None = None

    def __call__(self, item: tuple[int, str]) -> _Read:
        at, spec = item
        try:
            arms = load_arms(spec, self.shared)
        except Exception as exc:  # re-raised by the parent, in spec order
            return exc
        if self.base is None:
            self.base = (at, arms[0])
            # The base stays whole here, to patch the next specs' arms against.
            return at, [arm.for_transfer() for arm in arms]
        base_at, base = self.base
        return at, [arm.for_transfer(base, base_at) for arm in arms]
