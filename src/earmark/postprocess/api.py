"""What `earmark postprocess` does, callable from Python (the CLI is a thin mirror)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from earmark import __version__
from earmark.errors import EarmarkError
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
from earmark.postprocess.openai_chat import served_identity
from earmark.postprocess.processors import build_processor
from earmark.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from earmark.stats.settings import BootstrapSettings


def postprocess_run(
    run: str | os.PathLike[str],
    processor: str | None = None,
    *,
    repeats: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    arm: str | None = None,
    allow_substitutions: Sequence[str] = (),
    guard_marks: str = "",
    resamples: int | None = None,
    seed: int | None = None,
    level: float = DEFAULT_LEVEL,
    progress: Callable[[int, int], None] | None = None,
    plan: str | os.PathLike[str] | None = None,
    expect_sha256: str | None = None,
) -> dict[str, Any]:
    """Post-process a run's transcripts `repeats` times (default 3), evaluate, and (with
    `out_dir`) write postprocess.json, postprocess.md, a delivered predictions.jsonl and
    artefacts.sha256.

    With `plan`, the processor, repeats, prompt and guard options come from the plan's
    `[postprocess]` table (and bootstrap and seed from the plan, when it gives them); a
    setting also given here must agree. `expect_sha256` refuses a plan whose bytes
    changed since `earmark plan freeze`, and a prompt file whose SHA-256 is not the
    frozen one is refused either way.

    Returns postprocess.json's content. Everything is validated (plan, processor spec,
    guard options, input rows) before the first processor call.
    """
    frozen: dict[str, Any] | None = None
    prompt_file = None
    if plan is not None:
        settings = _plan_settings(
            plan,
            expect_sha256,
            processor=processor,
            repeats=repeats,
            allow_substitutions=allow_substitutions,
            guard_marks=guard_marks,
            resamples=resamples,
            seed=seed,
        )
        frozen = settings.pop("record")
        processor, repeats = settings["processor"], settings["repeats"]
        allow_substitutions, guard_marks = settings["allow_substitutions"], settings["guard_marks"]
        resamples, seed, prompt_file = settings["resamples"], settings["seed"], settings["prompt"]
    elif expect_sha256 is not None:
        raise EarmarkError("--expect-sha256 needs --plan", field="expect-sha256")
    if processor is None:
        raise EarmarkError(
            "no processor", field="processor", hint="give --processor SPEC, or --plan PLAN.toml"
        )
    repeats = 3 if repeats is None else repeats
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    seed = DEFAULT_SEED if seed is None else seed
    built = build_processor(processor, prompt_file=prompt_file)
    if frozen is not None:
        _check_built_prompt(built, frozen)
    guard = LexicalGuard.from_options(allow_substitutions, guard_marks) if built.guarded else None
    sources, source_info = read_sources(run, arm=arm)
    try:
        records = run_processor(sources, built, repeats=repeats, guard=guard, progress=progress)
    finally:
        built.close()
    bootstrap = BootstrapSettings(resamples=resamples, seed=seed, level=level)
    summary = summarise(sources, records, repeats=repeats, guard=guard, bootstrap=bootstrap)
    served = None
    if built.kind == "openai-chat":
        served = identity = served_identity(built.describe()["model"], [r.detail for r in records])
        if not identity["consistent"]:
            summary["warnings"].append(
                "the server reported more than one model or system fingerprint during the "
                f"evaluation: {identity['reported_models']} {identity['system_fingerprints']}"
            )
    document: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "earmark_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "source": source_info,
        "processor_spec": processor,
        "processor": built.describe(),
        **({"plan": frozen} if frozen is not None else {}),
        **({"served_model": served} if served is not None else {}),
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


def _plan_settings(
    plan: str | os.PathLike[str],
    expect_sha256: str | None,
    *,
    processor: str | None,
    repeats: int | None,
    allow_substitutions: Sequence[str],
    guard_marks: str,
    resamples: int | None,
    seed: int | None,
) -> dict[str, Any]:
    """The frozen plan's settings, each given setting checked against them, and the
    record of the plan that postprocess.json keeps."""
    from earmark.postprocess.plan import plan_postprocess
    from earmark.rundir.plan_file import check_frozen, file_sha256, read_plan_toml

    path = os.fspath(plan)
    digest = check_frozen(path, expect_sha256) if expect_sha256 else file_sha256(path)
    frozen = plan_postprocess(path)
    top = read_plan_toml(path)

    def agree(flag: str, given: Any, planned: Any, unset: Any = None) -> Any:
        if given != unset and given != planned:
            raise EarmarkError(
                f"--{flag} {given!r} differs from the frozen plan's {planned!r}",
                file=path,
                field=flag,
                hint="with --plan, the plan decides; leave the option out",
            )
        return planned

    settings: dict[str, Any] = {
        "processor": agree("processor", processor, frozen.processor),
        "repeats": agree("repeats", repeats, frozen.repeats),
        "allow_substitutions": agree(
            "allow-substitution", list(allow_substitutions), list(frozen.allow_substitutions), []
        ),
        "guard_marks": agree("guard-marks", guard_marks, frozen.guard_marks, ""),
        "resamples": agree("bootstrap", resamples, int(top.get("bootstrap", DEFAULT_RESAMPLES))),
        "seed": agree("seed", seed, int(top.get("seed", DEFAULT_SEED))),
        "prompt": frozen.prompt_path,
    }
    settings["record"] = {
        "file": path,
        "sha256": digest,
        "expected_sha256": expect_sha256.strip().lower() if expect_sha256 else None,
        "frozen": expect_sha256 is not None,
        "postprocess": frozen.to_dict(),
        "prompt": frozen.check_prompt(),
    }
    return settings


def _check_built_prompt(built: Any, record: dict[str, Any]) -> None:
    """An `openai-chat` processor's template is the frozen prompt (a file, or the
    built-in prompt when the plan names no file)."""
    frozen = record["postprocess"]["prompt_sha256"]
    if built.kind != "openai-chat" or frozen is None:
        return
    if built.prompt_sha256 != frozen:
        raise EarmarkError(
            f"the prompt in use has sha256 {built.prompt_sha256}, not the frozen {frozen}",
            file=record["file"],
            field="postprocess.prompt_sha256",
            hint="a frozen prompt must not change; freeze a new plan and record the deviation",
        )
    record["prompt"]["status"] = "checked"
