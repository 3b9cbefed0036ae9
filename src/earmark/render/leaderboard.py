"""Leaderboards across runs: systems (arms) × corpora, BlasBench-style (seed 003).

Only figures scored on the same data with the same normaliser are ranked together: the
ranking group is (corpus hash + the rows scored, language, normaliser, view, metric):
two selections that kept the same rows of one corpus are the same data and rank together
(without prediction rows, the selection rule stands in for the rows). The
metric is the normaliser's first unit — WER for word-scored languages, CER for
character-scored ones (zh-eval-v1).

Seed 000: a result without model revision, corpus hash and host profile is not a
verifiable winner. Such rows carry a visible "unverifiable" mark and are ranked after
every verifiable row of their group. Ranks are competition ranks over the sorted values
(1, 2, 2, 4): equal values share a rank, and a null value has no rank.

Coverage is the share of the corpus's rows (clip × repeat) whose hypothesis came from the
engine (status `ok`). A row without one is scored as all deletions, so an arm that never
loaded has 100% WER — a figure that looks like a (bad) result and, on a CER-scored
language where real models exceed 100%, can even win. Rows below `min_coverage` (default:
every row) are not ranked; they are listed apart with their coverage and the reason.

Saved hypotheses (a `precomputed` arm) prove their bytes, not which model wrote them: they
are unverifiable unless the arm declares the model and its identity (`model=`,
`model_revision=`, `model_sha256=`), and their model revision is the declared one, marked
declared, never the hypothesis file's hash.

Model type and size come from each arm's model record (`model.json` `extra.architecture`
and `extra.parameters`, written by engines that can state them exactly); a figure the
engine could not state exactly is blank, with the recorded reason. "Model files" is the
on-disk size of what the engine loaded, which is not a parameter count. The system type
(open, open-weights, api, closed) is declared, never guessed: `undeclared` otherwise.

Language columns are the results' `by_language` blocks (the tag as written: `en-US`; `und`
for rows without one), and a block's coverage counts the rows of that block. A column's
title is its corpus, hash and language, with the normaliser and selection added where a
corpus was scored two ways. RTFx is audio seconds per processing second (1 / RTF), null
where no decode time was measured. The mean over corpora (the Open ASR Leaderboard's
average) is the macro mean of a system's per-column figures, only for a system ranked in
every column of the metric (`leaderboard_ranking.MEAN_RULE`).

A contamination report (`earmark manifest contamination`) marks rows, never re-ranks them:
a row is suspect when a report's manifest SHA-256 is the row's corpus, the report names no
system or names this arm, and in the row's language (the whole corpus for `all`) the share
of flagged utterances exceeds `contamination_share` (default 0: any flagged utterance) or
a canary was found in the declared text.

Self-reported figures (a paper's, a vendor's) are accepted as rows of their own, shown
apart as "self-reported (not verified)" and never ranked with figures earmark measured.

The code is split by what it does: `leaderboard_entries` (an entry per arm × language, read
from the typed results), `leaderboard_external` (self-reported figures, contamination
reports), `leaderboard_ranking` (ranks, the board and its JSON), `leaderboard_tables`
(Markdown and CSV) and `leaderboard_html` (the page). This module writes the four files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from earmark.outputs import atomic_write_text, claim_output_folder
from earmark.render.leaderboard_external import (
    load_self_reported,
    read_contamination,
)
from earmark.render.leaderboard_html import render_html
from earmark.render.leaderboard_ranking import (
    build_leaderboard,
)
from earmark.render.leaderboard_tables import render_csv, render_markdown
from earmark.render.run_directory import load_run


def write_leaderboard(
    run_dirs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    min_coverage: float = 1.0,
    self_reported: Sequence[str | os.PathLike[str]] = (),
    contamination: Sequence[str | os.PathLike[str]] = (),
    contamination_share: float = 0.0,
    system_types: Mapping[str, str] | None = None,
) -> dict[str, Path]:
    """Read the runs, rank them, and write leaderboard.{md,csv,json,html} into `out_dir`;
    `self_reported` and `contamination` are files (see `load_self_reported`,
    `earmark manifest contamination`); `system_types` maps arm or system names to their
    declared type."""
    unique = list(dict.fromkeys(Path(p).resolve() for p in run_dirs))
    board = build_leaderboard(
        [load_run(p) for p in unique],
        min_coverage,
        self_reported=[row for path in self_reported for row in load_self_reported(path)],
        contamination=[read_contamination(path) for path in contamination],
        contamination_share=contamination_share,
        system_types=system_types,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    claim_output_folder(out, "leaderboard")
    files = {
        "md": render_markdown(board),
        "csv": render_csv(board),
        "json": json.dumps(board.to_dict(), ensure_ascii=False, indent=2) + "\n",
        "html": render_html(board),
    }
    written = {}
    for ext, text in files.items():
        path = out / f"leaderboard.{ext}"
        atomic_write_text(path, text)
        written[ext] = path
    return written
