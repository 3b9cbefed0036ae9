"""What an importer did: rows written, and every row it did not write, with a reason code.

Importers never drop a row silently: each refusal becomes a `SkippedRow`, counted in the
report and listed in the manifest sidecar, so "N imported of M listed" can be audited.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Reason codes importers use. Kept in one place so docs and tests agree on spelling.
SKIP_REASONS = {
    "missing_audio": "the audio file named by the row does not exist",
    "missing_audio_entry": "the utterance has a transcript but no audio entry (wav.scp/segments)",
    "missing_text": "the utterance has audio but no transcript",
    "empty_text": "the transcript is empty",
    "duplicate_id": "an earlier row already used this utterance id",
    "audio_outside_root": "the audio path is not under the audio root",
    "unsupported_wav_scp_command": "wav.scp entry is a piped command (`... |`), not a file",
    "unsupported_wav_scp_ark": "wav.scp entry points into an ark archive (`file.ark:offset`)",
    "unsupported_lhotse_source": "lhotse recording source is not a plain file (url, command...)",
    "missing_recording": "lhotse supervision names a recording that is not in the recordings",
    "undecodable_audio": "embedded audio bytes could not be written out",
}


@dataclass(frozen=True)
class SkippedRow:
    """One input row an importer refused, and where it was."""

    reason: str
    file: str
    line: int | None = None
    id: str | None = None
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"reason": self.reason, "file": self.file}
        for key in ("line", "id", "detail"):
            value = getattr(self, key)
            if value is not None:
                row[key] = value
        return row


@dataclass(frozen=True)
class ImportReport:
    """Result of one import: where the manifest went and what was left out, and why."""

    source: str
    manifest: Path
    audio_root: Path
    rows_written: int
    skipped: tuple[SkippedRow, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    def skipped_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(row.reason for row in self.skipped).items()))

    def summary(self) -> str:
        parts = [f"{self.rows_written} rows written to {self.manifest}"]
        if self.skipped:
            counts = ", ".join(f"{k}={v}" for k, v in self.skipped_by_reason().items())
            parts.append(f"{len(self.skipped)} skipped ({counts})")
        else:
            parts.append("0 skipped")
        parts.append(f"audio root {self.audio_root}")
        return "; ".join(parts)
