"""Scoring saved hypotheses: rows in, counts and rates with uncertainty out.

`earmark.scoring.scorer.score_rows` is the high-level API the CLI mirrors (`earmark score`
calls it and nothing else), so the CLI and the library give identical numbers. The package
imports nothing itself: `import earmark.scoring.policy` must not load numpy and the scorer.
"""
