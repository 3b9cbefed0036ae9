"""Should `earmark.results` stand on msgspec or pydantic instead of its own codec? Measured.

For every golden results.json, compare.json, decision record and predictions.jsonl under
tests/, each library gets typed classes generated from the records' own field specs (the
same fields, JSON keys, nullability and nesting; optional keys may be absent, so msgspec uses
`UNSET` and pydantic `exclude_unset`) and must write back the bytes it read. Each variant is
tried as a library would be used: its own encoder, and its `to_builtins`/`model_dump`
handed to the stdlib `json.dumps` earmark writes with. A miss names the first thing that
differs: content (a key dropped or added), key order, or formatting (how a float is spelt).
Then the time to decode and encode the demo's results.json and a 100k-row
predictions.jsonl (the golden rows repeated, ids made unique), one row at a time as
`read_predictions` does, against the codec.

    pip install msgspec   # benchmark-only; pydantic comes with the test tools
    python benchmarks/bench_results_codec.py [ROWS]   # default 100,000
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Optional, Union

import msgspec
import pydantic

from earmark.errors import EarmarkError
from earmark.results import Comparison, Decision, MetricResult, PredictionRow, Record, Results
from earmark.results import codec as C
from earmark.results.metric import VIEW
from earmark.results.record import Nested

TESTS = Path(__file__).resolve().parents[1] / "tests"
DEMO = TESTS / "report" / "data" / "example-run" / "results.json"
FILES: list[tuple[type[Record], Path]] = [
    *((Results, p) for p in sorted(TESTS.glob("**/results.json"))),
    *((Comparison, p) for p in sorted(TESTS.glob("**/compare.json"))),
    *((Decision, p) for p in sorted(TESTS.glob("report/data/decision-golden/*.json"))),
]
PREDICTIONS = sorted(TESTS.glob("**/predictions.jsonl"))
Number = Union[int, float]  # noqa: UP007 - a runtime type for the libraries to read


# --------------------------------------------------------------------------- generated types


class _Types:
    """One library's class per record class, generated from the record's field specs."""

    def __init__(self, make: Callable[[type[Record], _Types], type]) -> None:
        self._make = make
        self.made: dict[type[Record], type] = {}
        self.namespace: dict[str, Any] = {}

    def name(self, cls: type[Record]) -> str:
        return f"G_{cls.__name__}"

    def of(self, cls: type[Record]) -> Any:
        """The generated class, or its name while it is being made (a record nesting itself)."""
        if cls not in self.made:
            self.made[cls] = None  # type: ignore[assignment]
            made = self._make(cls, self)
            self.made[cls] = made
            self.namespace[self.name(cls)] = made
        return self.made[cls] or self.name(cls)

    def type_of(self, codec: C.Codec[Any]) -> Any:
        """The Python type a codec's values have, for the library to check and convert."""
        if codec is VIEW:  # a view is a map of metrics, read by its own functions
            return dict[str, self.of(MetricResult)]
        plain = {C.STR: str, C.INT: int, C.NUMBER: Number, C.BOOL: bool}
        if codec in plain:
            return plain[codec]
        if codec is C.ANY:
            return Any
        if codec is C.OBJECT:
            return dict[str, Any]
        if codec is C.INTERVAL:
            return tuple[Number, Number]
        if isinstance(codec, C.OneOf):
            return Literal[codec.choices]
        if isinstance(codec, C.Nullable):
            return Optional[self.type_of(codec.inner)]  # noqa: UP045 - a runtime type
        if isinstance(codec, C.MapOf):
            return dict[str, self.type_of(codec.inner)]
        if isinstance(codec, C.TupleOf):
            return tuple[self.type_of(codec.inner), ...]
        if isinstance(codec, Nested):
            target = codec._cls if isinstance(codec._cls, type) else codec._cls()
            return self.of(target)
        raise TypeError(f"no type for {codec!r}")


def _fields(cls: type[Record]) -> list[tuple[str, str, C.Codec[Any], bool]]:
    out = []
    for f in dataclasses.fields(cls):
        spec = C.field_spec(f)
        if spec is not None:
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            out.append((f.name, spec[0], spec[1], required))
    return out


def _msgspec_struct(cls: type[Record], types: _Types) -> type:
    fields: list[Any] = []
    for name, key, codec, required in _fields(cls):  # kw_only: declared order kept
        kind = types.type_of(codec)
        if required:
            fields.append((name, kind, msgspec.field(name=key)))
        else:  # absent stays absent (UNSET is never written); null stays null
            fields.append(
                (
                    name,
                    Union[kind, None, msgspec.UnsetType],  # noqa: UP007 - a runtime type
                    msgspec.field(default=msgspec.UNSET, name=key),
                )
            )
    return msgspec.defstruct(types.name(cls), fields, kw_only=True, module=__name__)


def _pydantic_model(cls: type[Record], types: _Types) -> type:
    fields: dict[str, Any] = {}
    for name, key, codec, required in _fields(cls):
        kind = types.type_of(codec)
        default = ... if required else None
        kind = kind if required else Optional[kind]  # noqa: UP045
        fields[f"f_{name}"] = (kind, pydantic.Field(default, alias=key))
    config = pydantic.ConfigDict(extra="allow", frozen=True, populate_by_name=True)
    return pydantic.create_model(types.name(cls), __config__=config, **fields)


MSGSPEC = _Types(_msgspec_struct)
PYDANTIC = _Types(_pydantic_model)
for _cls in (Results, Comparison, Decision, PredictionRow):
    MSGSPEC.of(_cls)
    PYDANTIC.of(_cls)
globals().update(MSGSPEC.namespace)  # msgspec resolves a self-nesting struct's name here
for _model in PYDANTIC.made.values():
    _model.model_rebuild(_types_namespace=PYDANTIC.namespace)


# --------------------------------------------------------------------------- round trips


def _dumps(data: Any, pretty: bool) -> str:
    if pretty:  # results, compare, decision files
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return json.dumps(data, ensure_ascii=False, sort_keys=True)  # as PredictionRow.to_json


_SORTED = msgspec.json.Encoder(order="sorted")


def _ms_native(obj: Any, pretty: bool) -> str:
    if pretty:
        return msgspec.json.format(msgspec.json.encode(obj), indent=2).decode() + "\n"
    return _SORTED.encode(obj).decode()


def _pd_native(obj: Any, pretty: bool) -> str:
    if pretty:
        return obj.model_dump_json(indent=2, by_alias=True, exclude_unset=True) + "\n"
    return str(obj.model_dump_json(by_alias=True, exclude_unset=True))


#: name -> (decode a text, encode the decoded object as earmark writes the file)
Variant = tuple[Callable[[type[Record], str], Any], Callable[[Any, bool], str]]
VARIANTS: dict[str, Variant] = {
    "codec (today)": (lambda cls, text: cls.from_json(text), lambda obj, p: _codec_out(obj, p)),
    "msgspec, own encoder": (
        lambda cls, text: msgspec.json.decode(text, type=MSGSPEC.of(cls)),
        _ms_native,
    ),
    "msgspec + json.dumps": (
        lambda cls, text: msgspec.json.decode(text, type=MSGSPEC.of(cls)),
        lambda obj, p: _dumps(msgspec.to_builtins(obj), p),
    ),
    "pydantic, own encoder": (
        lambda cls, text: PYDANTIC.of(cls).model_validate_json(text),
        _pd_native,
    ),
    "pydantic + json.dumps": (
        lambda cls, text: PYDANTIC.of(cls).model_validate_json(text),
        lambda obj, p: _dumps(obj.model_dump(mode="python", by_alias=True, exclude_unset=True), p),
    ),
}


def _codec_out(obj: Record, pretty: bool) -> str:
    return obj.to_json() if pretty else json.dumps(obj.to_dict(), ensure_ascii=False)


def _keys(value: Any) -> Any:
    if isinstance(value, dict):
        return [(k, _keys(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_keys(v) for v in value]
    return type(value).__name__


def diagnose(expected: str, got: str, line: bool) -> str:
    """'exact', or the first kind of difference: content, key order or formatting.

    A predictions line is exact when it holds the same keys in the same order and the same
    values of the same types: the writer (orjson) and `PredictionRow.to_json` space it
    differently, and the golden test asks no more of the codec either."""
    if got == expected:
        return "exact"
    want, have = json.loads(expected), json.loads(got)
    if _keys(want) == _keys(have) and want == have:
        return "exact" if line else "format"
    if want == have or sorted(map(str, _flat(want))) == sorted(map(str, _flat(have))):
        return "order" if want == have else "types"
    return "content"


def _flat(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _flat(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _flat(v, f"{path}[{i}]")]
    return [(path, (type(value).__name__, value))]


def round_trips() -> None:
    cases: list[tuple[str, type[Record], list[str], bool]] = [
        (str(p.relative_to(TESTS)), cls, [p.read_text("utf-8")], True) for cls, p in FILES
    ]
    cases += [
        (str(p.relative_to(TESTS)), PredictionRow, p.read_text("utf-8").splitlines(), False)
        for p in PREDICTIONS
    ]
    names = list(VARIANTS)
    print(f"{'golden file':58} " + " ".join(f"{n[:21]:>21}" for n in names))
    totals = dict.fromkeys(names, 0)
    for label, cls, texts, pretty in cases:
        cells = []
        for name in names:
            decode, encode = VARIANTS[name]
            found = "exact"
            for text in texts:
                try:
                    verdict = diagnose(text, encode(decode(cls, text), pretty), not pretty)
                except (
                    msgspec.ValidationError,
                    pydantic.ValidationError,
                    EarmarkError,
                    TypeError,
                ) as exc:
                    verdict = f"error: {type(exc).__name__}"
                if verdict != "exact":
                    found = verdict
                    break
            totals[name] += found == "exact"
            cells.append(found)
        print(f"{label[:58]:58} " + " ".join(f"{c[:21]:>21}" for c in cells))
    print(
        f"{'byte-exact, of ' + str(len(cases)):58} " + " ".join(f"{totals[n]:>21}" for n in names)
    )
    print("format: a float spelt differently (1e-05 / 0.00001); order: keys in declared, not")
    print("read, order; content: a key dropped or added (unknown keys, null vs absent)")


def _edit(edit: Callable[[dict[str, Any]], None]) -> str:
    data = json.loads(DEMO.read_text("utf-8"))
    edit(data)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _reverse(data: dict[str, Any]) -> None:
    items = list(data.items())
    data.clear()
    data.update(reversed(items))


def _null_optional(metric: dict[str, Any]) -> None:
    metric.pop("ser")  # absent must stay absent ...
    metric["mer"] = None  # ... and null stay null


def _first_metric(data: dict[str, Any]) -> dict[str, Any]:
    arm = next(iter(data["arms"].values()))
    scope = next(iter(arm["by_language"].values()))
    view = next(iter(scope["views"].values()))
    metric: dict[str, Any] = next(iter(view.values()))
    return metric


#: One property each, on the demo's results.json: what a newer earmark or another
#: producer may write and a reader must keep.
EDGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown key, top level": lambda d: d.update(future_section={"x": 1}),
    "unknown key, in a metric": lambda d: _first_metric(d).update(future=1),
    "key order of another producer": lambda d: _reverse(d),
    "one optional key null, another absent": lambda d: _null_optional(_first_metric(d)),
    "a float 1e-05 and 1e+16": lambda d: _first_metric(d).update(
        value=1e-05, median_per_utterance=1e16
    ),
    "non-ASCII and U+2028 in a string": lambda d: d.update(created="2026-01-01 é\u2028中"),
}


def edges() -> None:
    names = list(VARIANTS)
    print(f"\n{'one property (demo results.json)':58} " + " ".join(f"{n[:21]:>21}" for n in names))
    for label, edit in EDGES.items():
        text = _edit(edit)
        cells = []
        for name in names:
            decode, encode = VARIANTS[name]
            try:
                cells.append(diagnose(text, encode(decode(Results, text), True), False))
            except (
                msgspec.ValidationError,
                pydantic.ValidationError,
                EarmarkError,
                TypeError,
            ) as exc:
                cells.append(f"error: {type(exc).__name__}")
        print(f"{label:58} " + " ".join(f"{c[:21]:>21}" for c in cells))


# --------------------------------------------------------------------------- speed


def best(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def rows(n: int) -> list[str]:
    source = [line for p in PREDICTIONS for line in p.read_text("utf-8").splitlines()]
    out = []
    for i in range(n):
        row = json.loads(source[i % len(source)])
        row["id"] = f"{row['id']}-{i // len(source)}"
        out.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    return out


def speed(n: int) -> None:
    text = DEMO.read_text("utf-8")
    lines = rows(n)
    ms_results = msgspec.json.Decoder(MSGSPEC.of(Results))
    ms_row = msgspec.json.Decoder(MSGSPEC.of(PredictionRow))
    ms_enc = msgspec.json.Encoder(order="sorted")
    pd_results, pd_row = PYDANTIC.of(Results), PYDANTIC.of(PredictionRow)
    res_c, res_m, res_p = (
        Results.from_json(text),
        ms_results.decode(text),
        pd_results.model_validate_json(text),
    )
    row_c = [PredictionRow.from_line(x) for x in lines]
    row_m = [ms_row.decode(x) for x in lines]
    row_p = [pd_row.model_validate_json(x) for x in lines]
    table = [
        (
            "codec (today)",
            best(lambda: Results.from_json(text), 20),
            best(lambda: res_c.to_json(), 20),
            best(lambda: [PredictionRow.from_line(x) for x in lines]),
            best(lambda: [r.to_json() for r in row_c]),
        ),
        (
            "msgspec Struct",
            best(lambda: ms_results.decode(text), 20),
            best(lambda: msgspec.json.format(msgspec.json.encode(res_m), indent=2), 20),
            best(lambda: [ms_row.decode(x) for x in lines]),
            best(lambda: [ms_enc.encode(r) for r in row_m]),
        ),
        (
            "pydantic model",
            best(lambda: pd_results.model_validate_json(text), 20),
            best(lambda: res_p.model_dump_json(indent=2, by_alias=True, exclude_unset=True), 20),
            best(lambda: [pd_row.model_validate_json(x) for x in lines]),
            best(lambda: [r.model_dump_json(by_alias=True, exclude_unset=True) for r in row_p]),
        ),
    ]
    kib = len(text.encode()) / 1024
    print(
        f"\nspeed: {DEMO.relative_to(TESTS)} ({kib:.0f} KiB); {n:,} predictions rows, one at a time"
    )
    print(
        f"{'':16} {'results decode':>15} {'results encode':>15} {'rows decode':>12} {'rows encode':>12}"
    )
    base = table[0]
    for name, *times in table:
        cells = [f"{t * 1e3:9.2f} ms" if i < 2 else f"{t:9.2f} s" for i, t in enumerate(times)]
        ratio = [f"{b / t:4.1f}x" for b, t in zip(base[1:], times, strict=True)]
        print(
            f"{name:16} " + " ".join(f"{c:>10} {r:>4}" for c, r in zip(cells, ratio, strict=True))
        )
    print("(x: how many times faster than the codec; encode: each library's own encoder, which")
    print(" is not byte-exact: see the table above)")


if __name__ == "__main__":
    round_trips()
    edges()
    speed(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
