"""NIST sclite's transcript formats: `trn`, `stm` and `ctm`, read into scoring rows.

- **trn**: one utterance a line, `word word ... (utterance-id)`; the id is the last
  parenthesised token. Speaker, as `sclite -i rm` groups it: the part of the id before
  its first `-` (`spk1-utt3` -> `spk1`); an id without `-` is its own speaker (sclite
  then folds it into the previous speaker, which we do not copy).
- **stm** (references): `file channel speaker start end [<label>] words...`; lines
  starting `;;` are comments. A segment whose words are `IGNORE_TIME_SEGMENT_IN_SCORING`
  is not scored, and hypothesis words inside it are dropped (listed, never silent).
- **ctm** (hypotheses): `file channel start duration word [confidence]`, `;;` comments.

ctm against stm: sclite aligns each recording's words to its segments by time. earmark
assigns every ctm word to one segment of the same file and channel, by the word's
midpoint (start + duration / 2): the segment with start <= midpoint < end (the last
segment of a channel includes its end); a midpoint inside an ignored segment drops the
word; a midpoint in a gap between segments goes to the nearest segment in time (the
earlier one on a tie) and is counted in the row's `ctm_words_outside`. The words of a
segment then align to its reference as a trn pair. Where sclite's time-mediated
alignment would split a word straddling two segments differently, counts can differ;
words well inside segments score identically (tested against `sctk sclite`).

sclite reference markup in trn references, alternations `{ a / b }` and optionally
deletable words `(uh)`, is read (`scoring.glm.markup_slots`) and honoured in the sclite
block's alignment as `sctk sclite -D` scores it; the row's plain reference text is each
slot's first spelling, optional words without parentheses. In hypotheses, and in stm
references, markup is refused rather than scored as words (use `--glm` rules there).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from earmark.errors import EarmarkError
from earmark.records import read_records
from earmark.scoring.glm import has_markup, markup_slots, plain_text
from earmark.scoring.rows import MISSING_HYPOTHESIS, OK, ScoringRow

#: The formats this module reads, and the suffixes that name them.
SCLITE_FORMATS = ("trn", "stm", "ctm")
SCLITE_SUFFIXES = {".trn": "trn", ".stm": "stm", ".ctm": "ctm"}
IGNORE_SEGMENT = "IGNORE_TIME_SEGMENT_IN_SCORING"


@dataclass(frozen=True)
class TrnUtterance:
    line: int
    id: str
    speaker: str
    words: tuple[str, ...]
    #: The reference text with its sclite markup, when it has any (else None).
    markup: str | None = None


@dataclass(frozen=True)
class StmSegment:
    line: int
    file: str
    channel: str
    speaker: str
    start: float
    end: float
    label: str | None
    words: tuple[str, ...]
    ignored: bool

    @property
    def id(self) -> str:
        """`speaker-file-channel-start-end`: unique per segment, speaker first (sclite's
        `rm` id convention), times to the centisecond as stm files write them."""
        return f"{self.speaker}-{self.file}-{self.channel}-{self.start:.2f}-{self.end:.2f}"


@dataclass(frozen=True)
class CtmWord:
    line: int
    file: str
    channel: str
    start: float
    duration: float
    word: str
    confidence: float | None

    @property
    def midpoint(self) -> float:
        return self.start + self.duration / 2


@dataclass
class SclitePairs:
    """Rows read from sclite files, and what was left out (with reasons)."""

    rows: list[ScoringRow]
    excluded: list[dict[str, str]] = field(default_factory=list)


def trn_speaker(utterance_id: str) -> str:
    """`spk1-utt3` -> `spk1`: the text before the first `-` (sclite `-i rm`)."""
    head, sep, _ = utterance_id.partition("-")
    return head if sep and head else utterance_id


def _check_words(words: list[str], path: Path, line: int) -> tuple[str, ...]:
    for w in words:
        if w in ("{", "}", "/") or w.startswith("{") or w.endswith("}"):
            raise EarmarkError(
                "sclite alternation markup `{ a / b }` is not read as words",
                file=str(path),
                line=line,
                field="text",
                hint="markup is read in trn references only; use a --glm rules file elsewhere",
            )
    return tuple(words)


def read_trn(path: Path, *, reference: bool = False) -> list[TrnUtterance]:
    """Every `words (id)` line of a trn file, in order; duplicate ids are an error.

    With `reference`, sclite markup (`{ a / b }`, `(uh)`) is read: the utterance's words
    are the plain text (`scoring.glm.plain_text`) and `markup` keeps the original."""
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
            words = _check_words(text.split(), path, number)
        out.append(TrnUtterance(number, ident, trn_speaker(ident), words, markup))
    if not out:
        raise EarmarkError("no records (the file has no `words (id)` lines)", file=str(path))
    return out


def _time(value: str, path: Path, line: int, name: str) -> float:
    try:
        t = float(value)
    except ValueError:
        raise EarmarkError(
            f"expected a time in seconds, got {value!r}", file=str(path), line=line, field=name
        ) from None
    if not math.isfinite(t) or t < 0:
        raise EarmarkError(
            f"expected a finite time >= 0, got {value!r}", file=str(path), line=line, field=name
        )
    return t


def _content_lines(path: Path) -> list[tuple[int, list[str]]]:
    out = []
    for number, text in read_records(path):
        parts = text.split()
        if not parts or parts[0].startswith(";;"):
            continue
        out.append((number, parts))
    return out


def read_stm(path: Path) -> list[StmSegment]:
    """Every segment of an stm file, in file order (comments and blank lines skipped)."""
    out: list[StmSegment] = []
    seen: dict[tuple[str, str, float, float, str], int] = {}
    for number, parts in _content_lines(path):
        if len(parts) < 5:
            raise EarmarkError(
                f"an stm line has at least 5 fields, found {len(parts)}",
                file=str(path),
                line=number,
                hint="expected `file channel speaker start end [<label>] words...`",
            )
        file, channel, speaker = parts[0], parts[1], parts[2]
        start = _time(parts[3], path, number, "start")
        end = _time(parts[4], path, number, "end")
        if end < start:
            raise EarmarkError(
                f"segment ends ({end}) before it starts ({start})",
                file=str(path),
                line=number,
                field="end",
            )
        rest = parts[5:]
        label = None
        if rest and rest[0].startswith("<") and rest[0].endswith(">"):
            label, rest = rest[0], rest[1:]
        ignored = rest == [IGNORE_SEGMENT]
        words = () if ignored else _check_words(rest, path, number)
        key = (file, channel, start, end, speaker)
        if key in seen and not ignored:
            raise EarmarkError(
                f"duplicate segment (first on line {seen[key]})", file=str(path), line=number
            )
        seen[key] = number
        out.append(StmSegment(number, file, channel, speaker, start, end, label, words, ignored))
    if not out:
        raise EarmarkError("no records (the file has no stm segments)", file=str(path))
    return out


def read_ctm(path: Path) -> list[CtmWord]:
    """Every word of a ctm file, in file order (comments and blank lines skipped)."""
    out: list[CtmWord] = []
    for number, parts in _content_lines(path):
        if len(parts) < 5:
            raise EarmarkError(
                f"a ctm line has at least 5 fields, found {len(parts)}",
                file=str(path),
                line=number,
                hint="expected `file channel start duration word [confidence]`",
            )
        start = _time(parts[2], path, number, "start")
        duration = _time(parts[3], path, number, "duration")
        confidence = None
        if len(parts) > 5 and parts[5].upper() != "NA":
            try:
                confidence = float(parts[5])
            except ValueError:
                raise EarmarkError(
                    f"expected a confidence or NA, got {parts[5]!r}",
                    file=str(path),
                    line=number,
                    field="confidence",
                ) from None
        out.append(CtmWord(number, parts[0], parts[1], start, duration, parts[4], confidence))
    if not out:
        raise EarmarkError("no records (the file has no ctm words)", file=str(path))
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


def pair_trn(hyp_path: Path, ref_path: Path, *, allow_extra: bool = False) -> SclitePairs:
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
    return SclitePairs([_trn_row(r, hyps.get(r.id)) for r in refs], excluded)


@dataclass(frozen=True)
class _Channel:
    """One file and channel's segments sorted by start, for midpoint look-ups."""

    order: list[int]
    starts: list[float]
    ends: list[float]
    longest: float
    #: Per sorted position: the position, at or before it, of the latest-ending segment.
    latest_end: list[int]

    @classmethod
    def build(cls, segments: list[StmSegment], indices: list[int]) -> _Channel:
        order = sorted(indices, key=lambda k: (segments[k].start, segments[k].end))
        starts = [segments[k].start for k in order]
        ends = [segments[k].end for k in order]
        latest_end: list[int] = []
        for pos, end in enumerate(ends):
            latest_end.append(
                pos if not latest_end or end >= ends[latest_end[-1]] else latest_end[-1]
            )
        longest = max((e - s for s, e in zip(starts, ends, strict=True)), default=0.0)
        return cls(order, starts, ends, longest, latest_end)

    def segment_for(self, mid: float) -> tuple[int, bool]:
        """(segment index, inside?) for a word midpoint.

        Inside: the covering segment that starts latest (start <= mid < end; the
        channel's last segment also takes mid == end). Outside: the nearest segment in
        time, the earlier one on a tie.
        """
        at = bisect_right(self.starts, mid) - 1
        last = len(self.order) - 1
        pos = at
        while pos >= 0 and self.starts[pos] >= mid - self.longest:
            if mid < self.ends[pos] or (pos == last and mid == self.ends[pos]):
                return self.order[pos], True
            pos -= 1
        if at < 0:
            return self.order[0], False
        before = self.latest_end[at]
        if at == last or mid - self.ends[before] <= self.starts[at + 1] - mid:
            return self.order[before], False
        return self.order[at + 1], False


def pair_stm_ctm(ctm_path: Path, stm_path: Path, *, allow_extra: bool = False) -> SclitePairs:
    """Assign ctm words to stm segments by midpoint (see the module docstring)."""
    segments = read_stm(stm_path)
    words = read_ctm(ctm_path)
    indices: dict[tuple[str, str], list[int]] = {}
    for k, seg in enumerate(segments):
        indices.setdefault((seg.file, seg.channel), []).append(k)
    by_channel = {key: _Channel.build(segments, ks) for key, ks in indices.items()}
    assigned: dict[int, list[CtmWord]] = {k: [] for k in range(len(segments))}
    outside: dict[int, int] = {}
    unmatched: dict[tuple[str, str], int] = {}
    for w in words:
        key = (w.file, w.channel)
        if key not in by_channel:
            if not allow_extra:
                raise EarmarkError(
                    f"no stm segment for file {w.file!r} channel {w.channel!r}",
                    file=str(ctm_path),
                    line=w.line,
                    field="file",
                    hint="fix the names, or pass --exclude-unmatched to list and skip them",
                )
            unmatched[key] = unmatched.get(key, 0) + 1
            continue
        chosen, inside = by_channel[key].segment_for(w.midpoint)
        if not inside:
            outside[chosen] = outside.get(chosen, 0) + 1
        assigned[chosen].append(w)
    rows: list[ScoringRow] = []
    excluded: list[dict[str, str]] = []
    for k, seg in enumerate(segments):
        seg_words = sorted(assigned[k], key=lambda w: (w.start, w.line))
        if seg.ignored:
            excluded.append(
                {
                    "id": seg.id,
                    "reason": "ignore_time_segment_in_scoring",
                    "hypothesis_words_dropped": str(len(seg_words)),
                }
            )
            continue
        extra: dict[str, object] = {
            "speaker": seg.speaker,
            "file": seg.file,
            "channel": seg.channel,
            "start": seg.start,
            "end": seg.end,
        }
        if seg.label is not None:
            extra["label"] = seg.label
        if outside.get(k):
            extra["ctm_words_outside"] = outside[k]
        rows.append(
            ScoringRow(
                id=seg.id,
                reference=" ".join(seg.words),
                hypothesis=" ".join(w.word for w in seg_words),
                status=OK,
                extra=extra,
            )
        )
    for (file, channel), n in sorted(unmatched.items()):
        excluded.append(
            {"id": f"{file}-{channel}", "reason": "no_reference", "hypothesis_words": str(n)}
        )
    if not rows:
        raise EarmarkError("every stm segment is ignored: nothing to score", file=str(stm_path))
    return SclitePairs(rows, excluded)


def sclite_format(path: Path) -> str | None:
    """The sclite format a suffix names (`.trn`, `.stm`, `.ctm`), or None."""
    return SCLITE_SUFFIXES.get(path.suffix.lower())


def read_sclite_pair(
    predictions: Path, refs: Path, fmt: str | None, *, allow_extra: bool = False
) -> tuple[SclitePairs, list[str]]:
    """Rows from an sclite pair and the formats read ([hypotheses, references]).

    `fmt` "trn": both files trn. "stm" or "ctm": references stm, hypotheses ctm. Without
    `fmt` the suffixes decide.
    """
    hyp_fmt = sclite_format(predictions)
    ref_fmt = sclite_format(refs)
    if fmt != "trn" and (hyp_fmt == "stm" or ref_fmt == "ctm"):
        raise EarmarkError(
            "with stm/ctm, --refs is the stm file and PREDICTIONS the ctm file",
            file=str(predictions),
            hint="swap the two files",
        )
    if fmt == "trn" or (fmt is None and hyp_fmt == ref_fmt == "trn"):
        return pair_trn(predictions, refs, allow_extra=allow_extra), ["trn", "trn"]
    if fmt in ("stm", "ctm") or (fmt is None and (hyp_fmt, ref_fmt) == ("ctm", "stm")):
        return pair_stm_ctm(predictions, refs, allow_extra=allow_extra), ["ctm", "stm"]
    raise EarmarkError(
        f"cannot pair {predictions.name} ({hyp_fmt or 'unknown'}) with {refs.name} "
        f"({ref_fmt or 'unknown'}) as sclite files",
        hint="trn hypotheses pair with trn references; ctm hypotheses with stm references",
    )


__all__ = [
    "IGNORE_SEGMENT",
    "SCLITE_FORMATS",
    "CtmWord",
    "SclitePairs",
    "StmSegment",
    "TrnUtterance",
    "pair_stm_ctm",
    "pair_trn",
    "read_ctm",
    "read_sclite_pair",
    "read_stm",
    "read_trn",
    "trn_speaker",
]
