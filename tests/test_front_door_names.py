"""The front door's names never collide with a submodule's: importing `earmark.X` binds the
module to `earmark.X`, which would replace a function of that name (it happened once, when
the score-a-file module was named `score_file`; `run`, `compare` and `report` were both
until their packages were renamed `execution`, `comparison` and `render`)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import earmark

SRC = Path(earmark.__file__).parent


def test_no_front_door_name_is_also_a_submodule() -> None:
    submodules = {p.stem for p in SRC.glob("*.py")} | {p.name for p in SRC.iterdir() if p.is_dir()}
    assert set(earmark.__all__) & submodules == set()


def test_the_verbs_stay_callable_after_every_package_is_imported() -> None:
    packages = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").is_file())
    code = (
        "import earmark, importlib\n"
        f"for name in {packages!r}:\n"
        "    importlib.import_module('earmark.' + name)\n"
        "for name in earmark.__all__[1:]:\n"
        "    assert callable(getattr(earmark, name)), name\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert importlib.import_module("earmark.file_scoring").CHUNK_ROWS > 0
