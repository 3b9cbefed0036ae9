"""Two trn files joined by utterance id, row by row as the scorer asks for them.

sclite's usual pair lists the same ids in the same order: such lines are read in lockstep,
one of each file at a time, keeping nothing per row (`formats.trn.pair_trn`, which holds
both files whole, took 2.4x the memory of the same pairs read from JSONL). From the first
id that differs, the hypotheses left are indexed by id, as `pair_trn` indexes them all,
and each later reference takes its own.

The rows, their order and the exclusions are `pair_trn`'s: a reference without a
hypothesis is a `missing_hypothesis` row (all deletions), a hypothesis without a
reference an error or, allowed, an exclusion with reason `no_reference`, in hypothesis
file order. So are the errors: when any is met, `pair_trn` reads both files whole so the
one reported is the one it meets first (the references' before the hypotheses').
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain, islice
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ScoringRow
from earmark.formats.stream import PairStream, stamps, unchanged
from earmark.formats.trn import (
    TrnLine,
    duplicate_id,
    no_records,
    pair_trn,
    trn_lines,
    trn_speaker,
)
from earmark.results.codec import JSONValue

_plain = ScoringRow.plain


def stream_trn(
    hyp_path: Path, ref_path: Path, *, allow_extra: bool = False, check_ids: bool = True
) -> PairStream:
    """`pair_trn`'s rows as a stream, joined as the module docstring says.

    `check_ids=False` (for a consumer that finds repeated row ids itself, as
    `scoring.scorer.CorpusScorer` does) keeps no reference id per row; `recheck` then
    gives `pair_trn`'s error. With `check_ids`, the rows raise that error themselves."""
    stamped = stamps([hyp_path, ref_path])
    excluded: list[dict[str, str]] = []

    def recheck() -> None:
        unchanged(stamped)
        pair_trn(hyp_path, ref_path, allow_extra=allow_extra)

    def reread() -> Iterator[ScoringRow]:
        unchanged(stamped)
        return _rows(hyp_path, ref_path, allow_extra, [], check_ids=False)

    rows = _rows(hyp_path, ref_path, allow_extra, excluded, check_ids=check_ids)
    return PairStream(
        rows=_rechecked(rows, recheck) if check_ids else rows,
        excluded=excluded,
        source_files=[str(hyp_path), str(ref_path)],
        formats=["trn", "trn"],
        _recheck=None if check_ids else recheck,
        _reread=reread,
    )


def _rechecked(rows: Iterator[ScoringRow], recheck: Callable[[], None]) -> Iterator[ScoringRow]:
    """`rows`, whose first error is replaced by the one a whole read meets first."""
    try:
        yield from rows
    except EarmarkError:
        recheck()
        raise


def _rows(
    hyp_path: Path,
    ref_path: Path,
    allow_extra: bool,
    excluded: list[dict[str, str]],
    *,
    check_ids: bool,
) -> Iterator[ScoringRow]:
    """Every reference's row, in file order; `excluded` is filled once they are all read."""
    hyps = trn_lines(hyp_path)
    first_line: dict[str, int] | None = {} if check_ids else None
    index: dict[str, TrnLine] | None = None  # the hypotheses left, once the ids part
    matched = indexed = number = 0
    for number, ident, text, markup in trn_lines(ref_path, reference=True):
        if first_line is not None:
            if ident in first_line:
                raise duplicate_id(ident, first_line[ident], ref_path, number)
            first_line[ident] = number
        if index is None:
            hyp = next(hyps, None)
            if hyp is not None and hyp[1] == ident and markup is None:
                # The common row, built here without a call (`_row` builds the same).
                matched += 1
                yield _plain(ident, text, hyp[2], OK, {"speaker": trn_speaker(ident)})
                continue
            if hyp is not None and hyp[1] == ident:
                matched += 1
                yield _row(ident, text, markup, hyp[2])
                continue
            index = _index(hyp, hyps, hyp_path)
            indexed = len(index)
        found = index.pop(ident, None)
        yield _row(ident, text, markup, None if found is None else found[2])
    if not number:
        raise no_records(ref_path)
    if index is None:
        index = _index(next(hyps, None), hyps, hyp_path)
        indexed = len(index)
    if not matched + indexed:
        raise no_records(hyp_path)
    if index:
        _extra_hypotheses(index, hyp_path, matched, allow_extra)
        excluded.extend({"id": ident, "reason": "no_reference"} for ident in index)


def _row(ident: str, text: str, markup: str | None, hypothesis: str | None) -> ScoringRow:
    extra: dict[str, JSONValue] = {"speaker": trn_speaker(ident)}
    if markup is not None:
        extra["reference_markup"] = markup
    return _plain(
        ident, text, hypothesis, OK if hypothesis is not None else MISSING_HYPOTHESIS, extra
    )


def _index(first: TrnLine | None, rest: Iterator[TrnLine], path: Path) -> dict[str, TrnLine]:
    """id -> line of `first` and every line after it; a repeated id is an error."""
    index: dict[str, TrnLine] = {}
    for line in rest if first is None else chain((first,), rest):
        kept = index.setdefault(line[1], line)
        if kept is not line:
            raise duplicate_id(line[1], kept[0], path, line[0])
    return index


def _extra_hypotheses(
    left: dict[str, TrnLine], path: Path, matched: int, allow_extra: bool
) -> None:
    """Refuse the hypotheses no reference took, unless they may be excluded; either way
    one that repeats an id of the first `matched` lines (read in lockstep, so not kept)
    is the duplicate it is."""
    if not allow_extra:
        number, ident, _, _ = next(iter(left.values()))
        raise EarmarkError(
            f"hypothesis for id {ident!r} has no reference",
            file=str(path),
            line=number,
            field="id",
            hint="fix the ids, or pass --exclude-unmatched to list and skip them",
        )
    for number, ident, _, _ in islice(trn_lines(path), matched):
        repeat = left.get(ident)
        if repeat is not None:
            raise duplicate_id(ident, number, path, repeat[0])
