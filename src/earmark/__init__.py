"""earmark: an open, reproducible, language-aware evaluation harness for speech recognition.

The front door: `earmark.wer`, `earmark.cer` and `earmark.score` score lists of strings;
`earmark.score_rows` scores rows in memory (ids, references, hypotheses, languages) into
the typed results `earmark.score_file` builds from a file; `earmark.run`,
`earmark.compare`, `earmark.verify`, `earmark.decide`, `earmark.report`,
`earmark.leaderboard`, `earmark.multispeaker` and the rest are the verbs of `earmark.api`,
the layer the subcommands of the same names call (`score_file` is `earmark score`, `gap`
is `earmark compare --gap`, `manifest_select` is `earmark manifest select`,
`import_corpus` is `earmark import`). Each returns typed results built in memory.

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
    from earmark.api.checking import verify as verify
    from earmark.api.comparing import compare as compare
    from earmark.api.comparing import gap as gap
    from earmark.api.corpora import demo as demo
    from earmark.api.corpora import fetch as fetch
    from earmark.api.corpora import import_corpus as import_corpus
    from earmark.api.deciding import decide as decide
    from earmark.api.example_files import examples as examples
    from earmark.api.manifests import manifest_contamination as manifest_contamination
    from earmark.api.manifests import manifest_hash as manifest_hash
    from earmark.api.manifests import manifest_init_sidecar as manifest_init_sidecar
    from earmark.api.manifests import manifest_leakage as manifest_leakage
    from earmark.api.manifests import manifest_select as manifest_select
    from earmark.api.manifests import manifest_validate as manifest_validate
    from earmark.api.pairs import CorpusScore as CorpusScore
    from earmark.api.pairs import cer as cer
    from earmark.api.pairs import score as score
    from earmark.api.pairs import wer as wer
    from earmark.api.rendering import leaderboard as leaderboard
    from earmark.api.rendering import report as report
    from earmark.api.running import plan_freeze as plan_freeze
    from earmark.api.running import plan_show as plan_show
    from earmark.api.running import run as run
    from earmark.api.scoring import score_file as score_file
    from earmark.api.scoring import score_rows as score_rows
    from earmark.api.speakers import multispeaker as multispeaker

#: Public name -> the module of `earmark.api` that defines it, imported on first access.
#: (`earmark.api.postprocessing.postprocess` is not named here: `earmark.postprocess`
#: is the package.)
_LAZY = {
    "wer": "pairs",
    "cer": "pairs",
    "score": "pairs",
    "CorpusScore": "pairs",
    "score_file": "scoring",
    "score_rows": "scoring",
    "run": "running",
    "plan_freeze": "running",
    "plan_show": "running",
    "compare": "comparing",
    "gap": "comparing",
    "verify": "checking",
    "decide": "deciding",
    "report": "rendering",
    "leaderboard": "rendering",
    "multispeaker": "speakers",
    "manifest_validate": "manifests",
    "manifest_hash": "manifests",
    "manifest_select": "manifests",
    "manifest_init_sidecar": "manifests",
    "manifest_leakage": "manifests",
    "manifest_contamination": "manifests",
    "import_corpus": "corpora",
    "fetch": "corpora",
    "demo": "corpora",
    "examples": "example_files",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'earmark' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"earmark.api.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
