"""An OpenAI-compatible transcription endpoint (`POST {base}/audio/transcriptions`).

Standard library only (urllib). The API key is read from the environment variable named
by `api_key_env` at load time and never stored: results record only the variable's
name. A hosted model's weights and revision cannot be verified, so `revision` is None
and the ModelInfo says so. Per-clip failures become reason codes, never a crashed run.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib import error as urlerror
from urllib import request as urlrequest
from urllib.parse import urlparse

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import wav_bytes
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError

BACKEND = "http"
#: Status codes that mean "this server does not do verbose_json": retry once with json.
_FORMAT_REJECTED = {400, 415, 422}


@dataclass(frozen=True)
class HttpOptions:
    endpoint: str
    model: str
    api_key_env: str | None
    timeout: float
    retries: int
    backoff: float
    response_format: str
    language_policy: str
    temperature: str | None
    licence: str | None
    licence_source: str | None


def read_options(arm: ArmSpec) -> HttpOptions:
    parsed = urlparse(arm.model)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EarmarkError(f"arm '{arm.name}': {arm.model!r} is not an http(s) URL", field="model")
    if parsed.username or parsed.password:
        raise EarmarkError(
            f"arm '{arm.name}': the endpoint URL carries credentials",
            field="model",
            hint="put the key in an environment variable and name it with api_key_env=",
        )
    reader = SettingsReader(arm)
    licence, licence_source = read_licence(reader)
    options = HttpOptions(
        endpoint=arm.model.rstrip("/"),
        model=reader.text("model", "whisper-1") or "whisper-1",
        api_key_env=reader.text("api_key_env"),
        timeout=reader.number("timeout", 60.0, minimum=0.001),
        retries=reader.integer("retries", 2, minimum=0),
        backoff=reader.number("backoff", 0.5, minimum=0.0),
        response_format=reader.choice("response_format", ("verbose_json", "json"), "verbose_json"),
        language_policy=reader.choice("language_policy", ("forced", "detect"), "forced"),
        temperature=reader.text("temperature"),
        licence=licence,
        licence_source=licence_source,
    )
    if options.temperature is not None:
        reader.number("temperature", 0.0, minimum=0.0)
    reader.finish()
    return options


class _ClipFailure(Exception):
    """A per-clip failure carrying its reason code."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail


class HttpEngine:
    """Sends each clip as a 16 kHz PCM-16 WAV; parses `text` (and `segments`)."""

    def __init__(self, arm: ArmSpec, options: HttpOptions) -> None:
        self.arm = arm
        self.name = arm.name
        self.options = options
        self._key: str | None = None
        self._format = options.response_format
        self._loaded = False

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> HttpOptions:
        return read_options(arm)

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> HttpEngine:
        return cls(arm, read_options(arm))

    def load(self) -> ModelInfo:
        if self._loaded:
            raise RuntimeError(f"arm '{self.name}' is already loaded; load() runs once")
        started = time.perf_counter()
        env = self.options.api_key_env
        if env is not None:
            self._key = os.environ.get(env)
            if not self._key:
                raise EarmarkError(
                    f"arm '{self.name}': environment variable {env} is not set",
                    field="api_key_env",
                    hint=f"export {env}=<your key>",
                )
        self._loaded = True
        return ModelInfo(
            backend=BACKEND,
            artifact_id=f"{self.options.model} @ {self.options.endpoint}",
            revision=None,
            file_sha256={},
            licence=self.options.licence,
            licence_source=self.options.licence_source,
            runtime="openai-compatible-http",
            runtime_version=None,
            compute_type=None,
            load_seconds=time.perf_counter() - started,
            deterministic=False,
            determinism_note="a remote service: earmark cannot control its sampling "
            "(the transcription API takes no seed, and a temperature sent is the server's "
            "to honour)",
            extra={
                "endpoint": self.options.endpoint,
                "model": self.options.model,
                "api_key_env": env,
                "response_format": self.options.response_format,
                "language_policy": self.options.language_policy,
                "timeout": self.options.timeout,
                "retries": self.options.retries,
                "note": "hosted model: weights and revision cannot be verified",
            },
        )

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if not self._loaded:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        return [self._one(clip, language) for clip in clips]

    def close(self) -> None:
        self._key = None

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        started = time.perf_counter()
        attempts = 0
        sent_language = language if self.options.language_policy == "forced" else None
        try:
            audio = wav_bytes(clip)
            while True:
                try:
                    attempts += 1
                    payload = self._post(audio, sent_language)
                    break
                except _ClipFailure as failure:
                    if failure.code.startswith("format_rejected") and self._format != "json":
                        self._format = "json"
                        continue
                    retryable = failure.code == "connection_error" or failure.code.startswith(
                        "http_error:5"
                    )
                    if not retryable or attempts > self.options.retries:
                        raise
                    time.sleep(self.options.backoff * (2 ** (attempts - 1)))
            text, segments, reported = _parse(payload)
        except _ClipFailure as failure:
            code = failure.code.replace("format_rejected:", "http_error:")
            return Hypothesis(
                id=clip.id,
                text="",
                decode_seconds=time.perf_counter() - started,
                language_requested=language,
                error=code,
                extra={"attempts": attempts, "detail": failure.detail[:300]},
            )
        used = reported if reported and len(reported) <= 3 else sent_language
        extra: dict[str, Any] = {"attempts": attempts, "response_format": self._format}
        if reported:
            extra["reported_language"] = reported
        return Hypothesis(
            id=clip.id,
            text=text.strip(),
            decode_seconds=time.perf_counter() - started,
            language_requested=language,
            language_used=used,
            segments=segments,
            extra=extra,
        )

    def _post(self, audio: bytes, language: str | None) -> Any:
        fields = {"model": self.options.model, "response_format": self._format}
        if language:
            fields["language"] = language
        if self.options.temperature is not None:
            fields["temperature"] = self.options.temperature
        body, content_type = _multipart(fields, audio)
        headers = {"Content-Type": content_type, "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        req = urlrequest.Request(
            f"{self.options.endpoint}/audio/transcriptions",
            data=body,
            headers=headers,
            method="POST",
        )
        try:
            with urlrequest.urlopen(req, timeout=self.options.timeout) as response:
                raw = response.read()
        except urlerror.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace") if exc.fp else ""
            if exc.code in _FORMAT_REJECTED and self._format != "json":
                raise _ClipFailure(f"format_rejected:{exc.code}", detail) from None
            raise _ClipFailure(f"http_error:{exc.code}", detail) from None
        except TimeoutError as exc:
            raise _ClipFailure("timeout", str(exc)) from None
        except urlerror.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                raise _ClipFailure("timeout", str(exc.reason)) from None
            raise _ClipFailure("connection_error", str(exc.reason)) from None
        except (ConnectionError, OSError) as exc:
            raise _ClipFailure("connection_error", str(exc)) from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _ClipFailure("malformed_response", str(exc)) from None


def _parse(payload: Any) -> tuple[str, tuple[Segment, ...], str | None]:
    """Text, segments (empty if absent or malformed) and the language the server reports."""
    if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
        raise _ClipFailure("malformed_response", "no string 'text' field")
    segments: list[Segment] = []
    raw_segments = payload.get("segments")
    if isinstance(raw_segments, list):
        try:
            for seg in raw_segments:
                segments.append(
                    Segment(float(seg["start"]), float(seg["end"]), str(seg["text"]).strip())
                )
        except (KeyError, TypeError, ValueError):
            segments = []
    reported = payload.get("language")
    return payload["text"], tuple(segments), reported if isinstance(reported, str) else None


def _multipart(fields: dict[str, str], audio: bytes) -> tuple[bytes, str]:
    boundary = f"earmark-{uuid.uuid4().hex}"
    parts: list[bytes] = []
    for key, value in fields.items():
        disposition = f'Content-Disposition: form-data; name="{key}"'
        parts.append(f"--{boundary}\r\n{disposition}\r\n\r\n{value}\r\n".encode())
    parts.append(
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="clip.wav"\r\nContent-Type: audio/wav\r\n\r\n'
        ).encode()
        + audio
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
