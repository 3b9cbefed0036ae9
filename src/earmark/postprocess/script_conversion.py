"""Chinese script conversion (OpenCC) as an output post-processor (seed 000).

Seed 000 makes the output script (Simplified/Traditional) a post-processor choice, not a
second set of recogniser weights, and asks every run to record the OpenCC version and
whether conversion actually occurred. So each output records `changed`, and the
processor record carries the OpenCC version and configuration.

Not guarded: conversion changes characters by design (`软件` → `軟件`, and `s2twp` even
changes vocabulary: `软件` → `軟體`), so the lexical guard would reject it. It is judged
by CER against the reference instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.postprocess.protocol import ProcessorOutput, ProcessorSettings
from earmark.results.codec import JSONObject

#: Configurations offered as processors (`earmark.text.script.CONFIGS`).
PROCESSOR_CONFIGS = ("s2t", "t2s", "s2tw", "s2twp", "s2hk")


@dataclass(frozen=True)
class ScriptProcessor:
    config: str
    opencc_version: str | None
    kind: str = "opencc"
    guarded: bool = False

    @classmethod
    def from_spec(cls, spec: ArmSpec, settings: ProcessorSettings) -> ScriptProcessor:
        from earmark.text.script import convert, opencc_version

        settings.finish()
        config = spec.model
        if config not in PROCESSOR_CONFIGS:
            raise EarmarkError(
                f"unknown OpenCC configuration {config!r}",
                field="processor",
                hint=f"use one of {', '.join(PROCESSOR_CONFIGS)}, e.g. opencc:s2t",
            )
        convert("", config)  # raises a clear EarmarkError when OpenCC does not load
        return cls(config, opencc_version())

    def describe(self) -> JSONObject:
        return {
            "kind": self.kind,
            "config": self.config,
            "opencc_version": self.opencc_version,
            "guarded": self.guarded,
            "note": "script conversion changes characters by design: not lexically guarded; "
            "each output records whether conversion changed the text",
        }

    def process(self, text: str, language: str | None) -> ProcessorOutput:
        from earmark.text.script import convert

        started = time.perf_counter()
        converted = convert(text, self.config)
        return ProcessorOutput(
            converted, None, time.perf_counter() - started, {"changed": converted != text}
        )

    def close(self) -> None:
        return None
