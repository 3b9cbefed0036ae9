"""Pre-registered error-rate ceilings of a run's plan, checked for `earmark decide`.

A plan may freeze `[ceilings]` before the runs (per language or `language/slice`): a
challenger above one is rejected whatever it wins elsewhere, since the bar was set before
anyone saw the figures. Both sides' rates are recorded; the challenger's decides.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from earmark.errors import EarmarkError
from earmark.results.decision import ErrorRateCeiling, PlanCeilings

if TYPE_CHECKING:
    from earmark.decisions.sides import Side


def _under(value: float | None, limit: float) -> bool | None:
    return None if value is None else value <= limit + 1e-12


def ceiling_evidence(baseline: Side, challenger: Side) -> PlanCeilings:
    """The plan's pre-registered error-rate ceilings (`[ceilings]`) against each side's rate
    in the language's (or slice's) primary view; the challenger's decides.

    The ceilings come from `results.json`'s `plan` of either side; two runs whose plans
    froze different ceilings are refused (which bar was registered?)."""
    b_plan = baseline.run.results.get("plan") or {}
    c_plan = challenger.run.results.get("plan") or {}
    b_ceil, c_ceil = b_plan.get("ceilings") or {}, c_plan.get("ceilings") or {}
    if b_ceil and c_ceil and b_ceil != c_ceil:
        raise EarmarkError(
            "the two runs' plans pre-registered different error-rate ceilings: baseline "
            f"{json.dumps(b_ceil, sort_keys=True)}, "
            f"challenger {json.dumps(c_ceil, sort_keys=True)}",
            field="ceilings",
            hint="a ceiling is fixed before the runs; decide runs of plans that froze the same one",
        )
    ceilings = c_ceil or b_ceil
    plan = c_plan if c_ceil else b_plan
    checks = []
    for metric, table in sorted(ceilings.items()):
        for scope, limit in sorted(table.items()):
            language, _, slice_name = scope.partition("/")
            b_rate, b_view, b_why = _scope_rate(baseline, metric, language, slice_name or None)
            c_rate, c_view, c_why = _scope_rate(challenger, metric, language, slice_name or None)
            checks.append(
                ErrorRateCeiling(
                    metric=metric,
                    scope=scope,
                    limit=float(limit),
                    baseline=b_rate,
                    view=c_view or b_view,
                    baseline_null_reason=b_why or None,
                    challenger=c_rate,
                    challenger_null_reason=c_why or None,
                    met=_under(c_rate, float(limit)),
                    baseline_met=_under(b_rate, float(limit)),
                )
            )
    return PlanCeilings(plan_sha256=plan.get("sha256") if ceilings else None, checks=tuple(checks))


def _scope_rate(
    side: Side, metric: str, language: str, slice_name: str | None
) -> tuple[float | None, str | None, str | None]:
    """(rate, view, why it is None) of one language or one of its slices, primary view."""
    scope = side.result.by_language.get(language)
    if scope is None:
        return None, None, f"language {language} not scored in this run"
    if slice_name is not None:
        scope = (scope.by_slice or {}).get(slice_name)
        if scope is None:
            return None, None, f"slice {slice_name} of {language} not scored in this run"
    view = scope.primary_view
    found = scope.views.get(view)
    figures = None if found is None else found.metrics.get(metric)
    if figures is None:
        return None, view, f"no {metric.upper()} in the {view} view of {language}"
    if figures.value is None:
        return None, view, str(figures.null_reason or "no value")
    return float(figures.value), view, None
