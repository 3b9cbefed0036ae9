"""What the leaderboard reads besides the runs: self-reported figures (shown apart, never
ranked) and contamination reports (which mark rows, never re-rank them)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.language_tags import base_language
from earmark.render.leaderboard_entries import Entry

SELF_REPORTED_SCHEMA = "earmark.self-reported/1"


@dataclass(frozen=True)
class SelfReported:
    """A figure someone else measured, with where it was published. Never ranked."""

    system: str
    manifest_sha256: str
    language: str
    metric: str
    value: float
    source: str
    corpus: str | None = None
    note: str | None = None


def load_self_reported(path: str | os.PathLike[str]) -> list[SelfReported]:
    """Rows of an `earmark.self-reported/1` file: `{"schema": ..., "rows": [{system,
    manifest_sha256, language, metric ("wer"/"cer"), value (a fraction: 0.123),
    source (an http(s) URL), corpus?, note?}]}`; a bare list of rows is accepted too."""
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except OSError as exc:
        raise EarmarkError(f"cannot read: {exc.strerror}", file=str(p)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise EarmarkError(f"not JSON: {exc}", file=str(p), line=line) from None
    if isinstance(data, dict):
        if data.get("schema") not in (None, SELF_REPORTED_SCHEMA):
            raise EarmarkError(
                f"schema {data.get('schema')!r} is not {SELF_REPORTED_SCHEMA}",
                file=str(p),
                field="schema",
            )
        data = data.get("rows")
    if not isinstance(data, list):
        raise EarmarkError(
            "expected a list of rows",
            file=str(p),
            field="rows",
            hint=f'{{"schema": "{SELF_REPORTED_SCHEMA}", "rows": [{{"system": ..., '
            '"manifest_sha256": ..., "language": ..., "metric": "wer", "value": 0.1, '
            '"source": "https://..."}]}',
        )
    return [_self_reported_row(row, p, i) for i, row in enumerate(data)]


def _self_reported_row(row: Any, path: Path, index: int) -> SelfReported:
    def bad(key: str, why: str, hint: str | None = None) -> EarmarkError:
        where = f"rows[{index}]" + (f".{key}" if key else "")
        return EarmarkError(why, file=str(path), field=where, hint=hint)

    if not isinstance(row, dict):
        raise bad("", "a row must be a JSON object")
    unknown = set(row) - {f.name for f in SelfReported.__dataclass_fields__.values()}
    if unknown:
        raise bad(sorted(unknown)[0], f"unknown field(s): {', '.join(sorted(unknown))}")
    text = {}
    for key in ("system", "manifest_sha256", "language", "metric", "source"):
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            raise bad(key, f"{key} is required (a non-empty string)")
        text[key] = value.strip()
    sha = text["manifest_sha256"].lower()
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise bad("manifest_sha256", "not a SHA-256", hint="`earmark manifest hash MANIFEST`")
    if text["metric"].lower() not in ("wer", "cer"):
        raise bad("metric", f"metric {text['metric']!r} is not wer or cer")
    value = row.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise bad("value", "value must be a number >= 0", hint="a fraction: 12.3% is 0.123")
    if not text["source"].startswith(("https://", "http://")):
        raise bad("source", "source must be the URL where the figure was published")
    for key in ("corpus", "note"):
        if row.get(key) is not None and not isinstance(row[key], str):
            raise bad(key, f"{key} must be a string")
    return SelfReported(
        system=text["system"],
        manifest_sha256=sha,
        language=text["language"],
        metric=text["metric"].lower(),
        value=float(value),
        source=text["source"],
        corpus=row.get("corpus"),
        note=row.get("note"),
    )


def contamination_mark(
    e: Entry, reports: Sequence[dict[str, Any]], max_share: float = 0.0
) -> str | None:
    """Why the contamination reports make this row suspect (the module docstring's rule)."""
    reasons = []
    for report in reports:
        if e.corpus_hash_kind != "manifest":
            continue
        if (report.get("corpus") or {}).get("manifest_sha256") != e.corpus_hash:
            continue
        system = (report.get("declared") or {}).get("system")
        if system and system not in (e.arm, e.system):
            continue
        scope = report.get("summary") or {}
        if e.language != "all":
            # Reports key languages by their base (`en` for an `en-US` block).
            scope = (report.get("by_language") or {}).get(base_language(e.language)) or {}
        flagged, total = int(scope.get("flagged") or 0), int(scope.get("utterances") or 0)
        canaries = [
            h["canary"]
            for h in (report.get("canaries") or {}).get("hits", [])
            if h.get("declared_count")
        ]
        declared = (report.get("declared") or {}).get("path", "?")
        if total and flagged / total > max_share:
            reasons.append(
                f"{flagged}/{total} utterances flagged ({100 * flagged / total:.1f}%) "
                f"against {declared}"
            )
        if canaries:
            reasons.append(f"canary {canaries[0]} in {declared}")
    return "; ".join(reasons) or None


def read_contamination(path: str | os.PathLike[str]) -> dict[str, Any]:
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except OSError as exc:
        raise EarmarkError(f"cannot read: {exc.strerror}", file=str(p)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise EarmarkError(f"not JSON: {exc}", file=str(p)) from None
    if not isinstance(data, dict) or data.get("schema") != "earmark.contamination/1":
        raise EarmarkError(
            "not a contamination report (schema earmark.contamination/1)",
            file=str(p),
            field="schema",
            hint="write one with `earmark manifest contamination`",
        )
    return data
