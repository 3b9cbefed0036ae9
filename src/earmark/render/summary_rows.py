"""The rows of a results summary, shared by results.md and the terminal: one per scope and
view, and which scopes to show (a single language's figures once, not again as overall).
"""

from __future__ import annotations

from earmark.language_tags import NO_SINGLE_LANGUAGE
from earmark.results import ArmResult, MetricResult, ScopeResult
from earmark.results.display import fmt_rate, fmt_sdi


def n_scored(metric: MetricResult | None, block: ScopeResult) -> int:
    """The rows a view's figure was computed from: a view some rows lack (a script-folded
    view of a row it cannot fold) is scored on fewer rows than the block holds."""
    if metric is not None:
        return metric.n_scored
    return block.n_utterances


def block_rows(label: str, block: ScopeResult) -> list[list[str]]:
    """One table row per view: label, normaliser/view, N, WER, CER, S/D/I."""
    rows = []
    norm = block.normalizer.name
    if block.normalizer.differs_from_publication:
        norm += " †"
    # S/D/I and N follow the headline unit (the normaliser's first): CER for
    # crude-char-v1 although it reports WER too.
    char_first = block.normalizer.units[:1] == ("char",)
    for view, metrics in block.views.items():
        primary = " (primary)" if view == block.primary_view else ""
        wer = metrics.metrics.get("wer")
        cer = metrics.metrics.get("cer")
        main = (cer if char_first else wer) or wer or cer
        rows.append(
            [
                label,
                f"{norm} / {view}{primary}",
                str(n_scored(main, block)),
                fmt_rate(wer) if wer else "n/a (no word units)",
                fmt_rate(cer),
                fmt_sdi(main),
            ]
        )
    return rows


def summary_scopes(arm: ArmResult, language: str) -> list[tuple[str, ScopeResult]]:
    """The summary's (label, block) pairs: overall, then each language (`language` formats
    its label). A single language whose rows are the overall rows is shown once, as
    `overall (LABEL)` (`overall` for rows naming no language): the same figures twice
    only make a reader compare them."""
    languages = [(language.format(lang), block) for lang, block in arm.by_language.items()]
    if arm.overall is None:
        return languages
    if len(languages) == 1:
        (lang, block), (label, _) = next(iter(arm.by_language.items())), languages[0]
        if block_rows("", block) == block_rows("", arm.overall):
            return [("overall" if lang in NO_SINGLE_LANGUAGE else f"overall ({label})", block)]
    return [("overall", arm.overall), *languages]


def normalizer_choice_lines(arm: ArmResult) -> list[str]:
    """`normaliser: NAME (reason)` per language when no normaliser was named (the default
    policy chose), naming the language when there are several; none otherwise."""
    choice = arm.normalizer_choice
    if choice is None:
        return []
    several = len(arm.by_language) > 1
    return [
        f"normaliser: {block.normalizer.name}{f' for {lang}' if several else ''} ({reason})"
        for lang, block in arm.by_language.items()
        if (reason := choice.reasons.get(lang)) is not None
    ]
