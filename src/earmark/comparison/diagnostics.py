"""Harness-artefact diagnostics: failure shapes an aggregate WER hides.

Each block says what was measured, the threshold, and whether it is flagged. The flags are
heuristics that point a person at rows to read, not significance tests; the thresholds
are module constants, documented in docs/compare.md.

- **insertion-driven failure** (seed 003: Whisper above 100% WER on Irish through fluent
  English insertions): insertion rate I / N_ref, share of rows with a repetition loop
  (`metrics.hallucination.repetition_loop`), output on no-speech clips.
- **truncation**: deletion rate rising with clip duration (duration tertiles from the
  rows' `audio_seconds`, and Spearman's rho of duration vs per-row deletion share).
- **language/script mismatch**: the hypothesis written in another Unicode script than
  the reference (Latin output for a Han reference), plus the runner's own
  `language_mismatch` row flags.
- **empty outputs**: no hypothesis, or one that normalises to nothing, for speech.
- **normaliser ranking flip**: two arms whose order by raw-view error rate is the reverse
  of their order by normalised-view error rate (the normaliser, not the model, decides).

Figures from different normalisers are never summed: the insertion and truncation blocks
are per normaliser (one entry per normaliser that scores some language).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from earmark.metrics.hallucination import repetition_loop
from earmark.results.codec import JSONValue
from earmark.scoring.row_counts import METRIC_FOR_UNIT, PairTable, RowCounts

#: Insertion-driven: I / N_ref at or above this (BlasBench's Whisper rows: 0.20 to 4.91).
INSERTION_RATE_THRESHOLD = 0.20
#: Insertion-driven: share of rows with a repetition loop at or above this.
REPETITION_LOOP_SHARE_THRESHOLD = 0.05
#: Insertion-driven: share of no-speech clips with output at or above this.
NO_SPEECH_OUTPUT_THRESHOLD = 0.50
#: Truncation: the longest tertile's deletion rate is at least this many times the
#: shortest tertile's ...
TRUNCATION_RATIO = 2.0
#: ... and at least this much higher in absolute terms (5 points) ...
TRUNCATION_MIN_DIFFERENCE = 0.05
#: ... on at least this many rows with a duration (4 per tertile).
TRUNCATION_MIN_ROWS = 12
#: Script mismatch: share of rows (in some language) at or above this.
SCRIPT_MISMATCH_THRESHOLD = 0.05
#: Empty outputs: share of speech rows at or above this.
EMPTY_OUTPUT_THRESHOLD = 0.05
#: How many example ids each block lists.
EXAMPLES = 10

THRESHOLDS: dict[str, JSONValue] = {
    "insertion_rate": INSERTION_RATE_THRESHOLD,
    "repetition_loop_share": REPETITION_LOOP_SHARE_THRESHOLD,
    "no_speech_output_rate": NO_SPEECH_OUTPUT_THRESHOLD,
    "truncation_ratio": TRUNCATION_RATIO,
    "truncation_min_difference": TRUNCATION_MIN_DIFFERENCE,
    "truncation_min_rows": TRUNCATION_MIN_ROWS,
    "script_mismatch_share": SCRIPT_MISMATCH_THRESHOLD,
    "empty_output_share": EMPTY_OUTPUT_THRESHOLD,
}

_ASCII_LETTER = re.compile(r"[A-Za-z]")
_SCRIPT_ALIASES = {"CJK": "Han", "HIRAGANA": "Han", "KATAKANA": "Han", "IDEOGRAPHIC": "Han"}
_WIDTH_PREFIXES = ("FULLWIDTH", "HALFWIDTH", "MATHEMATICAL", "MODIFIER")


@functools.lru_cache(maxsize=1 << 16)
def char_script(ch: str) -> str | None:
    """The script of one letter (`Latin`, `Han`, `Cyrillic`, ...), None for a non-letter.

    Read from the Unicode character name, which starts with the script for letters
    (`LATIN SMALL LETTER A`, `CJK UNIFIED IDEOGRAPH-4E2D`, `CYRILLIC ...`). Japanese kana
    count as Han: kana and kanji mix within one Japanese text, so they are one family here.

    >>> char_script("a"), char_script("中"), char_script("ж"), char_script(",")
    ('Latin', 'Han', 'Cyrillic', None)
    """
    if not ch.isalpha():
        return None
    words = unicodedata.name(ch, "").split()
    while words and words[0] in _WIDTH_PREFIXES:
        words = words[1:]
    if not words:
        return None
    first = words[0]
    return _SCRIPT_ALIASES.get(first, first.title())


def dominant_script(text: str) -> str | None:
    """The script most letters of `text` are in (ties: alphabetical), None with no letter.

    >>> dominant_script("我用 Python 写了很多代码"), dominant_script("Hello"), dominant_script("1")
    ('Han', 'Latin', None)
    """
    if text.isascii():
        return "Latin" if _ASCII_LETTER.search(text) else None
    counts: Counter[str] = Counter()
    for ch in text:
        script = char_script(ch)
        if script is not None:
            counts[script] += 1
    if not counts:
        return None
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def average_ranks(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Ranks 1..n, ties sharing their mean rank (as Spearman's rho needs)."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.size, dtype=np.float64)
    ranks[order] = np.arange(1, values.size + 1, dtype=np.float64)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    sums = np.bincount(inverse, weights=ranks)
    mean_ranks: NDArray[np.float64] = (sums / counts)[inverse]
    return mean_ranks


def spearman(x: NDArray[np.float64], y: NDArray[np.float64]) -> float | None:
    """Spearman's rank correlation; None when either side is constant or n < 3."""
    if x.size < 3:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


@dataclass
class ArmRows:
    """The aligned rows one arm contributes to the diagnostics."""

    ids: Sequence[str]
    references: Sequence[str]
    hypotheses: Sequence[str | None]
    languages: Sequence[str | None]
    audio_seconds: Sequence[float | None]
    language_mismatch: Sequence[bool]
    vs_human: RowCounts


class LoopCache:
    """Repetition-loop flag per counted pair (shared by arms that produced the same text,
    and by every arm one process diagnoses)."""

    def __init__(self, table: PairTable) -> None:
        self.table = table
        #: Per table entry: 1 (a loop), 0 (none) or -1 (not looked at yet).
        self.known = np.zeros(0, dtype=np.int8)
        self.word_unit = {n: table.units(n)[0] == "word" for n in set(table.normalizer_of)}

    def flags(self, entries: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Per row (its table entry): does its hypothesis hold a repetition loop?"""
        grow = len(self.table.normalizer_of) - self.known.size
        if grow > 0:
            self.known = np.concatenate([self.known, np.full(grow, -1, dtype=np.int8)])
        for entry in np.unique(entries[self.known[entries] < 0]).tolist():
            self.known[entry] = self._flag(entry)
        flagged: NDArray[np.bool_] = self.known[entries] == 1
        return flagged

    def _flag(self, entry: int) -> bool:
        text = self.table.primary_hypothesis[entry]
        name = self.table.normalizer_of[entry]
        if name not in self.word_unit:
            self.word_unit[name] = self.table.units(name)[0] == "word"
        tokens: Sequence[str] = text.split() if self.word_unit[name] else text
        # A loop repeats some token at least 4 times: cheap test before the scan.
        found = (
            len(tokens) >= 4
            and len(set(tokens)) <= len(tokens) - 3
            and max(Counter(tokens).values()) >= 4
        )
        return found and repetition_loop(list(tokens))


@dataclass
class DiagnosticsMemo:
    """What the diagnostics of several arms share: each distinct hypothesis's script and
    each table entry's loop flag (arms agree on most rows)."""

    scripts: dict[str, str | None] = field(default_factory=dict)
    loops: LoopCache | None = None

    def loop_cache(self, table: PairTable) -> LoopCache:
        if self.loops is None or self.loops.table is not table:
            self.loops = LoopCache(table)
        return self.loops


def _share(k: int, n: int) -> float | None:
    return k / n if n else None


def _insertion(
    rows: ArmRows, name: str, positions: NDArray[np.int64], loops: LoopCache
) -> dict[str, JSONValue]:
    unit = rows.vs_human.table.units(name)[0]
    counts = rows.vs_human.counts(unit)[positions]
    s, d, i, h = (int(x) for x in counts.sum(axis=0))
    ref_units = s + d + h
    looping = positions[loops.flags(rows.vs_human.entries[positions])]
    loop_ids: list[JSONValue] = [rows.ids[p] for p in looping.tolist()]
    row_ref = counts[:, 0] + counts[:, 1] + counts[:, 3]
    row_hyp = counts[:, 0] + counts[:, 2] + counts[:, 3]
    no_speech = row_ref == 0
    with_output = no_speech & (row_hyp > 0)
    rate = _share(i, ref_units)
    loop_share = _share(len(loop_ids), len(positions))
    ns_rate = _share(int(with_output.sum()), int(no_speech.sum()))
    reasons: list[JSONValue] = []
    if rate is not None and rate >= INSERTION_RATE_THRESHOLD:
        reasons.append(f"insertion rate {rate:.3f} >= {INSERTION_RATE_THRESHOLD}")
    if loop_share is not None and loop_share >= REPETITION_LOOP_SHARE_THRESHOLD:
        reasons.append(
            f"repetition loops in {loop_share:.3f} of rows >= {REPETITION_LOOP_SHARE_THRESHOLD}"
        )
    if ns_rate is not None and ns_rate >= NO_SPEECH_OUTPUT_THRESHOLD:
        reasons.append(
            f"output on {ns_rate:.3f} of no-speech clips >= {NO_SPEECH_OUTPUT_THRESHOLD}"
        )
    return {
        "metric": METRIC_FOR_UNIT[unit],
        "insertion_rate": rate,
        "insertions": i,
        "substitutions": s,
        "deletions": d,
        "ref_units": ref_units,
        "repetition_loop_rows": len(loop_ids),
        "repetition_loop_share": loop_share,
        "repetition_loop_ids": loop_ids[:EXAMPLES],
        "no_speech_rows": int(no_speech.sum()),
        "no_speech_with_output": int(with_output.sum()),
        "no_speech_output_rate": ns_rate,
        "flagged": bool(reasons),
        "reasons": reasons,
    }


def _truncation(rows: ArmRows, name: str, positions: NDArray[np.int64]) -> dict[str, JSONValue]:
    unit = rows.vs_human.table.units(name)[0]
    counts = rows.vs_human.counts(unit)[positions]
    seconds = [rows.audio_seconds[p] for p in positions.tolist()]
    ref = counts[:, 0] + counts[:, 1] + counts[:, 3]
    keep = np.asarray([s is not None for s in seconds], dtype=bool) & (ref > 0)
    out: dict[str, JSONValue] = {
        "metric": METRIC_FOR_UNIT[unit],
        "n_with_duration": int(keep.sum()),
    }
    if keep.sum() < TRUNCATION_MIN_ROWS:
        out.update(
            flagged=False,
            tertiles=None,
            spearman_rho=None,
            unavailable_reason=(
                f"{int(keep.sum())} speech rows with audio_seconds; "
                f"at least {TRUNCATION_MIN_ROWS} needed"
            ),
        )
        return out
    dur = np.asarray([s for s, k in zip(seconds, keep.tolist(), strict=True) if k], dtype=float)
    dels = counts[keep, 1].astype(np.float64)
    refs = ref[keep].astype(np.float64)
    order = np.argsort(dur, kind="mergesort")
    tertiles: list[JSONValue] = []
    rates: list[float | None] = []
    for part in np.array_split(order, 3):
        d_sum, r_sum = float(dels[part].sum()), float(refs[part].sum())
        rates.append(d_sum / r_sum if r_sum else None)
        tertiles.append(
            {
                "seconds": [float(dur[part].min()), float(dur[part].max())],
                "n": int(part.size),
                "deletions": int(d_sum),
                "ref_units": int(r_sum),
                "deletion_rate": rates[-1],
            }
        )
    short, long = rates[0], rates[-1]
    flagged = (
        short is not None
        and long is not None
        and long - short >= TRUNCATION_MIN_DIFFERENCE
        and long >= TRUNCATION_RATIO * short
    )
    out.update(
        flagged=bool(flagged),
        tertiles=tertiles,
        spearman_rho=spearman(dur, dels / refs),
    )
    if flagged:
        out["reasons"] = [
            f"deletion rate {long:.3f} on the longest third of clips vs {short:.3f} on the shortest"
        ]
    return out


@dataclass
class _ScriptTally:
    """One language's rows whose hypothesis is in another script than the reference."""

    rows: int = 0
    n: int = 0
    reference_scripts: Counter[str] = field(default_factory=Counter)
    hypothesis_scripts: Counter[str] = field(default_factory=Counter)

    @property
    def share(self) -> float | None:
        return _share(self.rows, self.n)

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "rows": self.rows,
            "n": self.n,
            "reference_scripts": dict(sorted(self.reference_scripts.items())),
            "hypothesis_scripts": dict(sorted(self.hypothesis_scripts.items())),
            "share": self.share,
        }


def _script(
    rows: ArmRows, ref_scripts: Sequence[str | None], memo: DiagnosticsMemo
) -> dict[str, JSONValue]:
    scripts = memo.scripts
    hyp_scripts = [
        None if not hyp else scripts[hyp] if hyp in scripts else _remember(scripts, hyp)
        for hyp in rows.hypotheses
    ]
    langs = [lang or "und" for lang in rows.languages]
    by_language: dict[str, _ScriptTally] = {}
    total = mismatched = 0
    # Tallied per distinct (language, reference script, hypothesis script), not per row.
    for (lang, ref_script, hyp_script), count in Counter(
        zip(langs, ref_scripts, hyp_scripts, strict=True)
    ).items():
        tally = by_language.setdefault(lang, _ScriptTally())
        if ref_script is None or hyp_script is None:
            continue
        tally.n += count
        total += count
        tally.reference_scripts[ref_script] += count
        tally.hypothesis_scripts[hyp_script] += count
        if hyp_script != ref_script:
            tally.rows += count
            mismatched += count
    examples: list[JSONValue] = []
    for pos, (ref_script, hyp_script) in enumerate(zip(ref_scripts, hyp_scripts, strict=True)):
        if len(examples) == EXAMPLES or len(examples) == mismatched:
            break
        if ref_script is not None and hyp_script is not None and hyp_script != ref_script:
            examples.append(rows.ids[pos])
    flagged_languages: list[JSONValue] = [
        lang
        for lang, tally in sorted(by_language.items())
        if tally.share is not None and tally.share >= SCRIPT_MISMATCH_THRESHOLD
    ]
    engine = int(sum(bool(m) for m in rows.language_mismatch))
    return {
        "rows": mismatched,
        "n": total,
        "share": _share(mismatched, total),
        "examples": examples,
        "by_language": {lang: t.to_json() for lang, t in sorted(by_language.items())},
        "engine_language_mismatch_rows": engine,
        "flagged": bool(flagged_languages) or engine > 0,
        "flagged_languages": flagged_languages,
    }


def _empty(rows: ArmRows) -> dict[str, JSONValue]:
    counts = np.zeros((len(rows.ids), 4), dtype=np.int64)
    for name in rows.vs_human.rows.distinct:
        unit = rows.vs_human.table.units(name)[0]
        mask = rows.vs_human.rows.mask(name)
        counts[mask] = rows.vs_human.counts(unit)[mask]
    ref = counts[:, 0] + counts[:, 1] + counts[:, 3]
    hyp = counts[:, 0] + counts[:, 2] + counts[:, 3]
    speech = ref > 0
    missing = np.asarray([h is None for h in rows.hypotheses], dtype=bool)
    empty = speech & ((hyp == 0) | missing)
    ids: list[JSONValue] = [rows.ids[p] for p in np.flatnonzero(empty).tolist()]
    share = _share(len(ids), int(speech.sum()))
    return {
        "rows": len(ids),
        "missing_hypothesis_rows": int((speech & missing).sum()),
        "speech_rows": int(speech.sum()),
        "share": share,
        "examples": ids[:EXAMPLES],
        "flagged": share is not None and share >= EMPTY_OUTPUT_THRESHOLD,
    }


def _per_normalizer(blocks: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """A diagnostic kept per normaliser, flagged when any normaliser's block is."""
    flagged = any(isinstance(b, dict) and b["flagged"] for b in blocks.values())
    return {"flagged": flagged, "by_normalizer": blocks}


def _remember(scripts: dict[str, str | None], text: str) -> str | None:
    found = scripts[text] = dominant_script(text)
    return found


def diagnose_arm(
    rows: ArmRows, ref_scripts: Sequence[str | None], memo: DiagnosticsMemo | None = None
) -> dict[str, JSONValue]:
    """Every single-arm diagnostic for one arm's aligned rows (vs the human reference);
    `memo` shares the scripts and loop flags found with the other arms it is given to."""
    memo = DiagnosticsMemo() if memo is None else memo
    loops = memo.loop_cache(rows.vs_human.table)
    insertion: dict[str, JSONValue] = {}
    truncation: dict[str, JSONValue] = {}
    for name in rows.vs_human.rows.distinct:
        scope = np.flatnonzero(rows.vs_human.rows.mask(name))
        insertion[name] = _insertion(rows, name, scope, loops)
        truncation[name] = _truncation(rows, name, scope)
    blocks = {
        "insertion": _per_normalizer(insertion),
        "truncation": _per_normalizer(truncation),
        "script_mismatch": _script(rows, ref_scripts, memo),
        "empty_outputs": _empty(rows),
    }
    flags: list[JSONValue] = [name for name, block in blocks.items() if block["flagged"]]
    return {"flags": flags, **blocks, "thresholds": THRESHOLDS}


def _group_rate(rows: RowCounts, name: str, kind: str, aggregate: str) -> float | None:
    unit = rows.table.units(name)[0]
    mask = rows.rows.mask(name) & rows.available(kind)
    counts = rows.counts(unit, kind)[mask]
    if not len(counts):
        return None
    errors = counts[:, 0] + counts[:, 1] + counts[:, 2]
    ref = counts[:, 0] + counts[:, 1] + counts[:, 3]
    if aggregate == "macro":
        hyp = counts[:, 0] + counts[:, 2] + counts[:, 3]
        rates = np.where(ref > 0, errors / np.maximum(ref, 1), np.where(hyp > 0, 1.0, 0.0))
        return float(rates.mean())
    total = int(ref.sum())
    return int(errors.sum()) / total if total else None


#: (raw-view rate, normalised-view rate) of one arm under one normaliser.
NormalizerRates = tuple[float | None, float | None]


def _flips(names: Sequence[str], rates: Mapping[str, NormalizerRates]) -> list[tuple[str, str]]:
    """(arm, other arm) for each pair ordered one way on the raw view and the other way on
    the normalised view, both directions; a tie or a missing rate is not a flip."""
    out: list[tuple[str, str]] = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            (ra, na), (rb, nb) = rates[a], rates[b]
            if ra is None or rb is None or na is None or nb is None:
                continue
            if (ra - rb) * (na - nb) < 0:
                out += [(a, b), (b, a)]
    return out


#: A normaliser's unit metric and primary view, as the ranking-flip block names them.
NormalizerViews = Mapping[str, tuple[str, str]]


def normalizer_rates(rows: RowCounts, aggregate: str = "micro") -> dict[str, NormalizerRates]:
    """One arm's (raw-view, normalised-view) rate under each normaliser of its rows, on
    the normaliser's first unit: what `ranking_flips` compares between arms."""
    return {
        name: (
            _group_rate(rows, name, "raw", aggregate),
            _group_rate(rows, name, "primary", aggregate),
        )
        for name in rows.rows.distinct
    }


def normalizer_views(rows: RowCounts) -> dict[str, tuple[str, str]]:
    """Each normaliser of the rows: its first unit's metric and its primary view."""
    table = rows.table
    return {
        name: (METRIC_FOR_UNIT[table.units(name)[0]], table.normalizer(name).primary_view)
        for name in rows.rows.distinct
    }


def ranking_flips(
    vs_human: Mapping[str, RowCounts], aggregate: str = "micro"
) -> dict[str, dict[str, JSONValue]]:
    """Per arm: the arms whose order against it flips between raw and normalised views
    (`flips_from_rates` of each arm's `normalizer_rates`)."""
    views: dict[str, tuple[str, str]] = {}
    for rows in vs_human.values():
        views.update(normalizer_views(rows))
    rates = {arm: normalizer_rates(rows, aggregate) for arm, rows in vs_human.items()}
    return flips_from_rates(rates, views)


def flips_from_rates(
    rates: Mapping[str, Mapping[str, NormalizerRates]], views: NormalizerViews
) -> dict[str, dict[str, JSONValue]]:
    """Per arm: the arms whose order against it flips between raw and normalised views.

    Per normaliser (figures are never summed across normalisers), on its first unit.
    A tie on either view is not a flip; a normaliser whose primary view is `raw` cannot
    flip anything and is reported as such. `rates` holds each arm's `normalizer_rates`
    (computed wherever its counts are), `views` each normaliser's `normalizer_views`.
    """
    names = list(rates)
    flips: dict[str, list[JSONValue]] = {arm: [] for arm in names}
    by_normalizer: dict[str, dict[str, JSONValue]] = {arm: {} for arm in names}
    normalizers = sorted(views)
    for name in normalizers:
        metric, primary_view = views[name]
        arm_rates: dict[str, NormalizerRates] = {
            arm: rates[arm].get(name, (None, None)) for arm in names
        }
        for arm in names:
            by_normalizer[arm][name] = {
                "metric": metric,
                "primary_view": primary_view,
                "raw": arm_rates[arm][0],
                "normalized": arm_rates[arm][1],
            }
        if primary_view == "raw":
            continue
        for me, other in _flips(names, arm_rates):
            flips[me].append(
                {
                    "with": other,
                    "normalizer": name,
                    "raw": [arm_rates[me][0], arm_rates[other][0]],
                    "normalized": [arm_rates[me][1], arm_rates[other][1]],
                }
            )
    out: dict[str, dict[str, JSONValue]] = {}
    for arm in names:
        out[arm] = {"flagged": bool(flips[arm]), "flips": flips[arm]}
        if normalizers:
            out[arm]["by_normalizer"] = by_normalizer[arm]
    return out
