"""A formatter behind an OpenAI-compatible `POST {base}/chat/completions` (e.g. Ollama).

Standard library only (urllib). The prompt template holds `{text}` and `{language}`,
replaced literally (not `str.format`, so braces elsewhere in a prompt are safe); the
template text and its SHA-256 are recorded, so "the same prompt" is checkable. The API
key is read from the environment variable named by `api_key_env` and never stored.
Per-call failures are reason codes: `timeout`, `http_error:<status>`,
`malformed_response`, `connection_error`.

A served model's weights cannot be hashed from here, and its name is what was asked for,
not what answered. What the server says about itself is recorded instead: every call's
`model` field and `system_fingerprint` (when sent), and in the document the distinct
values with their counts (`served_identity`), so a model swapped mid-evaluation shows.
Where the server reports the weights' digest (Ollama's `GET /api/tags` lists each local
model with its `digest`), it is recorded beside them after the last call
(`ChatProcessor.model_digest`); a server that does not is `null` with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib import error as urlerror
from urllib import request as urlrequest
from urllib.parse import urlparse

from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.postprocess.protocol import ProcessorOutput, ProcessorSettings
from earmark.results.codec import JSONObject, JSONValue

DEFAULT_PROMPT = (
    "Add punctuation to the following transcript (language: {language}). Keep every word "
    "and character exactly as it is and in the same order: only insert or correct "
    "punctuation marks. Answer in the input language with the punctuated text only.\n\n"
    "{text}"
)


#: The most bytes of a `/api/tags` answer read: a server's model list, not a download.
MAX_TAGS_BYTES = 8 * 1024 * 1024
_DIGEST = re.compile(r"(?:sha256:)?[0-9a-f]{64}")


@dataclass(frozen=True)
class ModelDigest:
    """The served model's weights digest as the server reported it, or why there is none."""

    digest: str | None
    source: str
    null_reason: str | None = None

    def to_dict(self) -> JSONObject:
        return {
            "model_digest": self.digest,
            "model_digest_source": self.source,
            "model_digest_null_reason": self.null_reason,
        }


class _CallFailure(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class ChatProcessor:
    endpoint: str
    model: str
    temperature: float
    prompt_template: str
    prompt_file: str | None
    api_key_env: str | None
    api_key: str | None = field(repr=False)
    timeout: float
    retries: int
    seed: int | None
    max_tokens: int | None
    kind: str = "openai-chat"
    guarded: bool = True

    @classmethod
    def from_spec(
        cls, spec: ArmSpec, settings: ProcessorSettings, *, prompt_file: str | None = None
    ) -> ChatProcessor:
        """`prompt_file` is a frozen plan's prompt (`[postprocess] prompt_file`); the spec
        then names none."""
        parsed = urlparse(spec.model)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise EarmarkError(
                f"processor {settings.spec_text!r}: {spec.model!r} is not an http(s) URL",
                field="processor",
                hint="e.g. openai-chat:http://127.0.0.1:11434/v1?model=gemma",
            )
        if parsed.username or parsed.password:
            raise EarmarkError(
                "the processor URL carries credentials",
                field="processor",
                hint="put the key in an environment variable and name it with api_key_env=",
            )
        model = settings.text("model")
        if not model:
            raise settings.error("model", "is required", hint="e.g. ?model=gemma3:12b")
        temperature = settings.number("temperature", 0.0, minimum=0.0)
        prompt_file = settings.text("prompt_file") or prompt_file
        api_key_env = settings.text("api_key_env")
        timeout = settings.number("timeout", 60.0, minimum=0.001)
        retries = settings.integer("retries", 0, minimum=0)
        seed_text = settings.text("seed")
        max_tokens_text = settings.text("max_tokens")
        settings.finish()
        seed = settings.integer("seed", 0) if seed_text is not None else None
        max_tokens = (
            settings.integer("max_tokens", 0, minimum=1) if max_tokens_text is not None else None
        )
        template = DEFAULT_PROMPT
        if prompt_file is not None:
            try:
                template = Path(prompt_file).read_text("utf-8")
            except OSError as exc:
                raise EarmarkError(
                    f"cannot read the prompt file: {exc.strerror}",
                    file=prompt_file,
                    field="prompt_file",
                ) from None
        if "{text}" not in template:
            raise EarmarkError(
                "the prompt template has no {text} placeholder",
                file=prompt_file,
                field="prompt_file",
            )
        key = None
        if api_key_env is not None:
            key = os.environ.get(api_key_env)
            if not key:
                raise EarmarkError(
                    f"environment variable {api_key_env} is not set",
                    field="api_key_env",
                    hint=f"export {api_key_env}=<your key>",
                )
        return cls(
            endpoint=spec.model.rstrip("/"),
            model=model,
            temperature=temperature,
            prompt_template=template,
            prompt_file=prompt_file,
            api_key_env=api_key_env,
            api_key=key,
            timeout=timeout,
            retries=retries,
            seed=seed,
            max_tokens=max_tokens,
        )

    @property
    def prompt_sha256(self) -> str:
        return hashlib.sha256(self.prompt_template.encode("utf-8")).hexdigest()

    def describe(self) -> JSONObject:
        return {
            "kind": self.kind,
            "endpoint": self.endpoint,
            "url": f"{self.endpoint}/chat/completions",
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "prompt_file": self.prompt_file,
            "prompt_template": self.prompt_template,
            "prompt_sha256": self.prompt_sha256,
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            "retries": self.retries,
            "guarded": self.guarded,
            "note": "a served model's weights cannot be verified from here; record its digest",
        }

    def prompt(self, text: str, language: str | None) -> str:
        return self.prompt_template.replace("{language}", language or "und").replace("{text}", text)

    def process(self, text: str, language: str | None) -> ProcessorOutput:
        started = time.perf_counter()
        attempts = 0
        while True:
            attempts += 1
            try:
                content, reported, fingerprint = self._call(self.prompt(text, language))
            except _CallFailure as failure:
                retryable = failure.code == "connection_error" or failure.code.startswith(
                    "http_error:5"
                )
                if retryable and attempts <= self.retries:
                    continue
                return ProcessorOutput(
                    None,
                    failure.code,
                    time.perf_counter() - started,
                    {"attempts": attempts, "detail": failure.detail[:300]},
                )
            detail: dict[str, JSONValue] = {"attempts": attempts}
            if reported:
                detail["reported_model"] = reported
            if fingerprint:
                detail["system_fingerprint"] = fingerprint
            return ProcessorOutput(content.strip(), None, time.perf_counter() - started, detail)

    def _call(self, prompt: str) -> tuple[str, str | None, str | None]:
        body: dict[str, JSONValue] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
            "stream": False,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urlrequest.Request(
            f"{self.endpoint}/chat/completions",
            data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        try:
            with urlrequest.urlopen(req, timeout=self.timeout) as response:
                raw = response.read()
        except urlerror.HTTPError as exc:
            raise _CallFailure(f"http_error:{exc.code}", str(exc.reason)) from None
        except urlerror.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise _CallFailure("timeout", str(exc.reason)) from None
            raise _CallFailure("connection_error", str(exc.reason)) from None
        except TimeoutError as exc:
            raise _CallFailure("timeout", str(exc)) from None
        except (ConnectionError, OSError) as exc:
            raise _CallFailure("connection_error", str(exc)) from None
        return _parse(raw)

    def model_digest(self) -> ModelDigest:
        """The digest Ollama's `GET {server}/api/tags` gives the requested model (`name` or
        `model` equal to it, `:latest` implied), or null with the reason; never guessed."""
        root = self.endpoint.removesuffix("/v1")
        url = f"{root}/api/tags"
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            with urlrequest.urlopen(
                urlrequest.Request(url, headers=headers, method="GET"), timeout=self.timeout
            ) as response:
                raw = response.read(MAX_TAGS_BYTES + 1)
        except urlerror.HTTPError as exc:
            return ModelDigest(
                None, url, f"the server has no model list here (http_error:{exc.code})"
            )
        except (urlerror.URLError, TimeoutError, OSError) as exc:
            return ModelDigest(
                None, url, f"the model list could not be read ({type(exc).__name__})"
            )
        if len(raw) > MAX_TAGS_BYTES:
            return ModelDigest(None, url, f"the model list is over {MAX_TAGS_BYTES} bytes")
        return _digest_of(self.model, raw, url)

    def close(self) -> None:
        return None


def _digest_of(model: str, raw: bytes, url: str) -> ModelDigest:
    """The requested model's digest in an `/api/tags` answer (`{"models": [...]}`)."""
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return ModelDigest(None, url, "the model list is not JSON")
    models = payload.get("models") if isinstance(payload, dict) else None
    if not isinstance(models, list):
        return ModelDigest(None, url, "the answer lists no models (not an Ollama server?)")
    wanted = {model, model if ":" in model else f"{model}:latest"}
    digests = {
        entry.get("digest")
        for entry in models
        if isinstance(entry, dict) and {entry.get("name"), entry.get("model")} & wanted
    }
    if not digests:
        return ModelDigest(None, url, f"the server lists no model named {model[:80]!r}")
    if len(digests) > 1:
        return ModelDigest(None, url, "the server lists the model twice with different digests")
    (digest,) = digests
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        return ModelDigest(None, url, "the listed digest is not a SHA-256 hex digest")
    return ModelDigest(digest.removeprefix("sha256:"), url)


def _parse(raw: bytes) -> tuple[str, str | None, str | None]:
    """`choices[0].message.content`, the reported model and system fingerprint, or
    `malformed_response`."""
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _CallFailure("malformed_response", raw[:200].decode("utf-8", "replace")) from None
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise _CallFailure("malformed_response", "no choices[0].message.content") from None
    if not isinstance(content, str):
        raise _CallFailure("malformed_response", "message content is not a string")
    reported = payload.get("model")
    fingerprint = payload.get("system_fingerprint")
    return (
        content,
        reported if isinstance(reported, str) else None,
        fingerprint if isinstance(fingerprint, str) else None,
    )


def served_identity(
    requested: str,
    details: Iterable[Mapping[str, JSONValue]],
    digest: ModelDigest | None = None,
) -> dict[str, JSONValue]:
    """What the server reported over all calls: each distinct `model` and
    `system_fingerprint` with its number of calls, whether they stayed one, and (asked
    after the last call) the weights' digest where the server gives one."""
    details = list(details)
    models = Counter(str(d["reported_model"]) for d in details if d.get("reported_model"))
    prints = Counter(str(d["system_fingerprint"]) for d in details if d.get("system_fingerprint"))
    return {
        "requested_model": requested,
        "calls_reporting_model": sum(models.values()),
        "reported_models": dict(sorted(models.items())),
        "system_fingerprints": dict(sorted(prints.items())),
        "consistent": len(models) <= 1 and len(prints) <= 1,
        **({} if digest is None else digest.to_dict()),
        "note": "as reported by the server; weights behind an API cannot be hashed here",
    }
