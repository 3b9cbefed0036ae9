"""Typed, frozen objects for what earmark writes and reads (pure: no I/O but `io`).

`Results.from_json(text).to_json() == text` for every `results.json` earmark writes, and
likewise `Comparison` for `compare.json`, `Decision` for the decision record and
`PredictionRow` for each line of `predictions.jsonl`. Readers reach a figure as
`results.arm(name).view(language, view).wer` (an `Estimate`: value, CI, level, method)
instead of walking five levels of dictionaries. See docs/results_model.md.
"""

from __future__ import annotations

from earmark.results.arm import (
    ArmResult,
    ArmSpec,
    BootstrapSettings,
    Coverage,
    Exclusion,
    ModelInfo,
    NormalizerPolicy,
    Resources,
    RowStatus,
    ScopeResources,
)
from earmark.results.codec import JSONObject, JSONValue, Record
from earmark.results.estimate import Estimate
from earmark.results.metric import MetricResult, ViewResult
from earmark.results.predictions import PredictionRow, PredictionView, UnitCounts
from earmark.results.results_file import (
    RESULTS_SCHEMA,
    PredictionsRef,
    Probe,
    ProvenanceRef,
    Results,
)
from earmark.results.scope import Hallucination, NormalizerInfo, ScopeResult

__all__ = [
    "RESULTS_SCHEMA",
    "ArmResult",
    "ArmSpec",
    "BootstrapSettings",
    "Coverage",
    "Estimate",
    "Exclusion",
    "Hallucination",
    "JSONObject",
    "JSONValue",
    "MetricResult",
    "ModelInfo",
    "NormalizerInfo",
    "NormalizerPolicy",
    "PredictionRow",
    "PredictionView",
    "PredictionsRef",
    "Probe",
    "ProvenanceRef",
    "Record",
    "Resources",
    "Results",
    "RowStatus",
    "ScopeResources",
    "ScopeResult",
    "UnitCounts",
    "ViewResult",
]
