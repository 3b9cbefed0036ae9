"""`en-v1`: the English normalisation of the Whisper paper, pinned.

The engine is `whisper_normalizer.english.EnglishTextNormalizer` (the Whisper paper's
normaliser): lower-case; bracketed and parenthesised spans, fillers (`uh`, `um`) and most
symbols removed; contractions expanded (`won't` -> `will not`, `it's` -> `it is`);
spelled-out numbers written as digits (`twenty-five` -> `25`, `one hundred and one` ->
`101`) and currency joined (`twenty five dollars` -> `$25`); British spellings made
American (`colour` -> `color`, `centre` -> `center`); titles expanded (`Mr.` ->
`mister`); diacritics removed (`café` -> `cafe`). Its output is then whitespace-collapsed.

The engine is imported on first use. Its behaviour is pinned by golden tests, so an
upgrade of `whisper_normalizer` that changes any output fails the test suite instead of
silently changing `en-v1` numbers. Outputs are memoised per text (references repeat
across arms, and the engine costs ~0.1 ms a call).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from earmark.errors import EarmarkError
from earmark.text.base import Unit, ViewPair
from earmark.text.registry import register


@functools.cache
def _engine() -> Callable[[str], str]:
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as exc:
        raise EarmarkError(
            "the en-v1 normaliser needs the package 'whisper-normalizer', which is not installed",
            hint="pip install whisper-normalizer",
        ) from exc
    engine: Callable[[str], str] = EnglishTextNormalizer()
    return engine


def engine_version() -> str | None:
    """The installed whisper_normalizer version (for provenance), or None if absent."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("whisper_normalizer")
    except PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1 << 16)
def english_view(text: str) -> str:
    """The `normalized` view of one text."""
    return " ".join(_engine()(text).split())


@register
class EnV1:
    """Whisper-paper English normalisation `en-v1`; frozen."""

    __slots__ = ()

    name: str = "en-v1"
    description: str = (
        "English (Whisper paper normaliser via whisper_normalizer): lower-case, punctuation "
        "removed, contractions expanded, numbers as digits, British spellings Americanised."
    )
    views: tuple[str, ...] = ("raw", "normalized")
    primary_view: str = "normalized"
    units: tuple[Unit, ...] = ("word", "char")
    comparison_only: bool = False

    def normalize_pair(self, reference: str, hypothesis: str) -> dict[str, ViewPair]:
        return {
            "raw": ViewPair(reference, hypothesis),
            "normalized": ViewPair(english_view(reference), english_view(hypothesis)),
        }
