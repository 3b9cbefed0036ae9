"""A typed result object as a whole JSON object, and back, byte for byte.

A field without a default is required (missing is an error naming its JSON path); a field
defaulting to None is optional, and is written only when it holds a value or the file it came
from had the key (so a key that was `null` stays `null` and an absent key stays absent).

Keys no field declares go to `extra`, and the order the keys came in is kept in
`key_order`, so `from_json(text).to_json() == text` holds for every file earmark writes,
including sections a newer earmark adds. Objects built in code (no `key_order`) are
written in the order the fields are declared, which is the producers' order.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, NoReturn, TypeVar, cast

from earmark.errors import EarmarkError, json_type_name
from earmark.outputs import json_text
from earmark.results.codec import (
    Codec,
    Fast,
    Invalid,
    JSONObject,
    JSONValue,
    as_is,
    copy_json,
    field_spec,
    fresh_name,
    json_path,
    malformed,
)
from earmark.results.io import read_text, write_text

T = TypeVar("T")
R = TypeVar("R", bound="Record")

#: A record's encoder: the record in, its JSON object out.
_Encoder = Callable[[Any], dict[str, JSONValue]]
#: One field as a record reads it: the dataclass field, its JSON key, its codec, required.
_Spec = tuple[dataclasses.Field[Any], str, Codec[Any], bool]


def _specs(cls: type[Record]) -> list[_Spec]:
    cached: list[_Spec] | None = cls.__dict__.get("_earmark_specs")
    if cached is not None:
        return cached
    out = []
    for f in fields(cls):
        spec = field_spec(f)
        if spec is None:
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append((f, *spec, required))
    cls._earmark_specs = out  # type: ignore[attr-defined]
    return out


#: Reads (or writes) of a class before its code is written out (`_fast_decoder`,
#: `_fast_encoder`, `_ordered_encoder`): writing the code of one class costs ~0.3-1 ms,
#: as much as dozens of reads on the checked path, so a record met a few times (the one
#: arm of a one-pair score, its probes) is read and written by loops over its field
#: specs (~13 ms of a one-pair score's fixed cost). Both give the same records and JSON.
WARM_AFTER = 16


def _warm(cls: type[Record], attr: str) -> bool:
    """Count one use of `cls` under `attr`; whether it has been used `WARM_AFTER` times."""
    used: int = cls.__dict__.get(attr, 0)
    if used >= WARM_AFTER:
        return True
    setattr(cls, attr, used + 1)
    return False


def _encode_by_specs(record: Record) -> dict[str, JSONValue]:
    """What `_fast_encoder`'s code gives, by a loop over the field specs."""
    order = record.key_order
    values = record.__dict__
    out: dict[str, JSONValue] = {}
    for f, key, codec, required in _specs(type(record)):
        value = values[f.name]
        if value is not None:
            out[key] = value if codec.plain is not None else codec.encode(value)
        elif required or key in order:
            out[key] = None
    for key, extra in record.extra.items():
        out[key] = copy_json(extra)
    return out


def _fast_decoder(cls: type[R], copy: bool) -> Callable[[Any], R]:
    """`cls`'s decoder without paths (see `Codec`), written out as code once per class.

    Straight-line code (one `get` and one type check per field, the plain values checked
    by their exact type in place, nested values by their codec's fast decoder) is several
    times faster than a loop over the field specs, and fields are set without the frozen
    dataclass's `__init__`. Any value that does not fit raises `Invalid`; so does a
    missing required key or a schema id that differs."""
    attr = "_earmark_fast_copy" if copy else "_earmark_fast_shared"
    cached: Callable[[Any], R] | None = cls.__dict__.get(attr)
    if cached is not None:
        return cached
    specs = _specs(cls)
    modelled = {f.name for f, _, _, _ in specs} | {"extra", "key_order"}
    env: dict[str, object] = {
        "_Invalid": Invalid,
        "_M": _MISSING,
        "_NO_EXTRA": _NO_EXTRA,
        "COPY": copy_json if copy else as_is,
        "KNOWN": frozenset(key for _, key, _, _ in specs),
        "NEW": object.__new__,
        "SET": object.__setattr__,
        "CLS": cls,
        "SCHEMA": cls.SCHEMA_ID,
        "ORDER": _shared_order,
    }
    lines = ["def decode(data):", "    if type(data) is not dict:", "        raise _Invalid"]
    if any(f.name not in modelled for f in fields(cls)):
        lines.append("    raise _Invalid  # a field the codec does not fill")
    if cls.SCHEMA_ID is not None:
        lines += ["    if data.get('schema') != SCHEMA:", "        raise _Invalid"]
    lines.append("    get = data.get")
    out = []
    for n, (f, key, codec, required) in enumerate(specs):
        v = f"v{n}"
        lines.append(f"    {v} = get({key!r}, _M)")
        if required:
            lines += [f"    if {v} is _M:", "        raise _Invalid"]
            test = "if"
        else:
            env[f"D{n}"] = f.default
            lines += [f"    if {v} is _M:", f"        {v} = D{n}"]
            test = "elif"
        kinds = codec.plain
        if kinds is None:
            env[f"F{n}"] = codec.fast(copy)
            lines += [f"    {test} {v} is not _M:" if test == "if" else "    else:"]
            lines += [f"        {v} = F{n}({v})"]
        else:
            env[f"T{n}"] = kinds
            lines += [f"    {test} type({v}) not in T{n}:", "        raise _Invalid"]
        out.append(f"{f.name!r}: {v}")
    lines += [
        "    if KNOWN.issuperset(data):",
        "        extra = _NO_EXTRA",
        "    else:",
        "        extra = {k: COPY(x) for k, x in data.items() if k not in KNOWN}",
        "    record = NEW(CLS)",
        "    SET(record, '__dict__', {"
        + "".join(f"{item}, " for item in out)
        + "'extra': extra, 'key_order': ORDER(tuple(data))})",
    ]
    if cls._check is not Record._check:
        lines.append("    record._check('')")
    lines.append("    return record")
    exec("\n".join(lines), env)  # noqa: S102 - code built above from the field specs only
    decode = cast("Callable[[Any], R]", env["decode"])
    setattr(cls, attr, decode)
    return decode


def _fast_encoder(cls: type[Record]) -> Callable[[Any], dict[str, JSONValue]]:
    """`cls`'s fields as a JSON object in declared order, then its extras (before
    `key_order` is applied), written out as code once per class like `_fast_decoder`.

    A field is written when it is required, holds a value, or its key was read (`null`
    stays `null`); a plain codec's value is written as it is (`Codec.plain` codecs keep
    values as they are both ways), any other through its codec."""
    cached: Callable[[Any], dict[str, JSONValue]] | None = cls.__dict__.get("_earmark_encode")
    if cached is not None:
        return cached
    env: dict[str, object] = {"COPY": copy_json}
    lines = ["def encode(self):", "    order = self.key_order", "    out = {}"]
    writing = _writing()
    writing.append(cls)
    try:
        writes = [codec.inline(f"v{n}", env) for n, (_, _, codec, _) in enumerate(_specs(cls))]
    finally:
        writing.pop()
    for n, ((f, key, _, required), write) in enumerate(zip(_specs(cls), writes, strict=True)):
        v = f"v{n}"
        lines.append(f"    {v} = self.{f.name}")
        if required:
            lines += [f"    out[{key!r}] = None if {v} is None else {write}"]
        else:
            lines += [
                f"    if {v} is not None:",
                f"        out[{key!r}] = {write}",
                f"    elif {key!r} in order:",
                f"        out[{key!r}] = None",
            ]
    lines += [
        "    for key, value in self.extra.items():",
        "        out[key] = COPY(value)",
        "    return out",
    ]
    exec("\n".join(lines), env)  # noqa: S102 - code built above from the field specs only
    encode = cast("Callable[[Any], dict[str, JSONValue]]", env["encode"])
    cls._earmark_encode = encode  # type: ignore[attr-defined]
    return encode


#: The classes whose encoder this thread is writing, innermost last (`Nested.inline`).
_WRITING = threading.local()


def _writing() -> list[type[Record]]:
    stack: list[type[Record]] | None = getattr(_WRITING, "classes", None)
    if stack is None:
        stack = _WRITING.classes = []
    return stack


def _ordered_encoder(
    cls: type[Record], order: tuple[str, ...]
) -> Callable[[Any], dict[str, JSONValue]] | None:
    """What `to_dict` gives for a record of `cls` without extras whose `key_order` is
    `order` (each key once), written straight in that order: one dict, not the declared
    order first and a reordered copy (a metric of each of 10,000 speakers is written
    so). Code once per class and order; None when `order` names a key twice, or once
    `cls` holds 256 orders (then `to_dict` reorders, as for any other record).

    The keys of `order` come first, each written even when None (the file had the key,
    or its producer names it: `null` stays `null`); then the other fields in declared
    order, as `_fast_encoder` writes them."""
    cache: dict[tuple[str, ...], Callable[[Any], dict[str, JSONValue]]] | None
    cache = cls.__dict__.get("_earmark_ordered")
    if cache is None:
        cache = {}
        cls._earmark_ordered = cache  # type: ignore[attr-defined]
    found = cache.get(order)
    if found is not None:
        return found
    if len(_distinct_keys(order)) != len(order) or len(cache) >= 256:
        return None
    by_key = {
        key: (n, f, codec, required) for n, (f, key, codec, required) in enumerate(_specs(cls))
    }
    env: dict[str, object] = {}
    lines = ["def encode(self):"]

    def value(n: int, f: dataclasses.Field[Any], codec: Codec[Any]) -> str:
        lines.append(f"    v{n} = self.{f.name}")
        if codec.plain is None:
            return f"None if v{n} is None else {codec.inline(f'v{n}', env)}"
        return f"v{n}"

    listed = []
    for key in order:
        if key in by_key:
            n, f, codec, _ = by_key[key]
            listed.append(f"{key!r}: {value(n, f, codec)}, ")
    lines.append("    out = {" + "".join(listed) + "}")
    for key, (n, f, codec, required) in by_key.items():
        if key in order:
            continue
        write = value(n, f, codec)
        if required:
            lines.append(f"    out[{key!r}] = {write}")
        else:
            lines += [f"    if v{n} is not None:", f"        out[{key!r}] = {write}"]
    lines.append("    return out")
    exec("\n".join(lines), env)  # noqa: S102 - code built above from the field specs only
    encode = cast("Callable[[Any], dict[str, JSONValue]]", env["encode"])
    cache[order] = encode
    return encode


_ORDERS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _shared_order(order: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple per distinct key order: the rows of a file repeat a handful of orders,
    and a tuple per record costs ~200 bytes and one more object for the garbage collector
    (a 100k-row file holds ~800k records). Bounded, so odd input cannot grow it."""
    found = _ORDERS.get(order)
    if found is not None:
        return found
    if len(_ORDERS) < 4096:
        _ORDERS[order] = order
    return order


def _field_names(cls: type[Record]) -> frozenset[str]:
    cached: frozenset[str] | None = cls.__dict__.get("_earmark_field_names")
    if cached is None:
        cached = frozenset(f.name for f in fields(cls))
        cls._earmark_field_names = cached  # type: ignore[attr-defined]
    return cached


@lru_cache(maxsize=4096)
def _distinct_keys(order: tuple[str, ...]) -> frozenset[str]:
    """The keys of a key order (a handful of orders repeat across a file's records)."""
    return frozenset(order)


#: A key absent from the JSON object (None is a value: `null`).
_MISSING = object()


class _EmptyExtra(dict[str, JSONValue]):
    """The `extra` of every record read without unmodelled keys: one shared empty mapping
    instead of an empty dict per record (a 100k-row file reads ~800k records, and each
    live dict costs the garbage collector). It refuses changes; copies and pickles are
    plain empty ones."""

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a record's extra is read-only")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self) -> tuple[type[dict[str, JSONValue]], tuple[()]]:
        return (dict, ())


_NO_EXTRA: Mapping[str, Any] = _EmptyExtra()


class Nested(Codec[R]):
    """A JSON object read as one of the typed records."""

    what = "an object"

    def __init__(self, cls: type[R] | Callable[[], type[R]]) -> None:
        # A function returning the class serves a record that nests itself (a scope's
        # `by_slice` holds scopes), whose class does not exist yet when its fields do.
        self._cls = cls

    def decode(self, value: object, path: str) -> R:
        cls: type[R] = self._cls if isinstance(self._cls, type) else self._cls()
        return cls.from_dict(value, path)

    def encode(self, value: R) -> JSONValue:
        return value.to_dict()

    def inline(self, expr: str, env: dict[str, object]) -> str:
        """`expr.to_dict()` without its call for the records producers build: one of this
        very class without extras is written by the class's encoder (`_fast_encoder`),
        or by its encoder for the record's key order once `to_dict` has written one
        (`_ordered_encoder`), read from the class when called (a scope's speakers are
        scopes: their encoder is the one being written); anything else by `to_dict`,
        as are classes nesting each other (one's encoder would be in place before the
        other's, and another thread could call it).
        The 10,000 speakers of a results file are ~50,000 records."""
        cls: type[R] = self._cls if isinstance(self._cls, type) else self._cls()
        writing = _writing()
        if cls in writing[:-1]:
            return f"{expr}.to_dict()"  # records nesting each other: see below
        if cls not in writing:
            # Written first, so no encoder is in place before those it calls; a record
            # nesting its own class calls the encoder being written, in place last.
            _fast_encoder(cls)
        if cls.__dict__.get("_earmark_ordered") is None:
            cls._earmark_ordered = {}  # type: ignore[attr-defined]
        names = {part: fresh_name(env, part) for part in ("C", "O", "T")}
        env[names["C"]], env[names["T"]] = cls, cls.to_dict
        env[names["O"]] = cls.__dict__["_earmark_ordered"]
        c, o, t = names["C"], names["O"], names["T"]
        by_order = f"({o}.get({expr}.key_order) or {t})({expr})"
        return (
            f"(({c}._earmark_encode({expr}) if not {expr}.key_order else {by_order})"
            f" if type({expr}) is {c} and not {expr}.extra else {expr}.to_dict())"
        )

    def fast(self, copy: bool) -> Fast:
        if isinstance(self._cls, type):
            return _fast_decoder(self._cls, copy)
        found: list[Fast] = []
        make = self._cls

        def decode(value: Any) -> Any:
            if not found:  # resolved on first use: the class may not exist yet when built
                found.append(_fast_decoder(make(), copy))
            return found[0](value)

        return decode


@dataclass(frozen=True, kw_only=True)
class Record:
    """Base of every typed result: generic `from_dict`/`to_dict` driven by field specs.

    `extra` holds keys this version of earmark does not model (kept, in place, on
    writing); `key_order` is the order the keys were read in (empty for objects built in
    code). Order takes no part in equality: two records are equal when their content is.
    """

    extra: JSONObject = field(default_factory=dict, repr=False)
    key_order: tuple[str, ...] = field(default=(), compare=False, repr=False)
    #: A file's schema id (`earmark.results/1`): checked before any other key, so a file
    #: of another kind or version says so instead of naming a key it lacks.
    SCHEMA_ID: ClassVar[str | None] = None
    #: The file a run or compare folder holds this record in, so `from_path(folder)` works.
    FILE_IN_FOLDER: ClassVar[str | None] = None

    @classmethod
    def from_dict(cls: type[R], data: object, path: str = "", *, copy: bool = True) -> R:
        """Read and check `data` (as `json.loads` gives it); errors name the JSON path.

        `copy=False` shares the open-ended JSON (extras, engine figures) with `data`
        instead of copying it: for a caller that parsed `data` itself and drops it."""
        decode = cls.__dict__.get("_earmark_fast_copy" if copy else "_earmark_fast_shared")
        if decode is None and not _warm(cls, "_earmark_reads"):
            return cls._from_dict_checked(data, path)  # the same record (see WARM_AFTER)
        try:
            record: R = (decode or _fast_decoder(cls, copy))(data)
            return record
        except (Invalid, EarmarkError):
            pass  # decoded again below, on the path that says what is wrong and where
        return cls._from_dict_checked(data, path)

    @classmethod
    def _from_dict_checked(cls: type[R], data: object, path: str) -> R:
        if not isinstance(data, dict):
            raise malformed(path, f"expected an object, found {json_type_name(data)}")
        if cls.SCHEMA_ID is not None:
            check_schema(path, data.get("schema"), cls.SCHEMA_ID)
        values: dict[str, object] = {}
        known: set[str] = set()
        for f, key, codec, required in _specs(cls):
            known.add(key)
            if key in data:
                values[f.name] = codec.decode(data[key], json_path(path, key))
            elif required:
                raise malformed(json_path(path, key), "required key is missing")
        extra = {k: copy_json(v) for k, v in data.items() if k not in known}
        record = cls(**values, extra=extra, key_order=tuple(data))
        record._check(path)
        return record

    @classmethod
    def built(cls: type[R], values: dict[str, object]) -> R:
        """The record holding `values` (every field, `extra` and `key_order` included),
        made without the frozen dataclass's `__init__` (~4 us of ~6 for a record of 20
        fields): for a producer that builds one per speaker. `values` becomes the
        record's own state, so the caller hands it over; names other than exactly the
        fields are refused."""
        names = _field_names(cls)
        if values.keys() != names:
            wrong = sorted(names.symmetric_difference(values))
            raise TypeError(f"{cls.__name__}.built: not its fields: {', '.join(wrong)}")
        record = object.__new__(cls)
        object.__setattr__(record, "__dict__", values)
        return record

    def _check(self, path: str) -> None:
        """Checks beyond the types (a schema id); subclasses raise `malformed(...)`."""

    def to_dict(self) -> dict[str, JSONValue]:
        """The JSON object, keys in the order read (or declared), absent keys absent."""
        cls = type(self)
        order = self.key_order
        known: dict[tuple[str, ...], _Encoder] | None = cls.__dict__.get("_earmark_ordered")
        if order and known is not None and not self.extra:  # filled only once warm
            found = known.get(order)
            if found is not None:
                return found(self)
        encode: _Encoder | None = cls.__dict__.get("_earmark_encode")
        if encode is None:
            encode = _fast_encoder(cls) if _warm(cls, "_earmark_writes") else _encode_by_specs
        if order and not self.extra and encode is not _encode_by_specs:
            ordered_encode = _ordered_encoder(cls, order)
            if ordered_encode is not None:
                return ordered_encode(self)
        out = encode(self)
        if order and len(_distinct_keys(order)) == len(order):
            # The keys of `key_order` first, in its order, then the others as they came:
            # the stable sort by rank below, without sorting.
            ordered = {k: out[k] for k in order if k in out}
            if len(ordered) < len(out):
                ordered.update((k, v) for k, v in out.items() if k not in ordered)
            out = ordered
        elif order:  # a key named twice ranks by its last place
            rank = {k: i for i, k in enumerate(order)}
            last = len(rank)
            out = dict(sorted(out.items(), key=lambda item: rank.get(item[0], last)))
        return out

    def to_json(self) -> str:
        """The text earmark writes: two-space indent, UTF-8 as is, a final newline."""
        return json_text(self.to_dict()) + "\n"

    @classmethod
    def from_json(cls: type[R], text: str, *, file: str | None = None) -> R:
        """Parse and check a JSON text; `file` names it in errors."""
        data = parse_json(text, file=file)
        try:
            return cls.from_dict(data)
        except EarmarkError as exc:
            if file is not None and exc.file is None:
                exc.file = file
            raise

    @classmethod
    def from_path(cls: type[R], path: str | os.PathLike[str]) -> R:
        """Read from a file, or from a folder's `FILE_IN_FOLDER` (strict: `earmark.results.io`)."""
        p = Path(path)
        if p.is_dir() and cls.FILE_IN_FOLDER is not None:
            p = p / cls.FILE_IN_FOLDER
        return cls.from_json(read_text(p), file=str(p))

    def to_path(self, path: str | os.PathLike[str]) -> str:
        """Write `to_json()` atomically; returns the file's SHA-256."""
        return write_text(path, self.to_json())


def parse_json(text: str, *, file: str | None = None) -> object:
    """`json.loads` with earmark's error: the file, the line and what was wrong."""
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EarmarkError(
            f"invalid JSON: {exc.msg}",
            file=file,
            line=exc.lineno,
            hint="a write was interrupted or the file was edited; rerun the command that wrote it",
        ) from None
    return data


def check_schema(path: str, found: object, expected: str) -> None:
    """Refuse a file of another schema (or version) before reading its figures."""
    if found != expected:
        raise malformed(
            json_path(path, "schema"),
            f"unsupported schema {found!r} (this reader knows {expected!r})",
            hint="read it with the earmark version that wrote it",
        )


def lookup(mapping: Mapping[str, T], name: str, what: str, path: Callable[[], str]) -> T:
    """`mapping[name]`, or an EarmarkError listing the names there are."""
    try:
        return mapping[name]
    except KeyError:
        known = ", ".join(mapping) or "none"
        raise EarmarkError(
            f"no {what} {name!r}", field=path(), hint=f"{what}s here: {known}"
        ) from None
