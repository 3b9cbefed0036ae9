"""compare and post-process read earmark's own files with U+2028/U+2029/U+0085 in texts.

earmark writes those characters unescaped (`ensure_ascii=False`); a reader that splits
with `str.splitlines()` cut such a row in two and refused the file as invalid JSON.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from earmark.postprocess.files import read_sources
from earmark.rundir.arm_inputs import load_arms

ROWS = [
    {"id": "a", "reference": "one\u2028two", "hypothesis": "one\u2029two", "arm": "x"},
    {"id": "b", "reference": "three\x85four", "hypothesis": "three", "arm": "x"},
]


def _write(path: Path, *, crlf: bool = False) -> Path:
    end = "\r\n" if crlf else "\n"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + end for r in ROWS), "utf-8")
    return path


def test_compare_loads_rows_with_line_separators(tmp_path: Path) -> None:
    for crlf in (False, True):
        (arm,) = load_arms(str(_write(tmp_path / "p.jsonl", crlf=crlf)))
        assert arm.name == "x"
        assert arm.references == ["one\u2028two", "three\x85four"]
        assert arm.hypotheses == ["one\u2029two", "three"]


def test_postprocess_reads_rows_with_line_separators(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    path = _write(run / "predictions.jsonl")
    sources, record = read_sources(run)
    assert [(s.id, s.reference, s.hypothesis) for s in sources] == [
        ("a", "one\u2028two", "one\u2029two"),
        ("b", "three\x85four", "three"),
    ]
    assert record.predictions_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
