"""The manifest data model: one utterance per JSONL row, plus a sidecar of corpus metadata.

Shaped after lhotse's supervision segments: the fields a scorer needs, a `custom` escape
hatch for anything else. Reading and validation live in `earmark.corpus.manifest`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from earmark.results.codec import JSONValue


@dataclass(frozen=True)
class Source:
    """Where a row came from. `licence` is an assertion copied from the publisher."""

    dataset: str | None = None
    config: str | None = None
    split: str | None = None
    revision: str | None = None
    licence: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class Utterance:
    """One manifest row.

    `audio` is relative to an audio root (absolute paths and `..` escapes are refused on
    load). `start`/`end` (seconds) cut a segment out of a longer file (Kaldi `segments`).
    `text_id` groups recordings of the same sentence (FLEURS repeats sentences).
    """

    id: str
    audio: str
    text: str
    language: str
    speaker: str | None = None
    slices: tuple[str, ...] = ()
    duration: float | None = None
    sha256: str | None = None
    source: Source | None = None
    text_id: str | None = None
    start: float | None = None
    end: float | None = None
    custom: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        row: dict[str, JSONValue] = {
            "id": self.id,
            "audio": self.audio,
            "text": self.text,
            "language": self.language,
        }
        if self.speaker is not None:
            row["speaker"] = self.speaker
        if self.slices:
            row["slices"] = list(self.slices)
        for key in ("duration", "sha256", "text_id", "start", "end"):
            value = getattr(self, key)
            if value is not None:
                row[key] = value
        if self.source is not None:
            row["source"] = self.source.to_dict()
        if self.custom:
            row["custom"] = self.custom
        return row

    def to_json(self) -> str:
        """Canonical row bytes: sorted keys, no extra whitespace, UTF-8 kept as is."""
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class CorpusMeta:
    """The `<manifest>.meta.json` sidecar. The licence gate reads `licence` and
    `consent_basis`; redistribution flags decide whether results may be marked public."""

    dataset: str
    licence: str | None
    consent_basis: str | None
    redistribute_audio: bool = False
    redistribute_transcripts: bool = False
    url: str | None = None
    creator: str | None = None
    created: str | None = None
    selection_rule: str | None = None
    revision: str | None = None
    notes: str | None = None
    extra: dict[str, JSONValue] = field(default_factory=dict)
    #: "required": every row must say where it came from (`source` with a dataset and a
    #: declared licence), and `earmark run` / `manifest validate` refuse a row without it.
    #: None: rows may carry `source`; it is not required.
    row_provenance: str | None = None
    #: "required": `earmark run` refuses an arm whose model licence is not declared in its
    #: settings (`licence=`, `licence_source=`) before anything runs
    #: (`earmark.execution.licence_gate`). None: the licence is checked by `decide` only.
    model_licence: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        data: dict[str, JSONValue] = asdict(self)
        if not data["extra"]:
            data.pop("extra")
        for key in ("row_provenance", "model_licence"):
            if data[key] is None:
                data.pop(key)
        return data
