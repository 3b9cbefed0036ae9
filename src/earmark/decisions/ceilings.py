"""Pre-registered error-rate ceilings of a run's plan, checked for `earmark decide`.

A plan may freeze `[ceilings]` before the runs (per language or `language/slice`): a
challenger above one is rejected whatever it wins elsewhere, since the bar was set before
anyone saw the figures. Both sides' rates are recorded; the challenger's decides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from earmark.errors import EarmarkError

if TYPE_CHECKING:
    from earmark.decisions.sides import Side


@dataclass(frozen=True)
class CeilingCheck:
    """A pre-registered error-rate ceiling against each side's rate in the language's (or
    slice's) primary view; `met` is the challenger's, None when its rate is missing."""

    metric: str
    scope: str
    limit: float
    view: str | None
    baseline: float | None
    challenger: float | None
    baseline_null_reason: str | None
    challenger_null_reason: str | None

    @property
    def met(self) -> bool | None:
        return _under(self.challenger, self.limit)

    @property
    def baseline_met(self) -> bool | None:
        return _under(self.baseline, self.limit)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"metric": self.metric, "scope": self.scope, "limit": self.limit}
        out["baseline"] = self.baseline
        out["view"] = self.view
        if self.baseline_null_reason:
            out["baseline_null_reason"] = self.baseline_null_reason
        out["challenger"] = self.challenger
        if self.challenger_null_reason:
            out["challenger_null_reason"] = self.challenger_null_reason
        out["met"] = self.met
        out["baseline_met"] = self.baseline_met
        return out


def _under(value: float | None, limit: float) -> bool | None:
    return None if value is None else value <= limit + 1e-12


@dataclass(frozen=True)
class Ceilings:
    """The plan's `[ceilings]` checks, and the hash of the plan that froze them."""

    plan_sha256: str | None
    checks: tuple[CeilingCheck, ...]

    def to_json(self) -> dict[str, Any]:
        return {"plan_sha256": self.plan_sha256, "checks": [c.to_json() for c in self.checks]}


def ceiling_evidence(baseline: Side, challenger: Side) -> Ceilings:
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
                CeilingCheck(
                    metric, scope, float(limit), c_view or b_view, b_rate, c_rate, b_why, c_why
                )
            )
    return Ceilings(plan.get("sha256") if ceilings else None, tuple(checks))


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
