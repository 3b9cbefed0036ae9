"""A folder's figures and rows as a pair: `results.json` naming `predictions.jsonl` by hash.

`results.json` (schema `earmark.results/1`, JSON Schema in `render/schema/results-1.json`)
is what a machine re-checks; it is written after predictions.jsonl and records that
file's SHA-256, so a reader can refuse figures that sit beside rows they were not
computed from (a rerun killed between its two writes). The schema is frozen: a change of
meaning is a new schema version, never an edit.

The producers hand over typed records (`earmark.results.ArmResult`); this module encodes
them, once. It stays light (no `earmark.results` at import): `earmark score` writes
through it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earmark import __version__
from earmark.artefacts import sha256_file
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_bytes, atomic_write_json, atomic_write_text
from earmark.records import require_regular_file
from earmark.rundir.bounds import refuse_long_rows
from earmark.rundir.layout import PREDICTIONS, RESULTS, RESULTS_MARKDOWN
from earmark.scoring.probes import ProbeResult, failed

if TYPE_CHECKING:
    from earmark.results.arm import ArmResult
    from earmark.results.codec import JSONObject, JSONValue

#: `earmark.results.RESULTS_SCHEMA`, spelled here so that writing stays light (a test pins
#: the two equal).
SCHEMA_ID = "earmark.results/1"


def build_results(
    arms: Mapping[str, ArmResult], probes: list[ProbeResult], **sections: JSONValue
) -> dict[str, JSONValue]:
    """Wrap the arms' typed results with schema id, version, time and the probe record,
    encoded as results.json writes them (the one place an arm becomes JSON). `sections`
    are the file's other JSON sections (inputs, corpus, plan, ...); None leaves one out.

    Every results file has an `arms` mapping (one entry for `earmark score`), so one
    reader serves scores, single runs and multi-arm runs alike."""
    return {
        "schema": SCHEMA_ID,
        "earmark_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "arms": {name: arm.to_dict() for name, arm in arms.items()},
        "probes": [p.to_dict() for p in probes],
        **{k: v for k, v in sections.items() if v is not None},
    }


def write_results(
    out_dir: str | os.PathLike[str],
    results: dict[str, JSONValue],
    records: Iterable[JSONObject] | None = None,
    *,
    probes: list[ProbeResult],
    markdown: str | None = None,
) -> dict[str, str]:
    """Write results.json (+ predictions.jsonl, results.md). Refuses when a probe failed:
    a scorer that fails its own known-good/known-bad checks must not publish numbers.

    Returns the SHA-256 of each file written, by its name in the folder: the caller
    hands them to `write_artefacts(known=...)`, which then need not read back what was
    hashed as it was written (results.json of 10,000 speakers is 26 MB)."""
    bad = failed(probes)
    if bad:
        names = "; ".join(f"{p.name} (expected {p.expected}, got {p.observed})" for p in bad)
        raise EarmarkError(
            f"scorer self-check failed, no results written: {names}",
            hint="this is a bug in earmark or its dependencies; please report it",
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    digests: dict[str, str] = {}
    if records is not None:
        lines = PredictionLines(records)
        digest, size = atomic_write_bytes(out / PREDICTIONS, lines)
        # Written after predictions.jsonl and naming its hash: a kill between the two
        # writes leaves an old results.json that readers can tell does not match.
        results["predictions"] = {
            "file": PREDICTIONS,
            "sha256": digest,
            "bytes": size,
            "rows": lines.rows,
        }
        digests[PREDICTIONS] = digest
    digests[RESULTS] = atomic_write_json(out / RESULTS, results)
    if markdown is not None:
        digests[RESULTS_MARKDOWN] = atomic_write_text(out / RESULTS_MARKDOWN, markdown)
    return digests


class PredictionLines:
    """predictions.jsonl, streamed: one line per record (keys sorted, UTF-8 as is), so the
    rows' records are never all in memory at once; counted as they pass, handed on in
    ~256 KiB blocks (one write and one hash update per block, not per row). orjson: ~5x
    json.dumps here."""

    BLOCK = 1 << 18

    def __init__(self, records: Iterable[JSONObject]) -> None:
        self._records = records
        self.rows = 0

    def __iter__(self) -> Iterator[bytes]:
        import orjson

        option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
        block: list[bytes] = []
        size = 0
        for record in self._records:
            line = orjson.dumps(record, option=option)
            block.append(line)
            size += len(line)
            self.rows += 1
            if size >= self.BLOCK:
                refuse_long_rows(block)  # never write a row every reader refuses
                yield b"".join(block)
                block, size = [], 0
        if block:
            refuse_long_rows(block)
            yield b"".join(block)


def check_predictions_file(run_dir: str | os.PathLike[str], results: JSONObject) -> None:
    """Refuse a predictions.jsonl that is not the one `results` was computed from.

    A results.json written before this record existed names no hash and passes; one
    that names a hash must see exactly those bytes (a rerun killed between its two
    writes leaves new predictions beside old figures)."""
    recorded = results.get("predictions")
    if not isinstance(recorded, dict) or not recorded.get("sha256"):
        return
    path = Path(run_dir) / PREDICTIONS  # never a name read from the file itself
    if not path.is_file():
        raise EarmarkError(
            "results.json names a predictions file that is missing",
            file=str(path),
            hint="rerun the command that wrote this folder",
        )
    digest = sha256_file(path)
    if digest != recorded["sha256"]:
        raise EarmarkError(
            f"{path.name} is not the file results.json was computed from "
            f"(sha256 {digest[:12]}…, recorded {str(recorded['sha256'])[:12]}…)",
            file=str(path),
            hint="a write was interrupted or the file was edited; rerun the command that "
            "wrote this folder",
        )


def results_path(path: str | os.PathLike[str]) -> Path:
    """The results file a user named: a folder's `results.json`, or the file itself."""
    p = Path(path)
    return p / RESULTS if p.is_dir() else p


def load_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    """results.json (given as the file or its folder) as written, its schema id checked.

    A missing, empty (an interrupted write) or invalid file is an `EarmarkError`."""
    p = results_path(path)
    require_regular_file(p)
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        raise EarmarkError("results file not found", file=str(p)) from None
    except UnicodeDecodeError:
        raise EarmarkError("results file is not valid UTF-8", file=str(p)) from None
    if not text.strip():
        raise EarmarkError(
            "results file is empty (a write was interrupted)",
            file=str(p),
            hint="rerun the command that wrote this folder",
        )
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(p), line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
        raise EarmarkError(f"invalid JSON ({type(exc).__name__})", file=str(p)) from None
    if not isinstance(data, dict):
        raise EarmarkError(
            f"expected a JSON object, found a JSON {_json_kind(data)}",
            file=str(p),
            hint="this is not a results.json earmark wrote",
        )
    if data.get("schema") != SCHEMA_ID:
        raise EarmarkError(
            f"unsupported results schema {data.get('schema')!r}", file=str(p), field="schema"
        )
    return data


def _json_kind(value: object) -> str:
    """The JSON name of a decoded value's type, for an error that says what was found."""
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "null" if value is None else "number"
