"""earmark: an open, reproducible, language-aware evaluation harness for speech recognition.

The front door: `earmark.wer`, `earmark.cer` and `earmark.score` score lists of strings;
`earmark.score_file`, `earmark.run`, `earmark.compare`, `earmark.verify`,
`earmark.decide`, `earmark.report`, `earmark.leaderboard` and `earmark.multispeaker`
mirror the subcommands of the same names (`score_file` is `earmark score`).

>>> import earmark
>>> earmark.wer(["a b c", "hello world"], ["a x c", "hello"])
0.4

`import earmark` stays cheap on purpose: every name is imported on first use, and no
torch, transformers, ctranslate2, ray or pandas is imported here or on the scoring path
(tests pin this).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    # Static types of the lazy names (run, compare and report are also subpackages).
    from earmark.front_door.pairs import CorpusScore as CorpusScore
    from earmark.front_door.pairs import cer as cer
    from earmark.front_door.pairs import score as score
    from earmark.front_door.pairs import wer as wer
    from earmark.front_door.subcommands import decide as decide
    from earmark.front_door.subcommands import leaderboard as leaderboard
    from earmark.front_door.subcommands import multispeaker as multispeaker
    from earmark.front_door.subcommands import score_file as score_file
    from earmark.front_door.subcommands import verify as verify

#: Public name -> the module that defines it, imported on first access.
_LAZY = {
    "wer": "earmark.front_door.pairs",
    "cer": "earmark.front_door.pairs",
    "score": "earmark.front_door.pairs",
    "CorpusScore": "earmark.front_door.pairs",
    "score_file": "earmark.front_door.subcommands",
    "run": "earmark.front_door.subcommands",
    "compare": "earmark.front_door.subcommands",
    "verify": "earmark.front_door.subcommands",
    "decide": "earmark.front_door.subcommands",
    "report": "earmark.front_door.subcommands",
    "leaderboard": "earmark.front_door.subcommands",
    "multispeaker": "earmark.front_door.subcommands",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'earmark' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


class _CommandAndPackage:
    # `earmark.run`, `earmark.compare` and `earmark.report` are subcommand functions and
    # also the names of subpackages. Called, this is the function (whose docstring and
    # signature it shows); any other attribute is the subpackage's, so
    # `import earmark.run.runner as runner` and patching "earmark.report.html.X" work.

    __slots__ = ("_name",)
    _name: str

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    @property
    def __wrapped__(self) -> Any:
        """The function itself (`inspect.signature` and `help` follow it)."""
        module = importlib.import_module("earmark.front_door.subcommands")
        return getattr(module, self._name)

    @property
    def __name__(self) -> str:
        return self._name

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        doc: str | None = self.__wrapped__.__doc__
        return doc

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # `inspect` probing dunders: not the package's
            raise AttributeError(name)
        return getattr(importlib.import_module(f"earmark.{self._name}"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(importlib.import_module(f"earmark.{self._name}"), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(importlib.import_module(f"earmark.{self._name}"), name)

    def __repr__(self) -> str:
        return f"<function earmark.{self._name} (and package earmark.{self._name})>"


class _Earmark(types.ModuleType):
    """This package, keeping `run`/`compare`/`report` callable: importing a subpackage
    of the same name would otherwise rebind the name to the subpackage."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHARED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


_SHARED = ("run", "compare", "report")
for _name in _SHARED:
    globals()[_name] = _CommandAndPackage(_name)
sys.modules[__name__].__class__ = _Earmark
