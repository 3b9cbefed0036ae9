"""Arm specifications: which backend, which model, which settings, under which label.

An arm is written compactly on the command line as `BACKEND:MODEL?key=value&key=value`
(`faster-whisper:bundled:tiny.en?compute_type=int8`) or as a TOML table
`{backend = ..., model = ..., settings = {...}}`. Values stay strings here; each backend
converts and validates its own settings (`earmark.engines.settings`), so one parser
serves every backend and a cache key never depends on how a value was typed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlparse

from earmark.errors import EarmarkError
from earmark.results.codec import JSONValue

_KEY = re.compile(r"^[a-z_][a-z0-9_]*$")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class ArmSpec:
    """One arm: a backend, its model reference, string settings (sorted) and a label.

    `name` labels the arm in results and run folders; it is filesystem-safe and, when not
    given, derived from the rest so the same spec always gets the same name.
    """

    backend: str
    model: str
    settings: tuple[tuple[str, str], ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.settings, Mapping):
            object.__setattr__(self, "settings", _settings_tuple(self.settings, self.backend))
        else:
            object.__setattr__(self, "settings", tuple(sorted(self.settings)))
        if not self.backend:
            raise EarmarkError("an arm needs a backend", field="backend")
        if not self.name:
            object.__setattr__(self, "name", _derived_name(self))
        elif not _SAFE_NAME.match(self.name):
            raise EarmarkError(
                f"arm name {self.name!r} is not filesystem-safe",
                field="name",
                hint="use letters, digits, '.', '_' and '-' (at most 80 characters)",
            )

    @property
    def settings_dict(self) -> dict[str, str]:
        return dict(self.settings)

    def canonical(self) -> str:
        """A stable string for cache keys: backend, model and sorted settings, not the label.

        The label is left out on purpose: renaming an arm must not invalidate its outputs.
        """
        return json.dumps(
            {"backend": self.backend, "model": self.model, "settings": dict(self.settings)},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )

    def digest(self) -> str:
        """SHA-256 of `canonical()`."""
        return hashlib.sha256(self.canonical().encode("utf-8")).hexdigest()

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "name": self.name,
            "backend": self.backend,
            "model": self.model,
            "settings": dict(self.settings),
        }

    def compact(self) -> str:
        """The `BACKEND:MODEL?k=v&...` form (settings sorted, name included)."""
        pairs = [*self.settings, ("name", self.name)]
        return f"{self.backend}:{self.model}?" + "&".join(
            f"{k}={quote(v, safe='/:,.-_ {}@*+')}" for k, v in pairs
        )

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any], *, file: str | None = None) -> ArmSpec:
        """Build from a TOML/JSON table `{backend, model, settings = {...}, name}`.

        Non-string setting values (TOML ints, floats, booleans, lists) are turned into the
        strings the compact form would carry (`true`, `5`, `0.0,0.2`).
        """
        unknown = sorted(set(table) - {"backend", "model", "settings", "name"})
        if unknown:
            raise EarmarkError(
                f"unknown arm field(s) {', '.join(unknown)}",
                file=file,
                field=unknown[0],
                hint="an arm table has backend, model, settings and name",
            )
        backend = table.get("backend")
        model = table.get("model")
        if not isinstance(backend, str) or not backend:
            raise EarmarkError("an arm needs a backend string", file=file, field="backend")
        if not isinstance(model, str) or not model:
            raise EarmarkError(
                f"arm with backend {backend!r} needs a model string", file=file, field="model"
            )
        raw = table.get("settings") or {}
        if not isinstance(raw, Mapping):
            raise EarmarkError("arm settings must be a table", file=file, field="settings")
        settings = {str(k): _setting_text(v, str(k), file) for k, v in raw.items()}
        setting_name = settings.pop("name", "")
        name = table.get("name") or setting_name
        if not isinstance(name, str):
            raise EarmarkError("arm name must be a string", file=file, field="name")
        return cls(
            backend=backend, model=model, settings=_settings_tuple(settings, backend), name=name
        )


def parse_arm_spec(spec: str) -> ArmSpec:
    """Parse `BACKEND:MODEL?key=value&...`.

    The settings part is the text after the last `?`, and only when every `&`-separated
    piece is `key=value` with a lower-case key; otherwise the whole rest is the model
    (so a shell command or URL containing `?` survives). Values are percent-decoded.
    """
    backend, sep, rest = spec.partition(":")
    backend = backend.strip()
    if not sep or not backend or not rest:
        raise EarmarkError(
            f"arm spec {spec!r} is not BACKEND:MODEL",
            field="arm",
            hint="e.g. faster-whisper:bundled:tiny.en?compute_type=int8",
        )
    model, settings = rest, {}
    head, qmark, tail = rest.rpartition("?")
    if qmark and tail and _looks_like_settings(tail):
        model = head
        for piece in tail.split("&"):
            key, _, value = piece.partition("=")
            if key in settings:
                raise EarmarkError(
                    f"arm spec {spec!r} sets {key!r} twice", field=key, hint="give each key once"
                )
            settings[key] = unquote(value)
    if not model:
        raise EarmarkError(f"arm spec {spec!r} has no model", field="model")
    name = settings.pop("name", "")
    return ArmSpec(
        backend=backend, model=model, settings=_settings_tuple(settings, backend), name=name
    )


def _looks_like_settings(tail: str) -> bool:
    pieces = tail.split("&")
    return all("=" in p and _KEY.match(p.partition("=")[0]) for p in pieces)


def _settings_tuple(settings: Mapping[str, Any], backend: str) -> tuple[tuple[str, str], ...]:
    for key, value in settings.items():
        if not isinstance(key, str) or not _KEY.match(key):
            raise EarmarkError(
                f"arm setting key {key!r} is not a lower-case identifier", field=str(key)
            )
        if not isinstance(value, str):
            raise EarmarkError(
                f"arm setting {key!r} of backend {backend!r} must be a string here", field=key
            )
    return tuple(sorted(settings.items()))


def _setting_text(value: Any, key: str, file: str | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, (list, tuple)) and all(
        isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value
    ):
        return ",".join(str(v) for v in value)
    raise EarmarkError(
        f"arm setting {key!r} has a value of type {type(value).__name__}",
        file=file,
        field=key,
        hint="use a string, number, boolean or list of numbers",
    )


def _derived_name(arm: ArmSpec) -> str:
    """`<backend>-<model stem>[-<compute type>]-<8 hex of the canonical spec>`."""
    stem = _model_stem(arm.backend, arm.model)
    parts = [arm.backend, stem]
    weight = dict(arm.settings).get("compute_type")
    if weight:
        parts.append(weight)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(p for p in parts if p)).strip("-._")
    slug = re.sub(r"-{2,}", "-", slug)[:60].rstrip("-._") or "arm"
    return f"{slug}-{arm.digest()[:8]}"


def _model_stem(backend: str, model: str) -> str:
    if model.startswith("bundled:"):
        return model.split(":", 1)[1]
    if "://" in model:
        return urlparse(model).hostname or "endpoint"
    if backend == "command":
        first = model.split()[0] if model.split() else model
        return first.rstrip("/").rsplit("/", 1)[-1]
    return model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
