"""sclite's reports as text: `.sys`/`.raw` by speaker, `.pra`, `.dtl`, every figure
printed as sclite prints it (`sclite_figure`)."""

from __future__ import annotations

import math
import os
import statistics
import struct
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from earmark.outputs import atomic_write_text
from earmark.scoring.sclite_tables import (
    EditTables,
    Entry,
    SpeakerLine,
    UtteranceAlignment,
    ranked,
    speaker_lines,
    total_line,
)


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


def _listing(title: str, counter: Counter[Entry], show: Callable[[Entry], str]) -> list[str]:
    entries = ranked(counter)
    out = [
        f"{title:<33}Total                 ({len(entries)})",
        f"{'':<33}With >=  1 occurrences ({len(entries)})",
        "",
    ]
    out += [f"{k:4d}: {n:4d}  ->  {show(item)}" for k, (item, n) in enumerate(entries, 1)]
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
