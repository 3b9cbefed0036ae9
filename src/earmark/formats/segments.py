"""Speaker-attributed, timed segments of whole recordings: the input of multi-speaker scoring.

Two file forms, for references and hypotheses alike:

- **segment JSON** (earmark's): one object mapping each recording id to its list of
  segments, `{"rec1": [{"speaker": "A", "start": 0.0, "end": 2.5, "text": "..."}]}`. All
  four fields are required; times are seconds, finite, `end >= start`. A recording whose
  list is empty is present but silent (a hypothesis recording with no words).
- **stm** (sclite's): read with `earmark.formats.stm.read_stm`; the recording
  is the stm `file` field and the channel is ignored, as meeteval does. A leading
  `<label>` is dropped (meeteval would score it as a word). An
  `IGNORE_TIME_SEGMENT_IN_SCORING` segment is refused: the matching hypothesis words
  cannot be dropped by time here without a UEM, and scoring them would be silent.

meeteval's own SegLST JSON (a list of `{session_id, speaker, start_time, end_time,
words}`) is read too, so a meeteval user's files work unchanged.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.stm import read_stm
from earmark.records import require_regular_file
from earmark.results.codec import JSONValue

#: Input forms and the suffixes that name them.
SEGMENT_FORMATS = ("json", "stm")


@dataclass(frozen=True, slots=True)
class Segment:
    """One speaker's words between two times in one recording."""

    recording: str
    speaker: str
    start: float
    end: float
    text: str


def segment_format(path: Path, fmt: str | None) -> str:
    """The form of `path`: `fmt` when given, else its suffix (`.stm`, `.json`)."""
    if fmt is not None:
        if fmt not in SEGMENT_FORMATS:
            raise EarmarkError(
                f"unknown segment format {fmt!r}", field="format", hint="use 'json' or 'stm'"
            )
        return fmt
    suffix = path.suffix.lower().lstrip(".")
    if suffix in SEGMENT_FORMATS:
        return suffix
    raise EarmarkError(
        "cannot tell the segment format from the file name",
        file=str(path),
        hint="name it .json or .stm, or pass --format json|stm",
    )


def read_segments(path: str | Path, fmt: str | None = None) -> list[Segment]:
    """Every segment of a segment JSON, SegLST JSON or stm file, in file order."""
    source = Path(path)
    require_regular_file(source)
    if segment_format(source, fmt) == "stm":
        return _from_stm(source)
    return _from_json(source)


def _from_stm(path: Path) -> list[Segment]:
    out = []
    for seg in read_stm(path):
        if seg.ignored:
            raise EarmarkError(
                "IGNORE_TIME_SEGMENT_IN_SCORING is not supported in multi-speaker scoring",
                file=str(path),
                line=seg.line,
                hint="remove the segment (and cut the hypothesis to the scored time)",
            )
        out.append(Segment(seg.file, seg.speaker, seg.start, seg.end, " ".join(seg.words)))
    return out


def _from_json(path: Path) -> list[Segment]:
    try:
        data: JSONValue = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise EarmarkError(f"not valid JSON ({exc.msg})", file=str(path), line=exc.lineno) from None
    except UnicodeDecodeError:
        raise EarmarkError("not UTF-8 text", file=str(path)) from None
    if isinstance(data, list):
        return [_seglst_entry(entry, path, k) for k, entry in enumerate(data)]
    if not isinstance(data, dict):
        raise EarmarkError(
            "expected an object mapping recording ids to segment lists",
            file=str(path),
            hint='{"rec1": [{"speaker": "A", "start": 0.0, "end": 1.5, "text": "..."}]}',
        )
    out: list[Segment] = []
    for recording, segments in data.items():
        where = f"[{json.dumps(recording, ensure_ascii=False)}]"
        if not recording.strip():
            raise EarmarkError("a recording id is empty", file=str(path), field=where)
        if not isinstance(segments, list):
            raise EarmarkError("expected a list of segments", file=str(path), field=where)
        for k, entry in enumerate(segments):
            out.append(_segment(recording, entry, path, f"{where}[{k}]"))
    return out


def _segment(recording: str, entry: JSONValue, path: Path, where: str) -> Segment:
    if not isinstance(entry, dict):
        raise EarmarkError("expected a segment object", file=str(path), field=where)
    missing = [k for k in ("speaker", "start", "end", "text") if k not in entry]
    if missing:
        raise EarmarkError(
            f"segment lacks {', '.join(missing)}",
            file=str(path),
            field=where,
            hint="each segment is {speaker, start, end, text}",
        )
    return _checked(
        recording, entry["speaker"], entry["start"], entry["end"], entry["text"], path, where
    )


def _seglst_entry(entry: JSONValue, path: Path, k: int) -> Segment:
    where = f"[{k}]"
    if not isinstance(entry, dict):
        raise EarmarkError("expected a SegLST segment object", file=str(path), field=where)
    keys = ("session_id", "speaker", "start_time", "end_time", "words")
    missing = [key for key in keys if key not in entry]
    if missing:
        raise EarmarkError(
            f"SegLST segment lacks {', '.join(missing)}",
            file=str(path),
            field=where,
            hint="each SegLST entry is {session_id, speaker, start_time, end_time, words}",
        )
    recording = entry["session_id"]
    if not isinstance(recording, str) or not recording.strip():
        raise EarmarkError("session_id must be a non-empty string", file=str(path), field=where)
    return _checked(
        recording,
        entry["speaker"],
        entry["start_time"],
        entry["end_time"],
        entry["words"],
        path,
        where,
    )


def _checked(
    recording: str,
    speaker: JSONValue,
    start: JSONValue,
    end: JSONValue,
    text: JSONValue,
    path: Path,
    where: str,
) -> Segment:
    if not isinstance(speaker, str) or not speaker.strip():
        raise EarmarkError(
            "speaker must be a non-empty string", file=str(path), field=f"{where}.speaker"
        )
    if not isinstance(text, str):
        raise EarmarkError("text must be a string", file=str(path), field=f"{where}.text")
    times = []
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EarmarkError(
                f"expected a time in seconds, got {value!r}",
                file=str(path),
                field=f"{where}.{name}",
            )
        if not math.isfinite(value) or value < 0:
            raise EarmarkError(
                f"expected a finite time >= 0, got {value!r}",
                file=str(path),
                field=f"{where}.{name}",
            )
        times.append(float(value))
    if times[1] < times[0]:
        raise EarmarkError(
            f"segment ends ({times[1]}) before it starts ({times[0]})",
            file=str(path),
            field=f"{where}.end",
        )
    return Segment(recording, speaker, times[0], times[1], text)
