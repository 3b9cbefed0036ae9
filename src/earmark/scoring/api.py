"""High-level scoring of files: what `earmark score` does, callable from Python.

The CLI is a thin mirror of `score_predictions` (a test checks both give identical
numbers), so anything the CLI can do a script can do with the same result.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from earmark.artefacts import write_artefacts
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_bytes, lock_output_folder
from earmark.report.markdown import render_results_markdown
from earmark.report.results import build_results, write_results
from earmark.scoring.error_analysis import error_analysis_section
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.probes import run_scorer_probes
from earmark.scoring.protocols import resolve
from earmark.scoring.readers import FieldNames, read_pairs
from earmark.scoring.scorer import Aggregate, ScoringOptions, _collector_paused, score_rows

#: Where `score --glm ... --out DIR` keeps a copy of the rules file.
GLM_COPY = "rules.glm"


def score_predictions(
    predictions: str | os.PathLike[str],
    *,
    normalizer: str | None = None,
    protocol: str | None = None,
    refs: str | os.PathLike[str] | None = None,
    fmt: str | None = None,
    fields: FieldNames | None = None,
    language: str | None = None,
    aggregate: Aggregate | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    allow_extra_hypotheses: bool = False,
    out_dir: str | os.PathLike[str] | None = None,
    arm_name: str | None = None,
    arm: str | None = None,
    punctuation: bool = False,
    critical_tokens: bool = False,
    sclite_reports: bool = False,
    alignment: str = "earmark",
    glm: str | os.PathLike[str] | None = None,
    punctuation_marks: str | None = None,
    cluster: str = "clip",
    min_per_slice: int | None = None,
    min_speakers: int | None = None,
) -> dict[str, Any]:
    """Score a predictions file (optionally joined to references); returns results.json's
    content and, with `out_dir`, writes results.json, predictions.jsonl, results.md and
    last artefacts.sha256 (`earmark.artefacts`), holding the folder's lock throughout (a
    second writer into it gets an `EarmarkError`).

    `protocol` (e.g. "blasbench-v1") fixes normaliser, aggregation, resamples, seed and CI
    generator; a setting given with it must agree (`earmark.scoring.protocols.resolve`).
    Without one: aggregate "micro", 10,000 resamples, seed 20260926; `normalizer` required.

    `sclite_reports` adds results' `sclite` block (per-speaker counts, every confusion
    pair) and, with `out_dir`, NAME.sys/.raw/.pra/.dtl; `alignment` ("earmark" or
    "sclite") chooses how those reports split errors (`earmark.scoring.sclite_reports`);
    `glm`, a rules file of alternate spellings and optional words (`earmark.scoring.glm`),
    is applied during alignment, not by rewriting text: the word counts of every view
    (the headline WER) come from the GLM-aware alignment, and so do the sclite reports'.
    Results record it beside the normaliser policy (`glm`: name, SHA-256, version); a
    protocol, which fixes how its published figures are counted, refuses it.

    `cluster="speaker"` resamples each speaker's rows together in the bootstrap;
    `min_per_slice`/`min_speakers` null the figures of thinner language, slice and speaker
    blocks with a reason (`earmark.scoring.scorer.ScoringOptions`).
    """
    if alignment != "earmark" and not sclite_reports:
        raise EarmarkError(
            "--alignment chooses the alignment of the sclite reports",
            field="alignment",
            hint="add --sclite-reports",
        )
    if glm is not None and protocol is not None:
        raise EarmarkError(
            f"--glm changes the counts protocol {protocol} fixes",
            field="glm",
            hint="drop --protocol to score with a GLM (its figures then follow no protocol)",
        )
    rules = None
    if glm is not None:
        from earmark.scoring.glm import read_glm

        rules = read_glm(glm)
    # Held from the first read to the last write: one writer per folder.
    folder = nullcontext() if out_dir is None else lock_output_folder(out_dir, "score")
    # The cyclic collector paused from the first read to the last write, not only around
    # reading and `score_rows`: the rows, the error analysis and the per-row records of
    # predictions.jsonl form no reference cycles, and the collector's passes over the
    # 100,000 live rows while those records were built cost ~0.4 s of a ~2.9 s
    # `--bootstrap 0` run. It resumes (and collects anything left) on exit.
    with folder, _collector_paused():
        choice = resolve(
            protocol,
            normalizer=normalizer,
            aggregate=aggregate,
            resamples=resamples,
            seed=seed,
            punctuation=punctuation,
            flags={"normalizer": "normalizer", "resamples": "resamples"},
            punctuation_marks=punctuation_marks,
        )
        read = read_pairs(
            predictions,
            refs=refs,
            fmt=fmt,
            fields=fields or FieldNames(),
            allow_extra_hypotheses=allow_extra_hypotheses,
            arm=arm,
        )
        rows = read.rows
        if language is not None:
            rows = [r if r.language else replace(r, language=language) for r in rows]
        options = ScoringOptions(
            policy=NormalizerPolicy.parse(choice.normalizer),
            aggregate=choice.aggregate,
            resamples=choice.resamples,
            seed=choice.seed,
            protocol=choice.protocol,
            cluster=cluster,  # type: ignore[arg-type]  # checked by ScoringOptions
            min_per_slice=min_per_slice,
            min_speakers=min_speakers,
            glm=rules,
        )
        resamples, seed, punctuation = choice.resamples, choice.seed, choice.punctuation
        scored = score_rows(rows, options)
        summary = scored.to_dict()
        summary["coverage"]["excluded"] = read.excluded
        summary["error_analysis"] = error_analysis_section(scored)
        if punctuation or critical_tokens:
            from earmark.metrics.punctuation import check_mark_rule
            from earmark.scoring.extra_metrics import critical_tokens_section, punctuation_section

            if punctuation:
                summary["punctuation"] = punctuation_section(
                    rows,
                    resamples=resamples,
                    seed=seed,
                    level=options.level,
                    mark_rule=check_mark_rule(choice.punctuation_marks),
                )
            if critical_tokens:
                summary["critical_tokens"] = critical_tokens_section(
                    rows, resamples=resamples, seed=seed, level=options.level
                )
        name = arm_name or arm or Path(predictions).stem
        if sclite_reports:
            from earmark.scoring.sclite_reports import add_sclite_reports

            add_sclite_reports(
                summary, scored, name=name, alignment=alignment, out_dir=out_dir, glm=rules
            )
        probes = run_scorer_probes()
        results = build_results(
            {name: summary},
            probes,
            inputs={
                "files": [str(Path(f)) for f in read.source_files],
                "format": fmt or "auto",
                "formats_read": read.formats,
            },
        )
        if out_dir is not None and rules is not None:
            # The rules beside the figures they shaped (byte for byte: the recorded
            # SHA-256 is this file's), so the folder alone re-derives them.
            atomic_write_bytes(Path(out_dir) / GLM_COPY, [rules.text.encode("utf-8")])
            results["arms"][name]["glm"]["file"] = GLM_COPY
        if out_dir is not None:
            write_results(
                out_dir,
                results,
                scored.iter_records(),
                probes=probes,
                markdown=render_results_markdown(results),
            )
            # last, over every file the score wrote; predictions.jsonl was hashed as written
            written = results.get("predictions") or {}
            write_artefacts(
                out_dir, known={written["file"]: written["sha256"]} if written else None
            )
        # Freed here, while the collector is still paused: on resuming, its first pass
        # walks every object allocated during the pause that is still alive, and the
        # 100,000 rows and their scores would be walked once just before they die
        # (~0.1 s). `results` holds none of them.
        del scored, rows, read
        return results
