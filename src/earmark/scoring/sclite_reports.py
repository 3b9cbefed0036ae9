"""sclite-style reports of a scored corpus: `.sys`/`.raw` by speaker, `.pra`, `.dtl`.

The counts come from the same normalised texts as results.json (each row's primary
view), aligned word by word either with earmark's alignment (`metrics.alignment`: fewest
edits, rapidfuzz's tie rule) or with sclite's weighted one (`metrics.sclite_alignment`:
sub 4, ins/del 3). The choice is recorded; with `alignment="sclite"` the S/D/I split
of every utterance is the one `sctk sclite` prints, so the `.sys` table can be checked
line by line against sclite's. The headline WER of results.json always uses earmark's
alignment; the two totals of errors differ only where sclite's weights prefer a path
with more edits (rare: see `metrics.sclite_alignment`).

Alternates and optional words (a `--glm` rules file, or sclite markup in trn
references) are honoured here, in this block's alignment (`metrics.slot_alignment`),
always at sclite's weights (an optional word's deletion costs 2 only against those),
as `sctk sclite -D` scores them. The block then records `glm` (name, SHA-256,
version) and `reference_markup` (how many rows carried markup).

Speaker of a row: the `speaker` an stm segment or trn id gave it (`row.extra`), else
the part of the id before its first `-` (sclite's `-i rm` rule), else the whole id.
"""

from __future__ import annotations

import os
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from earmark.errors import EarmarkError
from earmark.formats.sclite_markup import markup_slots, plain_text
from earmark.formats.trn import trn_speaker
from earmark.metrics.alignment import AlignedOp, align
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.sclite_alignment import align_sclite
from earmark.metrics.slot_alignment import Slot, align_slots
from earmark.outputs import atomic_write_text
from earmark.results.codec import JSONValue
from earmark.scoring.glm import Glm

if TYPE_CHECKING:
    from earmark.scoring.scorer import ScoreResult

AlignmentName = Literal["earmark", "sclite"]
ALIGNMENTS: tuple[AlignmentName, ...] = ("earmark", "sclite")
ALIGNMENT_RULES = {
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
    elif alignment == "earmark":
        result = align(reference, hypothesis)
    else:
        raise EarmarkError(
            f"unknown alignment {alignment!r}", field="alignment", hint="earmark or sclite"
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


def _ranked(counter: Counter[Any]) -> list[tuple[Any, int]]:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))


def sclite_section(
    alignments: Sequence[UtteranceAlignment],
    alignment: AlignmentName,
    *,
    not_aligned: Sequence[dict[str, str]] = (),
) -> dict[str, JSONValue]:
    """results.json's `sclite` block: per-speaker and total counts, the full edit tables."""
    lines = speaker_lines(alignments)
    return {
        "alignment": alignment,
        "alignment_rule": ALIGNMENT_RULES[alignment],
        "speaker_rule": "row speaker (stm/trn), else the id before its first '-', else the id",
        "speakers": [x.to_dict() for x in lines],
        "total": total_line(lines).to_dict(),
        **EditTables.of(alignments).to_dict(),
        "not_aligned": cast("JSONValue", list(not_aligned)),
    }


# ---------------------------------------------------------------- rendering


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


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
        return [f"{v:.0f}" if counts else f"{v:.1f}" for v in values]

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
    for label, stat in (
        ("Mean", statistics.fmean),
        ("S.D.", _sd),
        ("Median", statistics.median),
    ):
        stats = [float(stat(col)) for col in columns]
        out.append(row(label, f"{stats[0]:.1f}", f"{stats[1]:.1f}", fmt(stats[2:], False)))
    out.append("`" + "-" * width + "'")
    return "\n".join(out) + "\n"


def _sd(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1), as sclite prints it; 0 for one speaker."""
    return statistics.stdev(values) if len(values) > 1 else 0.0


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
    order = [x.speaker for x in speaker_lines(alignments)]
    out = ["", "\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE", "", f"System name:   {name}", ""]
    out += ["Speakers: "] + [f"{k:5d}:  {s}" for k, s in enumerate(order)] + [""]
    for k, speaker in enumerate(order):
        mine = [u for u in alignments if u.speaker == speaker]
        out.append(f"Speaker sentences {k:3d}:  {speaker}   #utts: {len(mine)}")
        for u in mine:
            out += pra_block(u)
    return "\n".join(out) + "\n"


def _listing(title: str, counter: Counter[Any], show: Any) -> list[str]:
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

    def share(label: str, part: int, whole: int) -> str:
        return f" {label:<38}{_pct(part, whole):5.1f}%   ({part:4d})"

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
        f"Percent Total Error       = {_pct(c.errors, c.ref_units):6.1f}%   ({c.errors:4d})",
        "",
        f"Percent Correct           = {_pct(c.hits, c.ref_units):6.1f}%   ({c.hits:4d})",
        "",
        f"Percent Substitution      = {_pct(c.substitutions, c.ref_units):6.1f}%   "
        f"({c.substitutions:4d})",
        f"Percent Deletions         = {_pct(c.deletions, c.ref_units):6.1f}%   ({c.deletions:4d})",
        f"Percent Insertions        = {_pct(c.insertions, c.ref_units):6.1f}%   "
        f"({c.insertions:4d})",
        f"Percent Word Accuracy     = {_pct(c.hits - c.insertions, c.ref_units):6.1f}%",
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
    records: Iterable[Mapping[str, Any]],
    primary_views: Mapping[str, tuple[str, str]],
    alignment: AlignmentName,
    extras: dict[str, dict[str, JSONValue]],
    glm: Glm | None = None,
) -> tuple[list[UtteranceAlignment], list[dict[str, str]]]:
    """Align each scored record's primary view; rows without one are listed, not dropped.

    `primary_views` maps a normaliser name to (primary view, first unit); `extras` maps
    a row id to its reader's `extra` (speaker, file, channel, label).
    """
    out: list[UtteranceAlignment] = []
    missing: list[dict[str, str]] = []
    for record in records:
        view, unit = primary_views[record["normalizer"]]
        texts = record["views"].get(view, {})
        if "reference" not in texts:
            missing.append({"id": record["id"], "reason": texts.get("null_reason", "no view")})
            continue
        ref, hyp = texts["reference"], texts["hypothesis"]
        ref_tokens = ref.split() if unit == "word" else list(ref)
        hyp_tokens = hyp.split() if unit == "word" else list(hyp)
        extra = extras.get(record["id"]) or {}
        slots = reference_slots(ref_tokens, extra, glm, record["id"])
        if slots is None:
            ops, counts = align_tokens(ref_tokens, hyp_tokens, alignment)
        else:  # sclite's weights whatever `alignment` says: see the module docstring
            done = align_slots(slots, hyp_tokens)
            ops, counts = done.ops, done.counts
        info = tuple((key, str(extra[key])) for key in ("label", "file", "channel") if key in extra)
        out.append(
            UtteranceAlignment(record["id"], speaker_of(record["id"], extra), ops, counts, info)
        )
    return out, missing


def sclite_reports_section(
    scored: ScoreResult,
    *,
    name: str,
    alignment: str,
    out_dir: str | os.PathLike[str] | None,
    glm: Glm | None = None,
) -> dict[str, JSONValue]:
    """An arm's `sclite` block from the scored corpus (its rows, groups and records) and,
    with `out_dir`, the report files it names."""
    if alignment not in ALIGNMENTS:
        raise EarmarkError(
            f"unknown alignment {alignment!r}", field="alignment", hint="earmark or sclite"
        )
    chosen: AlignmentName = "sclite" if alignment == "sclite" else "earmark"
    primary = {
        gname: (g.normalizer.primary_view, g.normalizer.units[0])
        for gname, g in scored.groups.items()
    }
    extras = {r.id: r.extra for r in scored.rows if r.extra}
    alignments, missing = utterance_alignments(scored.iter_records(), primary, chosen, extras, glm)
    section = sclite_section(alignments, chosen, not_aligned=missing)
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
