"""Reading one of a folder's JSON records (plan, provenance, an arm's model or resources).

These records exist only for runs, so a missing one means "not recorded" (None), but an
empty or unreadable one is refused, not skipped: a full disk once left a 0-byte
provenance.json that a lenient reader let through as "verified".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError


def read_json_record(path: Path) -> dict[str, Any] | None:
    """The JSON object in `path`; None when the file does not exist."""
    if not path.exists():
        return None
    text = path.read_text("utf-8")
    if not text.strip():
        raise EarmarkError(
            f"{path.name} is empty (a write was interrupted)",
            file=str(path),
            hint="rerun the command that wrote this folder (a run resumes)",
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EarmarkError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    if not isinstance(data, dict):
        raise EarmarkError("expected a JSON object", file=str(path))
    return data
