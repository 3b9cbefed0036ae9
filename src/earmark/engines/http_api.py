"""An OpenAI-compatible transcription endpoint (`POST {base}/audio/transcriptions`).

Standard library only (http.client). The API key is read from the environment variable
named by `api_key_env` at load time and never stored: results record only the variable's
name. A hosted model's weights and revision cannot be verified, so `revision` is None
and the ModelInfo says so. Per-clip failures become reason codes, never a crashed run.

The server is not trusted: redirects are not followed (the key must never reach another
origin; `follow_redirects=same-origin` allows same-origin ones), a response is read
incrementally up to `max_response_bytes`, and each request has a total deadline
(`request_timeout`) besides the per-read `timeout`. The endpoint's host is resolved once,
at load, and every request connects to those addresses: they are what the egress guard
allows.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit, urlunsplit

from earmark.engines.base import Clip, Hypothesis, ModelInfo, Segment
from earmark.engines.clip_audio import wav_bytes
from earmark.engines.settings import SettingsReader, read_licence
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

BACKEND = "http"
#: Status codes that mean "this server does not do verbose_json": retry once with json.
_FORMAT_REJECTED = {400, 415, 422}
#: Redirects that may be followed (same origin, `follow_redirects=same-origin`) by sending
#: the same POST again; 303 asks for a GET of something else and is never followed.
_REPEAT_POST = {301, 302, 307, 308}
_REDIRECTS = _REPEAT_POST | {303}
MAX_REDIRECTS = 5
#: Bytes of an error response kept as the clip's detail; the rest is never read.
_DETAIL_BYTES = 300
_CHUNK = 64 * 1024
DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class HttpOptions:
    """The endpoint and transport settings every HTTP backend shares."""

    endpoint: str
    api_key_env: str | None
    timeout: float
    request_timeout: float
    max_response_bytes: int
    follow_redirects: str
    retries: int
    backoff: float
    language_policy: str
    licence: str | None
    licence_source: str | None


@dataclass(frozen=True)
class TranscriptionFields:
    """What OpenAI's `/audio/transcriptions` form carries besides the audio."""

    model: str
    response_format: str
    temperature: str | None


def read_options(arm: ArmSpec) -> tuple[HttpOptions, TranscriptionFields]:
    reader = SettingsReader(arm)
    options = read_http_options(arm, reader)
    fields = TranscriptionFields(
        model=reader.text("model", "whisper-1") or "whisper-1",
        response_format=reader.choice("response_format", ("verbose_json", "json"), "verbose_json"),
        temperature=reader.text("temperature"),
    )
    if fields.temperature is not None:
        reader.number("temperature", 0.0, minimum=0.0)
    reader.finish()
    return options, fields


def read_http_options(
    arm: ArmSpec, reader: SettingsReader, *, policies: tuple[str, ...] = ("forced", "detect")
) -> HttpOptions:
    """The endpoint and transport settings (the caller reads its service's own settings
    from `reader` too, then finishes it, so a setting no part reads is refused)."""
    parsed = urlsplit(arm.model)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EarmarkError(f"arm '{arm.name}': {arm.model!r} is not an http(s) URL", field="model")
    if parsed.username or parsed.password:
        raise EarmarkError(
            f"arm '{arm.name}': the endpoint URL carries credentials",
            field="model",
            hint="put the key in an environment variable and name it with api_key_env=",
        )
    licence, licence_source = read_licence(reader)
    timeout = reader.number("timeout", 60.0, minimum=0.001)
    return HttpOptions(
        endpoint=arm.model.rstrip("/"),
        api_key_env=reader.text("api_key_env"),
        timeout=timeout,
        # `timeout` bounds each socket read; a server sending a byte just before each
        # one ends would hold a clip for ever without a total deadline.
        request_timeout=reader.number("request_timeout", max(60.0, timeout), minimum=0.001),
        max_response_bytes=reader.integer(
            "max_response_bytes", DEFAULT_MAX_RESPONSE_BYTES, minimum=1
        ),
        follow_redirects=reader.choice("follow_redirects", ("none", "same-origin"), "none"),
        retries=reader.integer("retries", 2, minimum=0),
        backoff=reader.number("backoff", 0.5, minimum=0.0),
        language_policy=reader.choice("language_policy", policies, "forced"),
        licence=licence,
        licence_source=licence_source,
    )


class ClipFailure(Exception):
    """A per-clip failure carrying its reason code."""

    def __init__(self, code: str, detail: str = "", **extra: JSONValue) -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail
        self.extra = extra


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes


class _Deadline:
    """A request's total time limit: at expiry the connection's socket is shut down, which
    wakes a read blocked in connect, headers or body alike."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self.connection: http.client.HTTPConnection | None = None
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def remaining(self) -> float:
        return max(0.0, self.ends - time.monotonic())

    def passed(self) -> bool:
        # A socket timeout clipped to the deadline can fire a hair before the timer.
        return self.expired or time.monotonic() >= self.ends - 0.05

    def _cut(self) -> None:
        self.expired = True
        sock = getattr(self.connection, "sock", None)
        if sock is not None:
            try:  # the plain socket's shutdown, also under TLS: leave the SSL state alone
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class RemoteEngine:
    """One HTTP(S) request per clip to a remote recogniser: the key, the resolved
    addresses, retries, redirects, deadlines and bounded reads. A service says how a clip
    becomes a request (`_request`), what its answer means (`_parse`) and what its record
    adds (`_service_record`)."""

    backend: ClassVar[str]
    runtime: ClassVar[str]
    determinism_note: ClassVar[str]

    def __init__(self, arm: ArmSpec, options: HttpOptions) -> None:
        self.arm = arm
        self.name = arm.name
        self.options = options
        self._key: str | None = None
        self._loaded = False
        self._origin = _origin(options.endpoint)
        self._addresses: list[tuple[int, Any]] = []

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[Any, ...]:
        """The arm's settings: the transport's and the service's (refused if unknown)."""
        raise NotImplementedError

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> RemoteEngine:
        return cls(arm, *cls.check_spec(arm))

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
        self._addresses = _resolve(self.name, self._origin)
        self._loaded = True
        service = self._service_record()
        return ModelInfo(
            backend=self.backend,
            artifact_id=f"{service['model']} @ {self.options.endpoint}",
            revision=None,
            file_sha256={},
            licence=self.options.licence,
            licence_source=self.options.licence_source,
            runtime=self.runtime,
            runtime_version=None,
            compute_type=None,
            load_seconds=time.perf_counter() - started,
            deterministic=False,
            determinism_note=self.determinism_note,
            extra={
                "endpoint": self.options.endpoint,
                **service,
                "api_key_env": env,
                "language_policy": self.options.language_policy,
                "timeout": self.options.timeout,
                "request_timeout": self.options.request_timeout,
                "max_response_bytes": self.options.max_response_bytes,
                "follow_redirects": self.options.follow_redirects,
                "resolved_addresses": list(dict.fromkeys(str(a[0]) for _, a in self._addresses)),
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

    def _service_record(self) -> dict[str, JSONValue]:
        """The service's part of the model record; its `model` names what is asked for."""
        raise NotImplementedError

    def _language_sent(self, language: str | None) -> str | None:
        """The language the request names (None: the service detects it)."""
        return language if self.options.language_policy == "forced" else None

    def _request(self, audio: bytes, language: str | None) -> tuple[str, bytes, dict[str, str]]:
        """(URL, body, headers) of one clip's request."""
        raise NotImplementedError

    def _parse(
        self, payload: JSONValue
    ) -> tuple[str, tuple[Segment, ...], str | None, dict[str, JSONValue]]:
        """Text, segments, the language the server reports, and what the row records of
        the answer; a `ClipFailure` when the answer is not a transcript."""
        raise NotImplementedError

    def _try_otherwise(self, failure: ClipFailure) -> bool:
        """Change the request after this failure and send it again at once (no retry
        counted); False when the failure stands."""
        return False

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        started = time.perf_counter()
        attempts = 0
        try:
            sent_language = self._language_sent(language)
            audio = wav_bytes(clip)
            while True:
                try:
                    attempts += 1
                    payload = self._post(audio, sent_language)
                    break
                except ClipFailure as failure:
                    if self._try_otherwise(failure):
                        continue
                    retryable = failure.code == "connection_error" or failure.code.startswith(
                        "http_error:5"
                    )
                    if not retryable or attempts > self.options.retries:
                        raise
                    time.sleep(self.options.backoff * (2 ** (attempts - 1)))
            text, segments, reported, answered = self._parse(payload)
        except ClipFailure as failure:
            return Hypothesis(
                id=clip.id,
                text="",
                decode_seconds=time.perf_counter() - started,
                language_requested=language,
                error=failure.code,
                extra={"attempts": attempts, "detail": failure.detail[:300], **failure.extra},
            )
        used = reported if reported and len(reported) <= 3 else sent_language
        extra: dict[str, JSONValue] = {"attempts": attempts, **answered}
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

    def _post(self, audio: bytes, language: str | None) -> JSONValue:
        url, body, headers = self._request(audio, language)
        for hops in range(MAX_REDIRECTS + 1):
            reply = self._exchange(url, body, headers)
            if reply.status not in _REDIRECTS:
                break
            location = reply.headers.get("Location")
            target = urljoin(url, location) if location else ""
            follow = (
                self.options.follow_redirects == "same-origin"
                and reply.status in _REPEAT_POST
                and bool(target)
                and _origin(target) == self._origin
                and hops < MAX_REDIRECTS
            )
            if not follow:
                shown = _without_credentials(target) if target else None
                raise ClipFailure(
                    f"http_redirect:{reply.status}",
                    _redirect_detail(reply.status, target, self._origin, hops),
                    location=shown,
                )
            url = target
        if not 200 <= reply.status < 300:
            raise ClipFailure(f"http_error:{reply.status}", reply.body.decode("utf-8", "replace"))
        try:
            answer: JSONValue = json.loads(reply.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ClipFailure("malformed_response", str(exc)) from None
        except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
            raise ClipFailure("malformed_response", f"{type(exc).__name__}: {exc}") from None
        return answer

    def _exchange(self, url: str, body: bytes, headers: dict[str, str]) -> _Reply:
        """One POST to `url` (same origin as the endpoint) within the request deadline."""
        with _Deadline(self.options.request_timeout) as deadline:
            try:
                return self._exchange_within(url, body, headers, deadline)
            except (OSError, http.client.HTTPException) as exc:
                if deadline.passed():
                    raise ClipFailure(
                        "http_timeout",
                        f"no complete response within request_timeout="
                        f"{self.options.request_timeout:g}s",
                    ) from None
                if isinstance(exc, TimeoutError):
                    raise ClipFailure("timeout", str(exc) or "read timed out") from None
                if isinstance(exc, (OSError, http.client.IncompleteRead)):
                    raise ClipFailure("connection_error", str(exc)) from None
                raise ClipFailure("malformed_response", f"{type(exc).__name__}: {exc}") from None
            finally:
                if deadline.connection is not None:
                    deadline.connection.close()

    def _exchange_within(
        self, url: str, body: bytes, headers: dict[str, str], deadline: _Deadline
    ) -> _Reply:
        parts = urlsplit(url)
        connection_class = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        host, port = self._origin[1], self._origin[2]
        connection = connection_class(
            host, port, timeout=min(self.options.timeout, deadline.remaining())
        )
        addresses = self._addresses
        # Connect to the addresses resolved at load; Host and TLS still name the host.
        connection._create_connection = lambda _address, timeout, source=None: _connect(  # type: ignore[attr-defined]
            addresses, port, timeout
        )
        deadline.connection = connection
        path = urlunsplit(("", "", parts.path or "/", parts.query, ""))
        connection.request("POST", path, body=body, headers={**headers, "Connection": "close"})
        response = connection.getresponse()
        if response.status in _REDIRECTS:
            return _Reply(response.status, response.headers, b"")
        if not 200 <= response.status < 300:
            return _Reply(response.status, response.headers, response.read(_DETAIL_BYTES))
        return _Reply(response.status, response.headers, self._read_bounded(response, deadline))

    def _read_bounded(self, response: http.client.HTTPResponse, deadline: _Deadline) -> bytes:
        """The body, read a socket read at a time and refused once past the limit, so a
        huge answer is never held."""
        limit = self.options.max_response_bytes
        declared = response.getheader("Content-Length")
        if declared and declared.strip().isdigit() and int(declared) > limit:
            raise ClipFailure(
                "http_response_too_large",
                f"Content-Length {int(declared)} exceeds max_response_bytes={limit}",
            )
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = response.read1(_CHUNK)
            if deadline.expired:
                raise TimeoutError("request deadline")
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise ClipFailure(
                    "http_response_too_large",
                    f"more than max_response_bytes={limit} bytes (reading stopped)",
                )
            chunks.append(chunk)
        if response.length:  # the server closed before the length it declared
            raise http.client.IncompleteRead(b"".join(chunks), response.length)
        return b"".join(chunks)


class HttpEngine(RemoteEngine):
    """OpenAI's `/audio/transcriptions`: each clip as a 16 kHz PCM-16 WAV in a multipart
    form; parses `text` (and `segments`)."""

    backend = BACKEND
    runtime = "openai-compatible-http"
    determinism_note = (
        "a remote service: earmark cannot control its sampling (the transcription API takes "
        "no seed, and a temperature sent is the server's to honour)"
    )

    def __init__(self, arm: ArmSpec, options: HttpOptions, fields: TranscriptionFields) -> None:
        super().__init__(arm, options)
        self.fields = fields
        self._format = fields.response_format

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[HttpOptions, TranscriptionFields]:
        return read_options(arm)

    def _service_record(self) -> dict[str, JSONValue]:
        return {"model": self.fields.model, "response_format": self.fields.response_format}

    def _request(self, audio: bytes, language: str | None) -> tuple[str, bytes, dict[str, str]]:
        fields = {"model": self.fields.model, "response_format": self._format}
        if language:
            fields["language"] = language
        if self.fields.temperature is not None:
            fields["temperature"] = self.fields.temperature
        body, content_type = _multipart(fields, audio)
        headers = {"Content-Type": content_type, "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return f"{self.options.endpoint}/audio/transcriptions", body, headers

    def _parse(
        self, payload: JSONValue
    ) -> tuple[str, tuple[Segment, ...], str | None, dict[str, JSONValue]]:
        text, segments, reported = _parse(payload)
        return text, segments, reported, {"response_format": self._format}

    def _try_otherwise(self, failure: ClipFailure) -> bool:
        """A server that does not do verbose_json: json from now on (this clip included)."""
        rejected = failure.code in {f"http_error:{status}" for status in _FORMAT_REJECTED}
        if rejected and self._format != "json":
            self._format = "json"
            return True
        return False


def _origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) with the scheme's default port: what 'same origin' compares."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    return scheme, (parts.hostname or "").lower(), port or (443 if scheme == "https" else 80)


def _without_credentials(url: str) -> str:
    """A URL for the record: no user:password, no query or fragment (they carry tokens)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _redirect_detail(status: int, target: str, origin: tuple[str, str, int], hops: int) -> str:
    if not target:
        return f"{status} without a Location"
    if _origin(target) != origin:
        return f"{status} to another origin: not followed, the API key stays with the endpoint"
    if hops >= MAX_REDIRECTS:
        return f"more than {MAX_REDIRECTS} redirects"
    if status == 303:
        return "303 (See Other) asks for a GET elsewhere: not followed"
    return f"{status}: redirects are not followed (follow_redirects=same-origin allows this one)"


def _resolve(arm: str, origin: tuple[str, str, int]) -> list[tuple[int, Any]]:
    """The endpoint's addresses, resolved once: every request of the run connects to
    these, the addresses the egress guard was told about."""
    _, host, port = origin
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise EarmarkError(
            f"arm '{arm}': the endpoint host {host!r} does not resolve: {exc}",
            field="model",
            hint="check the endpoint URL and the name service",
        ) from None
    return [(family, address) for family, _, _, _, address in infos]


def _connect(addresses: list[tuple[int, Any]], port: int, timeout: float) -> socket.socket:
    """Like `socket.create_connection`, over addresses already resolved."""
    last: OSError | None = None
    for family, address in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect((address[0], port, *address[2:]))
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last or OSError("no address to connect to")


def _parse(payload: JSONValue) -> tuple[str, tuple[Segment, ...], str | None]:
    """Text, segments (empty if absent or malformed) and the language the server reports."""
    text = payload.get("text") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(text, str):
        raise ClipFailure("malformed_response", "no string 'text' field")
    segments: list[Segment] = []
    raw_segments = payload.get("segments")
    if isinstance(raw_segments, list):
        try:
            for seg in raw_segments:
                if not isinstance(seg, dict):
                    raise TypeError
                start, end = seg["start"], seg["end"]
                if not isinstance(start, (int, float, str)) or not isinstance(
                    end, (int, float, str)
                ):
                    raise TypeError
                segments.append(Segment(float(start), float(end), str(seg["text"]).strip()))
        except (KeyError, TypeError, ValueError):
            segments = []
    reported = payload.get("language")
    return text, tuple(segments), reported if isinstance(reported, str) else None


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
