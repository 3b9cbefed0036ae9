"""Typed, frozen objects for what earmark writes and reads (pure: no I/O but `io`).

`Results.from_json(text).to_json() == text` for every `results.json` earmark writes, and
likewise `Comparison` for `compare.json`, `Decision` for the decision record and
`PredictionRow` for each line of `predictions.jsonl`. Readers reach a figure as
`results.arm(name).view(language, view).wer` (an `Estimate`: value, CI, level, method)
instead of walking five levels of dictionaries. See docs/results_model.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earmark.results.arm import (
        ArmResult,
        ArmSpec,
        BootstrapRecord,
        Coverage,
        Exclusion,
        ModelInfo,
        NormalizerPolicy,
        Resources,
        RowStatus,
        ScopeResources,
    )
    from earmark.results.codec import JSONObject, JSONValue
    from earmark.results.comparison import (
        COMPARE_SCHEMA,
        CompareMetric,
        Comparison,
        ComparisonArm,
        ComparisonScope,
        ExactMatch,
        PairedDifference,
        read_comparison,
    )
    from earmark.results.decision import (
        DECISION_SCHEMA,
        Decision,
        DecisionResources,
        DecisionSide,
        EvidenceCoverage,
        LanguageEvidence,
        ResourceCeiling,
        ResourceComparison,
        RulesApplied,
        SideCoverage,
        SideRate,
        read_decision,
    )
    from earmark.results.estimate import Estimate
    from earmark.results.metric import MetricResult, ViewResult
    from earmark.results.predictions import (
        PredictionRow,
        PredictionView,
        UnitCounts,
        read_predictions,
    )
    from earmark.results.record import Record
    from earmark.results.results_file import (
        RESULTS_SCHEMA,
        PredictionsRef,
        Probe,
        ProvenanceRef,
        Results,
        read_results,
    )
    from earmark.results.scope import Hallucination, NormalizerInfo, ScopeResult

#: Each public name and the module of this package it lives in, imported on first use
#: (PEP 562): a command that builds one results file does not pay for loading the
#: comparison and decision records (~50 ms of start-up for `earmark score`).
_HOMES = {
    "ArmResult": "arm",
    "ArmSpec": "arm",
    "BootstrapRecord": "arm",
    "COMPARE_SCHEMA": "comparison",
    "CompareMetric": "comparison",
    "Comparison": "comparison",
    "ComparisonArm": "comparison",
    "ComparisonScope": "comparison",
    "Coverage": "arm",
    "DECISION_SCHEMA": "decision",
    "Decision": "decision",
    "DecisionResources": "decision",
    "DecisionSide": "decision",
    "Estimate": "estimate",
    "EvidenceCoverage": "decision",
    "ExactMatch": "comparison",
    "Exclusion": "arm",
    "Hallucination": "scope",
    "JSONObject": "codec",
    "JSONValue": "codec",
    "LanguageEvidence": "decision",
    "MetricResult": "metric",
    "ModelInfo": "arm",
    "NormalizerInfo": "scope",
    "NormalizerPolicy": "arm",
    "PairedDifference": "comparison",
    "PredictionRow": "predictions",
    "PredictionView": "predictions",
    "PredictionsRef": "results_file",
    "Probe": "results_file",
    "ProvenanceRef": "results_file",
    "RESULTS_SCHEMA": "results_file",
    "Record": "record",
    "ResourceCeiling": "decision",
    "ResourceComparison": "decision",
    "Resources": "arm",
    "Results": "results_file",
    "RowStatus": "arm",
    "RulesApplied": "decision",
    "ScopeResources": "arm",
    "ScopeResult": "scope",
    "SideCoverage": "decision",
    "SideRate": "decision",
    "UnitCounts": "predictions",
    "ViewResult": "metric",
    "read_comparison": "comparison",
    "read_decision": "decision",
    "read_predictions": "predictions",
    "read_results": "results_file",
}

__all__ = [
    "COMPARE_SCHEMA",
    "DECISION_SCHEMA",
    "RESULTS_SCHEMA",
    "ArmResult",
    "ArmSpec",
    "BootstrapRecord",
    "CompareMetric",
    "Comparison",
    "ComparisonArm",
    "ComparisonScope",
    "Coverage",
    "Decision",
    "DecisionResources",
    "DecisionSide",
    "Estimate",
    "EvidenceCoverage",
    "ExactMatch",
    "Exclusion",
    "Hallucination",
    "JSONObject",
    "JSONValue",
    "LanguageEvidence",
    "MetricResult",
    "ModelInfo",
    "NormalizerInfo",
    "NormalizerPolicy",
    "PairedDifference",
    "PredictionRow",
    "PredictionView",
    "PredictionsRef",
    "Probe",
    "ProvenanceRef",
    "Record",
    "ResourceCeiling",
    "ResourceComparison",
    "Resources",
    "Results",
    "RowStatus",
    "RulesApplied",
    "ScopeResources",
    "ScopeResult",
    "SideCoverage",
    "SideRate",
    "UnitCounts",
    "ViewResult",
    "read_comparison",
    "read_decision",
    "read_predictions",
    "read_results",
]


def __getattr__(name: str) -> object:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
