"""Chinese script detection and conversion with OpenCC (Simplified <-> Traditional).

OpenCC is imported on first use, and each converter is built once, when first used, and
cached: a converter loads its dictionaries (~10-25 ms), a conversion then takes ~2 µs.
If OpenCC cannot be imported, `t2s` cannot be loaded or a configuration is not
installed, `opencc_available()` is False and the callers report their script-aware
figures as null rather than inventing them.

Script detection uses OpenCC's own dictionaries, so it agrees with the conversion:

- a character position is *Traditional-only* if `t2s` changes it;
- it is *Simplified-only* if every Traditional standard OpenCC knows (`s2tw` Taiwan,
  `s2hk` Hong Kong, `s2t` OpenCC's own standard) changes it. Requiring all three keeps
  characters that one Traditional standard uses as they are (`台` in `台灣`, `裡`, `吃`)
  from counting as Simplified.

A text with only Traditional-only positions is `hant`, only Simplified-only `hans`, both
`mixed`, Han characters but neither `neutral` (e.g. `你好`, `台北`), and no Han character
at all `none`.
"""

from __future__ import annotations

import functools
import re
from types import ModuleType
from typing import Any, Literal

from earmark.errors import EarmarkError

Script = Literal["hans", "hant", "neutral", "mixed", "none"]

#: Configurations `convert` accepts. `s2twp` also converts Taiwan vocabulary (软件 ->
#: 軟體): a lexical change, so the evaluation views never use it.
CONFIGS = ("s2t", "t2s", "s2tw", "s2twp", "s2hk")
#: Traditional standards, in order of preference when a reference fits several equally:
#: Taiwan and Hong Kong orthography are what Traditional references are written in;
#: OpenCC's own standard (`裏`, `麪`, `爲`) wins only when the reference follows it.
TRADITIONAL_CONFIGS = ("s2tw", "s2hk", "s2t")

#: Han ideographs: CJK Unified Ideographs and extensions, compatibility ideographs, 〇.
_HAN_CLASS = (
    "[\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\U00030000-\U0003134f]"
)


@functools.cache
def _han() -> re.Pattern[str]:
    """`_HAN_CLASS` compiled on first use (~3 ms): folding a pair to the reference's script,
    as `earmark score`'s self-probes do, never detects a script."""
    return re.compile(_HAN_CLASS)


_INSTALL_HINT = "pip install opencc (the C++ binding; not opencc-python-reimplemented)"


@functools.cache
def _opencc() -> ModuleType | None:
    """The `opencc` module, or None when it cannot be imported (remembered, not retried)."""
    try:
        import opencc
    except ImportError:
        return None
    return opencc


@functools.cache
def _converter(config: str) -> Any | None:
    module = _opencc()
    if module is None:
        return None
    try:
        return module.OpenCC(f"{config}.json")
    except Exception:  # noqa: BLE001 - a broken dictionary install means "not loaded"
        return None


@functools.cache
def opencc_available() -> bool:
    """True when OpenCC imports, `t2s` loads and every other configuration in `CONFIGS`
    is installed; those are built on first use.

    Building a converter loads its dictionaries (~10-25 ms each); the Traditional ones
    are needed only for a reference in Traditional script, and `s2twp` never by a view,
    so checking that they are installed, not loading all five, keeps `earmark score`'s
    start-up (its probes score a Mandarin pair) from paying ~85 ms for them. An OpenCC
    without a list of its installed configurations has them all loaded, as before.
    """
    module = _opencc()
    if module is None or _converter("t2s") is None:
        return False
    installed = getattr(module, "CONFIGS", None)
    if not isinstance(installed, list | tuple):
        return all(_converter(config) is not None for config in CONFIGS)
    return all(f"{config}.json" in installed for config in CONFIGS)


def opencc_version() -> str | None:
    """The installed OpenCC version (for provenance), or None when it is not importable."""
    module = _opencc()
    if module is None:
        return None
    return str(getattr(module, "__version__", "unknown"))


def convert(text: str, config: str) -> str:
    """`text` converted by the OpenCC configuration `config` (one of `CONFIGS`)."""
    if config not in CONFIGS:
        raise EarmarkError(
            f"unknown OpenCC configuration {config!r}; known: {', '.join(CONFIGS)}",
            field="config",
        )
    converter = _converter(config)
    if converter is None:
        raise EarmarkError(
            f"OpenCC script conversion ({config}) is unavailable: opencc did not load",
            hint=_INSTALL_HINT,
        )
    result: str = converter.convert(text)
    return result


def detect_script(text: str) -> Script:
    """Which Chinese script `text` is written in, judged by OpenCC (see module docstring)."""
    if not _han().search(text):
        return "none"
    simplified = convert(text, "t2s")
    traditional_only = _changed_positions(text, simplified)
    simplified_only = _simplified_only_positions(text)
    if traditional_only and simplified_only:
        return "mixed"
    if traditional_only:
        return "hant"
    if simplified_only:
        return "hans"
    return "neutral"


@functools.lru_cache(maxsize=1 << 16)
def fold_config(reference: str) -> str | None:
    """The configuration that folds text to the reference's script, or None when mixed.

    `hans`, `neutral` and `none` fold with `t2s`, which leaves such a reference unchanged.
    `hant` folds with the Traditional standard whose conversion of the reference's
    Simplified form (`t2s(reference)`) reproduces the reference best, i.e. the standard
    the reference is written in; ties go to `s2tw`, then `s2hk`, then `s2t`. So the Taiwan
    reference `我們在台灣的公司裡面` folds with `s2tw` (`里` -> `裡`, as the reference
    writes it; `s2hk` would give `裏`), and `這裏的麪包` with `s2hk`/`s2t` spelling.
    Both sides are then converted with it; the reference may change too (`台` -> `臺`
    under `s2tw`), identically on both sides.
    """
    simplified = convert(reference, "t2s")
    if simplified == reference:  # no Traditional-only character: hans, neutral or none
        return "t2s"
    if _simplified_only_positions(reference):
        return None
    return min(
        TRADITIONAL_CONFIGS,
        key=lambda config: len(_changed_positions(reference, convert(simplified, config))),
    )


def _simplified_only_positions(text: str) -> set[int]:
    common: set[int] | None = None
    for config in TRADITIONAL_CONFIGS:
        changed = _changed_positions(text, convert(text, config))
        common = changed if common is None else common & changed
        if not common:
            return set()
    return common or set()


def _changed_positions(before: str, after: str) -> set[int]:
    """Positions where a conversion changed the text; every position if lengths differ."""
    if before == after:
        return set()
    if len(before) != len(after):
        return set(range(max(len(before), len(after))))
    return {i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
