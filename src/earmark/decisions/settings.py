"""Which decoding settings of two runs' arms differ, for `earmark decide` (seed 000).

Seed 000 holds the decode settings, the model-device profile and threads constant
between the models it compares: a beam of 5 against greedy decoding, or 4 threads
against 1, is a second change under test that the verdict would silently credit to the
model. `compare_settings` lists every difference; `decide` refuses those not allowed.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

from earmark.results.codec import JSONValue
from earmark.results.decision import SettingDifference, SettingsComparison

if TYPE_CHECKING:
    from earmark.decisions.sides import Side

#: What a decision compares — the system itself: engine, model artifact and weight type.
#: These may always differ (comparing two weight types is the point of many decisions);
#: the record names them as the change under test.
SUBJECT_SETTINGS = ("backend", "model", "compute_type")
#: Decoding settings that change hypotheses, read from model.json `extra` (what the engine
#: ran with) or else the arm's declared settings; `decode_options` is read whole.
DECODE_SETTINGS = (
    "beam_size",
    "num_beams",
    "best_of",
    "patience",
    "length_penalty",
    "temperature",
    "temperature_inc",
    "condition_on_previous_text",
    "no_speech_threshold",
    "compression_ratio_threshold",
    "log_prob_threshold",
    "vad_filter",
    "vad",
    "vad_model",
    "without_timestamps",
    "word_timestamps",
    "initial_prompt",
    "max_new_tokens",
    "chunk_length",
    "device",
)


def _canonical(value: JSONValue) -> str:
    """One spelling per value, so a declared `"5"` equals a recorded `5` and `[0.0, 0.2]`
    equals `"0.0,0.2"`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, (list, tuple)):
        return ",".join(_canonical(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    text = str(value).strip()
    if text.lower() in ("true", "false"):
        return text.lower()
    parts = [p.strip() for p in text.split(",")]
    try:
        return ",".join(_canonical(float(p)) for p in parts)
    except ValueError:
        return text


def decode_settings(side: Side) -> dict[str, dict[str, str]]:
    """The settings of one side that change results: `{key: {value, source}}`, the value in
    a canonical spelling, the first source that records it (what ran before what was asked).
    """
    spec = side.summary.get("spec") or {}
    declared = spec.get("settings") or {}
    model = side.run.model(side.arm)
    extra = model.get("extra") or {}
    plan = side.run.results.get("plan")
    out: dict[str, dict[str, str]] = {}

    def put(key: str, value: JSONValue, source: str) -> None:
        if value is not None and value != "" and key not in out:
            out[key] = {"value": _canonical(value), "source": source}

    put("backend", spec.get("backend") or model.get("backend"), "arm spec")
    put("model", model.get("artifact_id"), "model.json artifact_id")
    put("model", spec.get("model"), "arm spec")
    put("compute_type", model.get("compute_type"), "model.json")
    put("compute_type", declared.get("compute_type"), "arm settings")
    for key, value in (extra.get("decode_options") or {}).items():
        put(str(key), value, "model.json decode_options")
    for key in DECODE_SETTINGS:
        put(key, extra.get(key), "model.json extra")
        put(key, declared.get(key), "arm settings")
    put("threads", side.resources.threads, "resources.json")
    for key in ("cpu_threads", "threads"):
        put("threads", extra.get(key), "model.json extra")
        put("threads", declared.get(key), "arm settings")
    if isinstance(plan, dict):
        # Absent from a plan means its default: 1 thread, the runtime's own code path.
        put("plan.threads", plan.get("threads", 1), "plan")
        put("plan.cpu_isa", plan.get("cpu_isa") or "runtime default", "plan")
    return out


def compare_settings(
    baseline: Side, challenger: Side, allowed: tuple[str, ...] = ()
) -> SettingsComparison:
    """Which decoding settings differ between the sides, and which of those may.

    The subject (`SUBJECT_SETTINGS`) may always differ. Any other setting recorded on both
    sides must be equal unless named in `allowed` (or `allowed` is `("all",)`): a beam of 5
    against greedy decoding, or 4 threads against 1, is a second change under test. A
    setting recorded on one side only is a difference when both sides use the same engine
    (the record is incomplete), and not comparable when the engines differ (each engine
    has its own settings)."""
    b, c = decode_settings(baseline), decode_settings(challenger)
    same_engine = b.get("backend", {}).get("value") == c.get("backend", {}).get("value")
    subject, differences, not_comparable = [], [], []
    for key in sorted(set(b) | set(c)):
        b_value = b.get(key, {}).get("value")
        c_value = c.get(key, {}).get("value")
        if b_value == c_value:
            continue
        b_source, c_source = b.get(key, {}).get("source"), c.get(key, {}).get("source")
        entry = SettingDifference(
            key=key,
            baseline=b_value,
            challenger=c_value,
            baseline_source=b_source,
            challenger_source=c_source,
        )
        if key in SUBJECT_SETTINGS:
            subject.append(entry)
        elif (b_value is None or c_value is None) and not same_engine:
            not_comparable.append(entry)
        else:
            differences.append(replace(entry, allowed="all" in allowed or key in allowed))
    return SettingsComparison(
        subject=tuple(subject),
        differences=tuple(differences),
        not_comparable=tuple(not_comparable),
        allowed=tuple(allowed),
        baseline={k: v["value"] for k, v in b.items()},
        challenger={k: v["value"] for k, v in c.items()},
    )
