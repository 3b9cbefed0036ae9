"""A folder's JSON records (plan, provenance, an arm's model) against hostile files: each
is a one-line `EarmarkError` naming the file, never a hang or a traceback (issue 24)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from earmark.errors import EarmarkError
from earmark.rundir.json_records import read_json_record


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b'{"a": "\xff"}', "not valid UTF-8 (at byte 7)"),
        (b"[" * 100_000 + b"]" * 100_000, "invalid JSON (RecursionError)"),
        (b'{"a": ' + b"9" * 5000 + b"}", "invalid JSON (ValueError)"),
        (b'{"a": {"b": "\\ud800"}}', "text that is not Unicode"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
def test_a_bad_record_is_one_line_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "provenance.json"
    path.write_bytes(content)
    with pytest.raises(EarmarkError) as caught:
        read_json_record(path)
    assert message in caught.value.message and caught.value.file == str(path)


def test_a_surrogate_names_its_field(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(b'{"arms": [{"name": "\\udfff"}]}')
    with pytest.raises(EarmarkError) as caught:
        read_json_record(path)
    assert caught.value.field == "arms[0].name"


def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    os.mkfifo(path)  # no writer: an open() would block for ever
    with pytest.raises(EarmarkError, match="FIFO"):
        read_json_record(path)


def test_missing_is_none_and_a_good_record_is_read(tmp_path: Path) -> None:
    assert read_json_record(tmp_path / "absent.json") is None
    path = tmp_path / "model.json"
    path.write_text('{"backend": "stdio", "extra": {"t": "a\\u2028b"}}', "utf-8")
    assert read_json_record(path) == {"backend": "stdio", "extra": {"t": "a\u2028b"}}
