"""One output folder of `earmark run` or `earmark score`, opened by path and read on demand.

`RunFolder` is how report, decide, leaderboard and verify reach a folder's files: it
knows where each file lies (`layout`), which are optional (plan, provenance, compare and
the per-arm records exist only for runs) and how each is checked, and returns the typed
objects of `earmark.results` (`Results`, `PredictionRow`, `ModelInfo`, `Resources`,
`Comparison`) or, for records that have no typed model yet (plan, provenance, egress),
the JSON object as written. Nothing is read until asked for and nothing is cached: a
frozen handle that is cheap to pass to a forked worker.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue
from earmark.rundir import layout
from earmark.rundir.json_records import read_json_record
from earmark.rundir.predictions import read_prediction_records, read_prediction_rows
from earmark.rundir.provenance import arm_verifiable, read_provenance
from earmark.rundir.results_file import check_predictions_file, load_results

if TYPE_CHECKING:
    from earmark.results import Comparison, ModelInfo, PredictionRow, Resources, Results
    from earmark.results.record import Record

    R = TypeVar("R", bound=Record)

#: The compare record's schema family (`earmark.compare/1`, ...).
COMPARE_SCHEMA_PREFIX = "earmark.compare/"


def read_compare_record(path: str | os.PathLike[str]) -> dict[str, JSONValue]:
    """A `compare.json` as written (schema family checked), given as the file or its
    directory; `read_compare` gives the typed `Comparison`."""
    p = _compare_path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        raise EarmarkError("compare file not found", file=str(p)) from None
    except json.JSONDecodeError as exc:
        raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(p), line=exc.lineno) from None
    schema = data.get("schema", "") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not str(schema).startswith(COMPARE_SCHEMA_PREFIX):
        raise EarmarkError(f"unsupported compare schema {schema!r}", file=str(p), field="schema")
    record: dict[str, JSONValue] = data
    return record


def read_compare(path: str | os.PathLike[str]) -> Comparison:
    """A `compare.json` (schema `earmark.compare/1`) as `earmark.results.Comparison`, given
    as the file or its directory; errors name the file and the JSON path."""
    from earmark.results.comparison import Comparison

    p = _compare_path(path)
    return _typed(Comparison, read_compare_record(p), p)


def _compare_path(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    return p / layout.COMPARE if p.is_dir() else p


def _typed(cls: type[R], record: Mapping[str, JSONValue], path: Path) -> R:
    """`cls.from_dict(record)`, an error naming the file it came from."""
    try:
        return cls.from_dict(record)
    except EarmarkError as exc:
        if exc.file is None:
            exc.file = str(path)
        raise


@dataclass(frozen=True)
class RunFolder:
    """A run or score folder by path; each method reads one of its files."""

    path: Path

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> RunFolder:
        """The folder itself, or the folder of a file named inside it (`RUN/results.json`)."""
        p = Path(path)
        return cls(p if p.is_dir() else p.parent)

    # Where each file lies.

    @property
    def plan_file(self) -> Path:
        return self.path / layout.PLAN

    @property
    def predictions_file(self) -> Path:
        return self.path / layout.PREDICTIONS

    @property
    def results_file(self) -> Path:
        return self.path / layout.RESULTS

    @property
    def provenance_file(self) -> Path:
        return self.path / layout.PROVENANCE

    @property
    def compare_file(self) -> Path:
        return self.path / layout.COMPARE

    @property
    def listing_file(self) -> Path:
        return self.path / layout.ARTEFACTS

    def arm_file(self, arm: str, name: str) -> Path:
        """`arms/<arm>/<name>`: one of `layout.ARM_MODEL`, `ARM_RESOURCES`, `ARM_EGRESS`."""
        return layout.arm_folder(self.path, arm) / name

    def arm_folders(self) -> list[str]:
        """Names of the arms that have an `arms/<name>/` folder, sorted (none for a score)."""
        root = self.path / layout.ARMS
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))

    # The figures and rows.

    def results_record(self) -> dict[str, JSONValue]:
        """results.json as written (schema id checked); see `checked_results_record`."""
        return load_results(self.results_file)

    def checked_results_record(self) -> dict[str, JSONValue]:
        """results.json, refused unless predictions.jsonl is the file it names by hash: a
        report of figures beside rows they were not computed from would look sound."""
        record = self.results_record()
        check_predictions_file(self.path, record)
        return record

    def results(self) -> Results:
        """results.json as the typed model (`earmark.results.Results`)."""
        from earmark.results import Results

        self.results_record()  # the same refusals and messages as every other reader
        return Results.from_json(self.results_file.read_text("utf-8"), file=str(self.results_file))

    def prediction_records(self) -> list[dict[str, JSONValue]]:
        """Every row of predictions.jsonl as written ([] when there is none)."""
        return read_prediction_records(self.predictions_file)

    def prediction_rows(self) -> list[PredictionRow]:
        """Every row of predictions.jsonl as `earmark.results.PredictionRow`."""
        return read_prediction_rows(self.predictions_file)

    # Who ran what.

    def plan(self) -> dict[str, JSONValue] | None:
        """The frozen plan record (`sha256`, `plan`, ...); None for a score folder."""
        return read_json_record(self.plan_file)

    def provenance(self) -> dict[str, JSONValue] | None:
        """provenance.json; None for a score folder."""
        return read_provenance(self.path)

    def verifiable(self, arm: str | None = None) -> tuple[bool, list[str]]:
        """(verifiable, what is missing) by seed 000's rule, for one arm when given."""
        return arm_verifiable(self.provenance(), arm)

    def arm_record(self, arm: str, name: str) -> dict[str, JSONValue] | None:
        """One of an arm's records as written; None when the arm has none."""
        return read_json_record(self.arm_file(arm, name))

    def model(self, arm: str) -> ModelInfo | None:
        """`arms/<arm>/model.json`: what the engine loaded (revision, hashes, runtime)."""
        from earmark.results import ModelInfo

        record = self.arm_record(arm, layout.ARM_MODEL)
        return (
            None
            if record is None
            else _typed(ModelInfo, record, self.arm_file(arm, layout.ARM_MODEL))
        )

    def resources(self, arm: str) -> Resources | None:
        """`arms/<arm>/resources.json`: timing, threads, memory of one arm."""
        from earmark.results import Resources

        record = self.arm_record(arm, layout.ARM_RESOURCES)
        if record is None:
            return None
        return _typed(Resources, record, self.arm_file(arm, layout.ARM_RESOURCES))

    def egress(self, arm: str) -> dict[str, JSONValue] | None:
        """`arms/<arm>/egress.json`: the network guard's policy, attempts and refusals."""
        return self.arm_record(arm, layout.ARM_EGRESS)

    # A comparison written into the folder.

    def compare_record(self) -> dict[str, JSONValue] | None:
        """compare.json as written, schema family checked; None when absent."""
        return read_compare_record(self.compare_file) if self.compare_file.exists() else None

    def comparison(self) -> Comparison | None:
        """compare.json as `earmark.results.Comparison`; None when absent."""
        return read_compare(self.compare_file) if self.compare_file.exists() else None
