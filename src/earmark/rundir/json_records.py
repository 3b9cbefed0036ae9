"""Reading one of a folder's JSON records (plan, provenance, an arm's model or resources).

These records exist only for runs, so a missing one means "not recorded" (None), but an
empty or unreadable one is refused, not skipped: a full disk once left a 0-byte
provenance.json that a lenient reader let through as "verified". A FIFO in its place is
refused before it is opened (it would block for ever), and bad UTF-8, nesting too deep to
parse and text that is not Unicode are one-line errors, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.records import refuse_surrogates, require_regular_file
from earmark.results.codec import JSONValue


def read_json_record(path: Path) -> dict[str, JSONValue] | None:
    """The JSON object in `path`; None when the file does not exist."""
    if not path.exists():
        return None
    require_regular_file(path)
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise EarmarkError(f"not valid UTF-8 (at byte {exc.start})", file=str(path)) from None
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
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
        raise EarmarkError(f"invalid JSON ({type(exc).__name__})", file=str(path)) from None
    if not isinstance(data, dict):
        raise EarmarkError("expected a JSON object", file=str(path))
    refuse_surrogates(data, str(path), None)
    return data
