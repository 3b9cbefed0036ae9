"""The arms to compare, as compare holds them: `ArmData`, rows kept column-wise (one list per
field), because a comparison holds a dozen arms of 100,000 utterances each.

Reading arms from run folders and prediction files (the command line's arm specs) lives in
`earmark.rundir.arm_inputs`, above this layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NoReturn, cast

from earmark.errors import EarmarkError
from earmark.results.codec import JSONObject, JSONValue

#: (utterance id, repeat): the pairing key of a row.
RowKey = tuple[str, int]


@dataclass
class ArmData:
    """One system's outputs, one entry per (utterance, repeat), in file order."""

    name: str
    source: str
    keys: list[RowKey] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    hypotheses: list[str | None] = field(default_factory=list)
    languages: list[str | None] = field(default_factory=list)
    slices: list[tuple[str, ...]] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    clusters: list[str] = field(default_factory=list)
    audio_seconds: list[float | None] = field(default_factory=list)
    language_mismatch: list[bool] = field(default_factory=list)
    #: The results.json arm summary this arm came with, when there is one.
    recorded: JSONObject | None = None
    _lines: dict[RowKey, int] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.keys)

    def index(self) -> dict[RowKey, int]:
        """Position of each key (built once per call; keys are unique)."""
        return {key: pos for pos, key in enumerate(self.keys)}

    def add(self, record: Mapping[str, JSONValue], file: str, line: int) -> None:
        """Append one row, validating its fields (errors name the file, line and field)."""
        ident = record.get("id")
        repeat = record.get("repeat", 0)
        reference = record.get("reference")
        hypothesis = record.get("hypothesis")
        if (
            type(ident) is not str
            or not ident.strip()
            or type(repeat) is not int
            or repeat < 0
            or type(reference) is not str
            or (hypothesis is not None and type(hypothesis) is not str)
        ):
            self._invalid(record, file, line)
        assert isinstance(ident, str) and isinstance(reference, str) and isinstance(repeat, int)
        assert hypothesis is None or isinstance(hypothesis, str)
        key = (ident, repeat)
        if key in self._lines:
            raise EarmarkError(
                f"duplicate row for id {ident!r} repeat {repeat} in arm {self.name!r} "
                f"(first on line {self._lines[key]})",
                file=file,
                line=line,
                field="id",
            )
        slices = _slices(record.get("slices") or (), file, line)
        language = record.get("language") or None
        status = record.get("status")
        cluster = record.get("clip") or record.get("cluster")
        seconds = record.get("audio_seconds", record.get("duration"))
        self._lines[key] = line
        self.keys.append(key)
        self.references.append(reference)
        self.hypotheses.append(hypothesis)
        self.languages.append(language if type(language) is str else None)
        self.slices.append(slices)
        if type(status) is not str:
            status = "ok" if hypothesis is not None else "missing_hypothesis"
        self.statuses.append(status)
        self.clusters.append(cluster if type(cluster) is str and cluster else ident)
        self.audio_seconds.append(
            float(seconds)
            if isinstance(seconds, int | float) and type(seconds) is not bool
            else None
        )
        self.language_mismatch.append(bool(record.get("language_mismatch")))

    @staticmethod
    def _invalid(record: Mapping[str, JSONValue], file: str, line: int) -> NoReturn:
        ident, repeat = record.get("id"), record.get("repeat", 0)
        if not isinstance(ident, str) or not ident.strip():
            raise EarmarkError("missing or empty id", file=file, line=line, field="id")
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
            raise EarmarkError(
                f"expected a non-negative integer, got {repeat!r}",
                file=file,
                line=line,
                field="repeat",
            )
        if not isinstance(record.get("reference"), str):
            raise EarmarkError("expected a string", file=file, line=line, field="reference")
        raise EarmarkError("expected a string or null", file=file, line=line, field="hypothesis")


def _slices(value: JSONValue | tuple[()], file: str, line: int) -> tuple[str, ...]:
    """A row's slices: a list of names, or one string of names split at `,` or `;`."""
    if type(value) is list and all(type(s) is str for s in value):
        return tuple(cast("list[str]", value))
    if isinstance(value, str):
        return tuple(s for s in value.replace(";", ",").split(",") if s)
    if value != ():
        raise EarmarkError("expected a list of strings", file=file, line=line, field="slices")
    return ()
