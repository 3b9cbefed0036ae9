"""Where the errors are: frequent substitutions, insertions, deletions, worst utterances.

Computed per language block on its normaliser's primary view and primary unit, from what
the scorer kept while counting (the edit tallies of that same alignment, and the
normalised texts), so it explains exactly the counts in results.json. Only the few worst
utterances shown are aligned column by column again, to render them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from earmark.metrics.alignment import EditTally, align
from earmark.metrics.analysis import (
    ranked_deletions,
    ranked_insertions,
    ranked_substitutions,
    render_alignment,
    worst_utterances,
)
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.tokens import chars, words
from earmark.scoring.scorer import ScoreResult

TOKENS = {"word": words, "char": chars}


def _language(value: str | None) -> str:
    return value or "und"


def _worst_candidates(
    counts: np.ndarray, available: np.ndarray, positions: list[int], k: int
) -> list[int]:
    """Positions that can be among the k worst: the ranking puts more errors first, so
    only rows with at least the k-th largest error count (and errors at all) qualify."""
    where = np.asarray(positions, dtype=np.int64)
    rows = counts[where]
    errors = rows[:, 0] + rows[:, 1] + rows[:, 2]
    keep = available[where] & (errors > 0)
    where, errors = where[keep], errors[keep]
    if k <= 0 or where.size == 0:
        return []
    if where.size > k:
        kth = np.partition(errors, where.size - k)[where.size - k]
        where = where[errors >= kth]
    picked: list[int] = where.tolist()
    return picked


def error_analysis_section(result: ScoreResult, *, top: int = 10, worst: int = 5) -> dict[str, Any]:
    """Per language: top-k substitution pairs, inserted and deleted units, and the worst
    utterances with a plain-text alignment (REF / HYP / op lines)."""
    out: dict[str, Any] = {}
    for group in result.groups.values():
        norm = group.normalizer
        view, unit = norm.primary_view, norm.units[0]
        counts = group.counts[(view, unit)]
        tok = TOKENS[unit]
        by_lang: dict[str, list[int]] = {}
        for pos, idx in enumerate(group.indices):
            by_lang.setdefault(_language(result.rows[idx].language), []).append(pos)
        available = group.available[view]
        for lang, positions in by_lang.items():
            scored: list[tuple[str, ErrorCounts]] = []
            texts_of: dict[str, tuple[str, str]] = {}
            for pos in _worst_candidates(counts, available, positions, worst):
                s, d, i, h = counts[pos].tolist()
                row_id = result.rows[group.indices[pos]].id
                texts_of[row_id] = group.texts[view][pos]  # type: ignore[assignment]
                scored.append((row_id, ErrorCounts(s, d, i, h)))
            tally = group.edits.get(lang, EditTally())
            worst_rows = worst_utterances(scored, worst)
            out[lang] = {
                "normalizer": norm.name,
                "view": view,
                "unit": unit,
                "top_substitutions": [
                    {"reference": r, "hypothesis": h, "count": n}
                    for r, h, n in ranked_substitutions(tally, top)
                ],
                "top_insertions": [
                    {"unit": u, "count": n} for u, n in ranked_insertions(tally, top)
                ],
                "top_deletions": [{"unit": u, "count": n} for u, n in ranked_deletions(tally, top)],
                "worst_utterances": [
                    {
                        "id": row_id,
                        **c.as_dict(),
                        "alignment": render_alignment(
                            align(tok(texts_of[row_id][0]), tok(texts_of[row_id][1])),
                            style="plain",
                        ),
                    }
                    for row_id, c in worst_rows
                ],
            }
    return dict(sorted(out.items()))


#: Why a section has no text: the corpus sidecar's `redistribute_transcripts: false`.
TEXT_WITHHELD = (
    "withheld: the corpus does not permit sharing transcripts (redistribute_transcripts: "
    "false); figures only"
)


def withhold_text(section: dict[str, Any]) -> dict[str, Any]:
    """The error-analysis section with every unit and alignment removed, counts kept.

    Substitution pairs and inserted or deleted units are fragments of the transcripts, so
    they go too; the worst utterances keep their ids and S/D/I counts."""
    out: dict[str, Any] = {}
    for lang, block in section.items():
        out[lang] = {
            **{k: block[k] for k in ("normalizer", "view", "unit") if k in block},
            "text_withheld": TEXT_WITHHELD,
            "top_substitutions": [],
            "top_insertions": [],
            "top_deletions": [],
            "worst_utterances": [
                {k: v for k, v in w.items() if k != "alignment"}
                for w in block.get("worst_utterances", [])
            ],
        }
    return out
