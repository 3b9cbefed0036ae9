"""The layers of earmark, enforced on the import graph (every `import` in src/, lazy ones too).

Lower layers never import higher ones, and no two packages import each other (directly or
round a longer loop), so each layer can be read, tested and replaced on its own:

0. `errors`
1. the pure core and plain I/O primitives: `text`, `stats`, `records`, `outputs`,
   `language_tags`, `markdown_cells`, `terminal_table`, `testing`
2. `metrics` (built on `text`), `artefacts`
3. `results`: the typed model of everything earmark writes and reads
4. `corpus`, `engines`: what goes in
5. `scoring`, `comparison`: figures from rows
6. `rundir`: the only code that knows a run folder's files
7. `execution`, `render`, `decisions`, `postprocess`, `file_scoring`, `file_comparison`: running,
   rendering, deciding, post-processing, and `earmark score`/`compare`'s read-figure-write of
   files and folders
8. `verification`: what composes runs and reports
9. `api` (one function per verb), then `cli` and the package itself (`earmark.wer`, ...)
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "earmark"

LAYERS: dict[str, int] = {
    "errors": 0,
    **dict.fromkeys(
        (
            "text",
            "stats",
            "records",
            "outputs",
            "language_tags",
            "markdown_cells",
            "terminal_table",
            "testing",
            "collector",
        ),
        1,
    ),
    "metrics": 2,
    "artefacts": 2,
    "results": 3,
    "corpus": 4,
    "formats": 4,
    "engines": 4,
    "scoring": 5,
    "comparison": 5,
    "rundir": 6,
    "execution": 7,
    "render": 7,
    "decisions": 7,
    "postprocess": 7,
    "file_scoring": 7,
    "file_comparison": 7,
    "verification": 8,
    "api": 9,
    **dict.fromkeys(("cli", "__main__", "__init__"), 10),
}


def _unit(path: Path) -> str:
    """The top-level package or module a file belongs to (`scoring`, `cli`, `__init__`)."""
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _imports(path: Path) -> set[str]:
    """Top-level earmark units that `path` imports, absolute or relative."""
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    package = parts if path.name == "__init__.py" else parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                names = [".".join((*base, node.module) if node.module else base)]
            else:
                names = [node.module or ""]
            if names[0] == "earmark":  # `from earmark import x`: x is the unit
                names = [f"earmark.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            pieces = name.split(".")
            if pieces[0] == "earmark" and len(pieces) > 1:
                found.add(pieces[1])
    return found


def _graph() -> dict[str, dict[str, set[str]]]:
    """unit -> imported unit -> the files that import it."""
    graph: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(SRC.rglob("*.py")):
        unit = _unit(path)
        for target in _imports(path) - {unit, "__version__"}:
            graph[unit][target].add(str(path.relative_to(SRC)))
    return graph


def test_every_unit_has_a_layer() -> None:
    units = {_unit(p) for p in SRC.rglob("*.py")}
    assert units - set(LAYERS) == set(), "add new packages to LAYERS"


def test_no_import_reaches_a_higher_layer() -> None:
    upward = [
        f"{unit} (layer {LAYERS[unit]}) imports {target} (layer {LAYERS[target]}) in "
        + ", ".join(sorted(files))
        for unit, targets in _graph().items()
        for target, files in targets.items()
        if LAYERS[target] > LAYERS[unit]
    ]
    assert upward == []


def test_no_package_cycle() -> None:
    graph = {unit: set(targets) for unit, targets in _graph().items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            for nxt in graph.get(node, ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    cycles = sorted(
        f"{unit} -> {target} -> ... -> {unit}"
        for unit, targets in graph.items()
        for target in targets
        if reaches(target, unit)
    )
    assert cycles == []
