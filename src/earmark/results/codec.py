"""How one JSON value becomes a typed value and back: the codecs a record's fields name.

Every object in `earmark.results` is a frozen, keyword-only dataclass whose fields carry
a `json_key(...)` spec: the JSON key and the codec of its value (`earmark.results.record`
reads and writes whole objects from those specs). A codec checks a value at a JSON path,
so an error names where it is, and writes it back unchanged, so a file round-trips.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar, Union, cast

from earmark.errors import EarmarkError, json_type_name

#: A JSON value as `json.loads` returns it. (`Union`: a runtime `|` cannot take the
#: quoted self-reference.)
JSONValue = Union[  # noqa: UP007
    None, bool, int, float, str, list["JSONValue"], dict[str, "JSONValue"]
]
#: A JSON object (read-only view of one).
JSONObject = Mapping[str, JSONValue]

T = TypeVar("T")

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


def as_is(value: Any) -> Any:
    """A JSON value shared, not copied: for a caller that owns the parsed JSON."""
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


class Invalid(Exception):
    """Raised by a fast decoder: the value is not the expected shape. The caller decodes
    again on the checked path, which builds the JSON path and the error message."""


#: One fast decoder: a JSON value in, the typed value out, `Invalid` when it does not fit.
Fast = Callable[[Any], Any]


class Codec(Generic[T]):
    """Checks and converts one JSON value at a path; writes it back unchanged.

    `decode` builds the JSON path of every value it visits, for its error messages. `fast`
    gives a decoder that builds no path and raises a bare `Invalid` instead: reading a
    100k-row predictions file checks every value, and a path per value costs more than the
    value. A record tries the fast decoder first and decodes again with `decode` only when
    the fast one refuses, so errors read the same. `copy=False` when the caller owns the
    parsed JSON (it parsed it itself) and nothing else can change it.
    """

    what = "a value"
    #: The exact types this codec keeps as they are (a string, an integer), which a
    #: record's fast decoder checks in place instead of calling the codec; None otherwise.
    plain: frozenset[type] | None = None

    def decode(self, value: object, path: str) -> T:
        raise NotImplementedError

    def encode(self, value: T) -> JSONValue:
        raise NotImplementedError

    def fast(self, copy: bool) -> Fast:
        def decode(value: Any) -> Any:
            return self.decode(value, "")

        return decode

    def inline(self, expr: str, env: dict[str, object]) -> str:
        """Python source for `encode(<expr>)`, for a record's encoder written out as code
        (`earmark.results.record`), its names put in `env`: a codec whose encoding is a
        container of records spells it out, one call per record instead of three.
        `expr` is a name or an attribute of one, and may be evaluated more than once."""
        if self.plain is not None:
            return expr  # kept as it is, both ways
        name = fresh_name(env, "I")
        env[name] = self.encode
        return f"{name}({expr})"

    def _wrong(self, value: object, path: str) -> EarmarkError:
        return malformed(path, f"expected {self.what}, found {json_type_name(value)}")


def fresh_name(env: dict[str, object], prefix: str) -> str:
    """A name no other part of the code being written uses (`Codec.inline`)."""
    count = env["#names"] = cast(int, env.get("#names", 0)) + 1
    return f"{prefix}{count}"


class _Str(Codec[str]):
    plain = frozenset({str})
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
            raise Invalid

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

    def inline(self, expr: str, env: dict[str, object]) -> str:
        return expr

    def fast(self, copy: bool) -> Fast:
        choices = frozenset(self.choices)

        def decode(value: Any) -> Any:
            if type(value) is str and value in choices:
                return value
            raise Invalid

        return decode


class _Int(Codec[int]):
    plain = frozenset({int})
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
            raise Invalid

        return decode


class _Number(Codec[float]):
    """A number kept as parsed: an int stays an int, so `0` is not rewritten as `0.0`."""

    what = "a number"
    plain = frozenset({int, float})

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
            raise Invalid

        return decode


class _Bool(Codec[bool]):
    plain = frozenset({bool})
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
            raise Invalid

        return decode


class _Any(Codec[JSONValue]):
    """Any JSON value (an open-ended section), copied so the object stays frozen."""

    def decode(self, value: object, path: str) -> JSONValue:
        copied: JSONValue = copy_json(value)
        return copied

    def encode(self, value: JSONValue) -> JSONValue:
        return self.decode(value, "")  # a JSON value is written as read: copied

    def fast(self, copy: bool) -> Fast:
        return copy_json if copy else as_is


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
                raise Invalid
            return copy_json(value) if copy else value

        return decode


class Nullable(Codec[T | None]):
    """`null` or the inner codec's value (for keys the writer sets to null)."""

    def __init__(self, inner: Codec[T]) -> None:
        self.inner = inner
        self.what = f"{inner.what} or null"
        self.plain = None if inner.plain is None else inner.plain | {type(None)}

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

    def inline(self, expr: str, env: dict[str, object]) -> str:
        return f"(None if {expr} is None else {self.inner.inline(expr, env)})"

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

    @cached_property
    def _fast_copy(self) -> Fast:
        return self.fast(True)

    def decode(self, value: object, path: str) -> Mapping[str, T]:
        # The fast decoder first (a view's metrics, read 10,000 times for as many
        # speakers); the checked one only to say what is wrong and where. An empty one
        # needs neither (nor the inner records' code written: `record.WARM_AFTER`).
        if type(value) is dict and not value:
            return {}
        try:
            fast: Mapping[str, T] = self._fast_copy(value)
            return fast
        except (Invalid, EarmarkError):
            pass
        if not isinstance(value, dict):
            raise self._wrong(value, path)
        return {k: self.inner.decode(v, json_path(path, k)) for k, v in value.items()}

    def encode(self, value: Mapping[str, T]) -> JSONValue:
        return {k: self.inner.encode(v) for k, v in value.items()}

    def inline(self, expr: str, env: dict[str, object]) -> str:
        if self.inner.plain is not None:
            return f"dict({expr})"  # the values kept as they are: a copy, in C
        key, item = fresh_name(env, "k"), fresh_name(env, "x")
        return f"{{{key}: {self.inner.inline(item, env)} for {key}, {item} in {expr}.items()}}"

    def fast(self, copy: bool) -> Fast:
        inner = self.inner.fast(copy)

        def decode(value: Any) -> Any:
            if type(value) is not dict:
                raise Invalid
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

    def inline(self, expr: str, env: dict[str, object]) -> str:
        if self.inner.plain is not None:
            return f"list({expr})"  # the items kept as they are: a copy, in C
        item = fresh_name(env, "x")
        return f"[{self.inner.inline(item, env)} for {item} in {expr}]"

    def fast(self, copy: bool) -> Fast:
        inner = self.inner.fast(copy)

        def decode(value: Any) -> Any:
            if type(value) is not list:
                raise Invalid
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

    def inline(self, expr: str, env: dict[str, object]) -> str:
        return f"[{expr}[0], {expr}[1]]"

    def fast(self, copy: bool) -> Fast:
        number = NUMBER.fast(copy)

        def decode(value: Any) -> Any:
            if type(value) is not list or len(value) != 2:
                raise Invalid
            return (number(value[0]), number(value[1]))

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


def json_key(codec: Codec[Any], key: str | None = None) -> dict[str, _KeySpec]:
    """A field's metadata: its codec and, when it differs from the field name, its key."""
    return {_SPEC: _KeySpec(key, codec)}


def field_spec(f: dataclasses.Field[Any]) -> tuple[str, Codec[Any]] | None:
    """The JSON key and codec `json_key` gave a field; None for a field not in the JSON."""
    spec: _KeySpec | None = f.metadata.get(_SPEC)
    return None if spec is None else (spec.key or f.name, spec.codec)
