"""How a typed result object becomes JSON and back, byte for byte.

Every object in `earmark.results` is a frozen, keyword-only dataclass whose fields carry
a `json_key(...)` spec: the JSON key and the codec of its value. A field without a
default is required (missing is an error naming its JSON path); a field defaulting to
None is optional, and is written only when it holds a value or the file it came from
had the key (so a key that was `null` stays `null` and an absent key stays absent).

Keys no field declares go to `extra`, and the order the keys came in is kept in
`key_order`, so `from_json(text).to_json() == text` holds for every file earmark writes,
including sections a newer earmark adds. Objects built in code (no `key_order`) are
written in the order the fields are declared, which is the producers' order.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Generic, TypeVar, Union

from earmark.errors import EarmarkError, json_type_name

#: A JSON value as `json.loads` returns it. (`Union`: a runtime `|` cannot take the
#: quoted self-reference.)
JSONValue = Union[  # noqa: UP007
    None, bool, int, float, str, list["JSONValue"], dict[str, "JSONValue"]
]
#: A JSON object (read-only view of one).
JSONObject = Mapping[str, JSONValue]

T = TypeVar("T")
R = TypeVar("R", bound="Record")

_SPEC = "earmark.results.json"
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HINT = "the file does not match its schema; rewrite it with the earmark command that made it"


def json_path(parent: str, key: str | int) -> str:
    """`arms["tiny.en-int8"].by_language.en` style paths: dotted where the key is a plain
    name, quoted where it holds dots or other characters, `[3]` for list items."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _PLAIN_KEY.match(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def malformed(path: str, message: str, hint: str = _HINT) -> EarmarkError:
    """The one error a bad file gives: what was wrong, at which JSON path."""
    return EarmarkError(message, field=path or "(top level)", hint=hint)


def _same(value: Any) -> Any:
    return value


def copy_json(value: Any) -> Any:
    """A copy of a JSON value's containers (dicts, lists); strings and numbers are shared,
    being immutable. What `copy.deepcopy` gives for JSON, several times faster."""
    kind = type(value)
    if kind is dict:
        return {k: copy_json(v) for k, v in value.items()}
    if kind is list:
        return [copy_json(v) for v in value]
    if kind is tuple:
        return tuple(copy_json(v) for v in value)
    return value


class _Invalid(Exception):
    """Raised by a fast decoder: the value is not the expected shape. The caller decodes
    again on the checked path, which builds the JSON path and the error message."""


#: One fast decoder: a JSON value in, the typed value out, `_Invalid` when it does not fit.
Fast = Callable[[Any], Any]


class Codec(Generic[T]):
    """Checks and converts one JSON value at a path; writes it back unchanged.

    `decode` builds the JSON path of every value it visits, for its error messages. `fast`
    gives a decoder that builds no path and raises a bare `_Invalid` instead: reading a
    100k-row predictions file checks every value, and a path per value costs more than the
    value. A record tries the fast decoder first and decodes again with `decode` only when
    the fast one refuses, so errors read the same. `copy=False` when the caller owns the
    parsed JSON (it parsed it itself) and nothing else can change it.
    """

    what = "a value"

    def decode(self, value: object, path: str) -> T:
        raise NotImplementedError

    def encode(self, value: T) -> JSONValue:
        raise NotImplementedError

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            return self.decode(value, "")

        return decode

    def _wrong(self, value: object, path: str) -> EarmarkError:
        return malformed(path, f"expected {self.what}, found {json_type_name(value)}")


class _Str(Codec[str]):
    what = "a string"

    def decode(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            raise self._wrong(value, path)
        return value

    def encode(self, value: str) -> JSONValue:
        return value

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            if type(value) is str:
                return value
            raise _Invalid

        return decode


class OneOf(Codec[str]):
    """A string from a closed set (`micro`/`macro`, a verdict)."""

    def __init__(self, *choices: str) -> None:
        self.choices = choices
        self.what = "one of " + ", ".join(choices)

    def decode(self, value: object, path: str) -> str:
        if value not in self.choices:
            found = repr(value) if isinstance(value, str) else json_type_name(value)
            raise malformed(path, f"expected {self.what}, found {found}")
        assert isinstance(value, str)
        return value

    def encode(self, value: str) -> JSONValue:
        return value

    def fast(self, copy: bool) -> Fast:
        choices = frozenset(self.choices)

        def decode(value: Any) -> Any:
            if type(value) is str and value in choices:
                return value
            raise _Invalid

        return decode


class _Int(Codec[int]):
    what = "an integer"

    def decode(self, value: object, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(value, path)
        return value

    def encode(self, value: int) -> JSONValue:
        return value

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            if type(value) is int:
                return value
            raise _Invalid

        return decode


class _Number(Codec[float]):
    """A number kept as parsed: an int stays an int, so `0` is not rewritten as `0.0`."""

    what = "a number"

    def decode(self, value: object, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(value, path)
        return value

    def encode(self, value: float) -> JSONValue:
        return value

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            kind = type(value)
            if kind is float or kind is int:
                return value
            raise _Invalid

        return decode


class _Bool(Codec[bool]):
    what = "true or false"

    def decode(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            raise self._wrong(value, path)
        return value

    def encode(self, value: bool) -> JSONValue:
        return value

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            if type(value) is bool:
                return value
            raise _Invalid

        return decode


class _Any(Codec[JSONValue]):
    """Any JSON value (an open-ended section), copied so the object stays frozen."""

    def decode(self, value: object, path: str) -> JSONValue:
        copied: JSONValue = copy_json(value)
        return copied

    def encode(self, value: JSONValue) -> JSONValue:
        return self.decode(value, "")  # a JSON value is written as read: copied

    def fast(self, copy: bool) -> Fast:
        return copy_json if copy else _same


class _Object(Codec[JSONObject]):
    """A JSON object whose inside is open-ended (engine extras, free-form diagnostics)."""

    what = "an object"

    def decode(self, value: object, path: str) -> JSONObject:
        if not isinstance(value, dict):
            raise self._wrong(value, path)
        out: dict[str, JSONValue] = copy_json(value)
        return out

    def encode(self, value: JSONObject) -> JSONValue:
        out: dict[str, JSONValue] = copy_json(dict(value))
        return out

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            if type(value) is not dict:
                raise _Invalid
            return copy_json(value) if copy else value

        return decode


class Nullable(Codec[T | None]):
    """`null` or the inner codec's value (for keys the writer sets to null)."""

    def __init__(self, inner: Codec[T]) -> None:
        self.inner = inner
        self.what = f"{inner.what} or null"

    def decode(self, value: object, path: str) -> T | None:
        if value is None:
            return None
        try:
            return self.inner.decode(value, path)
        except EarmarkError as exc:
            if exc.field != path:  # deeper inside the value: that error says more
                raise
            raise self._wrong(value, path) from None

    def encode(self, value: T | None) -> JSONValue:
        return None if value is None else self.inner.encode(value)

    def fast(self, copy: bool) -> Fast:
        inner = self.inner.fast(copy)

        def decode(value: Any) -> Any:
            return None if value is None else inner(value)

        return decode


class MapOf(Codec[Mapping[str, T]]):
    """A JSON object whose keys are names (arms, languages, views) and values one type."""

    what = "an object"

    def __init__(self, inner: Codec[T]) -> None:
        self.inner = inner

    def decode(self, value: object, path: str) -> Mapping[str, T]:
        if not isinstance(value, dict):
            raise self._wrong(value, path)
        return {k: self.inner.decode(v, json_path(path, k)) for k, v in value.items()}

    def encode(self, value: Mapping[str, T]) -> JSONValue:
        return {k: self.inner.encode(v) for k, v in value.items()}

    def fast(self, copy: bool) -> Fast:
        inner = self.inner.fast(copy)

        def decode(value: Any) -> Any:
            if type(value) is not dict:
                raise _Invalid
            return {k: inner(v) for k, v in value.items()}

        return decode


class TupleOf(Codec[tuple[T, ...]]):
    """A JSON list, held as a tuple so the object stays immutable."""

    what = "a list"

    def __init__(self, inner: Codec[T]) -> None:
        self.inner = inner

    def decode(self, value: object, path: str) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise self._wrong(value, path)
        return tuple(self.inner.decode(v, json_path(path, i)) for i, v in enumerate(value))

    def encode(self, value: tuple[T, ...]) -> JSONValue:
        return [self.inner.encode(v) for v in value]

    def fast(self, copy: bool) -> Fast:
        inner = self.inner.fast(copy)

        def decode(value: Any) -> Any:
            if type(value) is not list:
                raise _Invalid
            return tuple([inner(v) for v in value])

        return decode


class _Interval(Codec[tuple[float, float]]):
    """A confidence interval: `[low, high]`."""

    what = "a [low, high] pair of numbers"

    def decode(self, value: object, path: str) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise self._wrong(value, path)
        low = NUMBER.decode(value[0], json_path(path, 0))
        high = NUMBER.decode(value[1], json_path(path, 1))
        return (low, high)

    def encode(self, value: tuple[float, float]) -> JSONValue:
        return [value[0], value[1]]

    def fast(self, copy: bool) -> Fast:
        number = NUMBER.fast(copy)

        def decode(value: Any) -> Any:
            if type(value) is not list or len(value) != 2:
                raise _Invalid
            return (number(value[0]), number(value[1]))

        return decode


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


class Via(Codec[T]):
    """A value read and written by its own functions (a shape that is not a record)."""

    what = "an object"

    def __init__(
        self, decode: Callable[[object, str], T], encode: Callable[[T], Mapping[str, JSONValue]]
    ) -> None:
        self._decode = decode
        self._encode = encode

    def decode(self, value: object, path: str) -> T:
        return self._decode(value, path)

    def encode(self, value: T) -> JSONValue:
        return dict(self._encode(value))


STR: Codec[str] = _Str()
INT: Codec[int] = _Int()
NUMBER: Codec[float] = _Number()
BOOL: Codec[bool] = _Bool()
ANY: Codec[JSONValue] = _Any()
OBJECT: Codec[JSONObject] = _Object()
INTERVAL: Codec[tuple[float, float]] = _Interval()
#: How a rate sums its rows: micro (summed counts) or macro (mean of per-row rates).
AGGREGATE: Codec[str] = OneOf("micro", "macro")


@dataclass(frozen=True)
class _KeySpec:
    key: str | None
    codec: Codec[Any]


def json_key(codec: Codec[Any], key: str | None = None) -> dict[str, Any]:
    """A field's metadata: its codec and, when it differs from the field name, its key."""
    return {_SPEC: _KeySpec(key, codec)}


def _specs(cls: type[Record]) -> list[tuple[dataclasses.Field[Any], str, Codec[Any], bool]]:
    cached: list[tuple[dataclasses.Field[Any], str, Codec[Any], bool]] | None = cls.__dict__.get(
        "_earmark_specs"
    )
    if cached is not None:
        return cached
    out = []
    for f in fields(cls):
        spec = f.metadata.get(_SPEC)
        if spec is None:
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append((f, spec.key or f.name, spec.codec, required))
    cls._earmark_specs = out  # type: ignore[attr-defined]
    return out


def _fast_decoder(cls: type[R], copy: bool) -> Callable[[Any], R]:
    """`cls`'s decoder without paths (see `Codec`), written out as code once per class.

    Straight-line code (one `get` and one type check per field, the plain values checked
    by their exact type in place, nested values by their codec's fast decoder) is several
    times faster than a loop over the field specs, and fields are set without the frozen
    dataclass's `__init__`. Any value that does not fit raises `_Invalid`; so does a
    missing required key or a schema id that differs."""
    attr = "_earmark_fast_copy" if copy else "_earmark_fast_shared"
    cached: Callable[[Any], R] | None = cls.__dict__.get(attr)
    if cached is not None:
        return cached
    specs = _specs(cls)
    modelled = {f.name for f, _, _, _ in specs} | {"extra", "key_order"}
    env: dict[str, Any] = {
        "_Invalid": _Invalid,
        "_M": _MISSING,
        "_NO_EXTRA": _NO_EXTRA,
        "COPY": copy_json if copy else _same,
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
        kinds = _plain_types(codec)
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
    decode: Callable[[Any], R] = env["decode"]
    setattr(cls, attr, decode)
    return decode


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


#: A key absent from the JSON object (None is a value: `null`).
_MISSING = object()


class _EmptyExtra(dict[str, Any]):
    """The `extra` of every record read without unmodelled keys: one shared empty mapping
    instead of an empty dict per record (a 100k-row file reads ~800k records, and each
    live dict costs the garbage collector). It refuses changes; copies and pickles are
    plain empty ones."""

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        raise TypeError("a record's extra is read-only")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[()]]:
        return (dict, ())


_NO_EXTRA: Mapping[str, Any] = _EmptyExtra()


def _plain_types(codec: Codec[Any]) -> frozenset[type] | None:
    """The exact types a plain codec accepts (kept as is), or None for any other codec."""
    nullable = isinstance(codec, Nullable)
    inner = codec.inner if isinstance(codec, Nullable) else codec
    kinds: frozenset[type] | None = {
        _Str: frozenset({str}),
        _Int: frozenset({int}),
        _Number: frozenset({int, float}),
        _Bool: frozenset({bool}),
    }.get(type(inner))
    if kinds is None:
        return None
    return kinds | {type(None)} if nullable else kinds


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

    @classmethod
    def from_dict(cls: type[R], data: object, path: str = "", *, copy: bool = True) -> R:
        """Read and check `data` (as `json.loads` gives it); errors name the JSON path.

        `copy=False` shares the open-ended JSON (extras, engine figures) with `data`
        instead of copying it: for a caller that parsed `data` itself and drops it."""
        try:
            record: R = _fast_decoder(cls, copy)(data)
            return record
        except (_Invalid, EarmarkError):
            pass  # decoded again below, on the path that says what is wrong and where
        return cls._from_dict_checked(data, path)

    @classmethod
    def _from_dict_checked(cls: type[R], data: object, path: str) -> R:
        if not isinstance(data, dict):
            raise malformed(path, f"expected an object, found {json_type_name(data)}")
        if cls.SCHEMA_ID is not None:
            check_schema(path, data.get("schema"), cls.SCHEMA_ID)
        values: dict[str, Any] = {}
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

    def _check(self, path: str) -> None:
        """Checks beyond the types (a schema id); subclasses raise `malformed(...)`."""

    def to_dict(self) -> dict[str, JSONValue]:
        """The JSON object, keys in the order read (or declared), absent keys absent."""
        out: dict[str, JSONValue] = {}
        for f, key, codec, required in _specs(type(self)):
            value = getattr(self, f.name)
            if required or value is not None or key in self.key_order:
                out[key] = None if value is None else codec.encode(value)
        for key, value in self.extra.items():
            out[key] = copy_json(value)
        if self.key_order:
            rank = {k: i for i, k in enumerate(self.key_order)}
            last = len(rank)
            out = dict(sorted(out.items(), key=lambda item: rank.get(item[0], last)))
        return out

    def to_json(self) -> str:
        """The text earmark writes: two-space indent, UTF-8 as is, a final newline."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

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
        """Read from a file (`earmark.results.io`: strict, errors name the file)."""
        from earmark.results.io import read_record

        return read_record(cls, path)

    def to_path(self, path: str | os.PathLike[str]) -> str:
        """Write `to_json()` atomically; returns the file's SHA-256."""
        from earmark.results.io import write_record

        return write_record(self, path)


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
