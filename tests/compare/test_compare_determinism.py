"""compare says when churn may include sampling noise, from what each run recorded."""

from __future__ import annotations

from earmark.comparison.determinism import arm_determinism
from earmark.comparison.loading import ArmData


def _arm(name: str, recorded: dict | None) -> ArmData:
    return ArmData(name=name, source=f"{name}.jsonl", recorded=recorded)


def test_all_deterministic_arms_say_churn_is_what_the_arms_change() -> None:
    block = arm_determinism(
        {
            "f32": _arm("f32", {"deterministic": True, "determinism_note": "seeded"}),
            "i8": _arm("i8", {"deterministic": True, "determinism_note": "seeded"}),
        }
    )
    assert block["churn_includes_sampling_noise"] is False
    assert block["arms"]["i8"] == {"deterministic": True, "note": "seeded"}


def test_an_unseeded_or_unrecorded_arm_flags_sampling_noise() -> None:
    block = arm_determinism(
        {
            "ref": _arm("ref", {"deterministic": True, "determinism_note": "seeded"}),
            "api": _arm("api", {"deterministic": False, "determinism_note": "remote service"}),
            "file": _arm("file", None),
        }
    )
    assert block["churn_includes_sampling_noise"] is True
    assert block["arms"]["file"]["deterministic"] is None  # unknown, never assumed
    assert block["note"].startswith("churn on api, file includes sampling noise")
