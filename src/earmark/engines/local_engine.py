"""What every engine over a local model shares, written once.

Checking a spec never imports the runtime (so `earmark engines --check` and plan
validation stay light); building an engine checks the runtime is installed before
anything else happens, with the one-line missing-extra error; and a model loads once.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from earmark.engines.base import ModelInfo
from earmark.engines.spec import ArmSpec

OptionsT = TypeVar("OptionsT")
SourceT = TypeVar("SourceT")


class LocalModelEngine(Generic[OptionsT, SourceT]):
    """Base of the engines that load one local model: subclasses give `check_spec`
    (parse and validate settings) and `require_runtime` (import or raise
    `MissingExtraError`), then call `_start_load()` first thing in `load()`."""

    def __init__(self, arm: ArmSpec, options: OptionsT, source: SourceT) -> None:
        self.arm = arm
        self.name = arm.name
        self.options = options
        self.source = source
        self._info: ModelInfo | None = None

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[OptionsT, SourceT]:
        raise NotImplementedError

    @classmethod
    def require_runtime(cls) -> None:
        raise NotImplementedError

    @classmethod
    def from_spec(cls, arm: ArmSpec) -> LocalModelEngine[OptionsT, SourceT]:
        options, source = cls.check_spec(arm)
        cls.require_runtime()
        return cls(arm, options, source)

    def _start_load(self) -> None:
        if self._info is not None:
            raise RuntimeError(f"arm '{self.name}' is already loaded; load() runs once")
