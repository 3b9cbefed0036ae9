"""Checking a whole manifest: its rows, its sidecar's licence gate, and (given the audio root)
that each row's audio exists or decodes as declared.

Above both `manifest` (reading rows) and `audio` (decoding them), so neither needs the other
for this; the audio loader is imported only when audio is decoded.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from earmark.corpus.manifest import (
    ROW_PROVENANCE_REQUIRED,
    is_public,
    licence_gate,
    read_manifest,
    read_meta,
    row_provenance_problem,
)
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.errors import EarmarkError
from earmark.results.codec import JSONObject, JSONValue


@dataclass(frozen=True)
class AudioProblem:
    """One row whose audio could not be used, with a reason code from `earmark.corpus.audio`."""

    id: str
    line: int
    reason: str
    detail: str

    def to_dict(self) -> dict[str, JSONValue]:
        return {"id": self.id, "line": self.line, "reason": self.reason, "detail": self.detail}


@dataclass
class ValidationReport:
    """What a manifest holds, and what is wrong with its audio and sidecar.

    Structural problems in rows raise instead (a manifest with a broken row is not
    reported on, it is refused); audio and licence problems are listed here.
    """

    manifest: str
    sha256: str
    rows: int = 0
    languages: dict[str, int] = field(default_factory=dict)
    slices: dict[str, int] = field(default_factory=dict)
    speakers: int = 0
    rows_without_speaker: int = 0
    total_duration: float = 0.0
    rows_without_duration: int = 0
    meta: CorpusMeta | None = None
    licence_problem: str | None = None
    public: bool = False
    audio_checked: str = "no"
    problems: list[AudioProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.licence_problem is None and not self.problems

    def problem_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(p.reason for p in self.problems).items()))

    def to_dict(self) -> dict[str, JSONValue]:
        """What `earmark manifest validate --json` prints."""
        languages: JSONObject = self.languages
        slices: JSONObject = self.slices
        counts: JSONObject = self.problem_counts()
        return {
            "manifest": self.manifest,
            "sha256": self.sha256,
            "rows": self.rows,
            "languages": dict(languages),
            "slices": dict(slices),
            "speakers": self.speakers,
            "rows_without_speaker": self.rows_without_speaker,
            "total_duration": round(self.total_duration, 3),
            "rows_without_duration": self.rows_without_duration,
            "meta": self.meta.to_dict() if self.meta else None,
            "licence_problem": self.licence_problem,
            "public": self.public,
            "audio_checked": self.audio_checked,
            "problem_counts": dict(counts),
            "problems": [p.to_dict() for p in self.problems],
            "ok": self.ok,
        }


#: A decoded duration may differ from the declared one by this much (codec padding).
DURATION_TOLERANCE_S = 0.05


def validate_manifest(
    path: str | os.PathLike[str],
    audio_root: str | os.PathLike[str] | None = None,
    check_audio: bool = False,
) -> ValidationReport:
    """Read every row (raising on the first malformed one), summarise the corpus, run the
    licence gate, and, with an audio root, check each file exists (or, with
    `check_audio`, decodes, matches its sha256 and its declared duration).

    Memory stays flat in the number of rows apart from the id and speaker sets.
    """
    name = os.fspath(path)
    if check_audio and audio_root is None:
        raise EarmarkError("--check-audio needs an audio root", hint="pass --audio-root DIR")
    languages: Counter[str] = Counter()
    slices: Counter[str] = Counter()
    speakers: set[str] = set()
    problems: list[AudioProblem] = []
    digest = hashlib.sha256()
    rows = no_speaker = no_duration = 0
    total = 0.0
    root = Path(audio_root) if audio_root is not None else None
    if root is not None and not root.is_dir():
        raise EarmarkError("audio root is not a directory", file=str(root))

    # The sidecar is read first so that a requirement on the rows (per-row provenance) is
    # checked in this one pass; a sidecar problem is reported after the rows, as before.
    try:
        meta: CorpusMeta | None = read_meta(name)
        sidecar_problem: EarmarkError | None = None
    except EarmarkError as exc:
        meta, sidecar_problem = None, exc
    required = meta is not None and meta.row_provenance == ROW_PROVENANCE_REQUIRED
    provenance_problem: EarmarkError | None = None
    for utt in read_manifest(name):
        rows += 1
        if required and provenance_problem is None:
            provenance_problem = row_provenance_problem(utt, rows, name)
        digest.update(utt.to_json().encode("utf-8"))
        digest.update(b"\n")
        languages[utt.language] += 1
        slices.update(utt.slices)
        if utt.speaker is None:
            no_speaker += 1
        else:
            speakers.add(utt.speaker)
        if utt.duration is None:
            no_duration += 1
        else:
            total += utt.duration
        if root is not None:
            problem = _check_row_audio(root, utt, rows, check_audio)
            if problem is not None:
                problems.append(problem)

    report = ValidationReport(
        manifest=name,
        sha256=digest.hexdigest(),
        rows=rows,
        languages=dict(sorted(languages.items())),
        slices=dict(sorted(slices.items())),
        speakers=len(speakers),
        rows_without_speaker=no_speaker,
        total_duration=total,
        rows_without_duration=no_duration,
        audio_checked="no" if root is None else ("decoded" if check_audio else "exists"),
        problems=problems,
    )
    try:
        if meta is None:
            raise sidecar_problem or EarmarkError("no sidecar", file=name)
        report.meta = meta
        licence_gate(meta, manifest=name)
        if provenance_problem is not None:
            raise provenance_problem
        report.public = is_public(meta)
    except EarmarkError as exc:
        report.licence_problem = str(exc)
    return report


def _check_row_audio(root: Path, utt: Utterance, line: int, decode: bool) -> AudioProblem | None:
    from earmark.corpus import audio

    if not decode:
        try:
            resolved = audio.resolve_audio_path(root, utt.audio)
        except EarmarkError as exc:
            return AudioProblem(utt.id, line, "path_outside_root", exc.message)
        if not resolved.is_file():
            return AudioProblem(utt.id, line, "missing_file", f"{utt.audio} not found")
        return None
    result = audio.load_audio(root, utt)
    if isinstance(result, audio.AudioFailure):
        return AudioProblem(utt.id, line, result.reason, result.detail)
    if utt.duration is not None and abs(result.duration - utt.duration) > DURATION_TOLERANCE_S:
        return AudioProblem(
            utt.id,
            line,
            "duration_mismatch",
            f"declared {utt.duration:.3f} s, decoded {result.duration:.3f} s",
        )
    return None
