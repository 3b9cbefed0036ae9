"""Sidecar metadata for formats that carry no licence of their own (Kaldi, NeMo, lhotse,
local datasets): whatever the user declares, nothing invented."""

from __future__ import annotations

from earmark.corpus.model import CorpusMeta


def declared_meta(
    dataset: str,
    *,
    licence: str | None,
    consent_basis: str | None,
    revision: str | None = None,
    redistribute_audio: bool = False,
    redistribute_transcripts: bool = False,
    selection_rule: str | None = None,
) -> CorpusMeta:
    return CorpusMeta(
        dataset=dataset,
        licence=licence,
        consent_basis=consent_basis,
        redistribute_audio=redistribute_audio,
        redistribute_transcripts=redistribute_transcripts,
        selection_rule=selection_rule,
        revision=revision,
    )
