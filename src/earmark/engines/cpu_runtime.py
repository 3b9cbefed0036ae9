"""Which CPU code paths a runtime really used, and how to pin them.

Decoding numerics differ between instruction sets and GEMM backends: on one AMD machine,
Whisper tiny.en int8 at temperature 0 decoded a demo clip correctly with CTranslate2 forced
to AVX512 and into a `555-0-I-I-I…` loop with AVX2 (the runtime's own choice there). A
result is only reproducible if the code path is recorded, and the demo pins it. The facts
come from the runtime's own start-up log (CTranslate2 prints its selected ISA and GEMM
backends at INFO level), never from a guess; what could not be read is `None`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from earmark.results.codec import JSONValue

T = TypeVar("T")

#: CPU feature flags that change which kernels numeric libraries pick.
NUMERIC_FLAGS = (
    "sse4_1",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_int8",
    "asimd",
    "asimddp",
    "sve",
)

#: Environment variables that pin code paths; set by `pin_environment`, always recorded.
PIN_VARIABLES = (
    "CT2_FORCE_CPU_ISA",
    "CT2_USE_MKL",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
    "MKL_CBWR",
    "MKL_ENABLE_INSTRUCTIONS",
    "OPENBLAS_CORETYPE",
)

#: numpy's OpenBLAS kernel family for each pinned ISA (its matrix products feed the features).
OPENBLAS_CORETYPES = {"AVX2": "Haswell", "AVX512": "SkylakeX", "AVX": "Sandybridge"}


def cpu_flags(cpuinfo: str | None = None) -> list[str] | None:
    """The numeric-relevant flags of this CPU (from /proc/cpuinfo), sorted; None off Linux."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return None
    for line in cpuinfo.split("\n"):
        key = line.split(":", 1)[0].strip().lower()
        if key in ("flags", "features"):
            present = set(line.split(":", 1)[1].split())
            return sorted(f for f in NUMERIC_FLAGS if f in present)
    return None


def pin_environment(isa: str) -> dict[str, str]:
    """Environment that makes CTranslate2 (and the oneDNN/MKL kernels under it) take one code
    path on any x86-64 CPU that has it: the ISA forced, MKL off (so Intel and AMD machines use
    the same oneDNN GEMM), oneDNN capped at the same ISA, and numpy's OpenBLAS on the same
    kernel family. Must be set before the runtime (and, for OpenBLAS, numpy) loads.
    """
    isa = isa.upper()
    env = {
        "CT2_FORCE_CPU_ISA": isa,
        "CT2_USE_MKL": "0",
        "ONEDNN_MAX_CPU_ISA": {"AVX512": "AVX512_CORE"}.get(isa, isa),
    }
    if isa in OPENBLAS_CORETYPES:  # read when numpy loads: reaches spawned arm processes
        env["OPENBLAS_CORETYPE"] = OPENBLAS_CORETYPES[isa]
    return env


def supports_isa(isa: str, flags: list[str] | None) -> bool:
    """Whether this CPU can run the pinned ISA at all (x86-64 only; GENERIC always)."""
    isa = isa.upper()
    if isa == "GENERIC":
        return True
    need = {"AVX": {"avx"}, "AVX2": {"avx2", "fma"}, "AVX512": {"avx512f", "avx512bw"}}.get(isa)
    return need is not None and flags is not None and need <= set(flags)


def pinned_variables() -> dict[str, str]:
    """The code-path variables set in this process (recorded beside every result)."""
    return {k: os.environ[k] for k in PIN_VARIABLES if k in os.environ}


_LOG_FIELDS = {
    "cpu": re.compile(r"\] CPU: (.+)$"),
    "isa": re.compile(r"Selected ISA: (\S+)"),
    "mkl": re.compile(r"Use Intel MKL: (\S+)"),
    "sgemm_backend": re.compile(r"SGEMM backend: ([^\s(]+)"),
    "gemm_s8_backend": re.compile(r"GEMM_S8 backend: ([^\s(]+)"),
}


def parse_ctranslate2_log(text: str) -> dict[str, JSONValue]:
    """Read CTranslate2's INFO start-up lines into fields (absent lines give None)."""
    found: dict[str, str | None] = dict.fromkeys(_LOG_FIELDS)
    for line in text.split("\n"):
        for key, pattern in _LOG_FIELDS.items():
            match = pattern.search(line)
            if match and found[key] is None:
                found[key] = match.group(1).strip()
    fields: dict[str, JSONValue] = dict(found)
    mkl = found["mkl"]
    if mkl is not None:
        fields["mkl"] = mkl.lower() == "true"
    return fields


def with_ctranslate2_report(build: Callable[[], T]) -> tuple[T, dict[str, JSONValue]]:
    """Run `build` (which constructs a CTranslate2 model) while capturing the runtime's
    INFO log from file descriptor 2, and return what it says about the CPU code path.

    CTranslate2 logs its ISA and backends once per process, at the first model it builds;
    a later build reports nothing and the fields stay None (`source` says so). Lines that
    are not INFO (warnings, errors) are passed back to stderr.
    """
    import ctranslate2

    previous = ctranslate2.get_log_level()
    ctranslate2.set_log_level(logging.INFO)
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            result = build()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            ctranslate2.set_log_level(previous)
        sink.seek(0)
        text = sink.read().decode("utf-8", errors="replace")
    passed = [line for line in text.split("\n") if line and "] [info] " not in line]
    if passed:
        sys.stderr.write("\n".join(passed) + "\n")
    report = parse_ctranslate2_log(text)
    report["source"] = "runtime log" if report["isa"] else "not logged (runtime already started)"
    report["pinned"] = dict[str, JSONValue](pinned_variables())
    return result, report
