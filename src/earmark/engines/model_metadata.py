"""What a loaded model is, how big, and under which licence its parts come, recorded
only where it is exact.

A leaderboard's parameter column is only worth showing when it is a count, not an
estimate: a torch model's parameters are counted from the loaded tensors; a CTranslate2
model.bin stores quantisation scales, fused and converted tensors, so its size or element
count is not the model's parameter count, and none is recorded (with the reason).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping
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


#: Arm settings that name a separate model folder the arm loads beside its model.
COMPONENT_SETTINGS = ("tokenizer", "aligner")
#: Files that hold a model's tokenizer (inside the model folder, or a `tokenizer=` folder).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "tokens.txt")
#: The most bytes of a model card read for its front matter.
MAX_CARD_BYTES = 1_000_000
_FRONT_MATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)
_LICENSE_LINE = re.compile(r"^(license|license_name):[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def model_card_licence(folder: Path) -> dict[str, JSONValue]:
    """The licence a Hugging Face model card (`README.md` front matter `license:`, or
    `license_name:` beside `license: other`) declares for the folder; null with the
    reason where there is no card or it declares none."""
    card = folder / "README.md"
    try:
        with card.open("rb") as handle:
            text = handle.read(MAX_CARD_BYTES).decode("utf-8", "replace")
    except OSError:
        return _no_licence("no model card (README.md) in the folder")
    front = _FRONT_MATTER.match(text)
    if front is None:
        return _no_licence("the model card has no front matter")
    fields = {key: value.strip("'\"") for key, value in _LICENSE_LINE.findall(front.group(1))}
    licence = fields.get("license", "")
    if licence == "other" and fields.get("license_name"):
        licence = fields["license_name"]
    if not licence or not licence.isprintable() or len(licence) > 100:
        return _no_licence("the model card's front matter declares no licence")
    return {
        "licence": licence,
        "licence_source": f"model card {card.name} front matter",
        "licence_null_reason": None,
    }


def _no_licence(reason: str) -> dict[str, JSONValue]:
    return {"licence": None, "licence_source": None, "licence_null_reason": reason}


def component_licences(
    model: str | None, settings: Mapping[str, str], file_sha256: Mapping[str, str]
) -> dict[str, JSONValue]:
    """The licence of each part an arm loads besides its weights: the tokenizer (a file of
    the model folder, or a `tokenizer=` folder) and any separate model a setting names
    (`aligner=`), each from its own model card; a part earmark cannot locate is null
    with the reason. The weights' own licence is the arm's `licence=` assertion."""
    out: dict[str, JSONValue] = {}
    folder = _local_folder(model)
    local = folder is not None
    tokenizer = sorted(k for k in file_sha256 if Path(k).name in TOKENIZER_FILES)
    if "tokenizer" not in settings and tokenizer:
        if local and folder is not None:
            out["tokenizer"] = {"files": list(tokenizer), **model_card_licence(folder)}
        else:
            out["tokenizer"] = {
                "files": list(tokenizer),
                **_no_licence("the model is not a local folder: its model card is not read"),
            }
    for key in COMPONENT_SETTINGS:
        value = settings.get(key)
        if value:
            path = _local_folder(value)
            licence = (
                model_card_licence(path)
                if path is not None
                else _no_licence(f"{key}= is not a local folder")
            )
            out[key] = {"path": value, **licence}
    return out


def _local_folder(text: str | None) -> Path | None:
    """`text` as an existing folder, or None (a hub id, a command line, a URL; a name too
    long or holding NUL is no folder either)."""
    if not text:
        return None
    try:
        path = Path(text).expanduser()
        return path if path.is_dir() else None
    except (OSError, ValueError, RuntimeError):
        return None
