"""What an importer did: rows written, and every row it did not write, with a reason code.

Importers never drop a row silently: each refusal becomes a `SkippedRow`, counted in the
report and listed in the manifest sidecar, so "N imported of M listed" can be audited.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from earmark.results.codec import JSONValue

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
    # A row the manifest reader would refuse (`earmark.corpus.manifest.row_problem`) is
    # never written: one code per field at fault.
    "invalid_id": "the utterance id is empty or longer than the manifest allows",
    "invalid_audio_path": "the audio path is absolute, escapes the root or is too long",
    "invalid_text": "the transcript is too long or not encodable as UTF-8",
    "invalid_language": "the language is not a BCP-47-style tag (e.g. zh, ga, en-US)",
    "invalid_speaker": "the speaker is not a non-empty string of bounded length",
    "invalid_slices": "a slice label is empty or listed twice",
    "invalid_duration": "the duration is NaN, infinite, negative or zero",
    "invalid_times": "start/end are NaN, infinite, negative, or end is not after start",
    "invalid_sha256": "the audio hash is not 64 lower-case hex digits",
    "invalid_text_id": "the text id is not a non-empty string of bounded length",
    "invalid_source": "the row's source fields are not strings of bounded length",
    "invalid_custom": "a custom value is NaN, infinite or cannot be written as JSON",
    "row_too_long": "the written row would exceed the manifest's line limit",
    "invalid_row": "the manifest reader would refuse the row",
}

#: Manifest field at fault (`EarmarkError.field` from `row_problem`) -> reason code.
FIELD_REASONS = {
    "id": "invalid_id",
    "audio": "invalid_audio_path",
    "text": "invalid_text",
    "language": "invalid_language",
    "speaker": "invalid_speaker",
    "slices": "invalid_slices",
    "duration": "invalid_duration",
    "start": "invalid_times",
    "end": "invalid_times",
    "sha256": "invalid_sha256",
    "text_id": "invalid_text_id",
    "custom": "invalid_custom",
}


def reason_for_field(field_name: str | None) -> str:
    """The reason code for a row `row_problem` refused on `field_name` (None: the row as a
    whole, which only its length can make unwritable)."""
    if field_name is None:
        return "row_too_long"
    if field_name.startswith("source."):
        return "invalid_source"
    return FIELD_REASONS.get(field_name, "invalid_row")


@dataclass(frozen=True)
class SkippedRow:
    """One input row an importer refused, and where it was."""

    reason: str
    file: str
    line: int | None = None
    id: str | None = None
    detail: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        row: dict[str, JSONValue] = {"reason": self.reason, "file": self.file}
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

    def first_skipped(self, per_reason: int = 3) -> list[SkippedRow]:
        """The first few skipped rows of each reason, in input order: what a person reads
        (one common reason must not hide a rare one); the sidecar lists them all."""
        shown: Counter[str] = Counter()
        out = []
        for row in self.skipped:
            if shown[row.reason] < per_reason:
                shown[row.reason] += 1
                out.append(row)
        return out

    def summary(self) -> str:
        parts = [f"{self.rows_written} rows written to {self.manifest}"]
        if self.skipped:
            counts = ", ".join(f"{k}={v}" for k, v in self.skipped_by_reason().items())
            parts.append(f"{len(self.skipped)} skipped ({counts})")
        else:
            parts.append("0 skipped")
        parts.append(f"audio root {self.audio_root}")
        return "; ".join(parts)
