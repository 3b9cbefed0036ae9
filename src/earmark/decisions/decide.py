"""`earmark decide`: a dated promotion/rejection record for a challenger vs a baseline.

The promotion rule is stated in `decisions.rules`; this module is its front: it resolves
`RUN[#ARM]` into the two sides, refuses unlike data or decoding settings, gathers the
evidence (`decisions.evidence`), applies the rule, builds the typed record
(`earmark.results.Decision`) and, given a folder, writes `decision-DATE.{md,json}`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import date as Date
from datetime import datetime, timezone
from pathlib import Path

from earmark.decisions.evidence import DecisionEvidence, gather_evidence
from earmark.decisions.formatting import fmt_shown
from earmark.decisions.markdown import render_decision_markdown
from earmark.decisions.rules import Judgement, judge
from earmark.decisions.settings import compare_settings
from earmark.decisions.sides import Side, data_differences
from earmark.decisions.thresholds import DecisionRules
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_text, claim_output_folder
from earmark.render.run_directory import RunDirectory, load_run
from earmark.results.decision import DECISION_SCHEMA, Decision, DecisionResources


@dataclass(frozen=True)
class DecideOptions:
    """What `earmark decide` weighs: two `RUN[#ARM]` sides (`#` as `earmark compare`
    writes it, or `:`), the rule's thresholds, the record's date (default: today, UTC) and
    the folder to write `decision-DATE.{md,json}` to (None: write nothing)."""

    baseline: str
    challenger: str
    rules: DecisionRules = field(default_factory=DecisionRules)
    out: str | os.PathLike[str] | None = None
    on: Date | None = None


@dataclass(frozen=True)
class DecisionOutcome:
    """The typed record, its Markdown, and where both were written (None when no folder
    was given)."""

    decision: Decision
    markdown: str
    markdown_path: Path | None = None
    json_path: Path | None = None


def parse_run_arm(text: str) -> tuple[str, str | None]:
    """`RUN`, `RUN#ARM` (as `earmark compare` writes it) or `RUN:ARM`; a path that exists
    as given is never split."""
    if Path(text).exists():
        return text, None
    for separator in ("#", ":"):
        head, sep, arm = text.rpartition(separator)
        if sep and head and Path(head).exists():
            return head, arm or None
    raise EarmarkError("run directory not found", file=text, hint="use RUN_DIR or RUN_DIR#ARM")


def _pick_arm(run: RunDirectory, arm: str | None, role: str) -> str:
    if arm is not None:
        run.arm(arm)
        return arm
    if len(run.arm_names) != 1:
        raise EarmarkError(
            f"the {role} run has several arms; name one",
            file=str(run.path),
            hint=f"use {run.path}#ARM with ARM one of {', '.join(run.arm_names)}",
        )
    return run.arm_names[0]


def decide(
    baseline: Side, challenger: Side, rules: DecisionRules, *, on: Date | None = None
) -> Decision:
    """The decision record of two sides. Raises `EarmarkError` on different data and on
    decoding settings that differ without being allowed."""
    diffs = data_differences(baseline, challenger)
    if diffs:
        raise EarmarkError(
            "baseline and challenger were not scored on the same data: " + "; ".join(diffs),
            hint="run both arms on the same manifest, selection, normaliser and language "
            "policy (e.g. as arms of one `earmark run`)",
        )
    settings = compare_settings(baseline, challenger, rules.allow_setting_differences)
    if settings.refused:
        raise EarmarkError(
            "baseline and challenger decoded with different settings: "
            + "; ".join(
                f"{d.key}: baseline {fmt_shown(d.baseline)}, challenger {fmt_shown(d.challenger)}"
                for d in settings.refused
            ),
            hint="hold them constant, or name those under test: --allow-setting-differences "
            + ",".join(d.key for d in settings.refused)
            + " (or all); the record lists them",
        )
    evidence = gather_evidence(baseline, challenger, rules, settings)
    judgement = judge(evidence, rules)
    return decision_record(evidence, judgement, rules, on or datetime.now(timezone.utc).date())


def decision_record(
    evidence: DecisionEvidence, judgement: Judgement, rules: DecisionRules, when: Date
) -> Decision:
    """The record (`earmark.decision/1`): the evidence with the rule's judgements filled
    in, the verdict and its reasons first."""
    r, j = evidence.resources, judgement.resources
    return Decision(
        schema=DECISION_SCHEMA,
        date=when.isoformat(),
        verdict=judgement.verdict,
        reasons=judgement.reasons,
        baseline=evidence.baseline,
        challenger=evidence.challenger,
        corpus=evidence.corpus,
        rules=rules.applied(),
        evidence=tuple(
            replace(
                e,
                quality_win=lj.quality_win,
                non_inferior=lj.non_inferior,
                significantly_worse=lj.significantly_worse,
            )
            for e, lj in zip(evidence.languages, judgement.languages, strict=True)
        ),
        resources=DecisionResources(
            same_host=r.same_host,
            baseline_host=r.baseline_host,
            challenger_host=r.challenger_host,
            latency=replace(r.latency, met=j.latency_met),
            core_cost=replace(r.core_cost, met=j.core_cost_met),
            peak_rss_bytes=r.peak_rss_bytes,
            ceilings=j.ceilings,
        ),
        settings=evidence.settings,
        ceilings=evidence.ceilings,
        record_gates=evidence.record_gates,
        gates=evidence.checklist,
    )


def decide_runs(options: DecideOptions) -> DecisionOutcome:
    """Decide `RUN[#ARM]` challenger vs baseline; with `options.out`, write
    `decision-DATE.{md,json}` there (with a `-2`, `-3` … suffix rather than overwrite an
    earlier record of the same day)."""
    b_path, b_arm = parse_run_arm(options.baseline)
    c_path, c_arm = parse_run_arm(options.challenger)
    b_run = load_run(b_path)
    c_run = b_run if Path(c_path).resolve() == Path(b_path).resolve() else load_run(c_path)
    b_side = Side(b_run, _pick_arm(b_run, b_arm, "baseline"))
    c_side = Side(c_run, _pick_arm(c_run, c_arm, "challenger"))
    if b_side.run is c_side.run and b_side.arm == c_side.arm:
        raise EarmarkError("baseline and challenger are the same arm of the same run")
    decision = decide(b_side, c_side, options.rules, on=options.on)
    markdown = render_decision_markdown(decision)
    if options.out is None:
        return DecisionOutcome(decision, markdown)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    claim_output_folder(out, "decide")
    stem = f"decision-{decision.date}"
    n = 1
    while (out / f"{stem}.json").exists() or (out / f"{stem}.md").exists():
        n += 1
        stem = f"decision-{decision.date}-{n}"
    md_path, json_path = out / f"{stem}.md", out / f"{stem}.json"
    atomic_write_text(md_path, markdown)
    decision.to_path(json_path)
    return DecisionOutcome(decision, markdown, md_path, json_path)
