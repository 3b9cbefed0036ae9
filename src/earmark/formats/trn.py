"""sclite's trn files: one utterance a line, `word word ... (utterance-id)`.

The id is the last parenthesised token. Speaker, by default (earmark's rule, `--id-format
earmark`, kept so that earlier results keep their bytes): the part of the id before its
first `-` (`spk1-utt3` -> `spk1`); an id without `-` is its own speaker. sclite's own
rules (`sclite -i rm|spu_id|swb|wsj`) are `sclite_speaker`, chosen with `--id-format`.

sclite reference markup in trn references, alternations `{ a / b }` and optionally
deletable words `(uh)`, is read (`formats.sclite_markup`) and honoured as `sctk sclite
-D` scores it, in the headline word counts and the sclite block alike
(`scoring.word_counter`); the row's plain reference text is each slot's first spelling,
optional words without parentheses, and the markup rides along in
`extra["reference_markup"]`. In hypotheses markup is refused rather than scored as words
(use `--glm` rules there).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from sys import intern
from typing import Literal

from earmark.errors import EarmarkError
from earmark.formats.rows import MISSING_HYPOTHESIS, OK, ReadResult, ScoringRow
from earmark.formats.sclite_markup import has_markup, markup_slots, plain_text, refuse_markup
from earmark.records import record_blocks


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


IdFormat = Literal["rm", "spu_id", "swb", "wsj"]
#: sclite's four `-i` rules.
ID_FORMATS: tuple[IdFormat, ...] = ("rm", "spu_id", "swb", "wsj")
#: earmark's own rule, `--id-format earmark` (the default, so earlier results keep their
#: bytes: results record no `id_format` for it).
EARMARK_ID_FORMAT = "earmark"
#: `--id-format`'s choices.
ID_FORMAT_CHOICES: tuple[str, ...] = (EARMARK_ID_FORMAT, *ID_FORMATS)
#: earmark's rule in words, as the sclite block's `speaker_rule` has always said it.
EARMARK_ID_RULE = "row speaker (stm/trn), else the id before its first '-', else the id"
#: What each `sclite -i` form takes as the speaker, as SCTK 2.10 (sclite 2.10, SCTK 1.3)
#: does it: checked against `sctk sclite` on ids of every form in tests/scoring.
ID_FORMAT_RULES: dict[IdFormat, str] = {
    **dict.fromkeys(
        ("rm", "spu_id", "swb"),
        "sclite -i {form}: the id, ASCII letters lower-cased, up to its first '-', else up "
        "to its first '_'; an id with neither has no speaker and is counted under the "
        "previous utterance's ('' for the first), as sclite does",
    ),
    "wsj": "sclite -i wsj: the id's first three characters, ASCII letters lower-cased (a "
    "shorter id is followed by its closing ')', as sclite copies it)",
}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def checked_id_format(name: str | None) -> IdFormat | None:
    """`name` as sclite's `IdFormat`; None or "earmark" (earmark's rule) is None; anything
    else is a one-line error."""
    for form in ID_FORMATS:
        if name == form:
            return form
    if name is None or name == EARMARK_ID_FORMAT:
        return None
    raise EarmarkError(
        f"unknown id format {name!r}",
        field="id_format",
        hint="earmark, rm, spu_id, swb or wsj",
    )


def speaker_rule(id_format: IdFormat | None) -> str:
    """The rule speakers were read by, in words (the sclite block's `speaker_rule`)."""
    if id_format is None:
        return EARMARK_ID_RULE
    return ID_FORMAT_RULES[id_format].format(form=id_format)


def speaker_rule_line(id_format: IdFormat | None) -> str:
    """The rule as the terminal and results.md print it, named by its `--id-format`.

    >>> speaker_rule_line(None)
    "earmark: row speaker (stm/trn), else the id before its first '-', else the id"
    """
    rule = speaker_rule(id_format)
    return rule if id_format is not None else f"{EARMARK_ID_FORMAT}: {rule}"


def sclite_speaker(utterance_id: str, id_format: IdFormat) -> str | None:
    """The speaker `sclite -i ID_FORMAT` reads from a trn id, or None where it finds none.

    sclite folds case (without `-s`), and the three separator forms share one rule in
    the SCTK release the tests run (`ID_FORMAT_RULES`).

    >>> sclite_speaker("spk3_0042", "spu_id"), sclite_speaker("AB-cd_ef", "rm")
    ('spk3', 'ab')
    >>> sclite_speaker("4ozc0201", "wsj"), sclite_speaker("ab", "wsj"), sclite_speaker("x", "rm")
    ('4oz', 'ab)', None)
    """
    ident = utterance_id.translate(_ASCII_LOWER)
    if id_format == "wsj":
        return (ident + ")")[:3]
    for sep in "-_":
        head, found, _ = ident.partition(sep)
        if found:
            return head
    return None


#: One trn line read: (line number, utterance id, plain text, markup or None).
TrnLine = tuple[int, str, str, str | None]


def trn_lines(path: Path, *, reference: bool = False) -> Iterator[TrnLine]:
    """Every `words (id)` line of a trn file as it is read, blank lines skipped; ids are
    not checked for repeats (`read_trn` does, and `formats.trn_join`).

    The plain text is the line's words joined by single spaces (with `reference`, sclite
    markup read as `read_trn` says); `markup` is the marked-up text, None without any."""
    for first, lines in record_blocks(path):
        if not _plain_block("\n".join(lines)):
            for number, text in enumerate(lines, first):
                parsed = _parse(text, path, number, reference)
                if parsed is not None:
                    yield parsed
            continue
        # No whitespace but single spaces, no `{`, `}` or `/`: `words (id)`, its only `(`
        # opening a printable id after a space and its words not starting with one, is
        # those words and that id (`_parse`'s answer, found without a call); any other
        # line takes `_parse`.
        for number, text in enumerate(lines, first):
            words, found, ident = text.rpartition(" (")
            ident = ident[:-1]
            if (
                found
                and text.endswith(")")
                and ident.isprintable()
                and ident
                and " " not in ident
                and "(" not in ident
                and not words.startswith(" ")
                and not (reference and "(" in words)
            ):
                yield number, ident, words, None
                continue
            parsed = _parse(text, path, number, reference)
            if parsed is not None:
                yield parsed


#: What sends a block's lines to `_parse`: markup's `{`, `}`, `/`, and every character
#: `str.split` splits at but the space and `\n` (which ends the lines of a block; a test
#: checks the list against all of Unicode).
_NOT_PLAIN = (
    "{}/\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _plain_block(block: str) -> bool:
    """Whether no line of `block` holds markup characters, whitespace other than single
    spaces, or a double space: a search per character in C (a `memchr` for ASCII
    text), not a few calls per line."""
    return "  " not in block and not any(c in block for c in _NOT_PLAIN)


def _parse(text: str, path: Path, number: int, reference: bool) -> TrnLine | None:
    """One line: (number, id, plain text, markup), None when blank; a bad line raises."""
    line = text.strip()
    if not line:
        return None
    words, found, ident = line.rpartition("(")
    if not found or not line.endswith(")"):
        raise EarmarkError(
            "a trn line ends with its utterance id in parentheses",
            file=str(path),
            line=number,
            field="id",
            hint="expected `word word ... (speaker-utterance)`",
        )
    ident = ident[:-1].strip()
    # Control characters (NUL, escapes) in an id would reach the speaker tables and the
    # terminal verbatim: refused, like whitespace. A printable ASCII id without a
    # space has neither (the common id, checked in C, not a character at a time).
    if not ident or (
        not (ident.isascii() and ident.isprintable() and " " not in ident)
        and any(c.isspace() or unicodedata.category(c) == "Cc" for c in ident)
    ):
        raise EarmarkError(
            f"invalid utterance id ({ident!r})", file=str(path), line=number, field="id"
        )
    # Markup needs `{`, `}` or `(` (references) and `{`, `}` or `/` (refused
    # elsewhere): a line without them skips the per-word checks.
    if reference and ("{" in words or "}" in words or "(" in words):
        split = words.split()
        if has_markup(split):
            markup = " ".join(split)
            plain = plain_text(markup_slots(markup, source=str(path), line=number))
            return number, ident, " ".join(plain.split()), markup
    if "{" in words or "}" in words or "/" in words:
        return number, ident, " ".join(refuse_markup(words.split(), path, number)), None
    # Printable text holds no whitespace but the ASCII space (`str.isprintable` is False
    # for every other character `str.split` splits at): without a double space, its
    # words joined by single spaces are the text stripped, found without a list.
    if words.isprintable() and "  " not in words:
        return number, ident, words.strip(), None
    return number, ident, " ".join(words.split()), None


def read_trn(path: Path, *, reference: bool = False) -> list[TrnUtterance]:
    """Every `words (id)` line of a trn file, in order; duplicate ids are an error.

    With `reference`, sclite markup (`{ a / b }`, `(uh)`) is read: the utterance's words
    are the plain text (`formats.sclite_markup.plain_text`) and `markup` keeps the original."""
    out: list[TrnUtterance] = []
    first: dict[str, int] = {}
    for number, ident, text, markup in trn_lines(path, reference=reference):
        if ident in first:
            raise duplicate_id(ident, first[ident], path, number)
        first[ident] = number
        # Words are interned: a corpus repeats its vocabulary, so each distinct word is
        # held once (every utterance of the file is in memory at once).
        words = tuple(map(intern, text.split()))
        out.append(TrnUtterance(number, ident, trn_speaker(ident), words, markup))
    if not out:
        raise no_records(path)
    return out


def duplicate_id(ident: str, first: int, path: Path, line: int) -> EarmarkError:
    """An id a trn file repeats, naming both its lines."""
    return EarmarkError(
        f"duplicate utterance id {ident!r} (first on line {first})",
        file=str(path),
        line=line,
        field="id",
    )


def no_records(path: Path) -> EarmarkError:
    """A trn file without a single `words (id)` line."""
    return EarmarkError("no records (the file has no `words (id)` lines)", file=str(path))


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
