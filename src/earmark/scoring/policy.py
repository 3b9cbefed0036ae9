"""Which normaliser scores which language.

A corpus may mix languages (the demo has English, Mandarin and Irish); each language
must be scored with its own normaliser, and figures from different normalisers are never
summed into one number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from earmark.errors import EarmarkError
from earmark.language_tags import base_language
from earmark.text.base import Normalizer, ViewPair

#: Languages written without spaces between words (ISO 639-1 and -3 codes): Chinese,
#: Japanese, Thai, Lao, Khmer, Burmese. Split on spaces, their "word" is a phrase or a
#: sentence, so `auto` scores them in characters first.
CHARACTER_LANGUAGES: Mapping[str, str] = {
    "zh": "Chinese",
    "cmn": "Chinese",
    "ja": "Japanese",
    "jpn": "Japanese",
    "th": "Thai",
    "tha": "Thai",
    "lo": "Lao",
    "lao": "Lao",
    "km": "Khmer",
    "khm": "Khmer",
    "my": "Burmese",
    "mya": "Burmese",
}

#: The `auto` policy: the language-aware normaliser where we have one; for the other
#: languages without spaces between words, crude-v1's text scored in characters first
#: (`crude-char-v1`); else the crude comparison normaliser (which says it is
#: comparison-only).
AUTO_BY_LANGUAGE: Mapping[str, str] = {
    "zh": "zh-eval-v1",
    "cmn": "zh-eval-v1",
    "ga": "ga-v1",
    "en": "en-v1",
    **{code: "crude-char-v1" for code in CHARACTER_LANGUAGES if code not in ("zh", "cmn")},
}
AUTO_DEFAULT = "crude-v1"

#: A view's rendering for the mixed unit: (reference, hypothesis) -> ViewPair.
MixedPair = Callable[[str, str], ViewPair]


@dataclass(frozen=True)
class NormalizerPolicy:
    """`default` for any language not in `by_language` (keys are base codes: `zh`, `ga`)."""

    default: str
    by_language: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> NormalizerPolicy:
        """`en-v1` (one for all), `auto`, or `zh=zh-eval-v1,ga=ga-v1,*=crude-v1`.

        `*=auto` keeps `auto`'s choice for every language not named:
        `zh=zh-itn-v1,*=auto` changes Mandarin's normaliser only.
        """
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
                mapping[base_language(key.strip())] = value.strip()
        if default == "auto":
            return cls(default=AUTO_DEFAULT, by_language={**AUTO_BY_LANGUAGE, **mapping})
        return cls(default=default, by_language=mapping)

    def for_language(self, language: str | None) -> str:
        return self.by_language.get(base_language(language), self.default)

    def names(self) -> set[str]:
        return {self.default, *self.by_language.values()}

    def to_dict(self) -> dict[str, object]:
        return {"default": self.default, "by_language": dict(sorted(self.by_language.items()))}


def headline_unit(normalizer: Normalizer, languages: Iterable[str]) -> dict[str, str]:
    """The unit a block's headline figure counts and why, for its `normalizer` record.

    The unit is always the normaliser's first (what every reader of results takes as the
    headline); the reason names the languages that made it so.
    """
    unit = normalizer.units[0]
    names = sorted(
        {CHARACTER_LANGUAGES[c] for c in map(base_language, languages) if c in CHARACTER_LANGUAGES}
    )
    own = getattr(normalizer, "headline_unit_reason", None)
    if unit == "char" and names:
        reason = (
            f"{', '.join(names)}: {own}"
            if own
            else (
                f"{', '.join(names)}: written without spaces between words, so the character "
                "is the headline unit"
            )
        )
    elif unit == "char":
        reason = own or f"{normalizer.name} scores characters first"
    elif names:
        reason = (
            f"{normalizer.name} scores space-separated words first (the normaliser policy "
            f"chose it); {', '.join(names)} is written without spaces between words: "
            "`--normalizer auto` scores it in characters"
        )
    elif "char" in normalizer.units:
        reason = f"{normalizer.name} scores space-separated words first; CER is reported beside"
    else:
        reason = f"{normalizer.name} scores space-separated words"
    return {"headline_unit": unit, "headline_unit_reason": reason}


def mixed_unit(normalizer: Normalizer) -> tuple[str, MixedPair] | None:
    """(view, renderer) when `normalizer` also counts mixed units (CJK characters + other
    words) on that view, else None.

    `zh-eval-v1` is frozen, so its mixed unit is declared here rather than on it; a newer
    normaliser declares `mixed_view` and `mixed_pair` itself (`zh-itn-v1`).
    """
    if normalizer.name == "zh-eval-v1":
        from earmark.text.zh_mixed import mixed_pair

        return "normalized", mixed_pair
    view = getattr(normalizer, "mixed_view", None)
    render = getattr(normalizer, "mixed_pair", None)
    if isinstance(view, str) and callable(render):
        return view, render
    return None
