"""Argument types of the CLI: numbers with a floor, shares, and output paths.

argparse accepts `--bootstrap -5` or `--out -` as readily as sensible values, and the
mistake then surfaces deep inside the library (a negative range, a folder named `-`).
These types refuse such values while parsing, so the user gets one line naming the
option, and exit 2, before anything is read or written.
"""

from __future__ import annotations

import argparse
import math


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """A count where 0 means none (e.g. --show-alignments 0, --ray-max-retries 0)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_int(text: str) -> int:
    """A count where 0 makes no sense (resamples, repeats, threads, batch size)."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """Seconds or resources where 0 means none (e.g. GPUs per Ray actor)."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    """Seconds or resources that must be above zero (e.g. CPUs per Ray actor)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def share(text: str) -> float:
    """A share within [0, 1] (coverage, a fraction of rows)."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within [0, 1], got {text}")
    return value


def output_path(text: str) -> str:
    """A folder or file to write: never empty, and never `-`.

    Many tools read `-` as standard output; earmark writes several files per command, so it
    would create a folder literally named `-` instead. Refuse it rather than surprise.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a path, got an empty string")
    if text.strip() == "-":
        raise argparse.ArgumentTypeError(
            "'-' (standard output) is not supported: name a folder or file"
        )
    if "\x00" in text:
        raise argparse.ArgumentTypeError("the path contains a NUL character")
    return text
