"""The versioned results file (`earmark.results/1`) and the per-utterance predictions file.

`results.json` is what a machine re-checks; its JSON Schema ships in the package
(`report/schema/results-1.json`). The schema is frozen: a change of meaning is a new
schema version, never an edit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from earmark import __version__
from earmark.errors import EarmarkError
from earmark.scoring.probes import ProbeResult, failed

SCHEMA_ID = "earmark.results/1"


def results_schema() -> dict[str, Any]:
    """The JSON Schema of `results.json` (draft 2020-12)."""
    text = resources.files("earmark.report").joinpath("schema/results-1.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def build_results(
    arms: dict[str, dict[str, Any]], probes: list[ProbeResult], **sections: Any
) -> dict[str, Any]:
    """Wrap per-arm score summaries with schema id, version, time and the probe record.

    Every results file has an `arms` mapping (one entry for `earmark score`), so one
    reader serves scores, single runs and multi-arm runs alike."""
    return {
        "schema": SCHEMA_ID,
        "earmark_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "arms": arms,
        "probes": [p.to_dict() for p in probes],
        **{k: v for k, v in sections.items() if v is not None},
    }


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _atomic_write_records(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """predictions.jsonl, streamed: one line per record (keys sorted, UTF-8 as is), so the
    rows' records are never all in memory at once. orjson: ~5x json.dumps here."""
    import orjson

    option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as handle:
        handle.writelines(orjson.dumps(record, option=option) for record in records)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_results(
    out_dir: str | os.PathLike[str],
    results: dict[str, Any],
    records: Iterable[dict[str, Any]] | None = None,
    *,
    probes: list[ProbeResult],
    markdown: str | None = None,
) -> Path:
    """Write results.json (+ predictions.jsonl, results.md). Refuses when a probe failed:
    a scorer that fails its own known-good/known-bad checks must not publish numbers."""
    bad = failed(probes)
    if bad:
        names = "; ".join(f"{p.name} (expected {p.expected}, got {p.observed})" for p in bad)
        raise EarmarkError(
            f"scorer self-check failed, no results written: {names}",
            hint="this is a bug in earmark or its dependencies; please report it",
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if records is not None:
        _atomic_write_records(out / "predictions.jsonl", records)
    _atomic_write(out / "results.json", json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    if markdown is not None:
        _atomic_write(out / "results.md", markdown)
    return out / "results.json"


def load_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    p = Path(path)
    if p.is_dir():
        p = p / "results.json"
    try:
        data: dict[str, Any] = json.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        raise EarmarkError("results file not found", file=str(p)) from None
    except json.JSONDecodeError as exc:
        raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(p), line=exc.lineno) from None
    if data.get("schema") != SCHEMA_ID:
        raise EarmarkError(
            f"unsupported results schema {data.get('schema')!r}", file=str(p), field="schema"
        )
    return data
