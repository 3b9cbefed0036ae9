"""A reference program speaking earmark's stdio protocol (docs/stdio_protocol.md).

It stands in for a real recogniser in the tests and shows an engine author the whole
exchange in one page: a hello line, one JSON request per line on stdin, one JSON response
per line on stdout, exit on `shutdown` or when stdin closes. Its text is a function of
the audio samples alone (three words picked by the SHA-256 of the 16-bit PCM), so a test
can compute the expected text independently and see that the audio arrived intact.
A request with `stream` gets partial lines first (the final's words revealed chunk by
chunk), so the streaming path can be checked against hand-computed figures. With
`--weight-types f16,q8_0` it speaks protocol 2 and declares them in its hello, and
`--weight-type X` (what an arm's `{compute_type}` becomes) is the one it says it loaded;
one it does not declare makes it exit before its hello, as a program failing to load.

Standard library only, and no `earmark` import: any interpreter runs it.

    python -m earmark.testing.stdio_echo_asr [--crash-on ID] [--hang-on ID] ...
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import time
import wave
from collections.abc import Iterator
from typing import TypedDict

PROTOCOL = 1
#: The version whose hello may declare weight types.
WEIGHT_TYPES_PROTOCOL = 2
WORDS = ("alpha", "beta", "gamma", "delta")


class Stream(TypedDict, total=False):
    """A streamed request's `stream` object."""

    chunk_seconds: float
    realtime: bool


class Request(TypedDict, total=False):
    """What earmark sends (docs/stdio_protocol.md); `type` is `transcribe` or `shutdown`."""

    type: str
    id: str
    audio: str
    pcm_s16le_base64: str
    sample_rate: int
    language: str | None
    seed: int | None
    settings: dict[str, str]
    stream: Stream


class SegmentLine(TypedDict):
    start: float
    end: float
    text: str


class Answer(TypedDict, total=False):
    """The final line for a request: text and segments, or an error."""

    id: str
    text: str
    error: str
    segments: list[SegmentLine]
    language: str | None
    decode_seconds: float


class Partial(TypedDict):
    id: str
    partial: str
    audio_seconds: float
    input_finished: bool


class Capabilities(TypedDict):
    audio: list[str]
    segments: bool
    streaming: bool


class Hello(TypedDict, total=False):
    type: str
    protocol: int
    name: str
    version: str
    capabilities: Capabilities
    model: str
    model_sha256: str
    deterministic: bool
    determinism_note: str
    weight_types: list[str]
    weight_type: str


def text_for_pcm(pcm: bytes) -> str:
    """Three words from the first three hex digits of the PCM's SHA-256."""
    digest = hashlib.sha256(pcm).hexdigest()
    return " ".join(WORDS[int(c, 16) % 4] for c in digest[:3])


def read_pcm(request: Request) -> bytes:
    """The request's 16-bit little-endian samples, from the WAV path or the inline base64."""
    if "pcm_s16le_base64" in request:
        return base64.b64decode(request["pcm_s16le_base64"])
    with wave.open(request["audio"], "rb") as wav:
        if wav.getsampwidth() != 2 or wav.getnchannels() != 1:
            raise ValueError("expected 16-bit mono WAV")
        return wav.readframes(wav.getnframes())


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crash-on", action="append", default=[], metavar="ID",
                        help="exit with status 3 when asked for this clip")  # fmt: skip
    parser.add_argument("--hang-on", action="append", default=[], metavar="ID",
                        help="never answer this clip")  # fmt: skip
    parser.add_argument("--wrong-id-on", action="append", default=[], metavar="ID",
                        help="answer this clip under another id (out of step)")  # fmt: skip
    parser.add_argument("--error-on", action="append", default=[], metavar="ID",
                        help="answer this clip with an error field")  # fmt: skip
    parser.add_argument("--starts-dir", help="write one file per start, named by the pid "
                        "(a folder, so that earmark's hash of the files the command line "
                        "names does not change as starts are counted)")  # fmt: skip
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per clip")
    parser.add_argument("--model", help="a file to report (path and SHA-256) in the hello")
    parser.add_argument("--no-determinism-claim", action="store_true",
                        help="say nothing about determinism in the hello")  # fmt: skip
    parser.add_argument("--banner", action="store_true",
                        help="print non-JSON lines on stdout (a chatty library)")  # fmt: skip
    parser.add_argument("--echo-request", action="store_true",
                        help="answer with the request (audio left out) as the text")  # fmt: skip
    parser.add_argument("--no-hello", action="store_true", help="never say hello")
    parser.add_argument("--no-streaming", action="store_true",
                        help="do not declare streaming in the hello")  # fmt: skip
    parser.add_argument("--revise-partials", action="store_true",
                        help="show a wrong last word in partials, corrected later")  # fmt: skip
    parser.add_argument("--weight-types", help="comma-separated weight types to declare "
                        "in the hello (protocol 2)")  # fmt: skip
    parser.add_argument("--weight-type", help="the weight type to load (one declared)")
    return parser.parse_args(argv)


def _send(message: Hello | Answer | Partial) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def hello(args: argparse.Namespace) -> Hello:
    message: Hello = {
        "type": "hello",
        "protocol": PROTOCOL,
        "name": "stdio-echo-asr",
        "version": "1.0",
        "capabilities": {
            "audio": ["path", "pcm_s16le_base64"],
            "segments": True,
            "streaming": not args.no_streaming,
        },
    }
    if args.model:
        with open(args.model, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        message["model"] = os.path.abspath(args.model)
        message["model_sha256"] = digest
    if not args.no_determinism_claim:
        message["deterministic"] = True
        message["determinism_note"] = "the text is a function of the audio samples alone"
    if args.weight_types:
        message["protocol"] = WEIGHT_TYPES_PROTOCOL
        message["weight_types"] = args.weight_types.split(",")
        if args.weight_type:
            message["weight_type"] = args.weight_type
    return message


def answer(request: Request, args: argparse.Namespace) -> Answer:
    started = time.perf_counter()
    clip_id = request["id"]
    if clip_id in args.crash_on:
        sys.stderr.write(f"stdio-echo-asr: crashing on {clip_id} as asked\n")
        sys.stderr.flush()
        os._exit(3)
    if clip_id in args.hang_on:
        while True:
            time.sleep(3600)
    if clip_id in args.wrong_id_on:
        return {"id": f"not-{clip_id}", "text": "misrouted"}
    if clip_id in args.error_on:
        return {"id": clip_id, "error": f"refused {clip_id} as asked"}
    if args.delay:
        time.sleep(args.delay)
    pcm = read_pcm(request)
    if args.echo_request:
        shown = {k: v for k, v in request.items() if k not in ("audio", "pcm_s16le_base64")}
        text = json.dumps(shown, sort_keys=True)
    else:
        text = text_for_pcm(pcm)
    seconds = len(pcm) / 2 / int(request["sample_rate"])
    return {
        "id": clip_id,
        "text": text,
        "segments": [{"start": 0.0, "end": seconds, "text": text}],
        "language": request.get("language"),
        "decode_seconds": time.perf_counter() - started,
    }


WRONG_WORD = "omega"


def partials(request: Request, final: Answer, args: argparse.Namespace) -> Iterator[Partial]:
    """The partial lines of a streamed request: after chunk k of n, the first k/n of the
    final's words (rounded down); with `--revise-partials` the last word shown while the
    text is incomplete is `omega`, which a later line corrects."""
    stream = request.get("stream")
    if not isinstance(stream, dict) or "text" not in final:
        return
    words = final["text"].split()
    seconds = float(final["segments"][0]["end"])
    chunk = float(stream["chunk_seconds"])
    count = max(1, -(-round(seconds * 1e6) // round(chunk * 1e6)))  # ceil, in microseconds
    for k in range(1, count + 1):
        if stream.get("realtime"):
            time.sleep(min(chunk, seconds - (k - 1) * chunk))
        shown = words[: len(words) * k // count]
        if args.revise_partials and 0 < len(shown) < len(words):
            shown = [*shown[:-1], WRONG_WORD]
        yield {
            "id": request["id"],
            "partial": " ".join(shown),
            "audio_seconds": min(k * chunk, seconds),
            "input_finished": k == count,
        }


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.starts_dir:
        with open(os.path.join(args.starts_dir, str(os.getpid())), "w", encoding="utf-8"):
            pass
    if args.banner:
        print("stdio-echo-asr: loading model (a banner a library printed)", flush=True)
    if args.no_hello:
        for _ in sys.stdin:
            pass
        return 0
    if args.weight_type and args.weight_type not in (args.weight_types or "").split(","):
        sys.stderr.write(f"stdio-echo-asr: no {args.weight_type} weights to load\n")
        return 4
    _send(hello(args))
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0  # earmark went away: never outlive it
        request: Request = json.loads(line)
        if request.get("type") == "shutdown":
            return 0
        if args.banner:
            print(f"decoding {request.get('id')}", flush=True)
        final = answer(request, args)
        for line in partials(request, final, args):
            _send(line)
        _send(final)


if __name__ == "__main__":
    sys.exit(main())
