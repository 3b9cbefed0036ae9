"""Typed reading of an arm's string settings, with errors that name the arm and the key.

Every backend reads its settings through one `SettingsReader` and calls `finish()`, so an
unknown key or a bad value fails when the engine is built, before any model loads.
"""

from __future__ import annotations

from collections.abc import Sequence

from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


class SettingsReader:
    """Consumes settings one key at a time; `finish()` rejects whatever was not read."""

    def __init__(self, arm: ArmSpec) -> None:
        self.arm = arm
        self._values = dict(arm.settings)
        self._read: set[str] = set()

    def error(self, key: str, message: str, hint: str | None = None) -> EarmarkError:
        return EarmarkError(
            f"arm '{self.arm.name}' ({self.arm.backend}): setting '{key}': {message}",
            field=key,
            hint=hint,
        )

    def _raw(self, key: str) -> str | None:
        self._read.add(key)
        return self._values.get(key)

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self._raw(key)
        return default if value is None else value

    def choice(self, key: str, choices: Sequence[str], default: str) -> str:
        value = self._raw(key)
        if value is None:
            return default
        if value not in choices:
            raise self.error(key, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self._raw(key)
        if value is None:
            return default
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise self.error(key, f"{value!r} is not a boolean", hint="use true or false")

    def integer(self, key: str, default: int, minimum: int | None = None) -> int:
        value = self._raw(key)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            raise self.error(key, f"{value!r} is not an integer") from None
        if minimum is not None and number < minimum:
            raise self.error(key, f"{number} is below the minimum {minimum}")
        return number

    def number(self, key: str, default: float, minimum: float | None = None) -> float:
        value = self._raw(key)
        if value is None:
            return default
        return self._to_float(key, value, minimum)

    def numbers(self, key: str, default: tuple[float, ...]) -> tuple[float, ...]:
        """A single number or a comma-separated list (e.g. temperature fallback)."""
        value = self._raw(key)
        if value is None:
            return default
        parts = [p for p in value.split(",") if p.strip()]
        if not parts:
            raise self.error(key, "is empty")
        return tuple(self._to_float(key, p.strip(), 0.0) for p in parts)

    def _to_float(self, key: str, value: str, minimum: float | None) -> float:
        try:
            number = float(value)
        except ValueError:
            raise self.error(key, f"{value!r} is not a number") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise self.error(key, f"{value!r} is not a finite number")
        if minimum is not None and number < minimum:
            raise self.error(key, f"{number:g} is below the minimum {minimum:g}")
        return number

    def finish(self, known: Sequence[str] = ()) -> None:
        """Reject settings that no reader asked for, listing the ones that exist."""
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            accepted = sorted(self._read | set(known))
            raise self.error(
                unknown[0],
                "unknown setting for this backend",
                hint="accepted settings: " + ", ".join(accepted),
            )


def read_licence(reader: SettingsReader) -> tuple[str | None, str | None]:
    """The operator's licence assertion and where it comes from (`licence`, `licence_source`).

    Recorded as an assertion, never verified; a licence without its source is refused
    because an unattributed claim is worse than none.
    """
    licence = reader.text("licence")
    source = reader.text("licence_source")
    if licence and not source:
        raise reader.error("licence", "needs licence_source (where the licence is stated)")
    return licence, source
