"""Punctuation and critical-token sections of a results file, from scoring rows.

Both sections are pure functions of `ScoringRow`s: the per-row counts come from
`earmark.metrics` (`punctuation_counts`, `critical_token_counts`), every rate is
recomputed from summed counts (micro), and every interval is a clip bootstrap in which
rows sharing a `cluster_key` (repeats of one clip) are resampled together. A figure that
cannot be computed is `None` with a `null_reason`, never an invented 0 or 1.

A missing hypothesis is scored as an empty one (seed 000: every utterance is accounted
for), so its reference marks and tokens count as lost rather than vanishing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from earmark.errors import EarmarkError
from earmark.formats.rows import ScoringRow
from earmark.metrics.critical_tokens import (
    CATEGORIES,
    CategoryCounts,
    CriticalTokenCounts,
    critical_token_counts,
)
from earmark.metrics.punctuation import (
    NO_MARKS_REASON,
    WORD_INTERNAL,
    MarkRule,
    MarkTally,
    PunctuationCounts,
    check_mark_rule,
    punctuation_counts,
    run_punctuation_probes,
)
from earmark.results.codec import JSONValue
from earmark.scoring.probes import refuse_failed_punctuation_probes
from earmark.stats.bootstrap import BootstrapResult, bootstrap_statistic, bootstrap_statistics
from earmark.stats.settings import BootstrapSettings

PUNCTUATION_DEFINITION = (
    "seed 001: ASCII marks mapped to full-width (、 kept distinct), content = text without "
    "punctuation and spaces (NFKC, lower-cased), global minimum-edit alignment of the "
    "contents, hypothesis boundaries projected onto reference boundaries; position F1 "
    "matches the boundary, position+type F1 also the mark type; micro counts "
    "(earmark.metrics.punctuation)"
)
#: What each mark rule adds to the definition (`mark_rule` in the section).
MARK_RULE_DEFINITIONS = {
    "word-internal": "apostrophes between letters (don't) and decimal points between "
    "digits (3.5) are not marks",
    "every-mark": "every Unicode P* character is a mark, apostrophes in words and decimal "
    "points included (the seed-001 scorer)",
}
CRITICAL_TOKENS_DEFINITION = (
    "seed 000: numbers, dates, times, currency, percentages, URLs, e-mails, IDs and Latin "
    "runs extracted from the raw texts and matched exactly per category as multisets; no "
    "numeral normalisation (2026 != 二零二六); micro counts (earmark.metrics.critical_tokens)"
)
EXACT_MATCH_DEFINITION = (
    "raw hypothesis == raw reference after stripping leading/trailing whitespace; a missing "
    "hypothesis is not a match"
)
NO_HYP_MARKS = "the hypothesis has no punctuation marks"
NO_REF_MARKS = "the reference has no punctuation marks"
NO_REF_TOKENS = "no reference token of this category"
NO_HYP_TOKENS = "no hypothesis token of this category"
TOO_LONG = "alignment_too_large"

Statistic = Callable[..., Any]


def nan_ratio(numerator: Any, denominator: Any) -> Any:
    """numerator / denominator elementwise, NaN where the denominator is 0 (a rate with no
    units to count is not 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1e-300), np.nan)


def f1_of(matches: Any, ref: Any, hyp: Any) -> Any:
    """F1 = 2·matches / (reference marks + hypothesis marks), elementwise; NaN with none."""
    return nan_ratio(2 * matches, ref + hyp)


def _precision(matches: Any, ref: Any, hyp: Any) -> Any:
    return nan_ratio(matches, hyp)


def _recall(matches: Any, ref: Any, hyp: Any) -> Any:
    return nan_ratio(matches, ref)


def stat_block(
    value: float | None,
    null_reason: str,
    columns: Sequence[Sequence[float]] | None,
    statistic: Statistic,
    clusters: Sequence[str],
    boot: BootstrapSettings,
) -> dict[str, JSONValue]:
    """{value, ci95} or {value: None, ci95: None, null_reason}: a figure with its clip
    bootstrap interval, as every extra metric (and post-processing) records it."""
    if value is None:
        return {"value": None, "ci95": None, "null_reason": null_reason}
    out: dict[str, JSONValue] = {"value": value, "ci95": None}
    if columns is not None and boot.resamples > 0:
        result = bootstrap_statistic(
            columns,
            statistic,
            clusters=np.asarray(clusters, dtype=object),
            resamples=boot.resamples,
            seed=boot.seed,
            level=boot.level,
            generator=boot.generator,
        )
        if result.low is not None and result.high is not None:
            out["ci95"] = [result.low, result.high]
    return out


def _checked(boot: BootstrapSettings) -> BootstrapSettings:
    """The settings, refused before any counting when the resample count is negative."""
    if boot.resamples < 0:
        raise EarmarkError(f"must be >= 0, got {boot.resamples}", field="resamples")
    return boot


def _bootstrap_block(boot: BootstrapSettings) -> dict[str, JSONValue]:
    """The section's `bootstrap` record: the settings, then how they were used."""
    return {
        **boot.to_dict(),
        "method": "percentile",
        "unit": "clip (rows sharing a cluster key are resampled together)",
    }


def _groups(rows: Sequence[ScoringRow], indices: Sequence[int]) -> dict[str, dict[str, list[int]]]:
    """Row positions by language ('und' when unnamed) and by slice."""
    by_language: dict[str, list[int]] = defaultdict(list)
    by_slice: dict[str, list[int]] = defaultdict(list)
    for i in indices:
        by_language[rows[i].language or "und"].append(i)
        for name in rows[i].slices:
            by_slice[name].append(i)
    return {
        "by_language": dict(sorted(by_language.items())),
        "by_slice": dict(sorted(by_slice.items())),
    }


# --- punctuation ------------------------------------------------------------------------


def _tally_stats(
    matches: Sequence[int],
    ref: Sequence[int],
    hyp: Sequence[int],
    clusters: Sequence[str],
    boot: BootstrapSettings,
    *,
    per_type: bool = False,
) -> dict[str, JSONValue]:
    """Precision, recall and F1 with CIs; a per-type entry bootstraps F1 only.

    The three are functions of the same summed columns, so one set of resamples serves
    all of them: the same intervals as three separate bootstraps, for the price of one.
    """
    m, r, h = sum(matches), sum(ref), sum(hyp)
    scope = " of this type" if per_type else ""
    values = {
        "precision": (m / h if h else None, NO_HYP_MARKS + scope),
        "recall": (m / r if r else None, NO_REF_MARKS + scope),
        "f1": (2 * m / (r + h) if r + h else None, NO_MARKS_REASON + scope),
    }
    statistics = (
        {"f1": f1_of} if per_type else {"precision": _precision, "recall": _recall, "f1": f1_of}
    )
    wanted = {k: f for k, f in statistics.items() if values[k][0] is not None}
    intervals: Mapping[str, BootstrapResult] = {}
    if wanted and boot.resamples > 0:
        everything = (0, 1, 2)
        intervals = bootstrap_statistics(
            (matches, ref, hyp),
            {k: (f, everything) for k, f in wanted.items()},
            clusters=np.asarray(clusters, dtype=object),
            resamples=boot.resamples,
            seed=boot.seed,
            level=boot.level,
            generator=boot.generator,
        )
    out: dict[str, JSONValue] = {}
    for name, (value, reason) in values.items():
        if value is None:
            out[name] = {"value": None, "ci95": None, "null_reason": reason}
            continue
        entry: dict[str, JSONValue] = {"value": value, "ci95": None}
        result = intervals.get(name)
        if result is not None and result.low is not None and result.high is not None:
            entry["ci95"] = [result.low, result.high]
        out[name] = entry
    return out


def _punctuation_block(
    counts: Sequence[PunctuationCounts], clusters: Sequence[str], boot: BootstrapSettings
) -> dict[str, JSONValue]:
    total = sum(counts, PunctuationCounts())
    ref = [c.ref_marks for c in counts]
    hyp = [c.hyp_marks for c in counts]
    per_type: dict[str, JSONValue] = {}
    for name, tally in total.per_type:
        tallies = [dict(c.per_type).get(name, MarkTally()) for c in counts]
        stats = _tally_stats(
            [t.matched for t in tallies],
            [t.ref for t in tallies],
            [t.hyp for t in tallies],
            clusters,
            boot,
            per_type=True,
        )
        per_type[name] = {"ref": tally.ref, "hyp": tally.hyp, "matched": tally.matched, **stats}
    return {
        "n_utterances": len(counts),
        "n_clusters": len(set(clusters)),
        "ref_marks": total.ref_marks,
        "hyp_marks": total.hyp_marks,
        "position_matches": total.position_matches,
        "type_matches": total.type_matches,
        "position": _tally_stats([c.position_matches for c in counts], ref, hyp, clusters, boot),
        "position_type": _tally_stats([c.type_matches for c in counts], ref, hyp, clusters, boot),
        "per_type": per_type,
        "null_reason": total.null_reason,
    }


#: 10,000 resamples, the default seed, 95%: what `score` and `run` draw unless told.
_DEFAULT_BOOTSTRAP = BootstrapSettings()


def punctuation_section(
    rows: Sequence[ScoringRow],
    *,
    bootstrap: BootstrapSettings = _DEFAULT_BOOTSTRAP,
    mark_rule: MarkRule = WORD_INTERNAL,
) -> dict[str, JSONValue]:
    """Punctuation position and position+type precision/recall/F1 (seed 001), with clip
    bootstrap CIs, overall, per language and per slice, plus the scorer probe record.

    `bootstrap.resamples == 0` skips the intervals (`ci95` is then None). A pair too long to align
    (`MAX_ALIGNMENT_CELLS`) is excluded and listed with reason `alignment_too_large`.
    `mark_rule` says whether apostrophes in words and decimal points in numbers are marks
    (`earmark.metrics.punctuation`); the section records it.
    """
    mark_rule = check_mark_rule(mark_rule)
    boot = _checked(bootstrap)
    counts: list[PunctuationCounts | None] = []
    excluded: list[JSONValue] = []
    memo: dict[tuple[str, str], PunctuationCounts | None] = {}  # repeats repeat pairs
    for row in rows:
        pair = (row.reference, row.hypothesis_text)
        if pair not in memo:
            try:
                memo[pair] = punctuation_counts(*pair, mark_rule)
            except EarmarkError:
                memo[pair] = None
        counts.append(memo[pair])
        if memo[pair] is None:
            excluded.append({"id": row.id, "reason": TOO_LONG})
    scored = [i for i, c in enumerate(counts) if c is not None]

    def block(indices: Sequence[int]) -> dict[str, JSONValue]:
        chosen = [counts[i] for i in indices]
        return _punctuation_block(
            [c for c in chosen if c is not None], [rows[i].cluster_key for i in indices], boot
        )

    probes = run_punctuation_probes()
    refuse_failed_punctuation_probes(probes, "punctuation F1")
    groups = _groups(rows, scored)
    return {
        "metric": "punctuation-f1",
        "definition": f"{PUNCTUATION_DEFINITION}; {MARK_RULE_DEFINITIONS[mark_rule]}",
        "mark_rule": mark_rule,
        "bootstrap": _bootstrap_block(boot),
        "n_rows": len(rows),
        "n_scored": len(scored),
        "excluded": excluded,
        "overall": block(scored),
        "by_language": {k: block(v) for k, v in groups["by_language"].items()},
        "by_slice": {k: block(v) for k, v in groups["by_slice"].items()},
        "probes": [cast("JSONValue", p.as_dict()) for p in probes],
        "probes_passed": all(p.passed for p in probes),
    }


# --- critical tokens --------------------------------------------------------------------


def _category_entry(
    name: str, per_row: Sequence[CategoryCounts], clusters: Sequence[str], boot: BootstrapSettings
) -> dict[str, JSONValue]:
    total = sum(per_row, CategoryCounts())
    matched = [c.matched for c in per_row]
    ref = [c.ref for c in per_row]
    return {
        "ref": total.ref,
        "hyp": total.hyp,
        "matched": total.matched,
        "lost": total.ref - total.matched,
        "spurious": total.hyp - total.matched,
        "recall": stat_block(
            total.recall(),
            NO_REF_TOKENS,
            (matched, ref) if total.ref else None,
            nan_ratio,
            clusters,
            boot,
        ),
        "precision": stat_block(total.precision(), NO_HYP_TOKENS, None, nan_ratio, clusters, boot),
    }


def _exact_match(
    hits: Sequence[int], clusters: Sequence[str], boot: BootstrapSettings
) -> dict[str, JSONValue]:
    n = len(hits)
    stat = stat_block(
        sum(hits) / n if n else None,
        "no utterances",
        (hits, [1] * n) if n else None,
        nan_ratio,
        clusters,
        boot,
    )
    return {"matched": sum(hits), "n": n, **stat}


def _critical_block(
    indices: Sequence[int],
    rows: Sequence[ScoringRow],
    counts: Sequence[CriticalTokenCounts],
    exact: Sequence[int],
    boot: BootstrapSettings,
) -> dict[str, JSONValue]:
    clusters = [rows[i].cluster_key for i in indices]
    categories: dict[str, JSONValue] = {
        name: _category_entry(name, [counts[i][name] for i in indices], clusters, boot)
        for name in CATEGORIES
    }
    categories["total"] = _category_entry(
        "total", [counts[i].total for i in indices], clusters, boot
    )
    return {
        "n_utterances": len(indices),
        "n_clusters": len(set(clusters)),
        "categories": categories,
        "exact_match": _exact_match([exact[i] for i in indices], clusters, boot),
    }


def _failure(row: ScoringRow, counts: CriticalTokenCounts) -> dict[str, JSONValue] | None:
    lost: dict[str, JSONValue] = {name: list(c.lost) for name, c in counts.categories if c.lost}
    spurious: dict[str, JSONValue] = {
        name: list(c.spurious) for name, c in counts.categories if c.spurious
    }
    if not lost and not spurious:
        return None
    return {
        "id": row.id,
        **({"cluster": row.cluster} if row.cluster is not None else {}),
        "language": row.language,
        "slices": list(row.slices),
        "status": row.status,
        "kind": "lost_or_changed" if lost else "spurious_only",
        "lost": lost,
        "spurious": spurious,
    }


def critical_tokens_section(
    rows: Sequence[ScoringRow],
    *,
    bootstrap: BootstrapSettings = _DEFAULT_BOOTSTRAP,
    slice_minimums: Mapping[str, int] | None = None,
) -> dict[str, JSONValue]:
    """Critical-token recall (with clip bootstrap CIs) and precision per category, the
    utterances where a token was lost, changed or invented, exact-match rates, and slice
    counts (seed 000).

    `slice_minimums` maps pre-registered slices to their minimum utterance count; each
    appears in `slice_counts` (with 0 when no row carries it) and `shortfall` lists those
    below their minimum.
    """
    boot = _checked(bootstrap)
    counts = [
        critical_token_counts(r.reference, r.hypothesis_text, r.language or "und") for r in rows
    ]
    exact = [
        int(r.hypothesis is not None and r.hypothesis.strip() == r.reference.strip()) for r in rows
    ]
    everything = list(range(len(rows)))
    groups = _groups(rows, everything)

    def block(indices: Sequence[int]) -> dict[str, JSONValue]:
        return _critical_block(indices, rows, counts, exact, boot)

    failures = [f for r, c in zip(rows, counts, strict=True) if (f := _failure(r, c))]
    slice_counts: dict[str, JSONValue] = {}
    shortfall: list[JSONValue] = []
    minimums = dict(slice_minimums or {})
    for name in sorted(set(groups["by_slice"]) | set(minimums)):
        indices = groups["by_slice"].get(name, [])
        entry: dict[str, JSONValue] = {
            "n_utterances": len(indices),
            "n_clusters": len({rows[i].cluster_key for i in indices}),
        }
        if name in minimums:
            entry["minimum"] = minimums[name]
            entry["below_minimum"] = len(indices) < minimums[name]
            if len(indices) < minimums[name]:
                shortfall.append(name)
        slice_counts[name] = entry
    return {
        "metric": "critical-tokens",
        "definition": CRITICAL_TOKENS_DEFINITION,
        "exact_match_definition": EXACT_MATCH_DEFINITION,
        "categories": list(CATEGORIES),
        "bootstrap": _bootstrap_block(boot),
        "n_rows": len(rows),
        "overall": block(everything),
        "by_language": {k: block(v) for k, v in groups["by_language"].items()},
        "by_slice": {k: block(v) for k, v in groups["by_slice"].items()},
        "slice_counts": slice_counts,
        "shortfall": shortfall,
        "failures": [*failures],
        "n_failures": {
            "lost_or_changed": sum(f["kind"] == "lost_or_changed" for f in failures),
            "spurious_only": sum(f["kind"] == "spurious_only" for f in failures),
        },
    }
