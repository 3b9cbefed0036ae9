"""Importing an optional runtime, or saying in one line which extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from earmark.errors import MissingExtraError


def require(module: str, feature: str, extra: str) -> ModuleType:
    """Import `module`; if it (or something it needs) is missing, raise `MissingExtraError`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(feature, extra, module) from exc


def is_installed(module: str) -> bool:
    """Whether `module` can be found, without importing it."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
