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
from earmark.results.predictions import PredictionRow, PredictionView, UnitCounts, read_predictions
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
