"""sclite's trn files: one utterance a line, `word word ... (utterance-id)`.

The id is the last parenthesised token. Speaker, as `sclite -i rm` groups it: the part of
the id before its first `-` (`spk1-utt3` -> `spk1`); an id without `-` is its own speaker
(sclite then folds it into the previous speaker, which we do not copy).

sclite reference markup in trn references, alternations `{ a / b }` and optionally
deletable words `(uh)`, is read (`formats.sclite_markup`) and honoured in the sclite
block's alignment as `sctk sclite -D` scores it; the row's plain reference text is each
slot's first spelling, optional words without parentheses. In hypotheses markup is
refused rather than scored as words (use `--glm` rules there).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ReadResult, ScoringRow
from earmark.formats.sclite_markup import has_markup, markup_slots, plain_text, refuse_markup
from earmark.records import read_records


@dataclass(frozen=True)
class TrnUtterance:
    line: int
    id: str
    speaker: str
    words: tuple[str, ...]
    #: The reference text with its sclite markup, when it has any (else None).
    markup: str | None = None


def trn_speaker(utterance_id: str) -> str:
    """`spk1-utt3` -> `spk1`: the text before the first `-` (sclite `-i rm`)."""
    head, sep, _ = utterance_id.partition("-")
    return head if sep and head else utterance_id


def read_trn(path: Path, *, reference: bool = False) -> list[TrnUtterance]:
    """Every `words (id)` line of a trn file, in order; duplicate ids are an error.

    With `reference`, sclite markup (`{ a / b }`, `(uh)`) is read: the utterance's words
    are the plain text (`formats.sclite_markup.plain_text`) and `markup` keeps the original."""
    out: list[TrnUtterance] = []
    first: dict[str, int] = {}
    for number, text in read_records(path):
        line = text.strip()
        if not line:
            continue
        open_at = line.rfind("(")
        if not line.endswith(")") or open_at < 0:
            raise EarmarkError(
                "a trn line ends with its utterance id in parentheses",
                file=str(path),
                line=number,
                field="id",
                hint="expected `word word ... (speaker-utterance)`",
            )
        ident = line[open_at + 1 : -1].strip()
        if not ident or any(c.isspace() for c in ident):
            raise EarmarkError(
                f"invalid utterance id ({ident!r})", file=str(path), line=number, field="id"
            )
        if ident in first:
            raise EarmarkError(
                f"duplicate utterance id {ident!r} (first on line {first[ident]})",
                file=str(path),
                line=number,
                field="id",
            )
        first[ident] = number
        text = line[:open_at]
        markup = None
        if reference and has_markup(text.split()):
            markup = " ".join(text.split())
            words = tuple(plain_text(markup_slots(markup, source=str(path), line=number)).split())
        else:
            words = refuse_markup(text.split(), path, number)
        out.append(TrnUtterance(number, ident, trn_speaker(ident), words, markup))
    if not out:
        raise EarmarkError("no records (the file has no `words (id)` lines)", file=str(path))
    return out


def _trn_row(ref: TrnUtterance, hyp: TrnUtterance | None) -> ScoringRow:
    return ScoringRow(
        id=ref.id,
        reference=" ".join(ref.words),
        hypothesis=None if hyp is None else " ".join(hyp.words),
        status=OK if hyp is not None else MISSING_HYPOTHESIS,
        extra={"speaker": ref.speaker}
        if ref.markup is None
        else {"speaker": ref.speaker, "reference_markup": ref.markup},
    )


def pair_trn(hyp_path: Path, ref_path: Path, *, allow_extra: bool = False) -> ReadResult:
    """Join two trn files by utterance id; a reference without a hypothesis is a
    `missing_hypothesis` row (all deletions)."""
    refs = read_trn(ref_path, reference=True)
    hyps = {u.id: u for u in read_trn(hyp_path)}
    ref_ids = {u.id for u in refs}
    excluded: list[dict[str, str]] = []
    for u in hyps.values():
        if u.id not in ref_ids:
            if not allow_extra:
                raise EarmarkError(
                    f"hypothesis for id {u.id!r} has no reference",
                    file=str(hyp_path),
                    line=u.line,
                    field="id",
                    hint="fix the ids, or pass --exclude-unmatched to list and skip them",
                )
            excluded.append({"id": u.id, "reason": "no_reference"})
    return ReadResult(
        [_trn_row(r, hyps.get(r.id)) for r in refs],
        excluded,
        source_files=[str(hyp_path), str(ref_path)],
        formats=["trn", "trn"],
    )
