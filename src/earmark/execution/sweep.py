"""Weight-type sweeps (seed 002): one model expanded into one arm per weight type.

The first weight type is the reference the others are compared against; each arm runs
in its own process, so every weight type's model is built once and measured alone.
"""

from __future__ import annotations

from dataclasses import replace

from earmark.engines.registry import supported_weight_types
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.execution.plan import RunPlan


def expand_weight_types(plan: RunPlan, weight_types: list[str]) -> RunPlan:
    """Replace each arm by one arm per weight type; unsupported types fail before loading."""
    if not weight_types:
        return plan
    arms: list[ArmSpec] = []
    for arm in plan.arms:
        supported = supported_weight_types(arm.backend)
        bad = [w for w in weight_types if w not in supported]
        if bad:
            raise EarmarkError(
                f"backend {arm.backend!r} does not support weight type(s) {', '.join(bad)}",
                field="weight-types",
                hint=f"supported: {', '.join(supported) or 'none'}",
            )
        for weight in weight_types:
            settings = {**arm.settings_dict, "compute_type": weight}
            arms.append(
                ArmSpec(
                    backend=arm.backend,
                    model=arm.model,
                    settings=tuple(sorted(settings.items())),
                    name=f"{arm.name}-{weight}",
                )
            )
    return replace(plan, arms=tuple(arms))
