"""Reading saved hypotheses from any system: which reader a pair of files takes.

Every reader is strict: a bad line raises `EarmarkError` naming the file, the line and
the field, so the CLI can print one clear line. Records end at `\\n` only
(`earmark.records`); a file with no records is an error; where plain text could be Kaldi
`text` or one sentence per line, the reader asks instead of choosing.

Joining hypotheses to references keeps every reference (`formats.joined`): a reference
without a hypothesis becomes a `missing_hypothesis` row (all deletions); a hypothesis
without a reference is an error unless the caller allows excluding it, and then it is
listed with reason `no_reference`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.combined import iter_combined
from earmark.formats.fields import DEFAULT_FIELDS, FieldNames
from earmark.formats.kaldi import plain_pair_format
from earmark.formats.rows import ReadResult, ScoringRow
from earmark.formats.sclite import SCLITE_FORMATS, sclite_format
from earmark.formats.stream import PairStream, stamps, unchanged, whole
from earmark.formats.structured import suffix_format

#: Every value `--format` takes (trn, stm, ctm: `formats.trn`, `formats.stm`, `formats.ctm`).
FORMATS = ("jsonl", "csv", "tsv", "kaldi", "lines", "trn", "stm", "ctm")


def read_pairs(
    predictions: str | os.PathLike[str],
    *,
    refs: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldNames = DEFAULT_FIELDS,
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
    fields: FieldNames = DEFAULT_FIELDS,
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
        from earmark.formats.sclite_pairs import stream_sclite_pair

        return stream_sclite_pair(pred_path, refs, fmt, allow_extra_hypotheses, check_ids=check_ids)
    pred_fmt = fmt or suffix_format(pred_path)
    if refs is None:
        if pred_fmt in (None, "kaldi", "lines"):
            raise EarmarkError(
                "a plain-text hypothesis file (Kaldi `text` or one sentence per line) "
                "needs --refs, the references file",
                file=str(pred_path),
            )
        assert pred_fmt is not None
        return _stream_combined(pred_path, pred_fmt, fields, arm, check_ids=check_ids)
    ref_path = Path(refs)
    # Each pair reader is imported when its format is read: a JSONL score never loads
    # the trn, stm, ctm or joined readers (a few ms of every start-up).
    if fmt == "lines":
        from earmark.formats.lines import read_lines_pair

        return whole(lambda: read_lines_pair(pred_path, ref_path))
    ref_fmt = fmt if fmt not in (None, "kaldi") else suffix_format(ref_path)
    if pred_fmt is None and ref_fmt is None:
        pred_fmt = ref_fmt = plain_pair_format(pred_path, ref_path)
    joined_pred, joined_ref = pred_fmt or "kaldi", ref_fmt or "kaldi"
    from earmark.formats.joined import read_joined

    return whole(
        lambda: read_joined(
            pred_path, joined_pred, ref_path, joined_ref, fields, allow_extra_hypotheses
        )
    )


def _stream_combined(
    path: Path, fmt: str, fields: FieldNames, arm: str | None, *, check_ids: bool
) -> PairStream:
    """One file of references and hypotheses, streamed (`formats.combined`)."""
    stamped = stamps([path])

    def recheck() -> None:
        unchanged(stamped)
        for _ in iter_combined(path, fmt, fields, arm):
            pass

    def reread() -> Iterator[ScoringRow]:
        unchanged(stamped)
        return iter_combined(path, fmt, fields, arm, check_ids=False)

    return PairStream(
        rows=iter_combined(path, fmt, fields, arm, check_ids=check_ids),
        source_files=[str(path)],
        formats=[fmt],
        _recheck=None if check_ids else recheck,
        _reread=reread,
    )
