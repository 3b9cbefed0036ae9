"""`earmark.multispeaker`: cpWER, ORC-WER, tcpWER, DI-cpWER, MIMO-WER and tcORC-WER of whole
recordings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_choice, check_count, check_out

if TYPE_CHECKING:
    from earmark.scoring.multispeaker_records import MultiSpeakerResult

#: `--metric`'s choices.
METRICS = ("cpwer", "orcwer", "tcpwer", "dicpwer", "mimower", "tcorcwer")


def multispeaker(
    references: PathArg,
    hypotheses: PathArg,
    *,
    normalizer: str,
    out: PathArg | None = None,
    metric: Sequence[str] = (),
    collar: float | None = None,
    format: str | None = None,
    bootstrap: int = 10_000,
    seed: int | None = None,
    exclude_unmatched: bool = False,
    bootstrap_generator: str | None = None,
) -> MultiSpeakerResult:
    """`earmark multispeaker REFERENCES HYPOTHESES --normalizer NAME`: multi-speaker WER
    through meeteval (cpWER unless `metric` names others), with a bootstrap CI over
    recordings (drawn by `bootstrap_generator`, None: the default; recorded). Returns the
    typed result; with `out`, multispeaker.json and multispeaker.md are written there."""
    from earmark.scoring.multispeaker import MultiSpeakerOptions, score_multispeaker
    from earmark.stats.settings import DEFAULT_GENERATOR, GENERATORS

    check_out(out)
    check_count("bootstrap", bootstrap, 0)
    check_choice("format", format, ("json", "stm"))
    check_choice("bootstrap_generator", bootstrap_generator, GENERATORS)
    for name in metric:
        check_choice("metric", name, METRICS)
    options = MultiSpeakerOptions(
        references,
        hypotheses,
        tuple(metric) or ("cpwer",),
        fmt=format,
        collar=collar,
        normalizer=normalizer,
        resamples=bootstrap,
        seed=seed,
        allow_extra=exclude_unmatched,
        out=out,
        generator=bootstrap_generator or DEFAULT_GENERATOR,
    )
    return score_multispeaker(options)
