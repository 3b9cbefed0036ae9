"""The arms to compare, as compare holds them: `ArmData`, rows kept column-wise (one list per
field), because a comparison holds a dozen arms of 100,000 utterances each.

Reading arms from run folders and prediction files (the command line's arm specs) lives in
`earmark.rundir.arm_inputs`, above this layer.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NoReturn, cast

from earmark.errors import EarmarkError
from earmark.results.codec import JSONObject, JSONValue

#: (utterance id, repeat): the pairing key of a row.
RowKey = tuple[str, int]


class SharedValues:
    """One object for each distinct text, key, slice list and duration across the arms of
    a comparison: a dozen arms of the same utterances repeat the same references, ids and
    (mostly) hypotheses, so each arm's columns point at one copy instead of holding twelve
    (issue 25: 1.7 GB at 12 arms x 100,000 rows). Equal values only: nothing changes."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.keys: dict[RowKey, RowKey] = {}
        self.slices: dict[tuple[str, ...], tuple[str, ...]] = {(): ()}
        self.seconds: dict[float, float] = {}


#: The metadata marking a field of `ArmData` as a row column (one value per row).
_ROW = {"row_column": True}


@dataclass
class ArmData:
    """One system's outputs, one entry per (utterance, repeat), in file order."""

    name: str
    source: str
    keys: list[RowKey] = field(default_factory=list, metadata=_ROW)
    references: list[str] = field(default_factory=list, metadata=_ROW)
    hypotheses: list[str | None] = field(default_factory=list, metadata=_ROW)
    languages: list[str | None] = field(default_factory=list, metadata=_ROW)
    slices: list[tuple[str, ...]] = field(default_factory=list, metadata=_ROW)
    statuses: list[str] = field(default_factory=list, metadata=_ROW)
    clusters: list[str] = field(default_factory=list, metadata=_ROW)
    audio_seconds: list[float | None] = field(default_factory=list, metadata=_ROW)
    language_mismatch: list[bool] = field(default_factory=list, metadata=_ROW)
    #: The results.json arm summary this arm came with, when there is one.
    recorded: JSONObject | None = None
    _positions: dict[RowKey, int] = field(default_factory=dict, repr=False)
    _lines: array[int] = field(default_factory=lambda: array("q"), repr=False)

    def __len__(self) -> int:
        return len(self.keys)

    def index(self) -> Mapping[RowKey, int]:
        """Position of each key (keys are unique); kept as rows are added, read-only."""
        return self._positions

    def release_rows(self) -> None:
        """Empty the row columns and the key index (name, source and the recorded summary
        stay): a comparison that has taken what it reads of them lets them go before its
        workers fork."""
        for name in ROW_COLUMNS:
            getattr(self, name).clear()
        self._positions = {}
        self._lines = array("q")

    def for_transfer(self, base: ArmData | None = None, base_at: int | None = None) -> ArmTransfer:
        """This arm as it travels from the worker that read it: each row column whole, or,
        given `base` (an arm the same worker read and sent before, sent as spec `base_at`),
        only the rows where it differs from `base`'s. A dozen arms of the same utterances
        differ in a few hypotheses: the parent then copies the base's already shared
        columns instead of unpickling and sharing every value again (issue 25)."""
        from itertools import count

        columns: dict[str, _Column] = {}
        for name in ROW_COLUMNS:
            mine: list[Any] = getattr(self, name)
            theirs: list[Any] | None = None if base is None else getattr(base, name)
            if theirs is None or len(theirs) != len(mine):
                columns[name] = mine
                continue
            # Read with the base's `SharedValues`, equal values are mostly the same object.
            at = [p for p, a, b in zip(count(), mine, theirs) if a is not b and not _same(a, b)]
            columns[name] = _Patch(at, [mine[p] for p in at])
        self._positions = {}
        at_base = None if base is None else base_at
        return ArmTransfer(self.name, self.source, self.recorded, self._lines, at_base, columns)

    @classmethod
    def received(
        cls, sent: ArmTransfer, shared: SharedValues, base: ArmData | None = None
    ) -> ArmData:
        """The arm `for_transfer` sent, every value shared with `shared` (as `share`
        shares them); `base`, the arm its patches are against, arrived (and was shared)
        before it."""
        arm = cls(name=sent.name, source=sent.source, recorded=sent.recorded)
        arm._lines = sent.lines
        patches = {k: v for k, v in sent.columns.items() if isinstance(v, _Patch)}
        if base is None or len(patches) != len(ROW_COLUMNS):
            for name, column in sent.columns.items():
                if isinstance(column, _Patch):
                    assert base is not None
                    column = column.applied(getattr(base, name))
                setattr(arm, name, column)
            arm.share(shared)
            return arm
        # Every column is the base's (already shared) but for a few rows: share those.
        value_of = _sharers(shared)
        for name in ROW_COLUMNS:
            patch = patches[name]
            if name == "clusters":  # a row's default clip is its shared key's id
                keys = arm.keys
                values = [
                    keys[p][0] if c == keys[p][0] else value_of["references"](c)
                    for p, c in zip(patch.at, patch.values, strict=True)
                ]
            else:
                values = list(map(value_of[name], patch.values))
            setattr(arm, name, _Patch(patch.at, values).applied(getattr(base, name)))
        arm._positions = (
            base._positions.copy()
            if not patches["keys"].at
            else dict(zip(arm.keys, range(len(arm.keys)), strict=True))
        )
        return arm

    def share(self, shared: SharedValues) -> None:
        """Point every column at `shared`'s copy of each equal value and rebuild the key
        index: an arm read in another process arrives with copies of its own (a dozen
        arms of the same utterances would hold a dozen). Equal values only: nothing
        changes."""
        key, text = shared.keys.setdefault, shared.texts.setdefault
        self.keys = [key(k, k) for k in self.keys]
        # A row's default clip is its id, the shared key's own string (as `add` keeps it).
        self.clusters = [
            k[0] if c == k[0] else text(c, c) for c, k in zip(self.clusters, self.keys, strict=True)
        ]
        self.references = [text(t, t) for t in self.references]
        self.hypotheses = [h and text(h, h) for h in self.hypotheses]
        self.languages = [v if v is None else text(v, v) for v in self.languages]
        self.statuses = [text(v, v) for v in self.statuses]
        self.slices = [shared.slices.setdefault(v, v) for v in self.slices]
        seconds = shared.seconds.setdefault
        self.audio_seconds = [v and seconds(v, v) for v in self.audio_seconds]
        self._positions = dict(zip(self.keys, range(len(self.keys)), strict=True))

    def add(
        self,
        record: Mapping[str, JSONValue],
        file: str,
        line: int,
        shared: SharedValues | None = None,
    ) -> None:
        """Append one row, validating its fields (errors name the file, line and field);
        equal values are shared with the other rows and arms added with `shared`."""
        ident = record.get("id")
        repeat = record.get("repeat", 0)
        reference = record.get("reference")
        hypothesis = record.get("hypothesis")
        if (
            type(ident) is not str
            or not ident.strip()
            or type(repeat) is not int
            or repeat < 0
            or type(reference) is not str
            or (hypothesis is not None and type(hypothesis) is not str)
        ):
            self._invalid(record, file, line)
        assert isinstance(ident, str) and isinstance(reference, str) and isinstance(repeat, int)
        assert hypothesis is None or isinstance(hypothesis, str)
        shared = shared or SharedValues()
        texts = shared.texts
        key = (ident, repeat)
        key = shared.keys.setdefault(key, key)
        position = len(self.keys)
        if self._positions.setdefault(key, position) != position:
            first = self._lines[self._positions[key]]
            raise EarmarkError(
                f"duplicate row for id {ident!r} repeat {repeat} in arm {self.name!r} "
                f"(first on line {first})",
                file=file,
                line=line,
                field="id",
            )
        slices: tuple[str, ...] = ()
        raw_slices = record.get("slices")
        if raw_slices:
            found = _slices(raw_slices, file, line)
            slices = shared.slices.setdefault(found, found)
        language = record.get("language") or None
        status = record.get("status")
        if type(status) is not str:
            status = "ok" if hypothesis is not None else "missing_hypothesis"
        cluster = record.get("clip") or record.get("cluster")
        seconds = record.get("audio_seconds", record.get("duration"))
        if isinstance(seconds, int | float) and type(seconds) is not bool:
            seconds = float(seconds)
            if seconds:  # 0.0 and -0.0 are equal but written differently: not shared
                seconds = shared.seconds.setdefault(seconds, seconds)
        else:
            seconds = None
        self._lines.append(line)
        self.keys.append(key)
        self.references.append(texts.setdefault(reference, reference))
        self.hypotheses.append(hypothesis and texts.setdefault(hypothesis, hypothesis))
        self.languages.append(
            texts.setdefault(language, language) if type(language) is str else None
        )
        self.slices.append(slices)
        self.statuses.append(texts.setdefault(status, status))
        self.clusters.append(
            texts.setdefault(cluster, cluster) if type(cluster) is str and cluster else key[0]
        )
        self.audio_seconds.append(seconds)
        self.language_mismatch.append(bool(record.get("language_mismatch")))

    def prepare(
        self,
        lines: list[int],
        records: Sequence[Mapping[str, JSONValue]],
        file: str,
        shared: SharedValues,
    ) -> PreparedRows | None:
        """`add` of many rows (`records`, read at `lines`), a column at a time: the columns
        they would append, or None when any row would raise (the caller then adds them
        one by one, which raises the first error in row order). Nothing is appended
        until `commit`."""
        ids = [r.get("id") for r in records]
        repeats = [r.get("repeat", 0) for r in records]
        references = [r.get("reference") for r in records]
        hypotheses = [r.get("hypothesis") for r in records]
        if not (
            _STR.issuperset(map(type, ids))
            and _INT.issuperset(map(type, repeats))
            and _STR.issuperset(map(type, references))
            and _STR_OR_NONE.issuperset(map(type, hypotheses))
        ):
            return None
        texts = cast("list[str]", ids)
        numbers = cast("list[int]", repeats)
        if not all(map(str.strip, texts)) or min(numbers, default=0) < 0:
            return None
        pool = shared.keys.setdefault
        keys = [pool(key, key) for key in zip(texts, numbers, strict=True)]
        start = len(self.keys)
        positions = dict(zip(keys, range(start, start + len(keys)), strict=True))
        if len(positions) != len(keys) or not self._positions.keys().isdisjoint(positions):
            return None
        slices = _block_slices([r.get("slices") for r in records], lines, file, shared)
        if slices is None:
            return None
        text = shared.texts.setdefault
        seconds = shared.seconds.setdefault
        return PreparedRows(
            lines=lines,
            keys=keys,
            positions=positions,
            references=[text(t, t) for t in cast("list[str]", references)],
            hypotheses=[h and text(h, h) for h in cast("list[str | None]", hypotheses)],
            # `r.get("language") or None`, shared when a string.
            languages=[
                text(v, v) if type(v) is str and v else None
                for v in [r.get("language") for r in records]
            ],
            slices=slices,
            statuses=[
                text(v, v) if type(v) is str else "ok" if h is not None else "missing_hypothesis"
                for v, h in zip([r.get("status") for r in records], hypotheses, strict=True)
            ],
            clusters=[
                text(v, v) if type(v) is str and v else key[0]
                for v, key in zip(
                    [r.get("clip") or r.get("cluster") for r in records], keys, strict=True
                )
            ],
            # A non-zero float is shared as is; anything else as `_shared_seconds` says.
            audio_seconds=[
                seconds(v, v) if type(v) is float and v else _shared_seconds(v, shared)
                for v in [r.get("audio_seconds", r.get("duration")) for r in records]
            ],
            language_mismatch=[bool(r.get("language_mismatch")) for r in records],
        )

    def commit(self, rows: PreparedRows) -> None:
        """Append what `prepare` found (for this arm, with no row added in between)."""
        self._lines.extend(rows.lines)
        self._positions.update(rows.positions)
        for name in ROW_COLUMNS:
            getattr(self, name).extend(getattr(rows, name))

    @staticmethod
    def _invalid(record: Mapping[str, JSONValue], file: str, line: int) -> NoReturn:
        ident, repeat = record.get("id"), record.get("repeat", 0)
        if not isinstance(ident, str) or not ident.strip():
            raise EarmarkError("missing or empty id", file=file, line=line, field="id")
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
            raise EarmarkError(
                f"expected a non-negative integer, got {repeat!r}",
                file=file,
                line=line,
                field="repeat",
            )
        if not isinstance(record.get("reference"), str):
            raise EarmarkError("expected a string", file=file, line=line, field="reference")
        raise EarmarkError("expected a string or null", file=file, line=line, field="hypothesis")


@dataclass(frozen=True)
class PreparedRows:
    """Rows `ArmData.prepare` validated, as the columns `commit` appends."""

    lines: list[int]
    keys: list[RowKey]
    positions: dict[RowKey, int]
    references: list[str]
    hypotheses: list[str | None]
    languages: list[str | None]
    slices: list[tuple[str, ...]]
    statuses: list[str]
    clusters: list[str]
    audio_seconds: list[float | None]
    language_mismatch: list[bool]


#: An `ArmData`'s row columns (what `release_rows` empties, `commit` appends to and
#: `for_transfer` sends): its fields marked `_ROW`, so a new column is never left out.
ROW_COLUMNS = tuple(f.name for f in fields(ArmData) if f.metadata.get("row_column"))


@dataclass(frozen=True)
class _Patch:
    """A column as the rows where it differs from another arm's: their positions and values."""

    at: list[int]
    values: list[Any]

    def applied(self, base: list[Any]) -> list[Any]:
        """`base`'s column (a copy) with these rows' values."""
        out = base.copy()
        for p, value in zip(self.at, self.values, strict=True):
            out[p] = value
        return out


#: A row column as it is sent: whole, or patched onto the base arm's.
_Column = list[Any] | _Patch


@dataclass(frozen=True)
class ArmTransfer:
    """An arm on its way from the worker that read it (`ArmData.for_transfer`), rebuilt
    where it arrives (`ArmData.received`); `base`, when set, is the spec whose (first)
    arm the patched columns are against."""

    name: str
    source: str
    recorded: JSONObject | None
    lines: array[int]
    base: int | None
    columns: dict[str, _Column]


def _same(a: object, b: object) -> bool:
    """Can `b` stand for `a` in a column? Equal and of one type; a zero duration never
    (0.0 and -0.0 are equal but written differently)."""
    return a is b or (type(a) is type(b) and a == b and (type(a) is not float or a != 0))


def _sharers(shared: SharedValues) -> dict[str, Callable[[Any], Any]]:
    """Per row column, `share`'s shared value of one of its values (clusters aside: a
    row's default clip is its key's id)."""
    key, text = shared.keys.setdefault, shared.texts.setdefault
    seconds, slices = shared.seconds.setdefault, shared.slices.setdefault
    return {
        "keys": lambda k: key(k, k),
        "references": lambda t: text(t, t),
        "hypotheses": lambda h: h and text(h, h),
        "languages": lambda v: v if v is None else text(v, v),
        "statuses": lambda v: text(v, v),
        "slices": lambda v: slices(v, v),
        "audio_seconds": lambda v: v and seconds(v, v),
        "language_mismatch": lambda v: v,
    }


_STR = frozenset((str,))
_INT = frozenset((int,))
_STR_OR_NONE = frozenset((str, type(None)))


def _block_slices(
    values: list[JSONValue], lines: list[int], file: str, shared: SharedValues
) -> list[tuple[str, ...]] | None:
    """`add`'s slices of many rows, shared (a list already seen is not checked again);
    None when a row's would raise."""
    known = shared.slices.get
    try:
        found = [known(tuple(v)) if type(v) is list else None for v in values]  # type: ignore[arg-type]
    except TypeError:  # a list holding a list or an object: `add` says what is wrong
        return None
    if None not in found:
        return cast("list[tuple[str, ...]]", found)
    try:
        return [
            f if f is not None else _shared_slices(v, shared, file, line)
            for f, v, line in zip(found, values, lines, strict=True)
        ]
    except EarmarkError:
        return None


def _shared_slices(value: JSONValue, shared: SharedValues, file: str, line: int) -> tuple[str, ...]:
    """`add`'s slices of one row (not a list already seen), shared."""
    if not value:
        return ()
    checked = _slices(value, file, line)
    return shared.slices.setdefault(checked, checked)


def _shared_seconds(value: JSONValue, shared: SharedValues) -> float | None:
    """`add`'s duration of one row, shared."""
    if isinstance(value, int | float) and type(value) is not bool:
        seconds = float(value)
        return shared.seconds.setdefault(seconds, seconds) if seconds else seconds
    return None


def _slices(value: JSONValue | tuple[()], file: str, line: int) -> tuple[str, ...]:
    """A row's slices: a list of names, or one string of names split at `,` or `;`."""
    if type(value) is list and all(type(s) is str for s in value):
        return tuple(cast("list[str]", value))
    if isinstance(value, str):
        return tuple(s for s in value.replace(";", ",").split(",") if s)
    if value != ():
        raise EarmarkError("expected a list of strings", file=file, line=line, field="slices")
    return ()
