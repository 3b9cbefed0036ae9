"""Output post-processors (formatters, script conversion) and their evaluation (seed 001).

A processor turns a transcript into a candidate text; a lexical guard delivers it only
when the words are unchanged; the evaluation measures acceptance, punctuation F1 raw vs
delivered, CER equality and determinism with clip bootstrap intervals.
"""

from __future__ import annotations

from earmark.postprocess.evaluate import OutputRecord, SourceRow, run_processor, summarise
from earmark.postprocess.guard import GuardVerdict, LexicalGuard
from earmark.postprocess.processors import (
    Processor,
    ProcessorOutput,
    build_processor,
    parse_processor_spec,
)

__all__ = [
    "GuardVerdict",
    "LexicalGuard",
    "OutputRecord",
    "Processor",
    "ProcessorOutput",
    "SourceRow",
    "build_processor",
    "parse_processor_spec",
    "run_processor",
    "summarise",
]
