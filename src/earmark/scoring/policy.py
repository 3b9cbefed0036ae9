"""Which normaliser scores which language.

A corpus may mix languages (the demo has English, Mandarin and Irish); each language
must be scored with its own normaliser, and figures from different normalisers are never
summed into one number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from earmark.errors import EarmarkError

#: The `auto` policy: the language-aware normaliser where we have one, else the crude
#: comparison normaliser (which says it is comparison-only).
AUTO_BY_LANGUAGE: Mapping[str, str] = {
    "zh": "zh-eval-v1",
    "cmn": "zh-eval-v1",
    "ga": "ga-v1",
    "en": "en-v1",
}
AUTO_DEFAULT = "crude-v1"


def _base_language(language: str | None) -> str:
    if not language:
        return ""
    return language.replace("_", "-").split("-")[0].lower()


@dataclass(frozen=True)
class NormalizerPolicy:
    """`default` for any language not in `by_language` (keys are base codes: `zh`, `ga`)."""

    default: str
    by_language: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> NormalizerPolicy:
        """`en-v1` (one for all), `auto`, or `zh=zh-eval-v1,ga=ga-v1,*=crude-v1`."""
        text = text.strip()
        if text == "auto":
            return cls(default=AUTO_DEFAULT, by_language=dict(AUTO_BY_LANGUAGE))
        if "=" not in text:
            return cls(default=text)
        default = AUTO_DEFAULT
        mapping: dict[str, str] = {}
        for part in text.split(","):
            key, sep, value = part.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise EarmarkError(
                    f"bad normaliser policy part {part!r}",
                    field="normalizer",
                    hint="use NAME, auto, or LANG=NAME,...,*=NAME",
                )
            if key.strip() == "*":
                default = value.strip()
            else:
                mapping[_base_language(key.strip())] = value.strip()
        return cls(default=default, by_language=mapping)

    def for_language(self, language: str | None) -> str:
        return self.by_language.get(_base_language(language), self.default)

    def names(self) -> set[str]:
        return {self.default, *self.by_language.values()}

    def to_dict(self) -> dict[str, object]:
        return {"default": self.default, "by_language": dict(sorted(self.by_language.items()))}
