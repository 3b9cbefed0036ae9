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

Files obey the same law inside a package: no two files import each other in a circle, for a file
that imports another that imports it back is one room drawn as two. Imports under
`if TYPE_CHECKING:` count too: a type a file names is part of what it means, so a circle drawn only
in annotations is still one room drawn as two (and mypy reads those imports as real).
`from earmark import __version__` is the one import left out, as in the package check: the
version is set before the package root imports anything.
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


def _module(path: Path) -> str:
    """The dotted name a file is imported as (`earmark.results.codec`, `earmark.corpus`)."""
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if path.name == "__init__.py" else parts)


def _file_imports(path: Path, modules: set[str]) -> set[str]:
    """The earmark files (as module names) that `path` imports, lazily or not.

    `from package import name` reaches the file `package/name.py` when there is one, else the
    package's `__init__.py`; an import of `a.b` counts as an import of `a/b.py` only.
    """
    own = _module(path)
    package = own.split(".") if path.name == "__init__.py" else own.split(".")[:-1]
    found: set[str] = set()

    def add(name: str) -> None:
        pieces = name.split(".")
        while pieces and ".".join(pieces) not in modules:
            pieces.pop()
        if pieces:
            found.add(".".join(pieces))

    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            for alias in node.names:
                if (module, alias.name) == ("earmark", "__version__"):
                    continue
                add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
    return found - {own}


def _file_cycles() -> list[list[str]]:
    """Every group of files that import each other round a loop (Tarjan's strongly connected
    components, iteratively), each as one loop through it, sorted."""
    files = {_module(p): p for p in sorted(SRC.rglob("*.py"))}
    graph = {name: sorted(_file_imports(p, set(files))) for name, p in files.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return sorted(_one_loop(group, graph) for group in groups)


def _one_loop(group: list[str], graph: dict[str, list[str]]) -> list[str]:
    """The shortest loop from the group's first file back to itself, to show in a failure."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for target in graph[node]:
            if target == start:
                loop = [node]
                while loop[-1] != start:
                    loop.append(came_from[loop[-1]])
                return [start, *reversed(loop[:-1]), start]
            if target in members and target not in came_from and target != start:
                came_from[target] = node
                todo.append(target)
    raise AssertionError(f"{group} is not a loop")


def test_no_file_cycle() -> None:
    loops = [" -> ".join(name.removeprefix("earmark.") for name in loop) for loop in _file_cycles()]
    assert loops == []
