"""Corpus source files end a line at "\\n" only, through the shared `earmark.records` rule."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from earmark.corpus.sources.jsonl import read_jsonl
from earmark.corpus.sources.tsv import numbered_lines, read_headerless_tsv


def test_tsv_lines_keep_line_separators_and_drop_bom_crlf_and_blanks(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_bytes("\ufeffa\tone\u2028two\r\n\r\nb\tthree\x85four\r\n".encode())
    assert list(numbered_lines(path)) == [(1, "a\tone\u2028two"), (3, "b\tthree\x85four")]
    rows = list(read_headerless_tsv(path, ["id", "text"]))
    assert rows == [
        (1, {"id": "a", "text": "one\u2028two"}),
        (3, {"id": "b", "text": "three\x85four"}),
    ]


def test_jsonl_manifests_plain_and_gzip(tmp_path: Path) -> None:
    rows = ({"text": "a\u2029b"}, {"text": "c\x0cd"})  # json.dumps escapes the form feed
    body = "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows)
    (tmp_path / "m.jsonl").write_text(body, "utf-8")
    (tmp_path / "m.jsonl.gz").write_bytes(gzip.compress(body.encode()))
    for name in ("m.jsonl", "m.jsonl.gz"):
        got = list(read_jsonl(tmp_path / name))
        assert got == [(1, {"text": "a\u2029b"}), (2, {"text": "c\x0cd"})], name
