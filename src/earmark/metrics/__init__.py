"""Scoring units, alignment, error counts and rates (pure: no I/O, no global state)."""

from __future__ import annotations

from earmark.metrics.alignment import (
    AlignedOp,
    Alignment,
    align,
    count_errors,
    count_errors_array,
    count_errors_many,
)
from earmark.metrics.analysis import (
    render_alignment,
    top_deletions,
    top_insertions,
    top_substitutions,
    worst_utterances,
)
from earmark.metrics.counts import ErrorCounts
from earmark.metrics.rates import (
    RateSummary,
    macro_rate,
    micro_rate,
    sentence_error_rate,
    summarize,
)

__all__ = [
    "AlignedOp",
    "Alignment",
    "ErrorCounts",
    "RateSummary",
    "align",
    "count_errors",
    "count_errors_array",
    "count_errors_many",
    "macro_rate",
    "micro_rate",
    "render_alignment",
    "sentence_error_rate",
    "summarize",
    "top_deletions",
    "top_insertions",
    "top_substitutions",
    "worst_utterances",
]
