"""Importers: each turns one corpus layout on disk into an earmark manifest + sidecar.

Every importer is `import_<name>(path, out_manifest, **options) -> ImportReport`; the
report counts written rows and lists every skipped row with a reason code.
"""

from __future__ import annotations

from collections.abc import Callable

from earmark.corpus.sources.common_voice import import_common_voice
from earmark.corpus.sources.fleurs import import_fleurs
from earmark.corpus.sources.hf_datasets import import_hf_datasets
from earmark.corpus.sources.kaldi import import_kaldi
from earmark.corpus.sources.lhotse_jsonl import import_lhotse
from earmark.corpus.sources.nemo import import_nemo
from earmark.corpus.sources.report import ImportReport

#: Source name (as typed after `earmark import`) -> importer.
IMPORTERS: dict[str, Callable[..., ImportReport]] = {
    "fleurs": import_fleurs,
    "common-voice": import_common_voice,
    "kaldi": import_kaldi,
    "nemo": import_nemo,
    "lhotse": import_lhotse,
    "hf-datasets": import_hf_datasets,
}
