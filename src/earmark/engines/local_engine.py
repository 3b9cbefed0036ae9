"""What every engine over a local model shares, written once.

Checking a spec never imports the runtime (so `earmark engines --check` and plan
validation stay light); building an engine checks the runtime is installed before
anything else happens, with the one-line missing-extra error; and a model loads once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from earmark.engines.base import Clip, Hypothesis, ModelInfo
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


class ClipByClipEngine(LocalModelEngine[OptionsT, SourceT]):
    """Base of the local engines that decode one clip at a time (Vosk, FunASR): a batch is
    its clips in order, each through `_one`, once the model is loaded."""

    def __init__(self, arm: ArmSpec, options: OptionsT, source: SourceT) -> None:
        super().__init__(arm, options, source)
        self._model: Any = None

    def transcribe(self, clips: Sequence[Clip], language: str | None) -> list[Hypothesis]:
        if self._model is None or self._info is None:
            raise RuntimeError(f"arm '{self.name}': call load() before transcribe()")
        return [self._one(clip, language) for clip in clips]

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        raise NotImplementedError

    def close(self) -> None:
        self._model = None
