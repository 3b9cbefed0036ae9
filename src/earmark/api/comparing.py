"""`earmark.compare` and `earmark.gap`: arms on the same utterances, one arm across two
corpora (`earmark compare ARM ...` and `earmark compare --gap RUN_A RUN_B`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_choice, check_count, check_out
from earmark.errors import EarmarkError

if TYPE_CHECKING:
    from earmark.results import Comparison, JSONValue


def compare(
    arms: Sequence[PathArg] = (),
    *,
    out: PathArg | None = None,
    reference: str | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    aggregate: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    mapsswe: str = "earmark",
    bootstrap_generator: str | None = None,
) -> Comparison:
    """`earmark compare ARM ...`: churn, WER against a reference arm and the humans,
    paired differences and tests, per language and slice. `mapsswe="sclite"` segments
    sclite's alignment for MAPSSWE, as `sctk sc_stats` does. `bootstrap_generator` draws
    every interval with another recorded generator (`earmark.stats.settings.GENERATORS`).

    Returns the typed `Comparison`, built in memory; with `out`, compare.json (byte for
    byte its `to_json()`) and compare.md are written there.
    """
    from earmark.file_comparison import compare as compare_arms
    from earmark.stats.settings import GENERATORS

    check_out(out)
    check_count("bootstrap", bootstrap, 0)
    check_choice("aggregate", aggregate, ("micro", "macro"))
    check_choice("mapsswe", mapsswe, ("earmark", "sclite"))
    check_choice("bootstrap_generator", bootstrap_generator, GENERATORS)
    if not arms:
        raise EarmarkError("give at least one ARM (or --gap RUN_A RUN_B)")
    return compare_arms(
        [os.fspath(a) for a in arms],
        normalizer=normalizer,
        reference=reference,
        aggregate=aggregate,  # type: ignore[arg-type]  # checked above
        resamples=bootstrap,
        seed=seed,
        out_dir=out,
        protocol=protocol,
        mapsswe=mapsswe,
        generator=bootstrap_generator,
    )


def gap(
    run_a: PathArg,
    run_b: PathArg,
    *,
    out: PathArg | None = None,
    arm: str | None = None,
    normalizer: str | None = None,
    aggregate: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
) -> dict[str, JSONValue]:
    """`earmark compare --gap RUN_A RUN_B`: one system's WER difference across two
    corpora, with a bootstrap CI. Returns gap.json's content (the results model has no
    type for it yet); with `out`, gap.json and gap.md are written there."""
    from earmark.file_comparison import gap as corpus_gap
    from earmark.scoring.protocols import resolve

    check_out(out)
    check_count("bootstrap", bootstrap, 0)
    check_choice("aggregate", aggregate, ("micro", "macro"))
    choice = resolve(
        None, normalizer=normalizer, aggregate=aggregate, resamples=bootstrap, seed=seed
    )
    return corpus_gap(
        os.fspath(run_a),
        os.fspath(run_b),
        normalizer=choice.normalizer,
        arm=arm,
        aggregate=choice.aggregate,
        resamples=choice.resamples,
        seed=choice.seed,
        out_dir=out,
    )
