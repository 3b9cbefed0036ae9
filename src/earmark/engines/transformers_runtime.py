"""What the two transformers backends share: weight type, device, threads, read-back.

The weight type is a torch dtype (`float32`, `bfloat16`, `float16`), set with
`compute_type` (what `--weight-types` sweeps set) or its alias `dtype`. The dtype that is
recorded is read back from the loaded parameters, never copied from the request.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.engines.extras import require
from earmark.engines.local_engine import LocalModelEngine, OptionsT
from earmark.engines.model_source import ModelSource, package_version, read_weight_type
from earmark.engines.registry import TORCH_WEIGHT_TYPES
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

EXTRA = "transformers"


@dataclass(frozen=True)
class TorchOptions:
    compute_type: str
    device: str
    threads: int


class TransformersEngine(LocalModelEngine[OptionsT, ModelSource]):
    """Base of the two transformers backends: the loaded model, its processor, torch and
    the weight dtype; closing drops the model and processor so their memory can go."""

    def __init__(self, arm: ArmSpec, options: OptionsT, source: ModelSource) -> None:
        super().__init__(arm, options, source)
        self._model: Any = None
        self._processor: Any = None
        self._torch: Any = None
        self._dtype: Any = None

    def close(self) -> None:
        self._model = None
        self._processor = None


def read_torch_options(reader: SettingsReader) -> TorchOptions:
    return TorchOptions(
        compute_type=read_weight_type(reader, TORCH_WEIGHT_TYPES, "float32") or "float32",
        device=reader.choice("device", ("cpu", "cuda"), "cpu"),
        threads=reader.integer("threads", 0, minimum=0),
    )


def import_runtime(feature: str) -> tuple[Any, Any]:
    """`(torch, transformers)`, or `MissingExtraError` naming the `transformers` extra."""
    torch = require("torch", feature, EXTRA)
    transformers = require("transformers", feature, EXTRA)
    return torch, transformers


def prepare_torch(torch: Any, options: TorchOptions) -> Any:
    """Apply the thread count and return the requested torch dtype."""
    if options.threads:
        torch.set_num_threads(options.threads)
    return getattr(torch, options.compute_type)


def parameter_dtype(model: Any) -> str:
    """The dtype most parameters actually hold (by element count), e.g. `bfloat16`."""
    counts: Counter[str] = Counter()
    for parameter in model.parameters():
        counts[str(parameter.dtype).removeprefix("torch.")] += int(parameter.numel())
    return counts.most_common(1)[0][0] if counts else "unknown"


def parameter_device(model: Any) -> str:
    """The device the parameters actually sit on (`cpu`, `cuda:0`), read back like the dtype."""
    devices = sorted({str(parameter.device) for parameter in model.parameters()})
    return ",".join(devices) if devices else "unknown"


def accelerator_record(torch: Any, options: TorchOptions) -> dict[str, JSONValue]:
    """Which GPU, CUDA and cuDNN a `device=cuda` arm ran on: a GPU figure means little
    without them. Empty for CPU arms, so CPU records stay as they were."""
    if options.device != "cuda":
        return {}
    index = torch.cuda.current_device()
    backends = getattr(torch, "backends", None)
    cudnn = getattr(backends, "cudnn", None)
    return {
        "cuda_device_name": torch.cuda.get_device_name(index),
        "cuda_capability": ".".join(str(n) for n in torch.cuda.get_device_capability(index)),
        "cuda_runtime_version": getattr(torch.version, "cuda", None),
        "cudnn_version": cudnn.version() if cudnn is not None else None,
        # TF32 changes the last bits of every product, so it can change a near-tie's text.
        "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
        "tf32_cudnn": bool(getattr(cudnn, "allow_tf32", False)),
    }


def runtime_extra(torch: Any, options: TorchOptions, model: Any = None) -> dict[str, JSONValue]:
    """What the torch runtime was, as loaded. `device_loaded` is read back from the model's
    parameters (absent when no model is given), beside the requested `device`."""
    return {
        "torch_version": getattr(torch, "__version__", None),
        "compute_type_requested": options.compute_type,
        "device": options.device,
        **({"device_loaded": parameter_device(model)} if model is not None else {}),
        **accelerator_record(torch, options),
        "threads": torch.get_num_threads(),
        "safetensors_version": package_version("safetensors"),
        "tokenizers_version": package_version("tokenizers"),
    }


def batch_determinism(decoding: str, batch_size: int) -> tuple[bool, str]:
    """Whether a torch decoder that does not sample repeats exactly, and why.

    Batching is the catch: a clip's logits change in the last bits with the clips batched
    (and padded) beside it (measured ~2e-7 on a wav2vec2), so a near-tie can decode
    differently when a resumed or reordered run batches it with other clips.
    """
    if batch_size > 1:
        return False, (
            f"{decoding}, in batches of {batch_size}: a clip's logits change in the last bits "
            "with the clips batched beside it, so its text can depend on them; batch_size=1 "
            "is deterministic"
        )
    return True, f"{decoding}, one clip at a time"


def seed_torch(torch: Any, seed: int | None) -> None:
    """Give the next clip its own random stream (`torch.manual_seed` seeds every device)."""
    if seed is not None:
        torch.manual_seed(seed)


def load_pretrained(
    transformers: Any,
    folder: Path,
    auto_model: str,
    dtype: Any,
    *,
    arm_name: str,
    what: str,
    hint: str,
) -> tuple[Any, Any]:
    """(processor, model) from a local `save_pretrained` folder, never the hub; a folder
    that is not such a model is one clear error naming the arm and what is missing."""
    if not (folder / "config.json").is_file():
        raise EarmarkError(
            f"arm '{arm_name}': {folder} has no config.json",
            field="model",
            hint="give a folder saved with save_pretrained (config, weights, processor)",
        )
    try:
        processor = transformers.AutoProcessor.from_pretrained(str(folder), local_files_only=True)
        model = getattr(transformers, auto_model).from_pretrained(
            str(folder), dtype=dtype, local_files_only=True
        )
    except (OSError, ValueError, KeyError) as exc:
        raise EarmarkError(
            f"arm '{arm_name}': {folder} is not a loadable {what}: {exc}",
            field="model",
            hint=hint,
        ) from exc
    return processor, model
