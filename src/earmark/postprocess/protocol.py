"""What a post-processor promises (`Processor`), what one call returns, and how its
settings are read; the processors themselves (`command`, `openai_chat`,
`script_conversion`) build on this and `processors.build_processor` picks one by spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.results.codec import JSONObject, JSONValue


@dataclass(frozen=True)
class ProcessorOutput:
    """One call's result: the candidate text, or None with a reason code."""

    text: str | None
    reason: str | None = None
    seconds: float = 0.0
    detail: Mapping[str, JSONValue] = field(default_factory=dict)


class Processor(Protocol):
    """What `earmark.postprocess.evaluate` needs from a processor."""

    @property
    def kind(self) -> str:
        """`command`, `openai-chat`, `opencc`, ..."""
        ...

    @property
    def guarded(self) -> bool:
        """True when the lexical guard applies (formatters); False for script conversion."""
        ...

    def describe(self) -> JSONObject:
        """Everything that identifies this processor and changes its output (recorded)."""
        ...

    def process(self, text: str, language: str | None) -> ProcessorOutput:
        """Never raises for a per-text failure: returns a reason code instead."""
        ...

    def close(self) -> None: ...


class ProcessorSettings(SettingsReader):
    """`SettingsReader` whose errors name the processor spec instead of an arm."""

    def __init__(self, spec: ArmSpec, text: str) -> None:
        super().__init__(spec)
        self.spec_text = text

    def error(self, key: str, message: str, hint: str | None = None) -> EarmarkError:
        return EarmarkError(
            f"processor {self.spec_text!r}: setting '{key}': {message}", field=key, hint=hint
        )
