"""The front door's names never collide with a submodule's: importing `earmark.X` binds the
module to `earmark.X`, which would replace a function of that name (it happened once, when
the score-a-file module was named `score_file`). Only `run`, `compare` and `report` are both,
and the package keeps those callable on purpose."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import earmark

SRC = Path(earmark.__file__).parent
BOTH = {"run", "compare", "report"}


def test_no_front_door_name_is_also_a_submodule_except_the_three_kept_callable() -> None:
    submodules = {p.stem for p in SRC.glob("*.py")} | {p.name for p in SRC.iterdir() if p.is_dir()}
    assert set(earmark.__all__) & submodules == BOTH


def test_the_shared_names_stay_callable_after_their_packages_are_imported() -> None:
    code = (
        "import earmark, importlib\n"
        "for name in ('run', 'compare', 'report'):\n"
        "    importlib.import_module('earmark.' + name)\n"
        "    assert callable(getattr(earmark, name)), name\n"
        "importlib.import_module('earmark.file_scoring')\n"
        "assert callable(earmark.score_file)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert importlib.import_module("earmark.file_scoring").CHUNK_ROWS > 0
