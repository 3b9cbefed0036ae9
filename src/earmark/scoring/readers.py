"""Reading saved hypotheses from any system: JSONL, CSV/TSV, Kaldi `text`, plain lines, runs.

Every reader is strict: a bad line raises `EarmarkError` naming the file, the line and
the field, so the CLI can print one clear line. Records end at `\\n` only
(`earmark.records`); a file with no records is an error; where plain text could be Kaldi
`text` or one sentence per line, the reader asks instead of choosing.

Joining hypotheses to references keeps every reference: a reference without a hypothesis
becomes a `missing_hypothesis` row (all deletions); a hypothesis without a reference is an
error unless the caller allows excluding it, and then it is listed with reason
`no_reference`.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.records import json_lines, read_records
from earmark.scoring.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.scoring.sclite_formats import SCLITE_FORMATS, read_sclite_pair, sclite_format


@dataclass(frozen=True)
class FieldNames:
    """Column/field names of a predictions file (configurable on the CLI)."""

    id: str = "id"
    reference: str = "reference"
    hypothesis: str = "hypothesis"
    language: str = "language"
    slices: str = "slices"
    cluster: str = "clip"


@dataclass
class ReadResult:
    rows: list[ScoringRow]
    excluded: list[dict[str, str]] = field(default_factory=list)
    source_files: list[str] = field(default_factory=list)
    #: The format each source file was read as (parallel to `source_files`), so a result
    #: can say what an automatic choice was.
    formats: list[str] = field(default_factory=list)


def _str_field(
    record: dict[str, Any], name: str, path: Path, line: int, *, required: bool
) -> str | None:
    if name not in record or record[name] is None:
        if required:
            raise EarmarkError("missing field", file=str(path), line=line, field=name)
        return None
    value = record[name]
    if not isinstance(value, str):
        raise EarmarkError(
            f"expected a string, got {type(value).__name__}", file=str(path), line=line, field=name
        )
    return value


def _slices(record: dict[str, Any], name: str, path: Path, line: int) -> tuple[str, ...]:
    value = record.get(name)
    if value in (None, ""):
        return ()
    if isinstance(value, str):
        return tuple(s for s in value.replace(";", ",").split(",") if s)
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return tuple(value)
    raise EarmarkError("expected a list of strings", file=str(path), line=line, field=name)


def _records_delimited(path: Path, delimiter: str) -> Iterator[tuple[int, dict[str, Any]]]:
    # csv pulls lines as it needs them (a quoted field may span lines) and counts them in
    # `line_num`; each line is cut at "\n" only, so U+2028 and friends stay in their field.
    lines = (line + "\n" for _, line in read_records(path))
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise EarmarkError("empty file (expected a header row)", file=str(path), line=1)
        other = "\t" if delimiter == "," else ","
        if len(header) == 1 and other in header[0]:
            raise EarmarkError(
                f"the header has one column but contains {other!r}: wrong delimiter",
                file=str(path),
                line=1,
                hint="use --format tsv for tab-separated files, --format csv for commas",
            )
        for values in reader:
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                raise EarmarkError(
                    f"expected {len(header)} columns, found {len(values)}",
                    file=str(path),
                    line=reader.line_num,
                    hint=f"is the delimiter {delimiter!r} right? (--format csv|tsv)",
                )
            yield reader.line_num, dict(zip(header, values, strict=True))
    except csv.Error as exc:
        raise EarmarkError(f"malformed CSV: {exc}", file=str(path), line=reader.line_num) from None


#: Formats named by a file's suffix; any other suffix is plain text (Kaldi or lines).
SUFFIX_FORMATS = {
    ".jsonl": "jsonl",
    ".json": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}
#: Every value `--format` takes (trn, stm, ctm: `earmark.scoring.sclite_formats`).
FORMATS = ("jsonl", "csv", "tsv", "kaldi", "lines", "trn", "stm", "ctm")


def _suffix_format(path: Path) -> str | None:
    """The structured format a suffix names, or None for plain text."""
    return SUFFIX_FORMATS.get(path.suffix.lower())


def _nonempty(
    records: Iterator[tuple[int, dict[str, Any]]], path: Path, what: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Pass records through; none at all is an error: an empty file is never a result."""
    seen = False
    for item in records:
        seen = True
        yield item
    if not seen:
        raise EarmarkError(f"no records ({what})", file=str(path), hint="is this the right file?")


def _records(path: Path, fmt: str) -> Iterator[tuple[int, dict[str, Any]]]:
    if fmt == "jsonl":
        return _nonempty(json_lines(path), path, "the file has no JSON lines")
    if fmt == "csv":
        return _nonempty(_records_delimited(path, ","), path, "nothing after the header row")
    if fmt == "tsv":
        return _nonempty(_records_delimited(path, "\t"), path, "nothing after the header row")
    raise EarmarkError(
        f"unknown format {fmt!r}", file=str(path), hint="jsonl, csv, tsv, kaldi or lines"
    )


def _kaldi_lines(path: Path) -> list[tuple[int, str, str]]:
    """(line, id, words) per non-blank line; the id ends at the first whitespace of any kind.

    "Any kind" is `str.split()`'s: space, TAB, NBSP, U+3000 and every other character
    for which `str.isspace()` holds, so an id never contains whitespace and a TAB after
    the id separates it like a space. Runs of whitespace in the words become one space.
    """
    out = []
    for number, text in read_records(path):
        parts = text.split(maxsplit=1)
        if not parts:
            continue
        words = " ".join(parts[1].split()) if len(parts) > 1 else ""
        out.append((number, parts[0], words))
    if not out:
        raise EarmarkError("no records (the file has no `id words` lines)", file=str(path))
    return out


def _kaldi_index(path: Path, lines: list[tuple[int, str, str]]) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for number, utt, words in lines:
        if utt in out:
            raise EarmarkError(
                f"duplicate utterance id {utt!r} (first on line {out[utt][0]})",
                file=str(path),
                line=number,
                field="id",
            )
        out[utt] = (number, words)
    return out


def read_kaldi_text(path: Path) -> dict[str, tuple[int, str]]:
    """A Kaldi `text` file: `utt-id word word ...` per line -> id -> (line, text)."""
    return _kaldi_index(path, _kaldi_lines(path))


def read_lines_text(path: Path) -> list[str]:
    """One sentence per line (jiwer's CLI input): every line is a record, blank ones too.

    A blank line is an empty sentence (as a hypothesis: all deletions), so line *i* of
    one file always pairs with line *i* of the other; only a file's final newline does
    not start another line.
    """
    lines = [text for _, text in read_records(path)]
    if not lines:
        raise EarmarkError("no records (the file is empty)", file=str(path))
    return lines


def looks_like_utterance_id(token: str) -> bool:
    """An ASCII digit and something else: `utt1`, `1272-128104-0000`, never `the` or `42`.

    Kaldi ids index utterances, so they carry a number; a bare number is as likely to be
    the first word of a transcript (digit strings, `5 minutes`) as an id.
    """
    return any(c in "0123456789" for c in token) and not token.isdigit()


def why_not_kaldi(
    hyp_path: Path,
    hyp: list[tuple[int, str, str]],
    ref_path: Path,
    ref: list[tuple[int, str, str]],
) -> str | None:
    """Why a plain-text pair might not be Kaldi `text` files, or None when it clearly is.

    Any plain line reads both as `id words...` and as a sentence, so Kaldi is assumed
    only when the first words behave like ids: the references have at least two lines,
    no first word repeats within a file, the files share at least one, every one of them
    looks like an utterance id (`looks_like_utterance_id`), and some reference has words
    after its id.
    """
    if len(ref) < 2:
        return f"{ref_path} has a single line, which cannot show that its first word is an id"
    for path, lines in ((hyp_path, hyp), (ref_path, ref)):
        first: dict[str, int] = {}
        for number, utt, _ in lines:
            if utt in first:
                return (
                    f"the first word {utt!r} repeats in {path} "
                    f"(lines {first[utt]} and {number}), so it is not an id"
                )
            first[utt] = number
            if not looks_like_utterance_id(utt):
                return (
                    f"the first word {utt!r} of {path}:{number} does not look like an "
                    "utterance id (no digit, or only digits)"
                )
    if not {utt for _, utt, _ in hyp} & {utt for _, utt, _ in ref}:
        return f"no first word of {hyp_path} is a first word of {ref_path}"
    if not any(words for _, _, words in ref):
        return f"no line of {ref_path} has words after its first word"
    return None


def _plain_pair_format(pred_path: Path, ref_path: Path) -> str:
    """'kaldi' when both plain files clearly are Kaldi `text`; otherwise ask, never guess."""
    hyp, ref = _kaldi_lines(pred_path), _kaldi_lines(ref_path)
    reason = why_not_kaldi(pred_path, hyp, ref_path, ref)
    if reason is None:
        return "kaldi"
    raise EarmarkError(
        "cannot tell whether these plain-text files are Kaldi `text` (`id words...`) or one "
        f"sentence per line: {reason}",
        hint="pass --format kaldi or --format lines",
    )


def read_pairs(
    predictions: str | os.PathLike[str],
    *,
    refs: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldNames = FieldNames(),
    allow_extra_hypotheses: bool = False,
    arm: str | None = None,
) -> ReadResult:
    """Read scoring rows from a predictions file, optionally joined to a references file.

    An earmark run's `predictions.jsonl` holds rows of several arms (`arm` field) and
    repeats (`repeat` field): pass `arm` to pick one; repeats become `ID#K` rows clustered
    by ID, and a row's recorded `status` is kept.

    Without `fmt` a `.jsonl`/`.json`/`.ndjson`, `.csv` or `.tsv` suffix names the format;
    a plain-text file beside a structured one is Kaldi `text`; two plain-text files are
    Kaldi only when `why_not_kaldi` finds no doubt, otherwise an error asks for `fmt`.
    `fmt="lines"` pairs line *i* of `refs` with line *i* of `predictions` as `line-<i>`.
    """
    stream = stream_pairs(
        predictions,
        refs=refs,
        fmt=fmt,
        fields=fields,
        allow_extra_hypotheses=allow_extra_hypotheses,
        arm=arm,
    )
    rows = list(stream.rows)
    return ReadResult(
        rows=rows,
        excluded=stream.excluded,
        source_files=stream.source_files,
        formats=stream.formats,
    )


def stream_pairs(
    predictions: str | os.PathLike[str],
    *,
    refs: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldNames = FieldNames(),
    allow_extra_hypotheses: bool = False,
    arm: str | None = None,
    check_ids: bool = True,
) -> PairStream:
    """`read_pairs` as a `PairStream`: the same rows, errors and exclusions, with one
    file of references and hypotheses read only as its rows are asked for.

    `check_ids=False` (for a consumer that finds repeated ids itself, as
    `scoring.scorer.CorpusScorer` does) keeps no id per row while streaming such a file;
    its `recheck` then gives the reader's own error."""
    pred_path = Path(predictions)
    if fmt is not None and fmt not in FORMATS:
        raise EarmarkError(f"unknown format {fmt!r}", hint=", ".join(FORMATS))
    if fmt in SCLITE_FORMATS or (fmt is None and sclite_format(pred_path) is not None):
        return _whole(lambda: _read_sclite(pred_path, refs, fmt, allow_extra_hypotheses))
    pred_fmt = fmt or _suffix_format(pred_path)
    if refs is None:
        if pred_fmt in (None, "kaldi", "lines"):
            raise EarmarkError(
                "a plain-text hypothesis file (Kaldi `text` or one sentence per line) "
                "needs --refs, the references file",
                file=str(pred_path),
            )
        combined_fmt = pred_fmt
        stamps = _stamps([pred_path])

        def recheck() -> None:
            _unchanged(stamps)
            for _ in _iter_combined(pred_path, combined_fmt, fields, arm):
                pass

        def reread() -> Iterator[ScoringRow]:
            _unchanged(stamps)
            return _iter_combined(pred_path, combined_fmt, fields, arm, check_ids=False)

        return PairStream(
            rows=_iter_combined(pred_path, pred_fmt, fields, arm, check_ids=check_ids),
            source_files=[str(pred_path)],
            formats=[pred_fmt],
            _recheck=None if check_ids else recheck,
            _reread=reread,
        )
    ref_path = Path(refs)
    if fmt == "lines":
        return _whole(lambda: _read_lines_pair(pred_path, ref_path))
    ref_fmt = fmt if fmt not in (None, "kaldi") else _suffix_format(ref_path)
    if pred_fmt is None and ref_fmt is None:
        pred_fmt = ref_fmt = _plain_pair_format(pred_path, ref_path)
    joined_pred, joined_ref = pred_fmt or "kaldi", ref_fmt or "kaldi"
    return _whole(
        lambda: _read_joined(
            pred_path, joined_pred, ref_path, joined_ref, fields, allow_extra_hypotheses
        )
    )


def _whole(read: Callable[[], ReadResult]) -> PairStream:
    """Rows read (and joined) in full by `read`, handed out as a stream; `read` runs
    again for `PairStream.reread` (holding on to the rows instead would keep every row
    alive while the stream is scored)."""
    result = read()
    stamps = _stamps([Path(name) for name in result.source_files])

    def reread() -> Iterator[ScoringRow]:
        _unchanged(stamps)
        return iter(read().rows)

    return PairStream(
        rows=iter(result.rows),
        excluded=result.excluded,
        source_files=result.source_files,
        formats=result.formats,
        _reread=reread,
    )


#: A file's (path, size, modification time in ns) when a stream first read it.
_Stamp = tuple[Path, int, int]


def _stamps(paths: list[Path]) -> list[_Stamp]:
    out = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:  # the reader reports a missing file itself
            continue
        out.append((path, info.st_size, info.st_mtime_ns))
    return out


def _unchanged(stamps: list[_Stamp]) -> None:
    """Refuse to read a file again if it changed since the stream first read it: rows read
    in two passes of different contents would be scored as one corpus."""
    for path, size, mtime in stamps:
        try:
            info = path.stat()
            now = (info.st_size, info.st_mtime_ns)
        except OSError:
            now = None
        if now != (size, mtime):
            raise EarmarkError(
                "the file changed (or went away) while it was being scored",
                file=str(path),
                hint="score it again once nothing is writing to it",
            )


@dataclass
class PairStream:
    """`read_pairs`' rows a chunk at a time, with what it says about the files.

    A file holding references and hypotheses (JSONL, CSV, TSV; an earmark run's
    predictions) is read as the chunks are asked for, so a scorer consuming them never
    holds the whole corpus; a pair of files (hypotheses joined to references, sclite,
    lines) is joined in memory first and then handed out in chunks. `excluded` is
    complete once the chunks are exhausted.
    """

    rows: Iterator[ScoringRow]
    excluded: list[dict[str, str]] = field(default_factory=list)
    source_files: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    #: Reads the file again with every check (`stream_pairs(check_ids=False)` only).
    _recheck: Callable[[], None] | None = None
    #: Reads the rows again from the first.
    _reread: Callable[[], Iterator[ScoringRow]] | None = None

    def reread(self) -> Iterator[ScoringRow]:
        """The same rows again from the first, read anew from the files: what a scorer
        that keeps each id only as a digest reads on the rare match of two digests
        (`scoring.scorer.CorpusScorer`'s `reread`). Ids are not checked (`recheck` does).
        """
        if self._reread is None:
            raise RuntimeError("this stream cannot read its rows again")
        return self._reread()

    def recheck(self) -> None:
        """Raise the error a full, checking read of the input meets first, if any.

        A stream opened with `check_ids=False` leaves repeated ids to its consumer and
        reads as the chunks are asked for; call this when anything fails, so the error
        is the one `read_pairs` gives (a repeated id with both its lines, or whatever
        comes first in the file), as when the whole file was read before scoring.
        """
        if self._recheck is not None:
            self._recheck()

    def chunks(self, size: int) -> Iterator[list[ScoringRow]]:
        """Lists of `size` rows (the last one shorter), in file order."""
        if size < 1:
            raise ValueError(f"chunk size must be at least 1, not {size}")
        rows = self.rows
        while True:
            chunk = list(islice(rows, size))
            if not chunk:
                return
            yield chunk


def _read_sclite(
    pred_path: Path, refs: str | os.PathLike[str] | None, fmt: str | None, allow_extra: bool
) -> ReadResult:
    """trn/trn or ctm/stm files, read as sclite reads them (`scoring.sclite_formats`)."""
    if refs is None:
        raise EarmarkError(
            "sclite hypotheses (trn, ctm) need --refs, the trn or stm references file",
            file=str(pred_path),
        )
    ref_path = Path(refs)
    pairs, formats = read_sclite_pair(pred_path, ref_path, fmt, allow_extra=allow_extra)
    return ReadResult(
        rows=pairs.rows,
        excluded=pairs.excluded,
        source_files=[str(pred_path), str(ref_path)],
        formats=formats,
    )


def _read_lines_pair(pred_path: Path, ref_path: Path) -> ReadResult:
    """jiwer-style files: line *i* of each is utterance `line-<i>` (1-based, as editors count)."""
    hyps, refs = read_lines_text(pred_path), read_lines_text(ref_path)
    if len(hyps) != len(refs):
        raise EarmarkError(
            f"--format lines pairs the files line by line, but {pred_path} has "
            f"{len(hyps)} lines and {ref_path} has {len(refs)}",
            hint="each file needs one line per utterance (a blank line is an empty sentence)",
        )
    rows = [
        ScoringRow(id=f"line-{i}", reference=ref, hypothesis=hyp, status=OK)
        for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True), start=1)
    ]
    return ReadResult(
        rows=rows, source_files=[str(pred_path), str(ref_path)], formats=["lines", "lines"]
    )


def _row_from_record(
    record: dict[str, Any], path: Path, line: int, fields: FieldNames, hypothesis: str | None
) -> ScoringRow:
    # The common record first: id and reference strings (the id not blank), language and
    # cluster strings or absent, checked with four dict look-ups instead of five
    # `_str_field` calls. Any other shape takes the checked path below, which gives the
    # same row or the error at its line.
    get = record.get
    ident = get(fields.id)
    reference = get(fields.reference)
    language = get(fields.language)
    cluster = get(fields.cluster)
    if (
        type(ident) is str
        and type(reference) is str
        and (language is None or type(language) is str)
        and (cluster is None or type(cluster) is str)
        and ident.strip()
    ):
        return ScoringRow(
            id=ident,
            reference=reference,
            hypothesis=hypothesis,
            language=language or None,
            slices=_slices(record, fields.slices, path, line) if fields.slices in record else (),
            status=OK if hypothesis is not None else MISSING_HYPOTHESIS,
            cluster=cluster or None,
        )
    ident = _str_field(record, fields.id, path, line, required=True)
    assert ident is not None
    if not ident.strip():
        raise EarmarkError("empty id", file=str(path), line=line, field=fields.id)
    reference = _str_field(record, fields.reference, path, line, required=True)
    assert reference is not None
    return ScoringRow(
        id=ident,
        reference=reference,
        hypothesis=hypothesis,
        language=_str_field(record, fields.language, path, line, required=False) or None,
        slices=_slices(record, fields.slices, path, line),
        status=OK if hypothesis is not None else MISSING_HYPOTHESIS,
        cluster=_str_field(record, fields.cluster, path, line, required=False) or None,
    )


def _iter_combined(
    path: Path, fmt: str, fields: FieldNames, arm: str | None, *, check_ids: bool = True
) -> Iterator[ScoringRow]:
    """The rows of a file holding references and hypotheses, as they are read.

    With `check_ids`, each row's id is remembered with its line (an unclustered row's by
    the id string alone, a clustered one's as (id, clip)), so a repeated id is an error
    naming both lines: the only state that grows with the file. Without, the consumer
    finds repeated ids (`PairStream.recheck`).
    """
    first_line: dict[str | tuple[str, str], int] = {}
    arms_seen: set[str] = set()
    hyp_field, id_field, ref_field = fields.hypothesis, fields.id, fields.reference
    # Keys that change a row beyond its id and texts: a record naming none of them is
    # the common one, built directly (see below).
    lang_field, cluster_field, slices_field = fields.language, fields.cluster, fields.slices
    for line, record in _records(path, fmt):
        get = record.get
        record_arm = get("arm")
        if record_arm is not None and isinstance(record_arm, str):
            arms_seen.add(record_arm)
            if arm is not None and record_arm != arm:
                continue
        hyp = get(hyp_field)
        if hyp is not None and type(hyp) is not str:
            hyp = _str_field(record, hyp_field, path, line, required=False)
        # The common record (what `_row_from_record` checks first), built here without
        # a call per row: id and reference strings, the id not blank, and none of the
        # keys that shape a row. Anything else takes the general path, to the same row.
        ident = get(id_field)
        reference = get(ref_field)
        if (
            type(ident) is str
            and type(reference) is str
            and ident.strip()
            and lang_field not in record
            and cluster_field not in record
            and slices_field not in record
            and "repeat" not in record
            and "status" not in record
        ):
            row = ScoringRow(
                ident, reference, hyp, status=OK if hyp is not None else MISSING_HYPOTHESIS
            )
        else:
            row = _row_from_record(record, path, line, fields, hyp)
            repeat = get("repeat")
            if isinstance(repeat, int) and not isinstance(repeat, bool):
                row = replace(
                    row,
                    id=row.id if repeat == 0 else f"{row.id}#{repeat}",
                    cluster=row.cluster or row.id,
                )
            status = get("status")
            if hyp is None and isinstance(status, str) and status != OK:
                row = replace(row, status=status)
        if not check_ids:
            yield row
            continue
        key = row.id if row.cluster is None else (row.id, row.cluster)
        first = first_line.get(key)
        if first is not None:
            several = len(arms_seen) > 1 and arm is None
            raise EarmarkError(
                f"duplicate utterance id {row.id!r} (first on line {first})",
                file=str(path),
                line=line,
                field=fields.id,
                hint="this file holds several arms: pass --arm NAME"
                if several
                else f"repeats of one clip need distinct ids and a shared '{fields.cluster}' field",
            )
        first_line[key] = line
        yield row
    if arm is not None and arm not in arms_seen:
        raise EarmarkError(
            f"no row of arm {arm!r}",
            file=str(path),
            field="arm",
            hint="arms in this file: " + (", ".join(sorted(arms_seen)) or "none"),
        )


def _read_joined(
    pred_path: Path,
    pred_fmt: str,
    ref_path: Path,
    ref_fmt: str,
    fields: FieldNames,
    allow_extra: bool,
) -> ReadResult:
    references: dict[str, tuple[int, dict[str, Any]]] = {}
    if ref_fmt == "kaldi":
        for utt, (line, text) in read_kaldi_text(ref_path).items():
            references[utt] = (line, {fields.id: utt, fields.reference: text})
    else:
        for line, record in _records(ref_path, ref_fmt):
            ident = _str_field(record, fields.id, ref_path, line, required=True)
            assert ident is not None
            if ident in references:
                raise EarmarkError(
                    f"duplicate utterance id {ident!r} (first on line {references[ident][0]})",
                    file=str(ref_path),
                    line=line,
                    field=fields.id,
                )
            if fields.reference not in record and "text" in record:
                record = {**record, fields.reference: record["text"]}
            references[ident] = (line, record)

    hypotheses: dict[str, str] = {}
    hyp_lines: dict[str, int] = {}
    if pred_fmt == "kaldi":
        for utt, (line, text) in read_kaldi_text(pred_path).items():
            hypotheses[utt] = text
            hyp_lines[utt] = line
    else:
        for line, record in _records(pred_path, pred_fmt):
            ident = _str_field(record, fields.id, pred_path, line, required=True)
            assert ident is not None
            if ident in hypotheses:
                raise EarmarkError(
                    f"duplicate utterance id {ident!r} (first on line {hyp_lines[ident]})",
                    file=str(pred_path),
                    line=line,
                    field=fields.id,
                )
            hyp = _str_field(record, fields.hypothesis, pred_path, line, required=True)
            assert hyp is not None
            hypotheses[ident] = hyp
            hyp_lines[ident] = line

    excluded: list[dict[str, str]] = []
    for ident in hypotheses:
        if ident not in references:
            if not allow_extra:
                raise EarmarkError(
                    f"hypothesis for id {ident!r} has no reference",
                    file=str(pred_path),
                    line=hyp_lines[ident],
                    field=fields.id,
                    hint="fix the ids, or pass --exclude-unmatched to list and skip them",
                )
            excluded.append({"id": ident, "reason": "no_reference"})
    rows = [
        _row_from_record(record, ref_path, line, fields, hypotheses.get(ident))
        for ident, (line, record) in references.items()
    ]
    return ReadResult(
        rows=rows,
        excluded=excluded,
        source_files=[str(pred_path), str(ref_path)],
        formats=[pred_fmt, ref_fmt],
    )
