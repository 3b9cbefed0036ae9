"""docs/seed_requirements.md: every cited test exists, and every row says its status.

The page maps each seed requirement to a command and a test. A table of pointers rots
silently when a test is renamed or removed, so this reads the page and checks each
`tests/…py::test_name` against the test files' syntax trees (no import, no run).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "seed_requirements.md"
CITATION = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")
LINK = re.compile(r"\]\(([\w.-]+\.md)\)")
STATUSES = ("yes", "partial: ", "not yet: ", "n/a: ")
SEEDS = ("Seed 000", "Seed 001", "Seed 002", "Seed 003")


def _rows() -> dict[str, list[list[str]]]:
    """Table rows (cells stripped) under each `## Seed …` heading."""
    tables: dict[str, list[list[str]]] = {}
    current: str | None = None
    for line in PAGE.read_text("utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:]
            tables[current] = []
        elif current is not None and line.startswith("| ") and not line.startswith("| #"):
            tables[current].append([c.strip() for c in line.strip().strip("|").split("|")])
    return tables


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def test_parser_reads_a_citation() -> None:
    cell = "`tests/a/b_c.py::test_x_1`, `tests/d.py::test_y`"
    assert CITATION.findall(cell) == [("tests/a/b_c.py", "test_x_1"), ("tests/d.py", "test_y")]


def test_every_seed_has_a_table_with_numbered_rows() -> None:
    tables = _rows()
    for seed in SEEDS:
        (heading,) = [h for h in tables if h.startswith(seed)]
        rows = tables[heading]
        assert len(rows) >= 10, heading
        assert [r[0] for r in rows] == [str(i) for i in range(1, len(rows) + 1)], heading


def test_every_cited_test_exists() -> None:
    text = PAGE.read_text("utf-8")
    citations = CITATION.findall(text)
    assert len(citations) > 100
    missing = []
    cache: dict[str, set[str]] = {}
    for file, name in citations:
        path = ROOT / file
        if not path.is_file():
            missing.append(f"{file} (no such file)")
            continue
        if name not in cache.setdefault(file, _test_functions(path)):
            missing.append(f"{file}::{name}")
    assert missing == []


def test_every_row_has_a_status_and_done_rows_cite_a_test() -> None:
    for heading, rows in _rows().items():
        for row in rows:
            assert len(row) == 6, (heading, row)
            number, _requirement, status, _command, _docs, tests = row
            assert status.startswith(STATUSES), (heading, number, status)
            if status == "yes":
                assert CITATION.search(tests), (heading, number)
            else:  # anything short of done says what is missing or why it does not apply
                assert len(status.split(": ", 1)[1]) >= 20, (heading, number, status)


def test_linked_docs_pages_exist() -> None:
    pages = set(LINK.findall(PAGE.read_text("utf-8")))
    assert pages
    assert sorted(p for p in pages if not (PAGE.parent / p).is_file()) == []
