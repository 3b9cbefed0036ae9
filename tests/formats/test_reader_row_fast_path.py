"""The JSONL row builder's quick path gives the rows and errors of its checked path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.errors import EarmarkError
from earmark.formats.fields import FieldNames
from earmark.formats.pairs import read_pairs
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow


def _read(tmp_path: Path, *records: dict[str, object]) -> list[ScoringRow]:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return read_pairs(path, fields=FieldNames()).rows


def test_rows_as_the_fields_say(tmp_path: Path) -> None:
    rows = _read(
        tmp_path,
        {"id": "a", "reference": "r", "hypothesis": "h", "language": "", "slices": "x;y,"},
        {"id": "b", "reference": "r", "language": "ga", "clip": "c1", "slices": ["n"]},
        {"id": "c", "reference": "", "hypothesis": None, "clip": ""},
    )
    assert rows == [
        ScoringRow(id="a", reference="r", hypothesis="h", slices=("x", "y"), status=OK),
        ScoringRow(
            id="b",
            reference="r",
            hypothesis=None,
            language="ga",
            slices=("n",),
            status=MISSING_HYPOTHESIS,
            cluster="c1",
        ),
        ScoringRow(id="c", reference="", hypothesis=None, status=MISSING_HYPOTHESIS),
    ]


@pytest.mark.parametrize(
    ("record", "message", "field"),
    [
        ({"id": " ", "reference": "r"}, "empty id", "id"),
        ({"id": 5, "reference": "r"}, "expected a string, got int", "id"),
        ({"id": "a"}, "missing field", "reference"),
        ({"id": "a", "reference": "r", "language": 3}, "expected a string, got int", "language"),
        (
            {"id": "a", "reference": "r", "hypothesis": 1.5},
            "expected a string, got float",
            "hypothesis",
        ),
        ({"id": "a", "reference": "r", "clip": ["x"]}, "expected a string, got list", "clip"),
        ({"id": "a", "reference": "r", "slices": 7}, "expected a list of strings", "slices"),
    ],
)
def test_errors_name_line_and_field(
    tmp_path: Path, record: dict[str, object], message: str, field: str
) -> None:
    with pytest.raises(EarmarkError) as caught:
        _read(tmp_path, {"id": "ok", "reference": "r", "hypothesis": "r"}, record)
    assert message in str(caught.value)
    assert caught.value.line == 2
    assert caught.value.field == field


def test_plain_rows_equal_the_rows_init_builds() -> None:
    """`ScoringRow.plain` (the JSONL reader's common row) is the row `__init__` builds:
    equal, same repr and fields, still frozen, its `extra` its own dict."""
    import dataclasses

    import pytest

    from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow

    for ident, ref, hyp, status in (
        ("a", "the cat", "the hat", OK),
        ("b\x00", "", None, MISSING_HYPOTHESIS),
        ("é😀", "x\u2028y", "", OK),
    ):
        built = ScoringRow(ident, ref, hyp, status=status)
        plain = ScoringRow.plain(ident, ref, hyp, status)
        assert plain == built and repr(plain) == repr(built)
        assert dataclasses.asdict(plain) == dataclasses.asdict(built)
        with pytest.raises(dataclasses.FrozenInstanceError):
            plain.id = "other"  # type: ignore[misc]
    one, two = ScoringRow.plain("1", "a", "a", OK), ScoringRow.plain("2", "a", "a", OK)
    assert one.extra == {} and one.extra is not two.extra
