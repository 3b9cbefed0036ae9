"""Refusals of what a run's records would refuse later, before the run: seed 000's
model-licence gate, and a protocol's languages (issue 23).

`earmark decide` blocks a promotion whose model licence was not recorded
(`earmark.decisions.gates.licence_gate`). With a sidecar that asks for it
(`"model_licence": "required"`), `earmark run` refuses such an arm before its folder
exists: hours of decoding cannot be promoted anyway. The licence is an assertion from the
arm's settings (`licence=`, `licence_source=`), recorded, not a legal review.
"""

from __future__ import annotations

from collections.abc import Sequence

from earmark.corpus.manifest import is_declared, read_meta
from earmark.corpus.model import Utterance
from earmark.corpus.writer import meta_path_for
from earmark.errors import EarmarkError
from earmark.execution.plan import RunPlan

#: The sidecar value of `model_licence` that turns the gate on.
MODEL_LICENCE_REQUIRED = "required"


def model_licence_gate(plan: RunPlan) -> None:
    """Refuse the first arm whose model licence or its source is not declared in its
    settings, when the manifest's sidecar requires a model licence (exit 2)."""
    meta = read_meta(plan.manifest)
    where = str(meta_path_for(plan.manifest))
    if meta.model_licence is None:
        return
    if meta.model_licence != MODEL_LICENCE_REQUIRED:
        raise EarmarkError(
            f"unknown model_licence {meta.model_licence[:40]!r}",
            file=where,
            field="model_licence",
            hint=f"'{MODEL_LICENCE_REQUIRED}' (every arm declares its model licence), "
            "or leave it out",
        )
    for arm in plan.arms:
        settings = arm.settings_dict
        # The wording of `decide`'s licence gate, so a refusal here and a `blocked`
        # verdict there name the same missing record.
        missing = [
            problem
            for key, problem in (
                ("licence", "model licence not recorded (licence=)"),
                ("licence_source", "model licence source not recorded (licence_source=)"),
            )
            if not is_declared(settings.get(key))
        ]
        if missing:
            raise EarmarkError(
                f"arm '{arm.name}': {'; '.join(missing)}; the corpus sidecar requires a "
                "declared model licence before the run",
                file=where,
                field="model_licence",
                hint=f"add ?licence=ID&licence_source=WHERE to arm '{arm.name}' (e.g. "
                "licence=MIT&licence_source=model card), or drop model_licence from the sidecar",
            )


def protocol_language_gate(plan: RunPlan, utterances: Sequence[Utterance]) -> None:
    """Refuse a run whose rows a protocol would refuse to score, before decoding them."""
    if plan.protocol is not None:
        from earmark.scoring.protocols import get_protocol

        get_protocol(plan.protocol).check_languages(u.language for u in utterances)
