"""Weight-type sweeps (seed 002): one model expanded into one arm per weight type.

The first weight type is the reference the others are compared against; each arm runs
in its own process, so every weight type's model is built once and measured alone.
"""

from __future__ import annotations

from dataclasses import replace

from earmark.engines.registry import arm_weight_types, declares_weight_types_per_arm
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.execution.plan import RunPlan


def expand_weight_types(plan: RunPlan, weight_types: list[str]) -> RunPlan:
    """Replace each arm by one arm per weight type; unsupported types fail before loading."""
    if not weight_types:
        return plan
    arms: list[ArmSpec] = []
    for arm in plan.arms:
        supported = arm_weight_types(arm)
        bad = [w for w in weight_types if w not in supported]
        if bad:
            hint = f"supported: {', '.join(supported) or 'none'}"
            if declares_weight_types_per_arm(arm.backend):
                raise EarmarkError(
                    f"arm '{arm.name}' ({arm.backend}) does not declare weight type(s) "
                    f"{', '.join(bad)}",
                    field="weight-types",
                    hint=hint + "; the arm declares its program's with weight_types=a,b "
                    "and passes the chosen one as {compute_type} (docs/stdio_protocol.md)",
                )
            raise EarmarkError(
                f"backend {arm.backend!r} does not support weight type(s) {', '.join(bad)}",
                field="weight-types",
                hint=hint,
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
