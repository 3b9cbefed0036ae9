"""`earmark run`: corpus → arms (each in its own process, model loaded once) → scores.

The run directory holds everything needed to audit and re-check the result:
`plan.json` (the plan and its SHA-256), `predictions.jsonl` (one row per arm ×
utterance × repeat), `results.json`, `provenance.json`, `results.md`, and per arm
`arms/<name>/{model,resources,egress}.json`, and last `artefacts.sha256` (every one of
those files' SHA-256, `sha256sum -c` format; `earmark.artefacts`). Rerunning the same
command resumes. One run writes into a folder at a time (a second is refused while the
first holds the folder's lock), every record is replaced atomically (`earmark.outputs`), and
results.json names the SHA-256 of the predictions.jsonl it was computed from.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from earmark.corpus.manifest import licence_gate, manifest_sha256, read_meta, row_provenance_gate
from earmark.corpus.model import Utterance
from earmark.errors import EarmarkError
from earmark.execution.finish import RunCorpus, finish_run
from earmark.execution.local_executor import run_arms_locally
from earmark.execution.options import RunOptions
from earmark.execution.plan import RunPlan, selected_utterances
from earmark.execution.preflight import check_out_dir, pin_hub_arms, preflight
from earmark.execution.store import PredictionStore
from earmark.outputs import atomic_write_json, lock_output_folder, refuse_own_input
from earmark.results.results_file import Results
from earmark.rundir.layout import (
    ARTEFACTS,
    PLAN,
    PREDICTIONS,
    PROVENANCE,
    RESULTS,
    RESULTS_MARKDOWN,
)


def run_plan(plan: RunPlan, out_dir: str | os.PathLike[str], options: RunOptions) -> Results:
    """Run every arm (resuming finished rows), score, and write the run directory."""
    meta = read_meta(plan.manifest)
    licence_gate(meta, manifest=plan.manifest)
    row_provenance_gate(meta, manifest=plan.manifest)
    corpus_sha = manifest_sha256(plan.manifest)
    utterances, selection = selected_utterances(plan)
    if not utterances:
        raise EarmarkError("the selection kept no utterance", file=plan.manifest)
    # A remote Ray cluster reads audio from its own view of the shared root.
    remote = options.executor == "ray" and bool(options.ray_address)
    preflight(plan, utterances, options, check_audio=not remote)
    written = (PLAN, PREDICTIONS, RESULTS, RESULTS_MARKDOWN, PROVENANCE, ARTEFACTS)
    refuse_own_input(out_dir, (plan.manifest, options.plan_file), written, "run")
    # One writer per folder from the plan check to the last record: a second run into
    # the same --out is refused instead of appending its rows to this one's store.
    with lock_output_folder(out_dir, "run") as out:
        plan = pin_hub_arms(plan, out)
        check_out_dir(out, plan)
        atomic_write_json(
            out / PLAN,
            {
                "sha256": plan.sha256(),
                "plan": plan.to_dict(),
                "plan_file": options.plan_file,
                "plan_file_sha256": options.plan_file_sha256,
            },
        )
        store = PredictionStore(out / PREDICTIONS)
        torn = store.repair.torn_bytes
        if options.executor == "ray":
            arm_exit = run_arms_on_ray(plan, utterances, out, options)
        else:
            arm_exit = run_arms_locally(plan, utterances, out, options)
        corpus = RunCorpus(utterances, selection, meta, corpus_sha)
        return finish_run(plan, out, corpus, arm_exit, options, torn)


def run_arms_on_ray(
    plan: RunPlan, utterances: list[Utterance], out: Path, options: RunOptions
) -> dict[str, int]:
    """Every arm on Ray actors (one Ray session for all arms); same store, same rows."""
    from earmark.errors import MissingExtraError
    from earmark.execution.ray_executor import ray_cluster, run_arm_on_ray

    arm_exit: dict[str, int] = {}
    with ray_cluster(options.ray_address, quiet=options.quiet):
        for arm in plan.arms:
            try:
                run_arm_on_ray(
                    plan,
                    arm,
                    utterances,
                    out,
                    address=options.ray_address,
                    num_actors=options.ray_actors,
                    max_retries=options.ray_max_retries,
                    num_cpus=options.ray_cpus_per_actor,
                    num_gpus=options.ray_gpus_per_actor,
                    retry_failed=options.retry_failed,
                    quiet=options.quiet,
                )
                arm_exit[arm.name] = 0
            except MissingExtraError:
                raise
            except EarmarkError as exc:  # like the process path: this arm fails, the run goes on
                print(f"earmark: error: arm {arm.name}: {exc}", file=sys.stderr)
                arm_exit[arm.name] = 2
    return arm_exit
