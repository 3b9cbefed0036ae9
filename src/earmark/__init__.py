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
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    # Static types of the lazy names.
    from earmark.api.pairs import CorpusScore as CorpusScore
    from earmark.api.pairs import cer as cer
    from earmark.api.pairs import score as score
    from earmark.api.pairs import wer as wer
    from earmark.api.subcommands import compare as compare
    from earmark.api.subcommands import decide as decide
    from earmark.api.subcommands import leaderboard as leaderboard
    from earmark.api.subcommands import multispeaker as multispeaker
    from earmark.api.subcommands import report as report
    from earmark.api.subcommands import run as run
    from earmark.api.subcommands import score_file as score_file
    from earmark.api.subcommands import verify as verify

#: Public name -> the module that defines it, imported on first access.
_LAZY = {
    "wer": "earmark.api.pairs",
    "cer": "earmark.api.pairs",
    "score": "earmark.api.pairs",
    "CorpusScore": "earmark.api.pairs",
    "score_file": "earmark.api.subcommands",
    "run": "earmark.api.subcommands",
    "compare": "earmark.api.subcommands",
    "verify": "earmark.api.subcommands",
    "decide": "earmark.api.subcommands",
    "report": "earmark.api.subcommands",
    "leaderboard": "earmark.api.subcommands",
    "multispeaker": "earmark.api.subcommands",
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
