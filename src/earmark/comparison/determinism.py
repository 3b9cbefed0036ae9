"""Which arms repeat their hypotheses exactly, and what that means for churn."""

from __future__ import annotations

from collections.abc import Mapping

from earmark.comparison.loading import ArmData
from earmark.results.codec import JSONValue


def arm_determinism(arms: Mapping[str, ArmData]) -> dict[str, JSONValue]:
    """compare.json's `determinism` block.

    Exact-match churn between two arms is meant to measure what the weights or settings
    changed; if an arm samples without a seed, part of it is sampling noise. An arm read from
    a plain predictions file carries no record, so it is `None` (unknown), never assumed.
    """
    per_arm: dict[str, JSONValue] = {}
    doubtful: list[str] = []
    for name, arm in arms.items():
        recorded = arm.recorded or {}
        value = recorded.get("deterministic")
        deterministic = value if isinstance(value, bool) else None
        per_arm[name] = {
            "deterministic": deterministic,
            "note": recorded.get("determinism_note")
            or "not recorded (no earmark run results for this arm)",
        }
        if deterministic is not True:
            doubtful.append(name)
    doubtful.sort()
    return {
        "arms": per_arm,
        "churn_includes_sampling_noise": bool(doubtful),
        "note": (
            "churn on "
            + ", ".join(doubtful)
            + " includes sampling noise (not deterministic, or not known to be): a rerun of "
            "the same arm can change hypotheses too"
            if doubtful
            else "every arm is deterministic: churn is what the arms change"
        ),
    }
