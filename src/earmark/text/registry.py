"""Normalisers by versioned name.

A name is frozen forever: `zh-eval-v1` means the same transformation in every release,
pinned by golden files. New behaviour gets a new name (`zh-eval-v2`), so old results stay
comparable with old results and never silently change meaning.

The built-in normalisers register themselves when their module is imported; this module
imports them on the first lookup, so `import earmark.text` stays cheap.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import TypeVar

from earmark.errors import EarmarkError
from earmark.text.base import Normalizer

NormalizerFactory = Callable[[], Normalizer]
F = TypeVar("F", bound=NormalizerFactory)

_BUILTIN_MODULES = (
    "earmark.text.blasbench_ga_v1",
    "earmark.text.mmv_cer_v1",
    "earmark.text.none",
    "earmark.text.crude_v1",
    "earmark.text.crude_delete_v1",
    "earmark.text.crude_char_v1",
    "earmark.text.en_v1",
    "earmark.text.ga_v1",
    "earmark.text.zh_eval_v1",
    "earmark.text.zh_itn_v1",
)
#: A built-in normaliser's name -> its module (`en-v1` lives in `earmark.text.en_v1`; a test
#: pins it), so a lookup imports the one module it needs: `earmark score`'s self-probes
#: need five of the ten.
_BUILTIN_MODULE_OF = {m.rsplit(".", 1)[1].replace("_", "-"): m for m in _BUILTIN_MODULES}
_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
_UNITS = frozenset({"word", "char"})

_registered: dict[str, Normalizer] = {}


def register(factory: F) -> F:
    """Register the normaliser `factory()` builds under its `name`; usable as a class decorator.

    Normalisers are immutable, so one instance serves every caller. Registering a
    different implementation under a taken name is refused: names are frozen.
    """
    instance = factory()
    _check_contract(instance)
    home = _BUILTIN_MODULE_OF.get(instance.name)
    if home is not None and type(instance).__module__ != home:
        importlib.import_module(home)  # a built-in's name is taken even before it is loaded
    existing = _registered.get(instance.name)
    if existing is not None and _qualified(existing) != _qualified(instance):
        raise EarmarkError(
            f"normaliser name {instance.name!r} is already taken by {_qualified(existing)}",
            hint="a changed normaliser needs a new versioned name, e.g. 'zh-eval-v2'",
        )
    _registered[instance.name] = instance
    return factory


def get_normalizer(name: str) -> Normalizer:
    """The normaliser registered as `name`; an unknown name lists the known ones."""
    found = _registered.get(name)
    if found is not None:
        return found
    module = _BUILTIN_MODULE_OF.get(name)
    if module is not None:
        importlib.import_module(module)
    else:
        _load_builtins()
    try:
        return _registered[name]
    except KeyError:
        known = ", ".join(available_normalizers())
        raise EarmarkError(
            f"unknown normaliser {name!r}; known normalisers: {known}",
            field="normalizer",
            hint="`earmark normalizers` lists them with their views",
        ) from None


def available_normalizers() -> list[str]:
    """Registered normaliser names, sorted."""
    _load_builtins()
    return sorted(_registered)


def normalize_text(name: str, text: str) -> dict[str, str | None]:
    """Every view of one text under normaliser `name` (for the CLI and docs).

    Pair-dependent views (zh-eval-v1 `script_normalized`) treat the text as its own
    reference; a view that is unavailable is `None`.
    """
    pair = get_normalizer(name).normalize_pair(text, text)
    return {view: rendered.reference for view, rendered in pair.items()}


def _qualified(normalizer: Normalizer) -> str:
    cls = type(normalizer)
    return f"{cls.__module__}.{cls.__qualname__}"


def _load_builtins() -> None:
    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


def _check_contract(normalizer: Normalizer) -> None:
    """Refuse a normaliser whose declared shape the scorer could not rely on."""
    problems: list[str] = []
    if not isinstance(normalizer, Normalizer):
        problems.append("does not implement the Normalizer protocol")
    elif not _NAME.match(normalizer.name):
        problems.append(f"name {normalizer.name!r} is not lower-case letters, digits, '-', '.'")
    elif not normalizer.views or normalizer.views[0] != "raw":
        problems.append("its first view must be 'raw'")
    elif len(set(normalizer.views)) != len(normalizer.views):
        problems.append("its view names repeat")
    elif normalizer.primary_view not in normalizer.views:
        problems.append(f"primary view {normalizer.primary_view!r} is not one of its views")
    elif not normalizer.units or not set(normalizer.units) <= _UNITS:
        problems.append(f"units {normalizer.units!r} must be a non-empty subset of word, char")
    if problems:
        raise EarmarkError(f"cannot register normaliser {normalizer!r}: {problems[0]}")
