"""Load the arms to compare: a run directory, one arm of a multi-arm run, or a predictions file.

An arm spec on the command line is one of

- `RUN_DIR` — every arm of an `earmark run` directory, or the one arm of an `earmark
  score` output directory (its `predictions.jsonl` is read);
- `RUN_DIR#ARM` — one arm of a multi-arm run (`#`, not `:`, so Windows drive letters and
  URLs stay unambiguous; a path that exists with a `#` in its name is taken whole);
- `FILE` — a predictions file: JSONL rows with `id`, `reference`, `hypothesis` (null when
  missing) and optionally `arm`, `repeat`, `language`, `slices`, `status`,
  `audio_seconds`, `language_mismatch`, `clip`/`cluster`; CSV/TSV go through
  `earmark.scoring.readers`;
- `NAME=SPEC` — any of the above under another arm name (two score directories would
  otherwise both be called by their folder name).

Rows are kept column-wise (one list per field), because a comparison holds a dozen arms
of 100,000 utterances each.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.records import json_objects, read_records

#: (utterance id, repeat): the pairing key of a row.
RowKey = tuple[str, int]

_LABEL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._+-]*)=(.+)$")
_JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


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
    recorded: dict[str, Any] | None = None
    _lines: dict[RowKey, int] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.keys)

    def index(self) -> dict[RowKey, int]:
        """Position of each key (built once per call; keys are unique)."""
        return {key: pos for pos, key in enumerate(self.keys)}

    def add(self, record: dict[str, Any], file: str, line: int) -> None:
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
        assert isinstance(ident, str) and isinstance(reference, str)
        key = (ident, int(repeat))
        if key in self._lines:
            raise EarmarkError(
                f"duplicate row for id {ident!r} repeat {repeat} in arm {self.name!r} "
                f"(first on line {self._lines[key]})",
                file=file,
                line=line,
                field="id",
            )
        slices = record.get("slices") or ()
        if type(slices) is not list or not all(type(s) is str for s in slices):
            if isinstance(slices, str):
                slices = [s for s in slices.replace(";", ",").split(",") if s]
            elif slices != ():
                raise EarmarkError(
                    "expected a list of strings", file=file, line=line, field="slices"
                )
        language = record.get("language") or None
        status = record.get("status")
        cluster = record.get("clip") or record.get("cluster")
        seconds = record.get("audio_seconds", record.get("duration"))
        self._lines[key] = line
        self.keys.append(key)
        self.references.append(reference)
        self.hypotheses.append(hypothesis)
        self.languages.append(language if type(language) is str else None)
        self.slices.append(tuple(slices))
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
    def _invalid(record: dict[str, Any], file: str, line: int) -> None:
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


def _split_spec(spec: str) -> tuple[str | None, Path, str | None]:
    """(label, path, arm) from `[NAME=]PATH[#ARM]`."""
    label = None
    match = _LABEL.match(spec)
    if match and not Path(spec).exists():
        label, spec = match.group(1), match.group(2)
    if Path(spec).exists() or "#" not in spec:
        return label, Path(spec), None
    path, _, arm = spec.rpartition("#")
    return label, Path(path), arm or None


def _rows_from_delimited(path: Path) -> list[tuple[int, dict[str, Any]]]:
    from earmark.scoring.readers import read_pairs

    read = read_pairs(path)
    return [
        (
            number,
            {
                "id": r.id,
                "reference": r.reference,
                "hypothesis": r.hypothesis,
                "language": r.language,
                "slices": list(r.slices),
                "status": r.status,
                "clip": r.cluster,
            },
        )
        for number, r in enumerate(read.rows, start=2)
    ]


def _recorded_arms(folder: Path) -> dict[str, Any]:
    path = folder / "results.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    arms = data.get("arms") if isinstance(data, dict) else None
    return arms if isinstance(arms, dict) else {}


def load_arms(spec: str) -> list[ArmData]:
    """Every arm a spec names (one, or all arms of a run directory)."""
    label, path, wanted = _split_spec(spec)
    recorded: dict[str, Any] = {}
    if path.is_dir():
        recorded = _recorded_arms(path)
        file = path / "predictions.jsonl"
        if not file.is_file():
            raise EarmarkError(
                "no predictions.jsonl in this directory",
                file=str(path),
                hint="give an `earmark run` or `earmark score` output directory, or a file",
            )
        default_name = next(iter(recorded)) if len(recorded) == 1 else path.name
    elif path.is_file():
        file = path
        default_name = path.stem
    else:
        raise EarmarkError("no such file or directory", file=str(path))
    records = (
        list(json_objects(read_records(file), str(file)))
        if file.suffix.lower() in _JSONL_SUFFIXES or file.name == "predictions.jsonl"
        else _rows_from_delimited(file)
    )
    arms: dict[str, ArmData] = {}
    for line, record in records:
        arm_field = record.get("arm")
        name = arm_field if isinstance(arm_field, str) and arm_field else default_name
        if wanted is not None and name != wanted:
            continue
        arm = arms.get(name)
        if arm is None:
            arm = arms[name] = ArmData(name=name, source=str(file), recorded=recorded.get(name))
        arm.add(record, str(file), line)
    if wanted is not None and wanted not in arms:
        names = sorted({str(r.get("arm") or default_name) for _, r in records})
        raise EarmarkError(
            f"no arm {wanted!r} in {file}",
            file=str(file),
            field="arm",
            hint="arms there: " + (", ".join(names) or "(none)"),
        )
    if not arms:
        raise EarmarkError("no prediction rows", file=str(file))
    if label is not None:
        if len(arms) > 1:
            raise EarmarkError(
                f"{spec!r} names {len(arms)} arms; a NAME= label needs exactly one",
                hint="select one arm with RUN_DIR#ARM",
            )
        (only,) = arms.values()
        only.name = label
        return [only]
    return list(arms.values())


def load_arm_specs(specs: list[str], *, jobs: int = 1) -> dict[str, ArmData]:
    """Arms by name from several specs; a name given twice is refused, not overwritten.

    `jobs` > 1 reads several files at once (forked workers); the result is the same."""
    from earmark.compare.parallel import fork_map

    out: dict[str, ArmData] = {}
    for loaded in fork_map(load_arms, specs, jobs):
        for arm in loaded:
            if arm.name in out:
                raise EarmarkError(
                    f"two arms are named {arm.name!r} ({out[arm.name].source} and {arm.source})",
                    hint="rename one with NAME=SPEC, e.g. q8=runs/q8",
                )
            out[arm.name] = arm
    return out
