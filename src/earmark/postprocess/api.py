"""What `earmark postprocess` does, callable from Python (the CLI is a thin mirror)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from earmark import __version__
from earmark.metrics.punctuation import run_punctuation_probes
from earmark.postprocess.evaluate import record_dicts, run_processor, summarise
from earmark.postprocess.files import (
    SCHEMA_ID,
    delivered_rows,
    read_sources,
    write_outputs,
)
from earmark.postprocess.guard import LexicalGuard
from earmark.postprocess.markdown import render_postprocess_markdown
from earmark.postprocess.processors import build_processor
from earmark.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED


def postprocess_run(
    run: str | os.PathLike[str],
    processor: str,
    *,
    repeats: int = 3,
    out_dir: str | os.PathLike[str] | None = None,
    arm: str | None = None,
    allow_substitutions: Sequence[str] = (),
    guard_marks: str = "",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Post-process a run's transcripts `repeats` times, evaluate, and (with `out_dir`)
    write postprocess.json, postprocess.md and a delivered predictions.jsonl.

    Returns postprocess.json's content. Everything is validated (processor spec, guard
    options, input rows) before the first processor call.
    """
    built = build_processor(processor)
    guard = LexicalGuard.from_options(allow_substitutions, guard_marks) if built.guarded else None
    sources, source_info = read_sources(run, arm=arm)
    try:
        records = run_processor(sources, built, repeats=repeats, guard=guard, progress=progress)
    finally:
        built.close()
    summary = summarise(
        sources, records, repeats=repeats, guard=guard, resamples=resamples, seed=seed, level=level
    )
    document: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "earmark_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "source": source_info,
        "processor_spec": processor,
        "processor": built.describe(),
        "guard": guard.to_dict() if guard is not None else None,
        "guard_note": None
        if guard is not None
        else "this processor changes characters by design; outputs are not lexically guarded",
        "summary": summary,
        "punctuation_probes": [p.as_dict() for p in run_punctuation_probes()],
        "records": record_dicts(sources, records),
    }
    if out_dir is not None:
        delivered = delivered_rows(
            sources,
            records,
            repeats=repeats,
            processor_kind=built.kind,
            source_arm=source_info.get("arm"),
        )
        write_outputs(out_dir, document, delivered, render_postprocess_markdown(document))
    return document
