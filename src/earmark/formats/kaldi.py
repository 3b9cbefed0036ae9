"""Kaldi `text` files: `utt-id word word ...` a line.

Any plain line reads both as `id words...` and as a sentence (`formats.lines`), so a
pair of plain files is taken as Kaldi only when its first words behave like ids
(`why_not_kaldi`); otherwise the reader asks instead of choosing.
"""

from __future__ import annotations

from pathlib import Path

from earmark.errors import EarmarkError
from earmark.records import read_records


def kaldi_lines(path: Path) -> list[tuple[int, str, str]]:
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
    return _kaldi_index(path, kaldi_lines(path))


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


def plain_pair_format(pred_path: Path, ref_path: Path) -> str:
    """'kaldi' when both plain files clearly are Kaldi `text`; otherwise ask, never guess."""
    hyp, ref = kaldi_lines(pred_path), kaldi_lines(ref_path)
    reason = why_not_kaldi(pred_path, hyp, ref_path, ref)
    if reason is None:
        return "kaldi"
    raise EarmarkError(
        "cannot tell whether these plain-text files are Kaldi `text` (`id words...`) or one "
        f"sentence per line: {reason}",
        hint="pass --format kaldi or --format lines",
    )
