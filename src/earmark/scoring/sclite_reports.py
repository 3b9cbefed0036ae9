"""sclite-style reports of a scored corpus: `.sys`/`.raw` by speaker, `.pra`, `.dtl`.

The counts come from the same normalised texts as results.json (each row's primary
view), aligned word by word with earmark's alignment (`metrics.alignment`: fewest edits,
rapidfuzz's tie rule), with sclite's weighted one (`metrics.sclite_alignment`: sub 4,
ins/del 3) or with Kaldi's (`metrics.kaldi_alignment`: `compute-wer`'s tie rule). The
choice is recorded; with `alignment="sclite"` the S/D/I split of every utterance is the
one `sctk sclite` prints, so the `.sys` table can be checked line by line against
sclite's, and with `"kaldi"` the one `compute-wer` prints. The headline WER of
results.json always uses earmark's alignment; the totals of errors differ only where
sclite's weights prefer a path with more edits (rare: see `metrics.sclite_alignment`;
Kaldi's total is always the edit distance, earmark's too).

Every figure of `.sys`, `.raw` and `.dtl` is printed as sclite prints it
(`sclite_figure`: half away from zero; a percentage is part / whole * 100; the S.D. is
held in a C float), checked cell by cell against `sctk sclite` in tests/scoring.

Alternates and optional words (a `--glm` rules file, or sclite markup in trn
references) are honoured here, in this block's alignment (`metrics.slot_alignment`),
always at sclite's weights (an optional word's deletion costs 2 only against those),
as `sctk sclite -D` scores them. The block then records `glm` (name, SHA-256,
version) and `reference_markup` (how many rows carried markup).

Speaker of a row: the `speaker` an stm segment or trn id gave it (`row.extra`), else
the part of the id before its first `-`, else the whole id (earmark's rule, the default).
With `id_format` (`--id-format rm|spu_id|swb|wsj`) the speaker of every row that is not
an stm segment is read from its id by sclite's rule of that name
(`formats.trn.sclite_speaker`), and an id sclite finds no speaker in is counted under the
previous row's speaker, as sclite does. sclite takes that order from the hypothesis
file, earmark from the reference file: the two agree when both list the utterances in
one order (the usual case).
"""

from __future__ import annotations

import math
import os
import statistics
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from earmark.errors import EarmarkError
from earmark.formats.sclite_markup import markup_slots, plain_text
from earmark.formats.trn import ID_FORMAT_RULES, IdFormat, sclite_speaker, trn_speaker
from earmark.metrics.alignment import AlignedOp, align
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.kaldi_alignment import align_kaldi
from earmark.metrics.sclite_alignment import align_sclite
from earmark.metrics.slot_alignment import Slot, align_slots
from earmark.outputs import atomic_write_text
from earmark.results.codec import JSONValue
from earmark.scoring.glm import Glm

if TYPE_CHECKING:
    from earmark.scoring.scorer import ScoreResult

AlignmentName = Literal["earmark", "sclite", "kaldi"]
ALIGNMENTS: tuple[AlignmentName, ...] = ("earmark", "sclite", "kaldi")
ALIGNMENT_RULES = {
    "kaldi": "Kaldi compute-wer's LevenshteinEditDistance: unit costs; ties: the diagonal "
    "only when strictly cheaper, then deletion, then insertion (see "
    "earmark.metrics.kaldi_alignment)",
    "earmark": "fewest edits (S+D+I), rapidfuzz tie rule (see earmark.metrics.alignment)",
    "sclite": "sclite's weighted alignment: correct 0, substitution 4, insertion and "
    "deletion 3; ties: diagonal, then deletion, then insertion (sctk net_dp.c)",
}


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


def align_tokens(
    reference: Sequence[str], hypothesis: Sequence[str], alignment: AlignmentName
) -> tuple[tuple[AlignedOp, ...], ErrorCounts]:
    """Columns and counts of one pair under the named alignment."""
    if alignment == "sclite":
        result = align_sclite(reference, hypothesis)
    elif alignment == "kaldi":
        result = align_kaldi(reference, hypothesis)
    elif alignment == "earmark":
        result = align(reference, hypothesis)
    else:
        raise EarmarkError(
            f"unknown alignment {alignment!r}", field="alignment", hint="earmark, sclite or kaldi"
        )
    return result.ops, result.counts


def reference_slots(
    ref_tokens: Sequence[str], extra: dict[str, JSONValue], glm: Glm | None, row_id: str
) -> list[Slot] | None:
    """The slots a reference aligns as, or None when it has no markup and no GLM applies.

    Markup is read from the raw trn text, so the normalised reference must still be its
    plain text (true with `--normalizer none`); otherwise the slots would not line up
    with the tokens, and that is refused rather than guessed."""
    markup = extra.get("reference_markup")
    if markup is None:
        return None if glm is None else [glm.slot(t) for t in ref_tokens]
    slots = markup_slots(str(markup))
    if plain_text(slots).split() != list(ref_tokens):
        raise EarmarkError(
            f"reference {row_id!r} has sclite markup but its normalised text differs",
            field="normalizer",
            hint="score trn references with markup using --normalizer none",
        )
    return slots if glm is None else [glm.widen(slot) for slot in slots]


def speaker_of(row_id: str, extra: dict[str, JSONValue] | None) -> str:
    """The speaker a row is reported under (see the module docstring)."""
    if extra and isinstance(extra.get("speaker"), str) and extra["speaker"]:
        return str(extra["speaker"])
    return trn_speaker(row_id)


def sclite_speakers(
    ids: Iterable[str], extras: Mapping[str, Mapping[str, JSONValue]], id_format: IdFormat
) -> dict[str, str]:
    """Each row's speaker under sclite's `-i ID_FORMAT`, in row order (see the module
    docstring); stm segments keep the speaker their line names."""
    out: dict[str, str] = {}
    previous = ""
    for row_id in ids:
        extra = extras.get(row_id) or {}
        speaker: str | None
        if "file" in extra and isinstance(extra.get("speaker"), str):
            speaker = str(extra["speaker"])
        else:
            speaker = sclite_speaker(row_id, id_format)
        previous = out[row_id] = previous if speaker is None else speaker
    return out


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
                for (r, h), n in _ranked(self.confusion_pairs)
            ],
            "insertions": [{"word": w, "count": n} for w, n in _ranked(self.insertions)],
            "deletions": [{"word": w, "count": n} for w, n in _ranked(self.deletions)],
        }


_Entry = TypeVar("_Entry", str, tuple[str, str])


def _ranked(counter: Counter[_Entry]) -> list[tuple[_Entry, int]]:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))


def sclite_section(
    alignments: Sequence[UtteranceAlignment],
    alignment: AlignmentName,
    *,
    not_aligned: Sequence[dict[str, str]] = (),
    id_format: IdFormat | None = None,
) -> dict[str, JSONValue]:
    """results.json's `sclite` block: per-speaker and total counts, the full edit tables."""
    lines = speaker_lines(alignments)
    rule = (
        "row speaker (stm/trn), else the id before its first '-', else the id"
        if id_format is None
        else ID_FORMAT_RULES[id_format].format(form=id_format)
    )
    return {
        "alignment": alignment,
        "alignment_rule": ALIGNMENT_RULES[alignment],
        **({} if id_format is None else {"id_format": id_format}),
        "speaker_rule": rule,
        "speakers": [x.to_dict() for x in lines],
        "total": total_line(lines).to_dict(),
        **EditTables.of(alignments).to_dict(),
        "not_aligned": cast("JSONValue", list(not_aligned)),
    }


# ---------------------------------------------------------------- rendering


def _pct(part: int, whole: int) -> float:
    """part / whole * 100 in that order, as sclite computes it (`100 * part / whole` can
    differ in the last bit, and so in a figure that rounds at a half)."""
    return part / whole * 100.0 if whole else 0.0


def _sys_values(line: SpeakerLine, percent: bool) -> list[float]:
    c = line.counts
    raw = [c.hits, c.substitutions, c.deletions, c.insertions, c.errors]
    if not percent:
        return [*map(float, raw), float(line.sentence_errors)]
    return [_pct(v, c.ref_units) for v in raw] + [_pct(line.sentence_errors, line.sentences)]


def render_sys(name: str, lines: Sequence[SpeakerLine], *, percent: bool = True) -> str:
    """sclite's SYSTEM SUMMARY table (`.sys`: percentages; `.raw`: counts) by speaker."""
    label_w = max([7, *(len(x.speaker) for x in lines)])

    def row(label: str, snt: str, wrd: str, values: Sequence[str]) -> str:
        cells = " ".join(f"{v:>6}" for v in values)
        return f"| {label:<{label_w}} |{snt:>5} {wrd:>6} |{cells} |"

    def fmt(values: Sequence[float], counts: bool) -> list[str]:
        return [f"{v:.0f}" if counts else sclite_figure(v) for v in values]

    header = row("SPKR", "# Snt", "# Wrd", ["Corr", "Sub", "Del", "Ins", "Err", "S.Err"])
    width = len(header) - 2
    out = [
        "SYSTEM SUMMARY PERCENTAGES by SPEAKER".center(width + 2),
        "",
        "," + "-" * width + ".",
        "|" + name.center(width) + "|",
        "|" + "-" * width + "|",
        header,
    ]
    sep = "|" + "".join("+" if c == "|" else "-" for c in header[1:-1]) + "|"
    for x in lines:
        values = fmt(_sys_values(x, percent), not percent)
        out += [sep, row(x.speaker, str(x.sentences), str(x.counts.ref_units), values)]
    total = total_line(lines)
    out += ["|" + "=" * width + "|"]
    out += [
        row(
            "Sum/Avg" if percent else "Sum",
            str(total.sentences),
            str(total.counts.ref_units),
            fmt(_sys_values(total, percent), not percent),
        )
    ]
    out += ["|" + "=" * width + "|"]
    columns = list(
        zip(
            *[[x.sentences, x.counts.ref_units, *_sys_values(x, percent)] for x in lines],
            strict=True,
        )
    )
    for label, stat in (("Mean", _mean), ("S.D.", _sd), ("Median", statistics.median)):
        stats = [sclite_figure(float(stat(col))) for col in columns]
        out.append(row(label, stats[0], stats[1], stats[2:]))
    out.append("`" + "-" * width + "'")
    return "\n".join(out) + "\n"


def sclite_figure(value: float) -> str:
    """One decimal as sclite prints it: rounded half away from zero (SCTK's `F_ROUND`:
    add 0.5, truncate to an int), then `%.1f`.

    Not Python's (or C printf's) round-half-even of the binary value: a mean of 1.25
    prints `1.3` in sclite's reports, as here.

    >>> [sclite_figure(v) for v in (1.25, 6.25, 81.25, 0.05, 2.0, 12.349999, -6.25, -0.04)]
    ['1.3', '6.3', '81.3', '0.1', '2.0', '12.3', '-6.3', '0.0']
    """
    return f"{int(value * 10.0 + (0.5 if value > 0 else -0.5)) / 10.0:.1f}"


def _mean(values: Sequence[float]) -> float:
    """The mean as sclite's C sums it: in double, left to right (not `math.fsum`)."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def _sd(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1) as sclite computes it: in double from the double
    mean, the result held in a C `float` (the figure then rounds as sclite's does;
    matched against `sctk sclite` on 1,800 generated tables); 0 for one speaker."""
    if len(values) < 2:
        return 0.0
    mean = _mean(values)
    squares = 0.0
    for v in values:
        squares += (v - mean) ** 2
    return float(struct.unpack("f", struct.pack("f", math.sqrt(squares / (len(values) - 1))))[0])


_EVAL = {"equal": "", "substitute": "S", "delete": "D", "insert": "I"}


def pra_block(u: UtteranceAlignment) -> list[str]:
    """One utterance as sclite's `.pra` prints it: errors upper-cased, `*` for gaps."""
    refs, hyps, evals = [], [], []
    for op in u.ops:
        ref = op.ref if op.ref is not None else ""
        hyp = op.hyp if op.hyp is not None else ""
        if op.kind != "equal":
            ref, hyp = ref.upper(), hyp.upper()
        width = max(len(ref), len(hyp), 1)
        # An optional word left out (`equal` with no hypothesis) is blank, as in sclite.
        gap = " " if op.kind == "equal" else "*"
        refs.append((ref or gap * width).ljust(width))
        hyps.append((hyp or gap * width).ljust(width))
        evals.append(_EVAL[op.kind].ljust(width))
    c = u.counts
    lines = [f"id: ({u.id})"]
    lines += [f"{k.capitalize()}: {v}" for k, v in u.info]
    lines.append(f"Scores: (#C #S #D #I) {c.hits} {c.substitutions} {c.deletions} {c.insertions}")
    if u.ops:  # an empty pair has no columns (sclite prints none either)
        lines += ["REF:  " + " ".join(refs), "HYP:  " + " ".join(hyps), "Eval: " + " ".join(evals)]
    return [*lines, ""]


def render_pra(name: str, alignments: Sequence[UtteranceAlignment]) -> str:
    """Per-utterance alignments grouped by speaker (sclite `-o pra`)."""
    by_speaker: dict[str, list[UtteranceAlignment]] = {}
    for u in alignments:  # one pass: 10,000 speakers must not mean 10,000 scans
        by_speaker.setdefault(u.speaker, []).append(u)
    out = ["", "\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE", "", f"System name:   {name}", ""]
    out += ["Speakers: "] + [f"{k:5d}:  {s}" for k, s in enumerate(by_speaker)] + [""]
    for k, (speaker, mine) in enumerate(by_speaker.items()):
        out.append(f"Speaker sentences {k:3d}:  {speaker}   #utts: {len(mine)}")
        for u in mine:
            out += pra_block(u)
    return "\n".join(out) + "\n"


def _listing(title: str, counter: Counter[_Entry], show: Callable[[_Entry], str]) -> list[str]:
    ranked = _ranked(counter)
    out = [
        f"{title:<33}Total                 ({len(ranked)})",
        f"{'':<33}With >=  1 occurrences ({len(ranked)})",
        "",
    ]
    out += [f"{k:4d}: {n:4d}  ->  {show(item)}" for k, (item, n) in enumerate(ranked, 1)]
    out += ["     -------", f"{sum(counter.values()):9d}", "", ""]
    return out


def render_dtl(name: str, alignments: Sequence[UtteranceAlignment]) -> str:
    """sclite's detailed report: sentence and word summaries, then every edit table."""
    total = total_line(speaker_lines(alignments))
    c = total.counts
    n = total.sentences
    tables = EditTables.of(alignments)
    with_kind = {
        kind: sum(1 for u in alignments if any(op.kind == kind for op in u.ops))
        for kind in ("substitute", "delete", "insert")
    }
    aligned = sum(len(u.ops) for u in alignments)

    n_ref = c.ref_units

    def word(label: str, part: int) -> str:
        return f"Percent {label:<18}= {sclite_figure(_pct(part, n_ref)):>6}%   ({part:4d})"

    def share(label: str, part: int, whole: int) -> str:
        return f" {label:<38}{sclite_figure(_pct(part, whole)):>5}%   ({part:4d})"

    out = [
        f"DETAILED OVERALL REPORT FOR THE SYSTEM: {name}",
        "",
        "SENTENCE RECOGNITION PERFORMANCE",
        "",
        f" {'sentences':<48}{n:4d}",
        share("with errors", total.sentence_errors, n),
        "",
        share("  with substitions", with_kind["substitute"], n),
        share("  with deletions", with_kind["delete"], n),
        share("  with insertions", with_kind["insert"], n),
        "",
        "",
        "WORD RECOGNITION PERFORMANCE",
        "",
        word("Total Error", c.errors),
        "",
        word("Correct", c.hits),
        "",
        word("Substitution", c.substitutions),
        word("Deletions", c.deletions),
        word("Insertions", c.insertions),
        f"Percent Word Accuracy     = {sclite_figure(_pct(c.hits - c.insertions, n_ref)):>6}%",
        "",
        "",
        f"Ref. words                =           ({c.ref_units:4d})",
        f"Hyp. words                =           ({c.hyp_units:4d})",
        f"Aligned words             =           ({aligned:4d})",
        "",
    ]
    out += _listing("CONFUSION PAIRS", tables.confusion_pairs, lambda p: f"{p[0]} ==> {p[1]}")
    out += _listing("INSERTIONS", tables.insertions, str)
    out += _listing("DELETIONS", tables.deletions, str)
    subs: Counter[str] = Counter()
    false: Counter[str] = Counter()
    for (r, h), k in tables.confusion_pairs.items():
        subs[r] += k
        false[h] += k
    out += _listing("SUBSTITUTIONS", subs, str)
    out += _listing("FALSELY RECOGNIZED", false, str)
    return "\n".join(out)


def write_sclite_reports(
    out_dir: str | os.PathLike[str], name: str, alignments: Sequence[UtteranceAlignment]
) -> list[str]:
    """Write NAME.sys, NAME.raw, NAME.pra and NAME.dtl into `out_dir`; returns their names."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines = speaker_lines(alignments)
    texts = {
        f"{name}.sys": render_sys(name, lines, percent=True),
        f"{name}.raw": render_sys(name, lines, percent=False),
        f"{name}.pra": render_pra(name, alignments),
        f"{name}.dtl": render_dtl(name, alignments),
    }
    for file, text in texts.items():
        atomic_write_text(out / file, text)
    return list(texts)


def utterance_alignments(
    records: Iterable[Mapping[str, JSONValue]],
    primary_views: Mapping[str, tuple[str, str]],
    alignment: AlignmentName,
    extras: dict[str, dict[str, JSONValue]],
    glm: Glm | None = None,
    speakers: Mapping[str, str] | None = None,
) -> tuple[list[UtteranceAlignment], list[dict[str, str]]]:
    """Align each scored record's primary view; rows without one are listed, not dropped.

    `primary_views` maps a normaliser name to (primary view, first unit); `extras` maps
    a row id to its reader's `extra` (speaker, file, channel, label); `speakers`, when
    given (`sclite_speakers`), a row id to its speaker.
    """
    out: list[UtteranceAlignment] = []
    missing: list[dict[str, str]] = []
    for record in records:
        row_id = str(record["id"])
        view, unit = primary_views[str(record["normalizer"])]
        views = record["views"]
        texts = views.get(view, {}) if isinstance(views, dict) else {}
        if not isinstance(texts, dict) or "reference" not in texts:
            reason = texts.get("null_reason", "no view") if isinstance(texts, dict) else "no view"
            missing.append({"id": row_id, "reason": str(reason)})
            continue
        ref, hyp = str(texts["reference"]), str(texts["hypothesis"])
        ref_tokens = ref.split() if unit == "word" else list(ref)
        hyp_tokens = hyp.split() if unit == "word" else list(hyp)
        extra = extras.get(row_id) or {}
        slots = reference_slots(ref_tokens, extra, glm, row_id)
        if slots is None:
            ops, counts = align_tokens(ref_tokens, hyp_tokens, alignment)
        else:  # sclite's weights whatever `alignment` says: see the module docstring
            done = align_slots(slots, hyp_tokens)
            ops, counts = done.ops, done.counts
        info = tuple((key, str(extra[key])) for key in ("label", "file", "channel") if key in extra)
        speaker = speakers[row_id] if speakers else speaker_of(row_id, extra)
        out.append(UtteranceAlignment(row_id, speaker, ops, counts, info))
    return out, missing


def sclite_reports_section(
    scored: ScoreResult,
    *,
    name: str,
    alignment: str,
    out_dir: str | os.PathLike[str] | None,
    glm: Glm | None = None,
    id_format: IdFormat | None = None,
) -> dict[str, JSONValue]:
    """An arm's `sclite` block from the scored corpus (its rows, groups and records) and,
    with `out_dir`, the report files it names; `id_format` reads speakers by sclite's
    `-i` rule of that name."""
    if alignment not in ALIGNMENTS:
        raise EarmarkError(
            f"unknown alignment {alignment!r}", field="alignment", hint="earmark, sclite or kaldi"
        )
    chosen = next(a for a in ALIGNMENTS if a == alignment)
    primary = {
        gname: (g.normalizer.primary_view, g.normalizer.units[0])
        for gname, g in scored.groups.items()
    }
    extras = {r.id: r.extra for r in scored.rows if r.extra}
    speakers = (
        None
        if id_format is None
        else sclite_speakers((r.id for r in scored.rows), extras, id_format)
    )
    alignments, missing = utterance_alignments(
        scored.iter_records(), primary, chosen, extras, glm, speakers
    )
    section = sclite_section(alignments, chosen, not_aligned=missing, id_format=id_format)
    if glm is not None:
        section["glm"] = dict(glm.component)
    marked = sum(1 for e in extras.values() if "reference_markup" in e)
    if marked:
        section["reference_markup"] = marked
    outside = sum(int(cast("int", e.get("ctm_words_outside", 0))) for e in extras.values())
    if outside:
        section["ctm_words_outside_segments"] = outside
    if out_dir is not None:
        section["files"] = cast("JSONValue", write_sclite_reports(out_dir, name, alignments))
    return section


__all__ = [
    "ALIGNMENTS",
    "EditTables",
    "SpeakerLine",
    "UtteranceAlignment",
    "align_tokens",
    "render_dtl",
    "render_pra",
    "render_sys",
    "sclite_section",
    "speaker_lines",
    "write_sclite_reports",
]
