"""OpenAI's own `EnglishTextNormalizer`, loaded by file path as the oracle for en-v1.

`import whisper` would import torch (its `__init__` loads the model code), so the two
files `whisper/normalizers/basic.py` and `english.py` (with `english.json`) are loaded
as a private package instead. Install them with `pip install --no-deps openai-whisper`
(they need `regex` and `more-itertools`), or point `EARMARK_WHISPER_NORMALIZERS` at an
unpacked `whisper/normalizers` folder.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path

_PACKAGE = "_openai_whisper_normalizers"


def normalizers_folder() -> Path | None:
    """The folder holding OpenAI's `english.py`, or None when openai-whisper is absent."""
    override = os.environ.get("EARMARK_WHISPER_NORMALIZERS")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("whisper")  # locates without running __init__
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "normalizers"
        if (folder / "english.py").is_file() and (folder / "english.json").is_file():
            return folder
    return None  # another package named `whisper` (e.g. graphite's)


def load_oracle() -> tuple[Callable[[str], str] | None, str]:
    """OpenAI's `EnglishTextNormalizer()` and where it came from, or (None, why not)."""
    folder = normalizers_folder()
    if folder is None:
        return None, "openai-whisper is not installed (pip install --no-deps openai-whisper)"
    if _PACKAGE not in sys.modules:
        package = types.ModuleType(_PACKAGE)
        package.__path__ = [str(folder)]
        sys.modules[_PACKAGE] = package
    try:
        spec = importlib.util.spec_from_file_location(f"{_PACKAGE}.english", folder / "english.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except ImportError as exc:  # regex or more-itertools missing
        return None, f"OpenAI's normaliser at {folder} cannot be imported: {exc}"
    normalizer: Callable[[str], str] = module.EnglishTextNormalizer()
    return normalizer, str(folder)
