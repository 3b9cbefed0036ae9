"""Language codes for manifest rows, derived from the names corpora use for their subsets.

Manifests carry short BCP-47-ish codes (`zh`, `ga`, `en`) so normalisers can be picked by
language; the corpus's own name for the subset (`cmn_hans_cn`, `ga-IE`) is kept beside it.
"""

from __future__ import annotations

#: FLEURS configs whose language prefix is not the code we use. Every other config maps
#: to its prefix (`ga_ie` -> `ga`, `en_us` -> `en`, `fil_ph` -> `fil`).
FLEURS_CONFIG_LANGUAGES: dict[str, str] = {
    "cmn_hans_cn": "zh",
    "yue_hant_hk": "yue",
    "ga_ie": "ga",
    "en_us": "en",
    "es_419": "es",
    "pt_br": "pt",
    "nb_no": "nb",
}

#: Common Voice locales whose primary subtag alone would lose the variety that matters.
COMMON_VOICE_LOCALE_LANGUAGES: dict[str, str] = {
    "zh-CN": "zh",
    "zh-TW": "zh-TW",
    "zh-HK": "zh-HK",
    "yue": "yue",
}


def language_for_fleurs_config(config: str) -> str:
    """`cmn_hans_cn` -> `zh`; otherwise the config's prefix (`ga_ie` -> `ga`)."""
    key = config.strip().lower()
    return FLEURS_CONFIG_LANGUAGES.get(key, key.split("_", 1)[0])


def language_for_common_voice_locale(locale: str) -> str:
    """`ga-IE` -> `ga`, `zh-TW` kept as is (see the table)."""
    key = locale.strip()
    return COMMON_VOICE_LOCALE_LANGUAGES.get(key, key.split("-", 1)[0].lower())
