"""`earmark.decide`: the pre-registered promotion rule applied to a challenger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_out, check_share

if TYPE_CHECKING:
    from earmark.decisions.decide import DecisionOutcome
    from earmark.results import Decision


def decide(
    *,
    baseline: str,
    challenger: str,
    out: PathArg | None = None,
    rules: PathArg | None = None,
    min_coverage: float | None = None,
    allow_setting_differences: str | None = None,
) -> Decision:
    """`earmark decide --baseline RUN[#ARM] --challenger RUN[#ARM] --out OUT`.

    Returns the typed decision record (`.verdict`, `.reasons`, `.evidence`), built in
    memory; with `out`, it is written as OUT/decision-DATE.json (decision-DATE-N.json when
    that day's record exists) with its Markdown beside it. `min_coverage` and
    `allow_setting_differences` (KEY,...|all) override the rules file's.
    """
    return decide_outcome(
        baseline=baseline,
        challenger=challenger,
        out=out,
        rules=rules,
        min_coverage=min_coverage,
        allow_setting_differences=allow_setting_differences,
    ).decision


def decide_outcome(
    *,
    baseline: str,
    challenger: str,
    out: PathArg | None = None,
    rules: PathArg | None = None,
    min_coverage: float | None = None,
    allow_setting_differences: str | None = None,
) -> DecisionOutcome:
    """`decide` with what it wrote: the decision, its Markdown and the two paths (None
    without `out`), for the command that prints them."""
    from dataclasses import replace

    from earmark.decisions.decide import DecideOptions, decide_runs
    from earmark.decisions.thresholds import DecisionRules

    check_out(out)
    check_share("min_coverage", min_coverage)
    chosen = DecisionRules.from_toml(rules) if rules is not None else DecisionRules()
    if min_coverage is not None:
        chosen = replace(chosen, min_coverage=min_coverage)
    if allow_setting_differences is not None:
        chosen = replace(
            chosen, allow_setting_differences=tuple(allow_setting_differences.split(","))
        )
    return decide_runs(DecideOptions(baseline, challenger, chosen, out=out))
