"""`outputs.json_text` writes exactly what `json.dumps(indent=2, ensure_ascii=False)` writes.

results.json is hashed into artefacts.sha256 and compared byte for byte by goldens, so the
fast writer must never change a byte: orjson's float spelling (`1e-5`, `1e16`, NaN as
null), its refusals (non-string keys, ints past 64 bits, lone surrogates, deep nesting)
and its string escapes are all held here against the stdlib, the oracle.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import enum
import hashlib
import json
import math
import uuid
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earmark.outputs import atomic_write_json, json_text


class _Str(str):
    pass


class _Level(enum.IntEnum):
    HIGH = 3


def _stdlib(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [1e-05, 1e16, 1e15, -0.0, 0.0, 5e-324, 1.7976931348623157e308, 1e22, 0.0001, 1.5e-07]
    ),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    _FLOATS,
    st.text(),  # includes lone surrogates, NUL and every control character
    st.text(alphabet=st.characters(codec="utf-8")),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_random_values_give_the_stdlib_text(value: object) -> None:
    assert json_text(value) == _stdlib(value)


@pytest.mark.parametrize(
    "value",
    [
        {"rate": 1e-05, "ci95": [1e-05, 2e-05]},  # orjson: 0.00001
        {"big": 1e16, "exp": 1.5e-07},  # orjson: 1e16, 1.5e-7
        {"nan": math.nan, "inf": math.inf, "-inf": -math.inf},  # orjson: null
        {"zero": -0.0, "tiny": 5e-324},
        {1: "int key", None: "null key", 2.5: "float key", False: "bool key"},
        {"huge": 2**64, "neg": -(2**63) - 1},
        {"lone": "\ud800", "pair": "\U0001f600", "nul": "\x00", "ctl": "\x1f\x7f\u2028"},
        {"é": "ünïcödé", "quote": '"\\/', "tab": "\t\n\r\b\f"},
        {"empty": [], "obj": {}, "nested": [[], {}, [{}], {"a": []}]},
        [[[[[[[[[["deep"]]]]]]]]]],
        ("tuple", 1),
        # Proven by distinct scalars: the two zeros, 0 and False are four spellings.
        {"zeros": [0.0, -0.0, 0, False, -0.0], "again": {"z": 0.0}},
        {"same": [1e-05] * 3, "plain": [0.5] * 3},  # one bad float among equal ones
        {"deep": [{"x": [0.25, {"y": math.nan}]}]},
        # Not plain containers and scalars: proven by the whole compact text instead.
        {"tuple": (1, 0.5), "list": [1]},
        {"sub": _Str("é"), "int": _Level.HIGH, "ordered": OrderedDict(a=1)},
        {_Str("key"): 1, "plain": 2},
        [_Level.HIGH, True, _Str("s")],
        "top-level string",
        12,
        None,
    ],
)
def test_hostile_values_give_the_stdlib_text(value: object) -> None:
    assert json_text(value) == _stdlib(value)


def test_nesting_past_orjson_limit_gives_the_stdlib_text() -> None:
    deep: object = "x"
    for _ in range(300):  # orjson refuses more than 254 levels
        deep = {"k": [deep]}
    assert json_text(deep) == _stdlib(deep)


def test_huge_record_gives_the_stdlib_text() -> None:
    record = {f"spk{i:05d}": {"value": i / 7, "ci95": [i / 9, i / 3], "n": i} for i in range(5000)}
    assert json_text(record) == _stdlib(record)


def test_what_the_stdlib_refuses_is_refused_the_same() -> None:
    circular: list[object] = []
    circular.append(circular)
    for value in (circular, {"set": {1, 2}}, {"bytes": b"x"}):
        with pytest.raises((TypeError, ValueError, RecursionError)) as stdlib_error:
            _stdlib(value)
        with pytest.raises(type(stdlib_error.value)) as fast_error:
            json_text(value)
        assert str(fast_error.value) == str(stdlib_error.value)


def test_plain_records_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record of plain rates never reaches the stdlib's pure-Python indented writer."""
    real = json.dumps

    def no_indent(value: object, **kw: object) -> str:
        assert kw.get("indent") is None, "fell back to the slow writer"
        return real(value, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(json, "dumps", no_indent)
    record = {"value": 0.171, "ci95": [0.16, 0.18], "text": "é\x00", "n": 3, "x": None}
    assert json_text(record) == real(record, indent=2, ensure_ascii=False)


@pytest.mark.parametrize(
    "value",
    [
        {"value": 0.171, "ci95": [0.16, 0.18], "speaker": "spk-ü", "n": None},
        {"rate": 1e-05, "nan": math.nan},  # the stdlib's spelling, written by the stdlib
        [],
    ],
)
def test_atomic_write_json_writes_the_stdlib_bytes(value: object, tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    digest = atomic_write_json(target, value)
    expected = (_stdlib(value) + "\n").encode("utf-8")
    assert target.read_bytes() == expected
    assert digest == hashlib.sha256(expected).hexdigest()


def test_atomic_write_json_refuses_a_lone_surrogate_as_before(tmp_path: Path) -> None:
    """The stdlib's text of a lone surrogate cannot be UTF-8: refused, nothing written."""
    with pytest.raises(UnicodeEncodeError):
        atomic_write_json(tmp_path / "x.json", {"id": "\ud800"})
    assert not list(tmp_path.iterdir())


def test_plain_records_are_never_written_whole_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain record is proven by its distinct scalars: the stdlib never spells the
    whole record, compact or indented (it took ~0.4 s for 10,000 speakers)."""
    real = json.dumps
    record = {f"spk{i}": {"value": i / 7, "ci95": [i / 9, 0.0], "n": i} for i in range(50)}

    def not_whole(value: object, **kw: object) -> str:
        assert value is not record, "the stdlib spelled the whole record"
        return real(value, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(json, "dumps", not_whole)
    assert json_text(record) == real(record, indent=2, ensure_ascii=False)


# What the fast proof rests on (`outputs._orjson_indented`): every string and integer
# orjson accepts is spelled as the stdlib spells it, so only floats are compared.


def test_every_code_point_orjson_writes_is_spelled_as_the_stdlib_spells_it() -> None:
    """Escapes are per character, so every string is proven by every code point, alone
    (as a value and as a key) and all together; lone surrogates are refused by orjson."""
    import orjson

    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for char in points[:0x3000]:  # every ASCII, Latin, control, U+2028/9 alone
        value = {char: [char, f"a{char}b"]}
        assert orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() == _stdlib(value)
    whole = "".join(points)
    assert orjson.dumps([whole]).decode() == json.dumps(
        [whole], ensure_ascii=False, separators=(",", ":")
    )
    for lone in ("\ud800", "\udfff", "a\udc80b"):
        with pytest.raises(TypeError):
            orjson.dumps(lone)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**64 - 1))
def test_every_integer_orjson_writes_is_spelled_as_the_stdlib_spells_it(number: int) -> None:
    import orjson

    assert orjson.dumps(number).decode() == json.dumps(number)


@pytest.mark.parametrize("number", [-(2**63), 2**63 - 1, 2**63, 2**64 - 1, 0, -1])
def test_integers_at_orjson_bounds(number: int) -> None:
    import orjson

    assert orjson.dumps({"n": number}, option=orjson.OPT_INDENT_2).decode() == _stdlib(
        {"n": number}
    )
    assert json_text({"n": number}) == _stdlib({"n": number})


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 10**40])
def test_integers_past_orjson_bounds_are_written_by_the_stdlib(number: int) -> None:
    import orjson

    with pytest.raises(TypeError):
        orjson.dumps(number)
    assert json_text({"n": [number, 0.5]}) == _stdlib({"n": [number, 0.5]})


@pytest.mark.parametrize("key", [1, None, True, 2.5, ("t",)])
def test_orjson_refuses_every_key_but_a_string(key: object) -> None:
    """The fast proof never looks at keys: orjson, which writes first, refuses these."""
    import orjson

    with pytest.raises(TypeError):
        orjson.dumps({key: 1})


class _Colour(enum.Enum):
    RED = "red"


class _Float(float):
    pass


@dataclasses.dataclass
class _Point:
    x: int


_Pair = collections.namedtuple("_Pair", "a b")


def _moved_ordered_dict() -> OrderedDict[str, int]:
    ordered = OrderedDict(a=1, b=2, c=3)
    ordered.move_to_end("a")
    return ordered


@pytest.mark.parametrize(
    "value",
    [
        {"colour": _Colour.RED},  # orjson writes "red"; the stdlib refuses
        {"id": uuid.UUID(int=5)},  # orjson writes the text; the stdlib refuses
        {"point": _Point(1)},  # orjson writes an object; the stdlib refuses
        {"when": datetime.date(2026, 12, 2)},
        [0.5, {"deep": [uuid.UUID(int=1)]}],
    ],
)
def test_what_only_orjson_writes_is_refused_as_the_stdlib_refuses_it(value: object) -> None:
    with pytest.raises(TypeError) as stdlib_error:
        _stdlib(value)
    with pytest.raises(TypeError) as fast_error:
        json_text(value)
    assert str(fast_error.value) == str(stdlib_error.value)


@pytest.mark.parametrize(
    "value",
    [
        {"f": _Float(1e-05), "g": _Float(0.5)},  # a float subclass: the stdlib's spelling
        {"pair": _Pair(1, 1e16)},  # a namedtuple is a list to the stdlib
        {"moved": _moved_ordered_dict()},  # iterated in its own order by the stdlib
        {"tuples": ((), (1,), ((0.5, -0.0), [1e-05]))},
        {"in_tuple": (math.nan,)},
        {"int_enum_key": {_Str("k"): _Level.HIGH}},
    ],
)
def test_subclasses_and_tuples_give_the_stdlib_text(value: object) -> None:
    assert json_text(value) == _stdlib(value)


def test_plain_tuples_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tuples are written as lists by both writers: proven by their floats alone."""
    real = json.dumps
    record = {"ci95": (0.25, 0.5), "units": ("word", "char"), "n": (1, 2)}

    def not_whole(value: object, **kw: object) -> str:
        assert value is not record, "the stdlib spelled the whole record"
        return real(value, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(json, "dumps", not_whole)
    assert json_text(record) == real(record, indent=2, ensure_ascii=False)
