"""What a loaded model is and how big, recorded only where it is exact.

A leaderboard's parameter column is only worth showing when it is a count, not an
estimate: a torch model's parameters are counted from the loaded tensors; a CTranslate2
model.bin stores quantisation scales, fused and converted tensors, so its size or element
count is not the model's parameter count, and none is recorded (with the reason).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from earmark.results.codec import JSONValue

#: Why a CTranslate2 model records no parameter count.
CTRANSLATE2_PARAMETERS_NOTE = (
    "not recorded: CTranslate2's model.bin holds converted tensors (quantisation scales, "
    "position tables), so neither its size nor its element count is the parameter count"
)


def torch_parameters(model: Any) -> dict[str, JSONValue]:
    """`{"parameters": N}`, N the elements of the loaded parameters (a tied weight once,
    as `Module.parameters()` yields it once); a model without parameters records why not."""
    parameters = getattr(model, "parameters", None)
    if not callable(parameters):
        return {"parameters": None, "parameters_note": "not recorded: no torch module exposed"}
    return {
        "parameters": int(sum(int(p.numel()) for p in parameters())),
        "parameters_source": "sum of numel over the loaded model's parameters",
    }


def ctranslate2_spec(model_bin: Path) -> str | None:
    """The spec name in a CTranslate2 model.bin header (`WhisperSpec`), read from its first
    bytes (uint32 version, uint16 length, the name); None when the header is not one."""
    try:
        with model_bin.open("rb") as handle:
            head = handle.read(6 + 256)
    except OSError:
        return None
    if len(head) < 6:
        return None
    (length,) = struct.unpack_from("<H", head, 4)
    name = head[6 : 6 + length].rstrip(b"\0")
    try:
        text = name.decode("ascii")
    except UnicodeDecodeError:
        return None
    return text if text.isidentifier() else None


def ctranslate2_whisper_metadata(folder: Path) -> dict[str, JSONValue]:
    spec = ctranslate2_spec(folder / "model.bin")
    return {
        "architecture": "whisper",
        "model_class": f"CTranslate2 {spec}" if spec else "CTranslate2 Whisper",
        "parameters": None,
        "parameters_note": CTRANSLATE2_PARAMETERS_NOTE,
    }
