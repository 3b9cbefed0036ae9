"""earmark.rundir is the only code that spells a run folder's file names, and sits in its layer.

Read from the source (AST), not by grep: a user-facing sentence that mentions
`predictions.jsonl` is fine; a string literal that *is* a file name outside
`earmark.rundir.layout` is a second place that knows the layout.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

import earmark
from earmark.artefacts import sha256_file
from earmark.language_tags import base_language, engine_language
from earmark.rundir import layout

SRC = Path(earmark.__file__).resolve().parent
FILE_NAMES = {
    layout.PREDICTIONS,
    layout.RESULTS,
    layout.PROVENANCE,
    layout.PLAN,
    layout.ARTEFACTS,
}
#: The writers below the run directory that name their own files.
WRITERS = {"outputs.py", "artefacts.py"}
#: Modules that still spell a file name, each with why. An entry that no longer holds one
#: fails the test below, so the list only shrinks.
ALLOWED = {
    "results/results_file.py": "below rundir (results layer): names results.json for "
    "Results.from_path(folder)",
}
#: What earmark.rundir may not import: the layers above it.
ABOVE = (
    "execution",
    "render",
    "decisions",
    "postprocess",
    "cli",
    "api",
    "file_scoring",
    "file_comparison",
    "verification",
)


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (p.relative_to(SRC).as_posix(), ast.parse(p.read_text("utf-8")))
        for p in sorted(SRC.rglob("*.py"))
    ]


def _file_name_literals(tree: ast.Module) -> list[tuple[int, str]]:
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in FILE_NAMES
    ]


def test_only_rundir_spells_run_folder_file_names() -> None:
    found = {}
    for name, tree in _modules():
        literals = _file_name_literals(tree)
        if literals and not name.startswith("rundir/") and name not in WRITERS:
            found[name] = literals
    unexpected = {name: hits for name, hits in found.items() if name not in ALLOWED}
    assert not unexpected, f"use earmark.rundir.layout constants instead: {unexpected}"
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"no longer spell a file name; drop them from ALLOWED: {stale}"


def test_layout_spells_each_name_once() -> None:
    trees = dict(_modules())
    spelled = [value for _, value in _file_name_literals(trees["rundir/layout.py"])]
    spelled += [value for _, value in _file_name_literals(trees["artefacts.py"])]
    assert sorted(spelled) == sorted(FILE_NAMES)
    for name, tree in trees.items():
        if name.startswith("rundir/") and name != "rundir/layout.py":
            assert _file_name_literals(tree) == [], name


def _imported(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_rundir_imports_nothing_above_it() -> None:
    """Lazy imports inside functions count too: they are edges of the layer graph."""
    for name, tree in _modules():
        if not name.startswith("rundir/"):
            continue
        above = sorted(
            module
            for module in _imported(tree)
            if any(module == f"earmark.{p}" or module.startswith(f"earmark.{p}.") for p in ABOVE)
        )
        assert above == [], f"{name} imports a higher layer: {above}"


def test_one_file_hash() -> None:
    """One file hash, artefacts.sha256_file: the engines and the corpus importers use it and
    keep no alias or copy of their own."""
    import earmark.corpus.sources.audio_paths as corpus_paths
    import earmark.engines.file_hashes as engine_hashes

    for module in (corpus_paths, engine_hashes):
        for name in ("sha256_file", "file_sha256"):
            assert getattr(module, name, sha256_file) is sha256_file, (module.__name__, name)


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 3])
def test_sha256_file_across_block_boundaries(tmp_path: Path, size: int) -> None:
    data = bytes(i % 251 for i in range(size))
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()


def test_base_language_by_hand() -> None:
    cases = {
        "zh-CN": "zh",
        "zh_Hant_TW": "zh",
        "GA-ie": "ga",
        "en": "en",
        "und": "und",
        "": "",
        None: "",
    }
    for tag, expected in cases.items():
        assert base_language(tag) == expected, tag
        assert base_language(base_language(tag)) == base_language(tag)  # idempotent


def test_engine_language_by_hand() -> None:
    cases = {"zh-CN": "zh", "ga_IE": "ga", "und": None, "mul": None, "zxx": None, "": None}
    for tag, expected in cases.items():
        assert engine_language(tag) == expected, tag
    assert engine_language(None) is None
