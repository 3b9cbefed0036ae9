"""Reading, hashing and validating an earmark manifest, and the licence/consent gate.

A manifest is JSONL, one `Utterance` per line, with a `<manifest>.meta.json` sidecar.
Reading is lazy (a million rows are streamed, never held as objects) and strict: every
problem raises `EarmarkError` naming the file, the 1-based line and the field, because a
row silently skipped is an utterance silently missing from the score.

Decisions (documented in docs/corpus.md):

- Unknown top-level fields are an error, not kept: a typo such as `langauge` must not
  pass as "extra data". Anything else goes under `custom`.
- `text` may be the empty string (a no-speech clip); `id`, `audio` and `language` may not.
- A UTF-8 byte-order mark, a blank line, a duplicate JSON key, `NaN`/`Infinity` and
  non-UTF-8 bytes are errors: each means the file was not written the way we think.
- An empty manifest (no rows) is an error when read for scoring.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from typing import Any

from earmark.corpus.model import CorpusMeta, Source, Utterance
from earmark.corpus.writer import meta_path_for
from earmark.errors import EarmarkError, json_type_name
from earmark.records import require_regular_file
from earmark.results.codec import JSONValue

#: Bounds that stop one absurd row from exhausting memory or hiding a broken writer.
MAX_LINE_BYTES = 1_048_576
MAX_TEXT_CHARS = 100_000
MAX_ID_CHARS = 512
MAX_PATH_CHARS = 4_096
MAX_SHORT_CHARS = 512

ROW_FIELDS = frozenset(
    {
        "id",
        "audio",
        "text",
        "language",
        "speaker",
        "slices",
        "duration",
        "sha256",
        "source",
        "text_id",
        "start",
        "end",
        "custom",
    }
)
SOURCE_FIELDS = frozenset({"dataset", "config", "split", "revision", "licence"})
META_FIELDS = frozenset(CorpusMeta.__dataclass_fields__)

_LANGUAGE_RE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")  # fullmatch: "en\n" is no tag
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
_BOM = b"\xef\xbb\xbf"
_DRIVE_RE = re.compile(r"^[A-Za-z]:")  # C:\x, C:/x and drive-relative C:x
_SEPARATORS_RE = re.compile(r"[\\/]")
#: Licence / consent values that declare nothing and therefore fail the gate.
_UNDECLARED = frozenset({"", "unknown", "none", "n/a", "na", "null", "unspecified", "tbd", "?"})


# --------------------------------------------------------------------------- reading


def read_manifest(
    path: str | os.PathLike[str], *, allow_empty: bool = False
) -> Iterator[Utterance]:
    """Yield the rows of a JSONL manifest in file order, refusing any malformed row.

    Lazy: only the ids seen so far (a set of strings) are kept, to refuse duplicates.
    """
    name = os.fspath(path)
    seen: set[str] = set()
    require_regular_file(name)
    try:
        handle = open(name, "rb")  # noqa: SIM115 - closed in the finally below
    except FileNotFoundError:
        raise manifest_not_found(name) from None
    except OSError as exc:
        raise EarmarkError(f"cannot open manifest: {exc.strerror}", file=name) from None
    try:
        line_no = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            line_no += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise EarmarkError(
                    f"line longer than {MAX_LINE_BYTES} bytes",
                    file=name,
                    line=line_no,
                    hint="a row this large is almost certainly a broken writer",
                )
            row = _parse_line(raw, name, line_no)
            utt = _row_to_utterance(row, name, line_no)
            if utt.id in seen:
                raise EarmarkError(
                    f"duplicate utterance id {utt.id!r}",
                    file=name,
                    line=line_no,
                    field="id",
                    hint="every row needs a unique id",
                )
            seen.add(utt.id)
            yield utt
        if line_no == 0 and not allow_empty:
            raise EarmarkError(
                "manifest has no rows", file=name, line=1, hint="an empty corpus cannot be scored"
            )
    finally:
        handle.close()


def manifest_not_found(name: str) -> EarmarkError:
    """The one error for a manifest path that names no file, whichever reader meets it first."""
    return EarmarkError(
        "manifest not found", file=name, hint="check the path to the .jsonl manifest"
    )


def _parse_line(raw: bytes, name: str, line_no: int) -> dict[str, JSONValue]:
    if line_no == 1 and raw.startswith(_BOM):
        raise EarmarkError(
            "file starts with a UTF-8 byte-order mark",
            file=name,
            line=1,
            hint="save the manifest as UTF-8 without BOM",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EarmarkError(
            f"line is not valid UTF-8 (byte {exc.start})",
            file=name,
            line=line_no,
            hint="re-encode the manifest as UTF-8",
        ) from None
    if not text.strip():
        raise EarmarkError(
            "blank line", file=name, line=line_no, hint="remove blank lines between rows"
        )
    try:
        value = _DECODER.decode(text)
    except _DuplicateKey as exc:
        raise EarmarkError(
            f"key {exc.key!r} appears twice in the row",
            file=name,
            line=line_no,
            field=exc.key,
            hint="keep one value per key",
        ) from None
    except _BadConstant as exc:
        raise EarmarkError(
            f"{exc.constant} is not valid JSON",
            file=name,
            line=line_no,
            hint="write a finite number or null",
        ) from None
    except json.JSONDecodeError as exc:
        raise EarmarkError(
            f"invalid JSON at column {exc.colno}: {exc.msg}",
            file=name,
            line=line_no,
            hint="a truncated last line usually means an interrupted write",
        ) from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
        raise EarmarkError(f"invalid JSON: {type(exc).__name__}", file=name, line=line_no) from None
    if not isinstance(value, dict):
        raise EarmarkError(
            f"row is a JSON {type(value).__name__}, not an object",
            file=name,
            line=line_no,
            hint='each line must be one object like {"id": ..., "audio": ..., ...}',
        )
    return value


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _BadConstant(ValueError):
    def __init__(self, constant: str) -> None:
        super().__init__(constant)
        self.constant = constant


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, JSONValue]:
    out: dict[str, JSONValue] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _refuse_constant(constant: str) -> Any:
    raise _BadConstant(constant)


_DECODER = json.JSONDecoder(
    object_pairs_hook=_refuse_duplicate_keys, parse_constant=_refuse_constant
)
#: Rows of one corpus repeat the same few `source` objects; share them (speed and memory).
_SOURCE_CACHE: dict[tuple[tuple[str, Any], ...], Source] = {}
_SOURCE_CACHE_MAX = 4096


def _row_to_utterance(row: dict[str, JSONValue], name: str, line_no: int) -> Utterance:
    def fail(fld: str, message: str, hint: str | None = None) -> EarmarkError:
        return EarmarkError(message, file=name, line=line_no, field=fld, hint=hint)

    unknown = sorted(set(row) - ROW_FIELDS)
    if unknown:
        raise fail(
            unknown[0],
            f"unknown field {unknown[0]!r}",
            hint=f"known fields: {', '.join(sorted(ROW_FIELDS))}; put anything else under 'custom'",
        )

    def required_str(fld: str, *, allow_empty: bool = False, limit: int = MAX_SHORT_CHARS) -> str:
        if fld not in row or row[fld] is None:
            raise fail(fld, "missing required field", hint=f"every row needs '{fld}'")
        value = row[fld]
        if not isinstance(value, str):
            raise fail(fld, f"expected a string, got {json_type_name(value)}")
        if not allow_empty and not value.strip():
            raise fail(fld, "must not be empty")
        if len(value) > limit:
            raise fail(fld, f"longer than {limit} characters ({len(value)})")
        return value

    def optional_str(fld: str, value: Any, limit: int = MAX_SHORT_CHARS) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(fld, f"expected a string or null, got {json_type_name(value)}")
        if not value.strip():
            raise fail(fld, "must not be empty (use null or leave it out)")
        if len(value) > limit:
            raise fail(fld, f"longer than {limit} characters ({len(value)})")
        return value

    def optional_seconds(fld: str) -> float | None:
        value = row.get(fld)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(fld, f"expected a number of seconds, got {json_type_name(value)}")
        if not math.isfinite(value) or value < 0:
            raise fail(fld, f"must be a finite number >= 0, got {value!r}")
        return float(value)

    utt_id = required_str("id", limit=MAX_ID_CHARS)
    audio = required_str("audio", limit=MAX_PATH_CHARS)
    problem = audio_path_problem(audio)
    if problem is not None:
        raise fail("audio", problem, hint="audio paths are relative to the audio root")
    text = required_str("text", allow_empty=True, limit=MAX_TEXT_CHARS)
    language = required_str("language")
    if not _LANGUAGE_RE.fullmatch(language):
        raise fail("language", f"{language!r} is not a BCP-47-style tag", hint="e.g. zh, ga, en-US")

    speaker = optional_str("speaker", row.get("speaker"))
    text_id = optional_str("text_id", row.get("text_id"))

    slices_value = row.get("slices", [])
    if slices_value is None:
        slices_value = []
    if not isinstance(slices_value, list):
        raise fail("slices", f"expected a list of strings, got {json_type_name(slices_value)}")
    slice_names: list[str] = []
    for item in slices_value:
        if not isinstance(item, str) or not item.strip():
            raise fail("slices", f"every slice must be a non-empty string, got {item!r}")
        slice_names.append(item)
    if len(set(slice_names)) != len(slice_names):
        raise fail("slices", "a slice is listed twice")

    duration = optional_seconds("duration")
    start = optional_seconds("start")
    end = optional_seconds("end")
    if start is not None and end is not None and end <= start:
        raise fail("end", f"end ({end}) must be after start ({start})")

    sha256 = row.get("sha256")
    if sha256 is not None and (not isinstance(sha256, str) or not _SHA256_RE.match(sha256)):
        raise fail(
            "sha256", "expected 64 lower-case hex digits", hint="sha256 of the audio file bytes"
        )

    source = None
    if row.get("source") is not None:
        src = row["source"]
        if not isinstance(src, dict):
            raise fail("source", f"expected an object, got {json_type_name(src)}")
        extra = sorted(set(src) - SOURCE_FIELDS)
        if extra:
            raise fail(f"source.{extra[0]}", f"unknown source field {extra[0]!r}")
        cacheable = all(v is None or isinstance(v, str) for v in src.values())
        key = tuple(sorted(src.items())) if cacheable else ()
        source = _SOURCE_CACHE.get(key) if cacheable else None
        if source is None:
            source = Source(**{k: optional_str(f"source.{k}", v) for k, v in src.items()})
            if cacheable and len(_SOURCE_CACHE) < _SOURCE_CACHE_MAX:
                _SOURCE_CACHE[key] = source

    custom = row.get("custom", {})
    if custom is None:
        custom = {}
    if not isinstance(custom, dict):
        raise fail("custom", f"expected an object, got {json_type_name(custom)}")

    return Utterance(
        id=utt_id,
        audio=audio,
        text=text,
        language=language,
        speaker=speaker,
        slices=tuple(slice_names),
        duration=duration,
        sha256=sha256,
        source=source,
        text_id=text_id,
        start=start,
        end=end,
        custom=custom,
    )


def row_problem(utt: Utterance) -> EarmarkError | None:
    """Why `read_manifest` would refuse `utt` once written, or None if it would accept it.

    Importers call this on every row before writing it, so a manifest they write is one
    `earmark manifest validate` accepts: the row goes through the very checks reading
    applies (`_row_to_utterance`), then through what only its written line shows (a NaN
    nested in `custom`, text that is not UTF-8, a line over `MAX_LINE_BYTES`). The
    error's `field` names what is wrong; it carries no file or line (the row is not
    written yet).
    """
    row = utt.to_dict()
    try:
        _row_to_utterance(row, "", 0)
    except EarmarkError as exc:
        return EarmarkError(exc.message, field=exc.field, hint=exc.hint)
    try:
        line = json.dumps(
            row, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
        ).encode("utf-8")
    except UnicodeEncodeError:  # before ValueError, its base class
        bad = next((k for k, v in row.items() if _unencodable(v)), None)
        return EarmarkError("holds a lone surrogate, which UTF-8 cannot encode", field=bad)
    except ValueError:
        return EarmarkError("a number nested in the row is NaN or infinite", field="custom")
    except RecursionError:
        return EarmarkError("a value is nested too deeply to write", field="custom")
    if len(line) > MAX_LINE_BYTES:
        return EarmarkError(f"the written row would be longer than {MAX_LINE_BYTES} bytes")
    return None


def _unencodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def language_problem(tag: str) -> str | None:
    """Why `tag` is not a language code a manifest row accepts, or None if it is."""
    if not isinstance(tag, str) or not _LANGUAGE_RE.fullmatch(tag):
        return f"{tag!r} is not a BCP-47-style tag"
    return None


def audio_path_problem(audio: str) -> str | None:
    """Why a manifest `audio` value could escape its root, or None if it is acceptable."""
    if "\x00" in audio:
        return "path contains a NUL character"
    # Plain string tests (not pathlib) because this runs once per row of a large manifest.
    if audio.startswith(("/", "\\")) or _DRIVE_RE.match(audio):
        return f"absolute path {audio!r} refused"
    if ".." in audio and ".." in _SEPARATORS_RE.split(audio):
        return f"path {audio!r} contains a '..' segment"
    return None


# --------------------------------------------------------------------------- sidecar


def read_meta(manifest_path: str | os.PathLike[str]) -> CorpusMeta:
    """Read the `<manifest>.meta.json` sidecar; a manifest without one is refused."""
    path = meta_path_for(manifest_path)
    name = str(path)
    require_regular_file(name)
    try:
        data = json.loads(
            path.read_text(encoding="utf-8"),
            object_pairs_hook=_refuse_duplicate_keys,
            parse_constant=_refuse_constant,
        )
    except FileNotFoundError:
        if not os.path.lexists(manifest_path):
            # The sidecar is missing because the manifest is: name the file the user typed.
            raise manifest_not_found(os.fspath(manifest_path)) from None
        raise EarmarkError(
            "manifest has no metadata sidecar",
            file=name,
            hint="write it with `earmark manifest init-sidecar MANIFEST --licence SPDX-ID "
            "--consent TEXT` (or earmark.corpus.writer.write_meta)",
        ) from None
    except UnicodeDecodeError:
        raise EarmarkError("sidecar is not valid UTF-8", file=name) from None
    except (_DuplicateKey, _BadConstant, json.JSONDecodeError) as exc:
        raise EarmarkError(f"sidecar is not valid JSON: {exc}", file=name) from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
        raise EarmarkError(f"sidecar is not valid JSON: {type(exc).__name__}", file=name) from None
    except OSError as exc:  # unreadable (permissions), or vanished after the check
        raise EarmarkError(f"cannot read sidecar: {exc.strerror}", file=name) from None
    if not isinstance(data, dict):
        raise EarmarkError("sidecar must be a JSON object", file=name)
    unknown = sorted(set(data) - META_FIELDS)
    if unknown:
        raise EarmarkError(
            f"unknown sidecar field {unknown[0]!r}",
            file=name,
            field=unknown[0],
            hint="put anything else under 'extra'",
        )
    if not isinstance(data.get("dataset"), str) or not data["dataset"].strip():
        raise EarmarkError("missing dataset name", file=name, field="dataset")
    for key in ("redistribute_audio", "redistribute_transcripts"):
        if key in data and not isinstance(data[key], bool):
            raise EarmarkError("expected true or false", file=name, field=key)
    for key in META_FIELDS - {"dataset", "redistribute_audio", "redistribute_transcripts", "extra"}:
        if data.get(key) is not None and not isinstance(data[key], str):
            raise EarmarkError("expected a string or null", file=name, field=key)
    if "extra" in data and not isinstance(data["extra"], dict):
        raise EarmarkError("expected an object", file=name, field="extra")
    if data.get("row_provenance") not in (None, ROW_PROVENANCE_REQUIRED):
        raise EarmarkError(
            f"unknown row_provenance {data['row_provenance']!r}",
            file=name,
            field="row_provenance",
            hint=f"'{ROW_PROVENANCE_REQUIRED}' (every row carries source), or leave it out",
        )
    # A sidecar without `licence` or `consent_basis` declared neither: the gate refuses it.
    return CorpusMeta(**{"licence": None, "consent_basis": None, **data})


def _declared(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in _UNDECLARED


def is_declared(value: object) -> bool:
    """Whether a licence-like value declares something (`unknown`, `n/a`, blank do not)."""
    return isinstance(value, str) and _declared(value)


def licence_gate(meta: CorpusMeta, *, manifest: str | os.PathLike[str]) -> None:
    """Refuse a corpus whose sidecar declares no licence or no consent basis.

    Seed 000: results on data with missing licence/consent are excluded, never labelled
    public. The check is that something was *declared*; a licence string is an assertion
    copied from the publisher, not a legal verdict, and earmark does not judge it.
    """
    where = str(meta_path_for(manifest))
    if not _declared(meta.licence):
        raise EarmarkError(
            f"corpus {meta.dataset!r} declares no licence; refusing to evaluate on it",
            file=where,
            field="licence",
            hint="record the licence the publisher states (e.g. CC-BY-4.0): `earmark manifest "
            "init-sidecar MANIFEST --force --licence CC-BY-4.0 --consent TEXT`",
        )
    if not _declared(meta.consent_basis):
        raise EarmarkError(
            f"corpus {meta.dataset!r} declares no consent basis; refusing to evaluate on it",
            file=where,
            field="consent_basis",
            hint="record how speakers consented (e.g. 'speakers consented to public release'): "
            "`earmark manifest init-sidecar MANIFEST --force --licence ID --consent TEXT`",
        )


#: The sidecar's `row_provenance` value that makes every row's `source` required.
ROW_PROVENANCE_REQUIRED = "required"


def row_provenance_gate(meta: CorpusMeta, *, manifest: str | os.PathLike[str]) -> None:
    """Refuse a corpus whose sidecar requires per-row provenance when a row lacks it.

    With `row_provenance: "required"` every row must carry `source` naming its dataset and
    a declared licence (seed 000's manifest mode: per-row data provenance), so a corpus
    assembled from several sources cannot slip in a row nobody can trace. The first row
    without it is named by line and id. Without the field nothing is checked.
    """
    if meta.row_provenance != ROW_PROVENANCE_REQUIRED:
        return
    name = os.fspath(manifest)
    for line, utt in enumerate(read_manifest(name), start=1):
        problem = row_provenance_problem(utt, line, name)
        if problem is not None:
            raise problem


def row_provenance_problem(utt: Utterance, line: int, manifest: str) -> EarmarkError | None:
    """The error for one row without the provenance a requiring sidecar asks for."""
    source = utt.source
    missing = (
        "source"
        if source is None
        else "source.dataset"
        if not (source.dataset or "").strip()
        else "source.licence"
        if not _declared(source.licence)
        else None
    )
    if missing is None:
        return None
    return EarmarkError(
        f"row {utt.id!r} has no {missing}; the sidecar requires per-row provenance",
        file=manifest,
        line=line,
        field=missing,
        hint='give every row "source": {"dataset": …, "licence": …} (as its '
        "publisher states), or drop row_provenance from the sidecar",
    )


def is_public(meta: CorpusMeta) -> bool:
    """True when a licence and consent basis are declared and both audio and transcripts
    may be redistributed: only then may per-utterance results be published with the data.
    An assertion from the sidecar, not a legal verdict."""
    return (
        _declared(meta.licence)
        and _declared(meta.consent_basis)
        and meta.redistribute_audio
        and meta.redistribute_transcripts
    )


# --------------------------------------------------------------------------- hashing


def manifest_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of the manifest's canonical bytes: each row re-serialised with
    `Utterance.to_json()` plus a newline, in file order.

    Whitespace, key order and number spelling (`1.50` vs `1.5`) in the file do not change
    it; any change of content or row order does. Reading validates every row.
    """
    digest = hashlib.sha256()
    for utt in read_manifest(path):
        digest.update(utt.to_json().encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()
