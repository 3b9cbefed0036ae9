#!/usr/bin/env python3
"""omniASR (Meta's Omnilingual ASR) behind earmark's stdio protocol (docs/omniasr.md).

earmark starts this program once per arm and sends it one JSON request per clip
(docs/stdio_protocol.md). The pipeline is built once, before the hello, so the model
loads once per arm and `start_timeout` covers the load. `omnilingual_asr` (and torch,
for `--dtype`) are imported only after the arguments are read: `--help` needs neither.

    earmark run --manifest m.jsonl --normalizer none --out runs/omni \\
      --arm 'stdio:python examples/stdio/omniasr_adapter.py --model-card omniASR_CTC_300M?name=omni'
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import metadata
from typing import Any

#: The stdio protocol version: 2 lets the hello declare weight types.
PROTOCOL = 2
#: The dtypes the pipeline takes (`ASRInferencePipeline(dtype=...)`), as weight types.
WEIGHT_TYPES = ("bfloat16", "float16", "float32")
#: earmark's language tags (the base of BCP 47) to omniASR's codes (ISO 639-3 and
#: script). An arm's `set_lang=xxx_Xxxx` (sent in each request's settings) overrides it;
#: a language in neither is transcribed without a language code.
LANGUAGES = {
    "en": "eng_Latn",
    "ga": "gle_Latn",
    "zh": "cmn_Hans",
    "yue": "yue_Hant",
    "de": "deu_Latn",
    "fr": "fra_Latn",
    "es": "spa_Latn",
    "it": "ita_Latn",
    "pt": "por_Latn",
    "nl": "nld_Latn",
    "ja": "jpn_Jpan",
    "ko": "kor_Hang",
    "ar": "arb_Arab",
    "hi": "hin_Deva",
    "ru": "rus_Cyrl",
    "uk": "ukr_Cyrl",
}


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-card", required=True, help="e.g. omniASR_CTC_300M, omniASR_LLM_7B")
    parser.add_argument("--device", help="cuda or cpu (default: the pipeline's choice)")
    parser.add_argument(
        "--dtype",
        choices=WEIGHT_TYPES,
        help="the weights' dtype (default: the pipeline's, bfloat16); give {compute_type} "
        "to sweep with --weight-types",
    )
    parser.add_argument("--batch-size", type=int, default=1, help="the pipeline's batch_size")
    return parser.parse_args(argv)


def load_pipeline(args: argparse.Namespace) -> Any:
    """The omniASR pipeline for the model card, on the device and dtype asked for."""
    from omnilingual_asr.models.inference.pipeline import ASRInferencePipeline

    options: dict[str, Any] = {}
    if args.device:
        options["device"] = args.device
    if args.dtype:
        import torch

        options["dtype"] = getattr(torch, args.dtype)
    return ASRInferencePipeline(model_card=args.model_card, **options)


def hello(args: argparse.Namespace) -> dict[str, Any]:
    try:
        version = metadata.version("omnilingual-asr")
    except metadata.PackageNotFoundError:
        version = None
    message: dict[str, Any] = {
        "type": "hello",
        "protocol": PROTOCOL,
        "name": "omniasr-stdio",
        "version": version,
        "model": args.model_card,
        "weight_types": list(WEIGHT_TYPES),
        "capabilities": {"audio": ["path"], "segments": False, "streaming": False},
    }
    if args.dtype:
        message["weight_type"] = args.dtype
    return message


def omni_language(request: dict[str, Any]) -> str | None:
    """The omniASR code for the request: the arm's `set_lang`, else the mapped tag."""
    settings = request.get("settings") or {}
    if settings.get("lang"):
        return str(settings["lang"])
    tag = request.get("language")
    return LANGUAGES.get(tag) if isinstance(tag, str) else None


def answer(pipeline: Any, request: dict[str, Any], batch_size: int) -> dict[str, Any]:
    """One clip's answer; an exception is this clip's `error`, and the loop goes on."""
    clip_id = request.get("id")
    if "audio" not in request:
        return {"id": clip_id, "error": "omniasr-stdio reads a WAV path: use audio_input=wav"}
    lang = omni_language(request)
    try:
        out = pipeline.transcribe([request["audio"]], lang=[lang], batch_size=batch_size)
    except Exception as exc:  # a clip the model refuses (e.g. over 40 s): that clip only
        return {"id": clip_id, "error": f"{type(exc).__name__}: {exc}"}
    texts = out[0] if isinstance(out, tuple) else out  # newer releases add timestamps
    return {
        "id": clip_id,
        "text": str(texts[0]).strip(),
        "language": request.get("language") if lang else None,
    }


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    protocol_out = sys.stdout
    sys.stdout = sys.stderr  # whatever a library prints stays off the protocol channel
    try:
        pipeline = load_pipeline(args)
    except ImportError as exc:
        print(f"omniasr-stdio: {exc} (pip install omnilingual-asr)", file=sys.stderr)
        return 2

    def send(message: dict[str, Any]) -> None:
        protocol_out.write(json.dumps(message, ensure_ascii=False) + "\n")
        protocol_out.flush()

    send(hello(args))
    for line in sys.stdin:  # ends when earmark closes stdin: never outlive it
        request = json.loads(line)
        if request.get("type") == "shutdown":
            break
        send(answer(pipeline, request, args.batch_size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
