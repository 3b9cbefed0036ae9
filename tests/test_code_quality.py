"""The house rules, checked in CI: ruff on everything, mypy strict on the whole of src/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is installed by the test extra")
def test_ruff_clean() -> None:
    out = _run("ruff", "check", "src", "tests", "benchmarks", "scripts")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_on_all_of_src() -> None:
    pytest.importorskip("mypy", reason="mypy is installed by the test extra")
    out = _run(sys.executable, "-m", "mypy")  # files and strictness come from pyproject.toml
    assert out.returncode == 0, out.stdout + out.stderr


#: What counts as too small to share: a body (docstring aside) of one statement whose
#: `ast.dump` is shorter than this, such as `return self._x`, `pass`, `...`,
#: `raise NotImplementedError` or `self._model = None`. Writing those twice costs nothing;
#: anything longer is logic, and logic lives in one place.
TRIVIAL_DUMP_CHARS = 200

#: Identical bodies still allowed, each group exactly as found (`path::qualified.name`) and
#: why. An entry that no longer matches fails the test, so the list can only shrink.
ALLOWED_DUPLICATES: dict[frozenset[str], str] = {}


def _function_bodies(src: Path) -> dict[str, list[str]]:
    """`ast.dump` of every non-trivial function body (docstring dropped) -> where it stands."""
    import ast

    found: dict[str, list[str]] = {}

    def walk(node: ast.AST, file: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = child.body
                if ast.get_docstring(child, clean=False) is not None:
                    body = body[1:]
                dump = "\n".join(ast.dump(statement) for statement in body)
                if len(body) > 1 or len(dump) >= TRIVIAL_DUMP_CHARS:
                    found.setdefault(dump, []).append(f"{file}::{prefix}{child.name}")
                walk(child, file, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, file, f"{prefix}{child.name}.")
            else:
                walk(child, file, prefix)

    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"), str(path))
        walk(tree, path.relative_to(src).as_posix(), "")
    return found


def test_no_identical_function_bodies_in_src() -> None:
    """Two functions with the same body are one meaning written twice: keep one, where the
    meaning lives, and import it (what `duplicates src` checks for issue 13)."""
    groups = {
        frozenset(places)
        for places in _function_bodies(ROOT / "src" / "earmark").values()
        if len(places) > 1
    }
    new = sorted(sorted(group) for group in groups - ALLOWED_DUPLICATES.keys())
    stale = sorted(sorted(group) for group in ALLOWED_DUPLICATES.keys() - groups)
    assert not new, f"identical function bodies (keep one and import it): {new}"
    assert not stale, f"allow-list entries that no longer match (remove them): {stale}"


def test_function_bodies_sees_duplicates_and_spares_trivial_ones(tmp_path: Path) -> None:
    """The detector itself: a docstring does not hide a copy, a one-line accessor is not one."""
    (tmp_path / "a.py").write_text(
        "def f(x):\n    '''Why.'''\n    y = x + 1\n    return y\n\n"
        "class C:\n    def g(self):\n        return self._x\n",
        "utf-8",
    )
    (tmp_path / "b.py").write_text(
        "def h(x):\n    y = x + 1\n    return y\n\n"
        "def k(self):\n    return self._x\n\n"
        "def outer():\n    def f(x):\n        y = x + 2\n        return y\n    return f\n",
        "utf-8",
    )
    groups = [sorted(p) for p in _function_bodies(tmp_path).values() if len(p) > 1]
    assert groups == [["a.py::f", "b.py::h"]]
