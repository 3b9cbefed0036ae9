"""Refusals before a run's folder is written, and the checks of a folder it resumes.

A typo in an arm spec, a backend whose extra is missing or a wrong audio root found after
the folder exists would leave a run of the wrong plan behind; a folder holding another
plan's run is refused; an arm that follows a moving hub ref is pinned to a commit first.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from earmark.corpus.model import Utterance
from earmark.errors import EarmarkError
from earmark.execution.options import RunOptions
from earmark.execution.plan import RunPlan
from earmark.rundir.layout import PLAN


def preflight(
    plan: RunPlan,
    utterances: list[Utterance],
    options: RunOptions,
    *,
    check_audio: bool = True,
) -> None:
    """Refuse a run that cannot succeed before its folder exists: a typo in an arm spec
    or a wrong audio root found after the folder is written leaves a run of the wrong
    plan behind, and a rerun with the fix into the same `--out` is then refused."""
    from earmark.engines.registry import backend_info, validate_arm
    from earmark.execution.licence_gate import model_licence_gate, protocol_language_gate

    model_licence_gate(plan)
    protocol_language_gate(plan, utterances)
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
        if options.executor == "local" and not info.installed():
            raise EarmarkError(
                f"arm '{arm.name}': backend {arm.backend} needs the optional package "
                f"'{info.runtime_module}', which is not installed",
                hint=f"pip install 'earmark[{info.extra}]'",
            )
    check_offline(plan, options.require_offline)
    if check_audio:
        check_audio_files(plan, utterances, options.allow_missing_audio)


def check_offline(plan: RunPlan, require_offline: bool) -> None:
    """Say, before anything runs, which arms start programs that will reach the network
    (no network namespace here); under `--require-offline`, refuse the first of them."""
    from earmark.engines.offline import unisolated_reason

    if require_offline and plan.allow_network:
        raise EarmarkError(
            "--require-offline contradicts --allow-network (or allow_network = true in the plan)",
            field="require-offline",
            hint="drop one of them",
        )
    if plan.allow_network:
        return
    for arm in plan.arms:
        reason = unisolated_reason(arm.backend)
        if reason is None:
            continue
        what = (
            f"arm '{arm.name}' ({arm.backend}) starts programs that cannot be run without "
            f"a network here ({reason})"
        )
        if require_offline:
            raise EarmarkError(
                f"--require-offline: {what}",
                field="require-offline",
                hint="run where `unshare --net` (root) or user namespaces work, or drop "
                "--require-offline to run with their egress recorded but not enforced",
            )
        print(
            f"earmark: warning: {what}: their connections are neither refused nor seen "
            "(--require-offline refuses such arms)",
            file=sys.stderr,
        )


def check_audio_files(plan: RunPlan, utterances: list[Utterance], allow_missing: bool) -> None:
    """Refuse a run whose audio files are missing (a wrong audio root, most often), naming
    what each is when it is there but not a file; `--allow-missing-audio` runs the rest
    and records those clips as `missing_file` rows instead, after saying so."""
    problems = audio_problems(plan.audio_root, utterances)
    if not problems:
        return
    total = len({u.audio for u in utterances})
    shown = ", ".join(
        path if what is None else f"{path} ({what})" for path, what in problems[:3]
    ) + (", …" if len(problems) > 3 else "")
    found = (
        "not found"
        if all(what is None for _, what in problems)
        else "not found or not regular files"
    )
    message = f"{len(problems)} of {total} audio files {found} under {plan.audio_root}"
    if allow_missing:
        print(
            f"earmark: warning: {message} (first: {shown}); --allow-missing-audio: their "
            "clips are recorded as missing_file and scored as deletions",
            file=sys.stderr,
        )
        return
    raise EarmarkError(
        f"{message} (first: {shown})",
        file=plan.manifest,
        field="audio",
        hint="give the folder the manifest's audio paths are relative to "
        "with --audio-root (or audio_root in the plan), or pass --allow-missing-audio to "
        "run the rest with these clips counted as deletions",
    )


def audio_problems(root: str, utterances: list[Utterance]) -> list[tuple[str, str | None]]:
    """Manifest `audio` paths that name no regular file under `root`, in manifest order
    (each path once: segments of one recording share a file), each with what it is
    instead (None: nothing there)."""
    from earmark.corpus.audio import resolve_audio_path
    from earmark.records import require_regular_file

    problems: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for utt in utterances:
        if utt.audio in seen:
            continue
        seen.add(utt.audio)
        try:
            path = resolve_audio_path(root, utt.audio)
        except EarmarkError:
            problems.append((utt.audio, None))
            continue
        # A symlink that leads nowhere readable (a loop) is there, not missing: the
        # clip fails on its own (`unreadable`, "symlink loop") and the run goes on.
        if path.is_file() or path.is_symlink():
            continue
        try:
            require_regular_file(path)
        except EarmarkError as exc:
            problems.append((utt.audio, exc.message))
        else:
            problems.append((utt.audio, None))
    return problems


def check_out_dir(out: Path, plan: RunPlan) -> None:
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


def pin_hub_arms(plan: RunPlan, out: Path) -> RunPlan:
    """Record the commit of every arm that follows a moving hub ref (`download=true` with a
    branch, a tag or no revision) before `plan.json` is written, so the run loads exactly
    that commit and a resume never resolves the ref again: the commit the folder's
    `plan.json` recorded for the same arm is reused (no network); only a new run asks the
    hub, which `download=true` authorised."""
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
