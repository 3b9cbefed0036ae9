"""Where the errors are: frequent substitutions, insertions, deletions, worst utterances.

Computed per language block on its normaliser's primary view and primary unit, from what
the scorer kept while counting (the edit tallies of that same alignment, and each
language's few worst rows with their normalised texts: it streams, and keeps no other
text), so it explains exactly the counts in results.json. Only the few worst utterances
shown are aligned column by column again, to render them.

The tallies are the one part of a streamed score that grows with the corpus beyond the
per-row counts: one entry per distinct substitution pair, inserted unit and deleted
unit. Real transcripts repeat their confusions, so they grow far slower than the rows;
random text, where nearly every substitution is a new pair, costs ~200 bytes a row
(`benchmarks/bench_cli_scoring.py --scaling`). Ranking needs every pair's full count, so
they are kept whole rather than cut to a top-k while streaming.
"""

from __future__ import annotations

from earmark.metrics.alignment import EditTally, align
from earmark.metrics.analysis import (
    ranked_deletions,
    ranked_insertions,
    ranked_substitutions,
    render_alignment,
)
from earmark.metrics.tokens import chars, words
from earmark.results.codec import JSONObject, JSONValue
from earmark.scoring.scorer import ScoreResult

TOKENS = {"word": words, "char": chars}


def error_analysis_section(
    result: ScoreResult, *, top: int = 10, worst: int = 5
) -> dict[str, JSONValue]:
    """Per language: top-k substitution pairs, inserted and deleted units, and the worst
    utterances with a plain-text alignment (REF / HYP / op lines)."""
    if worst > result.worst_kept:
        raise ValueError(f"the scorer kept {result.worst_kept} worst utterances, not {worst}")
    out: dict[str, JSONValue] = {}
    for group in result.groups.values():
        norm = group.normalizer
        view, unit = norm.primary_view, norm.units[0]
        tok = TOKENS[unit]
        for lang, kept in group.worst.items():
            tally = group.edits.get(lang, EditTally())
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
                # Already ranked as `metrics.analysis.worst_utterances` ranks them.
                "worst_utterances": [
                    {
                        "id": w.row_id,
                        **w.counts.as_dict(),
                        "alignment": render_alignment(
                            align(tok(w.texts[0]), tok(w.texts[1])), style="plain"
                        ),
                    }
                    for w in kept[: max(worst, 0)]
                ],
            }
    return dict(sorted(out.items()))


#: Why a section has no text: the corpus sidecar's `redistribute_transcripts: false`.
TEXT_WITHHELD = (
    "withheld: the corpus does not permit sharing transcripts (redistribute_transcripts: "
    "false); figures only"
)


def withhold_text(section: JSONObject) -> dict[str, JSONValue]:
    """The error-analysis section with every unit and alignment removed, counts kept.

    Substitution pairs and inserted or deleted units are fragments of the transcripts, so
    they go too; the worst utterances keep their ids and S/D/I counts."""
    out: dict[str, JSONValue] = {}
    for lang, block in section.items():
        if not isinstance(block, dict):
            continue
        worst = block.get("worst_utterances")
        out[lang] = {
            **{k: block[k] for k in ("normalizer", "view", "unit") if k in block},
            "text_withheld": TEXT_WITHHELD,
            "top_substitutions": [],
            "top_insertions": [],
            "top_deletions": [],
            "worst_utterances": [
                {k: v for k, v in w.items() if k != "alignment"}
                for w in (worst if isinstance(worst, list) else [])
                if isinstance(w, dict)
            ],
        }
    return out
