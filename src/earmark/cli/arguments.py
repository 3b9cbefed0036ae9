"""Argument types of the CLI: numbers with a floor, shares, and output paths.

argparse accepts `--bootstrap -5` or `--out -` as readily as sensible values, and the
mistake then surfaces deep inside the library (a negative range, a folder named `-`).
These types refuse such values while parsing, so the user gets one line naming the
option, and exit 2, before anything is read or written. What counts as wrong is defined
once, in `earmark.api.values`, which the Python verbs check with too.
"""

from __future__ import annotations

import argparse
import math
import re
from typing import TypeVar

from earmark.api.values import below, outside_share, path_problem

T = TypeVar("T", int, float)


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
    return _checked(value, below(value, 0), text)


def positive_int(text: str) -> int:
    """A count where 0 makes no sense (resamples, repeats, threads, batch size)."""
    value = _integer(text)
    return _checked(value, below(value, 1), text)


def non_negative_float(text: str) -> float:
    """Seconds or resources where 0 means none (e.g. GPUs per Ray actor)."""
    value = _number(text)
    return _checked(value, below(value, 0), text)


def positive_float(text: str) -> float:
    """Seconds or resources that must be above zero (e.g. CPUs per Ray actor)."""
    value = _number(text)
    return _checked(value, below(value, 0, strict=True), text)


def share(text: str) -> float:
    """A share within [0, 1] (coverage, a fraction of rows)."""
    value = _number(text)
    return _checked(value, outside_share(value), text)


def output_path(text: str) -> str:
    """A folder or file to write: never empty, and never `-` (`earmark.api.values`).

    Repeated and trailing slashes are dropped (`d/` and `d//` are `d`), so the paths a
    command prints from it read `d/results.json`, never `d//results.json`."""
    problem = path_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return tidy_path(text)


def tidy_path(text: str) -> str:
    """`text` with runs of `/` made one and a trailing `/` dropped (the root stays `/`)."""
    if "//" not in text and not text.endswith("/"):
        return text
    tidy = re.sub(r"/{2,}", "/", text)
    return tidy.rstrip("/") or "/"


def _checked(value: T, problem: str | None, text: str) -> T:
    """`value`, or argparse's refusal naming what is wrong and the text as typed."""
    if problem is not None:
        shown = str(value) if isinstance(value, int) else text
        raise argparse.ArgumentTypeError(f"{problem}, got {shown}")
    return value
