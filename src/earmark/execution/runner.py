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

import ctypes
import json
import multiprocessing
import os
import signal
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from earmark.artefacts import write_artefacts
from earmark.corpus.manifest import (
    is_public,
    licence_gate,
    manifest_sha256,
    read_manifest,
    read_meta,
    row_provenance_gate,
)
from earmark.corpus.model import Utterance
from earmark.corpus.selection import SelectionRecord, select, split_leakage
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.execution.plan import RunPlan
from earmark.execution.provenance import host_profile, software_profile
from earmark.execution.store import PredictionStore
from earmark.outputs import atomic_write_json, lock_output_folder
from earmark.render.markdown import render_results_markdown
from earmark.rundir.layout import (
    ARM_EGRESS,
    ARM_MODEL,
    ARM_RESOURCES,
    PLAN,
    PREDICTIONS,
    PROVENANCE,
    arm_folder,
)
from earmark.rundir.provenance import is_verifiable
from earmark.rundir.results_file import build_results, write_results
from earmark.scoring.error_analysis import error_analysis_section
from earmark.scoring.extra_metrics import critical_tokens_section, punctuation_section
from earmark.scoring.probes import run_scorer_probes
from earmark.scoring.rows import MISSING_HYPOTHESIS, ScoringRow
from earmark.scoring.scorer import ScoringOptions, score_rows
from earmark.scoring.streaming_section import streaming_section

Isolation = Literal["process", "inline"]


@dataclass
class RunOptions:
    quiet: bool = False
    isolation: Isolation = "process"
    retry_failed: bool = False
    command_line: list[str] = field(default_factory=lambda: list(sys.argv))
    plan_file: str | None = None
    plan_file_sha256: str | None = None
    #: `local` (each arm in its own process, or inline) or `ray` (actors on a cluster).
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    ray_actors: int = 2
    ray_max_retries: int = 2
    ray_cpus_per_actor: float = 1.0
    ray_gpus_per_actor: float = 0.0


def selected_utterances(plan: RunPlan) -> tuple[list[Utterance], SelectionRecord]:
    """Read the manifest and apply the plan's selection (deterministic: every arm and
    every process computes the same list)."""
    sel = dict(plan.selection)
    return select(
        read_manifest(plan.manifest),
        languages=sel.get("languages"),
        slices=sel.get("slices"),
        fraction=sel.get("fraction"),
        seed=sel.get("seed"),
        distinct_texts=bool(sel.get("distinct_texts", False)),
        n=sel.get("first"),
    )


def preflight(
    plan: RunPlan,
    utterances: list[Utterance],
    *,
    check_audio: bool = True,
    check_runtime: bool = True,
) -> None:
    """Refuse a run that cannot succeed before its folder exists: a typo in an arm spec
    or a wrong audio root found after the folder is written leaves a run of the wrong
    plan behind, and a rerun with the fix into the same `--out` is then refused."""
    from earmark.engines.registry import backend_info, validate_arm

    for arm in plan.arms:
        try:
            validate_arm(arm)
        except EarmarkError as exc:
            prefix = "" if exc.message.startswith("arm ") else f"arm '{arm.name}': "
            raise EarmarkError(
                prefix + exc.message,
                file=exc.file,
                field=exc.field,
                hint=exc.hint or "check it with `earmark engines --check SPEC`",
            ) from None
        info = backend_info(arm.backend)
        if check_runtime and not info.installed():
            raise EarmarkError(
                f"arm '{arm.name}': backend {arm.backend} needs the optional package "
                f"'{info.runtime_module}', which is not installed",
                hint=f"pip install 'earmark[{info.extra}]'",
            )
    if check_audio:
        missing = missing_audio(plan.audio_root, utterances)
        if missing:
            shown = ", ".join(missing[:3]) + (", …" if len(missing) > 3 else "")
            raise EarmarkError(
                f"{len(missing)} of {len({u.audio for u in utterances})} audio files not "
                f"found under {plan.audio_root} (first: {shown})",
                file=plan.manifest,
                field="audio",
                hint="give the folder the manifest's audio paths are relative to "
                "with --audio-root (or audio_root in the plan)",
            )


def missing_audio(root: str, utterances: list[Utterance]) -> list[str]:
    """Manifest `audio` paths that name no regular file under `root`, in manifest order
    (each path once: segments of one recording share a file)."""
    from earmark.corpus.audio import resolve_audio_path

    missing: list[str] = []
    seen: set[str] = set()
    for utt in utterances:
        if utt.audio in seen:
            continue
        seen.add(utt.audio)
        try:
            path = resolve_audio_path(root, utt.audio)
        except EarmarkError:
            found = False
        else:
            # A symlink that leads nowhere readable (a loop) is there, not missing: the
            # clip fails on its own (`unreadable`) and the run goes on.
            found = path.is_file() or path.is_symlink()
        if not found:
            missing.append(utt.audio)
    return missing


def _check_out_dir(out: Path, plan: RunPlan) -> None:
    """Refuse a folder holding another plan's run. An empty plan.json (left by a full
    disk before plan.json was written atomically) records no plan: it is rewritten, and
    the store's rows are reused only where their cache keys match."""
    plan_path = out / PLAN
    if plan_path.exists():
        text = plan_path.read_text("utf-8")
        if not text.strip():
            return
        try:
            previous = json.loads(text)
        except json.JSONDecodeError:
            previous = {}
        if not isinstance(previous, dict) or previous.get("sha256") != plan.sha256():
            raise EarmarkError(
                "the output directory holds a run of a different plan",
                file=str(out),
                hint="resume with the same plan, or choose a new --out",
            )


def _pin_hub_arms(plan: RunPlan, out: Path) -> RunPlan:
    """Record the commit of every arm that follows a moving hub ref (`download=true` with a
    branch, a tag or no revision) before `plan.json` is written, so the run loads exactly
    that commit and a resume never resolves the ref again: the commit the folder's
    `plan.json` recorded for the same arm is reused (no network); only a new run asks the
    hub, which `download=true` authorised."""
    from dataclasses import replace

    from earmark.engines.model_source import moving_hub_ref, pin_hub_revision

    moving = [arm for arm in plan.arms if moving_hub_ref(arm) is not None]
    if not moving:
        return plan
    recorded: dict[str, str] = {}
    plan_path = out / PLAN
    try:
        previous = json.loads(plan_path.read_text("utf-8")).get("plan", {}).get("arms", [])
    except (OSError, ValueError, AttributeError):
        previous = []
    for table in previous if isinstance(previous, list) else []:
        if isinstance(table, dict) and isinstance(table.get("settings"), dict):
            commit = table["settings"].get("resolved_revision")
            if isinstance(commit, str) and isinstance(table.get("name"), str):
                recorded[table["name"]] = commit
    arms = []
    for arm in plan.arms:
        if moving_hub_ref(arm) is None:
            arms.append(arm)
        elif arm.name in recorded:
            commit = recorded[arm.name]
            arms.append(
                replace(arm, settings=tuple(sorted((*arm.settings, ("resolved_revision", commit)))))
            )
        elif not plan.allow_network:
            raise EarmarkError(
                f"arm '{arm.name}' follows the hub ref {moving_hub_ref(arm)!r} of {arm.model} "
                "(download=true), but the run does not allow the network",
                field="arms",
                hint="add --allow-network (or allow_network = true in the plan) so the ref is "
                "resolved to a commit and downloaded, or pin revision=<commit>",
            )
        else:
            arms.append(pin_hub_revision(arm))
    return replace(plan, arms=tuple(arms))


def _set_parent_death_signal() -> None:
    """Linux: the arm process dies with its parent (a killed run leaves no orphan writing
    to the store)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _arm_process_main(
    plan_dict: dict[str, Any], arm_index: int, out_dir: str, retry_failed: bool, quiet: bool
) -> None:
    _set_parent_death_signal()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from earmark.execution.arm_worker import run_arm

    plan = plan_from_dict(plan_dict)
    utterances, _ = selected_utterances(plan)
    try:
        run_arm(
            plan,
            plan.arms[arm_index],
            utterances,
            Path(out_dir),
            retry_failed=retry_failed,
            quiet=quiet,
        )
    except EarmarkError as exc:
        print(f"earmark: error: arm {plan.arms[arm_index].name}: {exc}", file=sys.stderr)
        sys.exit(2)
    except OSError as exc:  # a full disk or a file-size limit: one line, the run goes on
        where = f"{exc.filename}: " if exc.filename else ""
        what = exc.strerror or type(exc).__name__
        print(f"earmark: error: arm {plan.arms[arm_index].name}: {where}{what}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


def determinism(model: dict[str, Any] | None) -> tuple[bool, str]:
    """Whether the arm's hypotheses repeat exactly, and why; an engine that does not say
    counts as not deterministic (its churn may include sampling noise)."""
    model = model or {}
    if model.get("deterministic"):
        return True, str(model.get("determinism_note") or "declared by the engine")
    note = model.get("determinism_note") or "the engine does not declare that it is deterministic"
    return False, str(note)


def plan_from_dict(data: dict[str, Any]) -> RunPlan:
    return RunPlan(
        manifest=data["manifest"],
        audio_root=data["audio_root"],
        arms=tuple(ArmSpec.from_mapping(a) for a in data["arms"]),
        normalizer=data["normalizer"],
        repeats=data["repeats"],
        bootstrap=data["bootstrap"],
        seed=data["seed"],
        selection=data["selection"],
        audio=data["audio"],
        allow_network=data["allow_network"],
        batch_size=data["batch_size"],
        threads=data.get("threads", 1),
        cpu_isa=data.get("cpu_isa"),
        protocol=data.get("protocol"),
        ceilings=data.get("ceilings", {}),
        cluster=data.get("cluster", "clip"),
        min_per_slice=data.get("min_per_slice"),
        min_speakers=data.get("min_speakers"),
    )


def _run_arm_isolated(plan: RunPlan, index: int, out: Path, options: RunOptions) -> int:
    from earmark.execution.arm_environment import spawn_environment

    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(
        target=_arm_process_main,
        args=(plan.to_dict(), index, str(out), options.retry_failed, options.quiet),
        name=f"earmark-arm-{plan.arms[index].name}",
    )
    with spawn_environment(plan):  # the child loads numpy's BLAS with the plan's threads
        proc.start()
    try:
        proc.join()
    except KeyboardInterrupt:
        proc.terminate()
        proc.join(10)
        raise
    return int(proc.exitcode or 0)


def run_plan(plan: RunPlan, out_dir: str | os.PathLike[str], options: RunOptions) -> dict[str, Any]:
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
    preflight(plan, utterances, check_audio=not remote, check_runtime=options.executor == "local")
    # One writer per folder from the plan check to the last record: a second run into
    # the same --out is refused instead of appending its rows to this one's store.
    with lock_output_folder(out_dir, "run") as out:
        plan = _pin_hub_arms(plan, out)
        _check_out_dir(out, plan)
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
            arm_exit = _run_arms_on_ray(plan, utterances, out, options)
        else:
            arm_exit = _run_arms_locally(plan, utterances, out, options)
        return finish_run(
            plan, out, utterances, selection, meta, corpus_sha, arm_exit, options, torn
        )


def _run_arms_locally(
    plan: RunPlan, utterances: list[Utterance], out: Path, options: RunOptions
) -> dict[str, int]:
    arm_exit: dict[str, int] = {}
    for index, arm in enumerate(plan.arms):
        if options.isolation == "process":
            arm_exit[arm.name] = _run_arm_isolated(plan, index, out, options)
        else:
            from earmark.execution.arm_worker import run_arm

            run_arm(
                plan,
                arm,
                utterances,
                out,
                retry_failed=options.retry_failed,
                quiet=options.quiet,
            )
            arm_exit[arm.name] = 0
        if arm_exit[arm.name] == 130:
            raise KeyboardInterrupt
    return arm_exit


def _run_arms_on_ray(
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


def finish_run(
    plan: RunPlan,
    out: Path,
    utterances: list[Utterance],
    selection: SelectionRecord,
    meta: Any,
    corpus_sha: str,
    arm_exit: dict[str, int],
    options: RunOptions,
    torn_bytes: int = 0,
) -> dict[str, Any]:
    """Score the store's rows (one per arm × utterance × repeat) and write every file."""
    latest = PredictionStore(out / PREDICTIONS).latest()
    scoring = plan.scoring_options()
    arms_results: dict[str, Any] = {}
    arm_rows: dict[str, list[dict[str, Any]]] = {}
    all_records: list[dict[str, Any]] = []
    deviations: list[dict[str, Any]] = []
    provenance_arms: dict[str, Any] = {}
    failures: list[dict[str, Any]] = []
    for arm in plan.arms:
        arm_dir = arm_folder(out, arm.name)
        model = _read_json(arm_dir / ARM_MODEL)
        resources = _read_json(arm_dir / ARM_RESOURCES)
        egress = _read_json(arm_dir / ARM_EGRESS)
        rows: list[ScoringRow] = []
        raw_rows: list[dict[str, Any]] = []
        mismatches = 0
        for utt in utterances:
            for r in range(plan.repeats):
                stored = latest.get((arm.name, utt.id, r))
                if stored is None:
                    status = "arm_failed" if arm_exit.get(arm.name) else MISSING_HYPOTHESIS
                    stored = {
                        "arm": arm.name,
                        "id": utt.id,
                        "repeat": r,
                        "reference": utt.text,
                        "language": utt.language,
                        "slices": list(utt.slices),
                        "status": status,
                        "hypothesis": None,
                    }
                mismatches += bool(stored.get("language_mismatch"))
                raw_rows.append(stored)
                rows.append(
                    ScoringRow(
                        id=utt.id if plan.repeats == 1 else f"{utt.id}#{r}",
                        reference=utt.text,
                        hypothesis=stored.get("hypothesis"),
                        language=utt.language,
                        slices=utt.slices,
                        status=stored.get("status", "ok"),
                        cluster=None if plan.repeats == 1 else utt.id,
                        duration=stored.get("audio_seconds"),
                        extra={"speaker": utt.speaker} if utt.speaker else {},
                    )
                )
        scored = score_rows(rows, scoring)
        arm_rows[arm.name] = raw_rows
        for raw, record in zip(raw_rows, scored.records, strict=True):
            speaker = {"speaker": record["speaker"]} if "speaker" in record else {}
            all_records.append(
                {**raw, **speaker, "normalizer": record["normalizer"], "views": record["views"]}
            )
        summary = scored.to_dict()
        summary["error_analysis"] = error_analysis_section(scored)
        summary["punctuation"] = punctuation_section(rows, bootstrap=scoring.bootstrap)
        summary["critical_tokens"] = critical_tokens_section(rows, bootstrap=scoring.bootstrap)
        long_form = _long_form(utterances, raw_rows, plan, scoring)
        if long_form is not None:
            summary["long_form"] = long_form
        if not meta.redistribute_transcripts:
            _withhold_transcripts(summary)
        timestamps = _timestamps(utterances, raw_rows, plan, scoring)
        if timestamps is not None:
            summary["timestamps"] = timestamps
        summary["streaming"] = streaming_section(raw_rows)
        summary["model"] = model
        summary["deterministic"], summary["determinism_note"] = determinism(model)
        summary["resources"] = resources
        summary["spec"] = arm.to_dict()
        summary["language_mismatches"] = mismatches
        summary["resources_by_language"] = latency_by_language(raw_rows)
        if arm_exit.get(arm.name):
            summary["arm_exit_code"] = arm_exit[arm.name]
            deviations.append({"arm": arm.name, "kind": "arm_failed", "exit": arm_exit[arm.name]})
        failure = arm_failure(summary["coverage"]["statuses"])
        if failure is not None:
            summary["failure"] = failure
            failures.append({"arm": arm.name, **failure})
            deviations.append({"arm": arm.name, **failure})
        if mismatches:
            deviations.append(
                {
                    "arm": arm.name,
                    "kind": "language_override",
                    "rows": mismatches,
                    "detail": "the engine decoded in another language than requested",
                }
            )
        for nok in summary["coverage"]["not_ok"]:
            deviations.append({"arm": arm.name, "kind": "excluded_or_failed", **nok})
        arms_results[arm.name] = summary
        provenance_arms[arm.name] = {"spec": arm.to_dict(), "model": model, "egress": egress}

    corpus = {
        "manifest": plan.manifest,
        "manifest_sha256": corpus_sha,
        "audio_root": plan.audio_root,
        "dataset": meta.dataset,
        "licence": meta.licence,
        "licence_is_assertion": True,
        "consent_basis": meta.consent_basis,
        "redistribute_audio": meta.redistribute_audio,
        "redistribute_transcripts": meta.redistribute_transcripts,
        "selection": bounded_selection(selection),
    }
    leakage = split_leakage(read_manifest(plan.manifest), utterances)
    if leakage.get("leaked"):
        deviations.append(
            {
                "kind": "speaker_leakage",
                "speakers": len(leakage["shared"]),
                "detail": "selected rows share speakers with another split",
            }
        )
    provenance = {
        "host": host_profile(),
        "software": software_profile(),
        "command_line": options.command_line,
        "plan_sha256": plan.sha256(),
        "plan_file": options.plan_file,
        "plan_file_sha256": options.plan_file_sha256,
        "corpus": corpus,
        "normalizer_policy": scoring.policy.to_dict(),
        "seeds": {"bootstrap": plan.seed},
        "arms": provenance_arms,
        "deviations": deviations,
        "store_repair": {"torn_bytes_truncated": torn_bytes},
        "speaker_leakage": leakage,
    }
    verifiable, missing = is_verifiable(provenance)
    provenance["verifiable"] = {"ok": verifiable, "missing": missing}
    probes = run_scorer_probes()
    results = build_results(
        arms_results,
        probes,
        diagnostics=run_diagnostics(arm_rows, plan.normalizer),
        corpus=corpus,
        plan={"sha256": plan.sha256(), **plan.to_dict()},
        provenance={"file": PROVENANCE, "verifiable": verifiable, "missing": missing},
        public=is_public(meta),
    )
    results["failures"] = failures
    atomic_write_json(out / PROVENANCE, provenance)
    write_results(
        out,
        results,
        all_records,
        probes=probes,
        markdown=render_results_markdown(results, title="earmark run"),
    )
    write_artefacts(out)  # last: the listing names every file as finished
    return results


def _withhold_transcripts(summary: dict[str, Any]) -> None:
    """Figures only in an arm's shareable summary (sidecar `redistribute_transcripts:
    false`): no units, alignments or critical-token strings; predictions.jsonl, the
    private record, keeps the texts."""
    from earmark.scoring.error_analysis import TEXT_WITHHELD, withhold_text

    summary["error_analysis"] = withhold_text(summary["error_analysis"])
    for failure in summary.get("critical_tokens", {}).get("failures", []):
        failure["lost"] = {k: len(v) for k, v in failure["lost"].items()}
        failure["spurious"] = {k: len(v) for k, v in failure["spurious"].items()}
    summary["text_withheld"] = TEXT_WITHHELD


#: Rows a run lists by id among those its selection left out; beyond it, counts only.
EXCLUSIONS_LISTED = 1000


def bounded_selection(selection: SelectionRecord) -> dict[str, Any]:
    """The selection record as results.json and provenance.json carry it, bounded.

    `run --first 10` on a million-row manifest would otherwise list 999,990 rows never
    run, twice (83 MB each). The counts per reason stay complete; the ids are listed in
    full up to `EXCLUSIONS_LISTED`, else the first that many with the total beside them.
    The rule, its parameters and the manifest's hash redraw the full list exactly."""
    total = len(selection.exclusions)
    if total <= EXCLUSIONS_LISTED:
        return selection.to_dict()
    record = replace(selection, exclusions=selection.exclusions[:EXCLUSIONS_LISTED]).to_dict()
    record["excluded_counts"] = selection.excluded_counts()
    record["exclusions_total"] = total
    record["exclusions_truncated"] = True
    return record


def arm_failure(statuses: dict[str, int]) -> dict[str, str] | None:
    """Why an arm's figures are no result at all, or None when some clip was decoded.

    An arm with no hypothesis scores 100% error on every clip: a number that looks like
    a (bad) result, and on a character-scored language can even beat a real model's."""
    if statuses.get("ok"):
        return None
    from earmark.corpus.audio import REASONS

    shown = ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items()))
    if statuses and all(status in REASONS for status in statuses):
        return {"kind": "no_audio_loaded", "detail": f"every clip failed to load ({shown})"}
    total = sum(statuses.values())
    return {"kind": "no_hypothesis", "detail": f"no hypothesis for any of {total} rows ({shown})"}


def _long_form(
    utterances: list[Utterance],
    raw_rows: list[dict[str, Any]],
    plan: RunPlan,
    scoring: ScoringOptions,
) -> dict[str, Any] | None:
    """Seed 000's long-recording figures (CER by interval, omissions, repeats) when the
    manifest rows carry reference segments (`custom.segments`); None otherwise."""
    if not any(u.custom.get("segments") for u in utterances):
        return None
    from earmark.scoring.long_form_section import long_form_section

    recordings = []
    rows_by_key = {(r["id"], r.get("repeat", 0)): r for r in raw_rows}
    for utt in utterances:
        for repeat in range(plan.repeats):
            row = rows_by_key.get((utt.id, repeat), {})
            hyp_segments = row.get("segments")
            if hyp_segments is None and row.get("status") == "ok" and not row.get("hypothesis"):
                hyp_segments = []  # decoded, but said nothing: every interval is omitted
            recordings.append(
                {
                    "id": utt.id if plan.repeats == 1 else f"{utt.id}#{repeat}",
                    "cluster": utt.id,  # repeats of one recording are one bootstrap cluster
                    "language": utt.language,
                    "reference_segments": utt.custom.get("segments"),
                    "hypothesis_segments": hyp_segments if row.get("status") == "ok" else None,
                }
            )
    return long_form_section(
        recordings,
        scoring.policy,
        resamples=plan.bootstrap,
        seed=plan.seed,
        level=scoring.bootstrap.level,
    )


def _timestamps(
    utterances: list[Utterance],
    raw_rows: list[dict[str, Any]],
    plan: RunPlan,
    scoring: ScoringOptions,
) -> dict[str, Any] | None:
    """Word and segment boundary offsets when manifest rows carry reference timings
    (`custom.segments`, `custom.words`) and predictions carry the system's; None otherwise."""
    if not any(u.custom.get("segments") or u.custom.get("words") for u in utterances):
        return None
    from earmark.scoring.timestamps_section import timestamps_section

    recordings = []
    rows_by_key = {(r["id"], r.get("repeat", 0)): r for r in raw_rows}
    for utt in utterances:
        if not (utt.custom.get("segments") or utt.custom.get("words")):
            continue
        for repeat in range(plan.repeats):
            row = rows_by_key.get((utt.id, repeat), {})
            ok = row.get("status") == "ok"
            silent = ok and not row.get("hypothesis")  # decoded, said nothing: all unpaired
            recordings.append(
                {
                    "id": utt.id if plan.repeats == 1 else f"{utt.id}#{repeat}",
                    "language": utt.language,
                    "reference_segments": utt.custom.get("segments"),
                    "reference_words": utt.custom.get("words"),
                    "hypothesis_segments": row.get("segments", [] if silent else None)
                    if ok
                    else None,
                    "hypothesis_words": row.get("words", [] if silent else None) if ok else None,
                }
            )
    return timestamps_section(recordings, scoring.policy)


def run_diagnostics(arm_rows: dict[str, list[dict[str, Any]]], normalizer: str) -> dict[str, Any]:
    """Harness-artefact diagnostics of every arm (insertion-driven failure, truncation,
    script mismatch, empty outputs, normaliser-induced ranking flips), computed by the
    same code as `earmark compare` so a run and a comparison flag the same things."""
    from earmark.comparison.api import CompareOptions, compare_arms
    from earmark.comparison.loading import ArmData
    from earmark.stats.settings import BootstrapSettings

    arms: dict[str, ArmData] = {}
    for name, rows in arm_rows.items():
        data = ArmData(name=name, source=PREDICTIONS)
        for line, row in enumerate(rows, start=1):
            data.add(row, PREDICTIONS, line)
        arms[name] = data
    compared = compare_arms(
        arms,
        CompareOptions(normalizer=normalizer, bootstrap=BootstrapSettings(resamples=0)),
        jobs=1,
    )
    diagnostics: dict[str, Any] = compared["diagnostics"]
    return diagnostics


def latency_by_language(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-language (and per-slice) decode and end-to-end latency and real-time factor
    from the rows' own timings (`earmark.execution.resources.latency_by_language`)."""
    from earmark.execution.resources import latency_by_language as by_language

    return by_language(rows)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return data
    except (FileNotFoundError, json.JSONDecodeError):
        return None
