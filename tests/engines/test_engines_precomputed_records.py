"""The precomputed backend cuts rows at "\\n" only and refuses an empty hypotheses file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip
from earmark.errors import EarmarkError


def _texts(spec: str, ids: list[str]) -> list[str]:
    engine = build_engine(parse_arm_spec(spec))
    engine.load()
    clips = [Clip(i, np.zeros(160, dtype=np.float32), 16000) for i in ids]
    return [h.text for h in engine.transcribe(clips, "en")]


def test_jsonl_rows_with_a_carriage_return_between_tokens(tmp_path: Path) -> None:
    # "\r" is JSON whitespace; universal-newline reading used to cut the row there.
    path = tmp_path / "h.jsonl"
    path.write_bytes(
        b'{"id": "a",\r"hypothesis": "x\xe2\x80\xa8y"}\n{"id": "b", "hypothesis": "z"}\n'
    )
    assert _texts(f"precomputed:{path}", ["a", "b"]) == ["x\u2028y", "z"]


def test_tsv_fields_with_line_separators_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "h.tsv"
    path.write_bytes("id\thypothesis\r\na\tx\u2028y\r\nb\tz\x85w\r\n".encode())
    assert _texts(f"precomputed:{path}?format=tsv", ["a", "b"]) == ["x\u2028y", "z\x85w"]


@pytest.mark.parametrize(("name", "content"), [("h.jsonl", ""), ("h.tsv", "id\thypothesis\n")])
def test_an_empty_hypotheses_file_is_an_error(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, "utf-8")
    fmt = "?format=tsv" if name.endswith(".tsv") else ""
    engine = build_engine(parse_arm_spec(f"precomputed:{path}{fmt}"))
    with pytest.raises(EarmarkError, match="no hypotheses") as err:
        engine.load()
    assert err.value.file == str(path)
