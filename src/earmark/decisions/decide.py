"""`earmark decide`: a dated promotion/rejection record for a challenger vs a baseline.

The promotion rule is stated in `decisions.rules`; this module is its front: it resolves
`RUN[#ARM]` into the two sides, refuses unlike data or decoding settings, gathers the
evidence (`decisions.evidence`), applies the rule and writes `decision-DATE.{md,json}`
(`decisions.render`).
"""

from __future__ import annotations

import os
from datetime import date as Date
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from earmark.decisions.evidence import DecisionEvidence, gather_evidence
from earmark.decisions.render import (
    SCHEMA_ID,
    decision_record,
    fmt_shown,
    render_decision_markdown,
)
from earmark.decisions.rules import VERDICTS, DecisionRules, Judgement, judge
from earmark.decisions.settings import compare_settings
from earmark.decisions.sides import Side, data_differences
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_json, atomic_write_text
from earmark.render.run_directory import RunDirectory, load_run

__all__ = [
    "SCHEMA_ID",
    "VERDICTS",
    "DecisionRules",
    "Side",
    "decide",
    "parse_run_arm",
    "render_decision_markdown",
    "write_decision",
]


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
) -> dict[str, Any]:
    """The decision record (a JSON-ready dict). Raises `EarmarkError` on different data
    and on decoding settings that differ without being allowed."""
    return decision_record(*_decision(baseline, challenger, rules, on=on))


def _decision(
    baseline: Side, challenger: Side, rules: DecisionRules, *, on: Date | None = None
) -> tuple[DecisionEvidence, Judgement, DecisionRules, Date]:
    """Refuse unlike sides, gather the evidence and apply the rule."""
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
    return evidence, judgement, rules, on or datetime.now(timezone.utc).date()


def write_decision(
    baseline: str,
    challenger: str,
    out_dir: str | os.PathLike[str],
    *,
    rules: DecisionRules | None = None,
    on: Date | None = None,
) -> tuple[dict[str, Any], Path, Path]:
    """Decide `RUN[:ARM]` challenger vs baseline; write `decision-DATE.{md,json}` (with a
    `-2`, `-3` … suffix rather than overwrite an earlier record of the same day)."""
    b_path, b_arm = parse_run_arm(baseline)
    c_path, c_arm = parse_run_arm(challenger)
    b_run = load_run(b_path)
    c_run = b_run if Path(c_path).resolve() == Path(b_path).resolve() else load_run(c_path)
    b_side = Side(b_run, _pick_arm(b_run, b_arm, "baseline"))
    c_side = Side(c_run, _pick_arm(c_run, c_arm, "challenger"))
    if b_side.run is c_side.run and b_side.arm == c_side.arm:
        raise EarmarkError("baseline and challenger are the same arm of the same run")
    decision = _decision(b_side, c_side, rules or DecisionRules(), on=on)
    record = decision_record(*decision)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"decision-{record['date']}"
    n = 1
    while (out / f"{stem}.json").exists() or (out / f"{stem}.md").exists():
        n += 1
        stem = f"decision-{record['date']}-{n}"
    md_path, json_path = out / f"{stem}.md", out / f"{stem}.json"
    atomic_write_text(md_path, render_decision_markdown(*decision))
    atomic_write_json(json_path, record)
    return record, md_path, json_path
