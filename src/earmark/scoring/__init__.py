"""Scoring saved hypotheses: rows in, counts and rates with uncertainty out.

This is the high-level API the CLI mirrors (`earmark score` calls `score_rows` and
nothing else), so the CLI and the library give identical numbers.
"""

from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import ScoreResult, score_rows

__all__ = ["NormalizerPolicy", "ScoreResult", "ScoringOptions", "score_rows"]
