"""The precomputed backend: hypotheses from JSONL or TSV, missing ids kept as reason codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Engine
from earmark.errors import EarmarkError


def clips(*ids: str) -> list[Clip]:
    import numpy as np

    return [Clip(i, np.zeros(160, dtype=np.float32), 16000) for i in ids]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def test_jsonl_with_a_missing_id(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "hyps.jsonl",
        [
            {"id": "a", "hypothesis": "你好", "language": "zh", "decode_seconds": 0.25},
            {"id": "c", "text": "extra row not asked for"},
        ],
    )
    engine = build_engine(parse_arm_spec(f"precomputed:{path}"))
    assert isinstance(engine, Engine)
    info = engine.load()
    hyps = engine.transcribe(clips("a", "b"), "zh")
    assert [h.id for h in hyps] == ["a", "b"]
    assert (
        hyps[0].text == "你好" and hyps[0].language_used == "zh" and hyps[0].decode_seconds == 0.25
    )
    assert hyps[1].error == "missing_hypothesis" and hyps[1].text == ""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert info.revision == f"sha256:{digest}" and info.file_sha256 == {"hyps.jsonl": digest}
    assert info.extra["rows"] == 2


def test_tsv_with_configured_fields(tmp_path: Path) -> None:
    path = tmp_path / "hyps.tsv"
    path.write_text("utt\tsystem_output\nx\thello world\ny\t\n", encoding="utf-8")
    engine = build_engine(
        parse_arm_spec(f"precomputed:{path}?id_field=utt&text_field=system_output")
    )
    engine.load()
    hyps = engine.transcribe(clips("x", "y"), "en")
    assert [(h.text, h.error) for h in hyps] == [("hello world", None), ("", None)]


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', 2, "duplicate id 'a'"),
        ('{"id": "a", "text": "x"}\nnot json\n', 2, "not JSON"),
        ('{"id": "a"}\n', 1, "no hypothesis text"),
        ('{"text": "x"}\n', 1, "missing or non-string id"),
        ('["a", "x"]\n', 1, "JSON object"),
    ],
)
def test_bad_files_name_file_and_line(
    tmp_path: Path, content: str, line: int, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    engine = build_engine(parse_arm_spec(f"precomputed:{path}"))
    with pytest.raises(EarmarkError, match=message) as caught:
        engine.load()
    assert caught.value.file == str(path) and caught.value.line == line


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="hypothesis file not found"):
        build_engine(parse_arm_spec(f"precomputed:{tmp_path / 'absent.jsonl'}"))
