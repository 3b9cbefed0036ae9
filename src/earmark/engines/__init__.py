"""ASR backends behind one contract (`earmark.engines.base.Engine`).

Arms are described by `ArmSpec` (`parse_arm_spec("faster-whisper:bundled:tiny.en")`) and
built by `build_engine`. Every backend imports its runtime only when built or loaded, so
this package is cheap to import.
"""

from earmark.engines.base import Clip, Engine, Hypothesis, ModelInfo, Segment
from earmark.engines.registry import (
    BACKENDS,
    BackendInfo,
    build_engine,
    supported_weight_types,
    validate_arm,
)
from earmark.engines.spec import ArmSpec, parse_arm_spec

__all__ = [
    "BACKENDS",
    "ArmSpec",
    "BackendInfo",
    "Clip",
    "Engine",
    "Hypothesis",
    "ModelInfo",
    "Segment",
    "build_engine",
    "parse_arm_spec",
    "supported_weight_types",
    "validate_arm",
]
