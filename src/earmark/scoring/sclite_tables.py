"""The figures of sclite's reports: per-utterance alignments, per-speaker lines, the
edit tables. What `sclite_reports` builds and `sclite_text` prints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from earmark.metrics.alignment import AlignedOp
from earmark.metrics.counts import ErrorCounts
from earmark.results.codec import JSONValue


@dataclass(frozen=True)
class UtteranceAlignment:
    """One utterance's aligned columns, with the speaker its report line goes under."""

    id: str
    speaker: str
    ops: tuple[AlignedOp, ...]
    counts: ErrorCounts
    info: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SpeakerLine:
    """One line of the `.sys` table: sclite's # Snt, # Wrd, Corr, Sub, Del, Ins, Err, S.Err."""

    speaker: str
    sentences: int
    counts: ErrorCounts
    sentence_errors: int

    def to_dict(self) -> dict[str, JSONValue]:
        c = self.counts
        return {
            "speaker": self.speaker,
            "sentences": self.sentences,
            "words": c.ref_units,
            "correct": c.hits,
            "substitutions": c.substitutions,
            "deletions": c.deletions,
            "insertions": c.insertions,
            "errors": c.errors,
            "sentence_errors": self.sentence_errors,
        }


def speaker_lines(alignments: Iterable[UtteranceAlignment]) -> list[SpeakerLine]:
    """Per speaker (in order of first appearance) the summed counts of its utterances."""
    counts: dict[str, ErrorCounts] = {}
    sentences: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    for u in alignments:
        counts[u.speaker] = counts.get(u.speaker, ErrorCounts()) + u.counts
        sentences[u.speaker] += 1
        wrong[u.speaker] += u.counts.errors > 0
    return [SpeakerLine(s, sentences[s], counts[s], wrong[s]) for s in counts]


def total_line(lines: Sequence[SpeakerLine]) -> SpeakerLine:
    return SpeakerLine(
        "Sum",
        sum(x.sentences for x in lines),
        sum((x.counts for x in lines), ErrorCounts()),
        sum(x.sentence_errors for x in lines),
    )


@dataclass(frozen=True)
class EditTables:
    """sclite's `.dtl` tables: confusion pairs, insertions, deletions, both sides of subs."""

    confusion_pairs: Counter[tuple[str, str]]
    insertions: Counter[str]
    deletions: Counter[str]

    @classmethod
    def of(cls, alignments: Iterable[UtteranceAlignment]) -> EditTables:
        pairs: Counter[tuple[str, str]] = Counter()
        ins: Counter[str] = Counter()
        dels: Counter[str] = Counter()
        for u in alignments:
            for op in u.ops:
                if op.kind == "substitute":
                    pairs[(str(op.ref), str(op.hyp))] += 1
                elif op.kind == "insert":
                    ins[str(op.hyp)] += 1
                elif op.kind == "delete":
                    dels[str(op.ref)] += 1
        return cls(pairs, ins, dels)

    def to_dict(self) -> dict[str, JSONValue]:
        """Every entry (not only the most frequent), most frequent first, ties by text."""
        return {
            "confusion_pairs": [
                {"reference": r, "hypothesis": h, "count": n}
                for (r, h), n in ranked(self.confusion_pairs)
            ],
            "insertions": [{"word": w, "count": n} for w, n in ranked(self.insertions)],
            "deletions": [{"word": w, "count": n} for w, n in ranked(self.deletions)],
        }


#: What an edit table counts: a word, or a (reference, hypothesis) pair.
Entry = TypeVar("Entry", str, tuple[str, str])


def ranked(counter: Counter[Entry]) -> list[tuple[Entry, int]]:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
