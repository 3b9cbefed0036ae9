"""The file names of an earmark output folder: the one place that spells them.

`earmark run`, `earmark score` and `earmark postprocess` write one layout (the frozen
plan, the per-utterance rows, the figures, who ran what, and last the hash listing), and
`report`, `compare`, `decide`, `leaderboard` and `verify` read it. Every reader and writer
takes the names from here, so a renamed file cannot leave one reader looking for the old
name.
"""

from __future__ import annotations

from pathlib import Path

from earmark.artefacts import LISTING

#: The frozen plan a run executed (`earmark run` only).
PLAN = "plan.json"
#: One JSON line per arm x utterance x repeat: reference, hypothesis, counts, timing, status.
PREDICTIONS = "predictions.jsonl"
#: The figures (schema `earmark.results/1`), naming predictions.jsonl by its SHA-256.
RESULTS = "results.json"
#: results.json rendered for people.
RESULTS_MARKDOWN = "results.md"
#: Host, software, corpus and per-arm model record (`earmark run` only).
PROVENANCE = "provenance.json"
#: A paired comparison (`earmark compare`), read beside a run when present.
COMPARE = "compare.json"
#: The offline HTML page `earmark report` writes into the folder by default.
REPORT_HTML = "report.html"
#: `earmark postprocess`'s record and its Markdown.
POSTPROCESS = "postprocess.json"
POSTPROCESS_MARKDOWN = "postprocess.md"
#: `sha256sum` listing of every output, written last (`earmark.artefacts`).
ARTEFACTS = LISTING

#: Per-arm records of a run live in `arms/<arm name>/`.
ARMS = "arms"
#: The engine's `ModelInfo` (revision, file hashes, runtime) as the arm loaded it.
ARM_MODEL = "model.json"
#: Timing, threads, peak RSS and session counters of one arm.
ARM_RESOURCES = "resources.json"
#: The network egress guard's record of one arm.
ARM_EGRESS = "egress.json"

__all__ = [
    "ARMS",
    "ARM_EGRESS",
    "ARM_MODEL",
    "ARM_RESOURCES",
    "ARTEFACTS",
    "COMPARE",
    "PLAN",
    "POSTPROCESS",
    "POSTPROCESS_MARKDOWN",
    "PREDICTIONS",
    "PROVENANCE",
    "REPORT_HTML",
    "RESULTS",
    "RESULTS_MARKDOWN",
    "arm_folder",
]


def arm_folder(folder: str | Path, arm: str) -> Path:
    """`<folder>/arms/<arm>`: where one arm's model, resources and egress records live."""
    return Path(folder) / ARMS / arm
