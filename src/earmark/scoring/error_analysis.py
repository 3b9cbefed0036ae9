"""Where the errors are: frequent substitutions, insertions, deletions, worst utterances.

Computed per language block on its normaliser's primary view and primary unit, from the
normalised texts the scorer kept, so it explains exactly the counts in results.json.
Rows without errors are skipped (they contribute nothing to any list).
"""

from __future__ import annotations

from typing import Any

from earmark.metrics.alignment import align
from earmark.metrics.analysis import (
    render_alignment,
    top_deletions,
    top_insertions,
    top_substitutions,
    worst_utterances,
)
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.tokens import chars, words
from earmark.scoring.scorer import ScoreResult

TOKENS = {"word": words, "char": chars}


def _language(value: str | None) -> str:
    return value or "und"


def error_analysis_section(result: ScoreResult, *, top: int = 10, worst: int = 5) -> dict[str, Any]:
    """Per language: top-k substitution pairs, inserted and deleted units, and the worst
    utterances with a plain-text alignment (REF / HYP / op lines)."""
    out: dict[str, Any] = {}
    for group in result.groups.values():
        norm = group.normalizer
        view, unit = norm.primary_view, norm.units[0]
        counts = group.counts[(view, unit)]
        by_lang: dict[str, list[int]] = {}
        for pos, idx in enumerate(group.indices):
            by_lang.setdefault(_language(result.rows[idx].language), []).append(pos)
        for lang, positions in by_lang.items():
            alignments = {}
            scored: list[tuple[str, ErrorCounts]] = []
            for pos in positions:
                texts = group.texts[view][pos]
                s, d, i, h = counts[pos].tolist()
                if texts is None or s + d + i == 0:
                    continue
                row_id = result.rows[group.indices[pos]].id
                tok = TOKENS[unit]
                alignments[row_id] = align(tok(texts[0]), tok(texts[1]))
                scored.append((row_id, ErrorCounts(s, d, i, h)))
            worst_rows = worst_utterances(scored, worst)
            out[lang] = {
                "normalizer": norm.name,
                "view": view,
                "unit": unit,
                "top_substitutions": [
                    {"reference": r, "hypothesis": h, "count": n}
                    for r, h, n in top_substitutions(alignments.values(), top)
                ],
                "top_insertions": [
                    {"unit": u, "count": n} for u, n in top_insertions(alignments.values(), top)
                ],
                "top_deletions": [
                    {"unit": u, "count": n} for u, n in top_deletions(alignments.values(), top)
                ],
                "worst_utterances": [
                    {
                        "id": row_id,
                        **c.as_dict(),
                        "alignment": render_alignment(alignments[row_id], style="plain"),
                    }
                    for row_id, c in worst_rows
                ],
            }
    return dict(sorted(out.items()))
