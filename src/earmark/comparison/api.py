"""`earmark compare`: arms on the same utterances, against a reference arm and the humans.

The CLI is a thin mirror of `compare` (a test checks both give identical numbers). Only
utterance keys (id, repeat) present in every arm, with the same human reference text, are
compared (`pairing`); every other row is listed in `unpaired` with its arm and a reason.
The result is the typed `earmark.results.Comparison`; it becomes JSON only when written.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from earmark import __version__
from earmark.comparison.arm_figures import arm_figures
from earmark.comparison.determinism import arm_determinism
from earmark.comparison.diagnostics import (
    NormalizerRates,
    NormalizerViews,
    flips_from_rates,
    normalizer_rates,
    normalizer_views,
)
from earmark.comparison.inputs import CompareInputs, count_inputs, shared_columns
from earmark.comparison.loading import ArmData
from earmark.comparison.options import CompareOptions, policy_record
from earmark.comparison.pair_figures import pair_figures
from earmark.comparison.paired import apply_holm
from earmark.comparison.pairing import align_arms
from earmark.comparison.parallel import fork_map
from earmark.errors import EarmarkError
from earmark.results.arm import BootstrapRecord
from earmark.results.codec import JSONObject, JSONValue
from earmark.results.comparison import COMPARE_SCHEMA, Comparison, ComparisonArm, PairedDifference
from earmark.scoring.policy import NormalizerPolicy
from earmark.stats.settings import BootstrapSettings


def compare_arms(
    arms: Mapping[str, ArmData],
    options: CompareOptions,
    *,
    jobs: int = 1,
    release_rows: bool = False,
) -> Comparison:
    """compare.json's content for arms already loaded.

    `jobs` > 1 forks workers, each counting and figuring a group of challengers (the
    numbers do not depend on it). `release_rows` empties the arms' row columns once what
    the figures read of them is taken (`ArmData.release_rows`), so the workers do not
    inherit every arm's rows: for a caller that reads nothing more from them."""
    if not arms:
        raise EarmarkError("nothing to compare", hint="give at least one arm")
    reference = options.reference or next(iter(arms))
    if reference not in arms:
        raise EarmarkError(
            f"no arm named {reference!r}",
            field="reference",
            hint="arms: " + ", ".join(arms),
        )
    if options.protocol is not None:
        options.protocol.check_languages(lang for arm in arms.values() for lang in arm.languages)
    policy = NormalizerPolicy.parse(options.normalizer)
    aligned = align_arms(arms, reference)
    columns = shared_columns(arms, options, policy, reference, aligned)
    n_shared, unpaired = len(aligned.keys), tuple(aligned.unpaired)
    del aligned  # each arm's row positions: not needed once the columns are taken
    if release_rows:
        for arm in arms.values():
            arm.release_rows()
    # The reference arm is counted here, before the workers fork: every group reads it.
    base = count_inputs(columns, [])
    done = fork_map(
        functools.partial(_group_work, base), _groups(list(arms), reference, jobs), jobs
    )
    arms_out: dict[str, tuple[ComparisonArm, JSONObject]] = {}
    pair_lists: dict[str, list[PairedDifference]] = {}
    rates: dict[str, dict[str, NormalizerRates]] = {}
    for group in done:
        arms_out.update(group.arms)
        pair_lists.update(group.pairs)
        rates.update(group.rates)
    diagnostics = {name: dict(arms_out[name][1]) for name in arms}
    _add_ranking_flips(diagnostics, {name: rates[name] for name in arms}, done[0].views)
    # Overall first, then per language; challengers in the order given.
    pairs = sorted(
        (p for name in arms if name in pair_lists for p in pair_lists[name]),
        key=lambda p: (p.language is not None, p.language or ""),
    )
    return Comparison(
        schema=COMPARE_SCHEMA,
        protocol=None if options.protocol is None else options.protocol.to_dict(),
        earmark_version=__version__,
        created=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        reference_arm=reference,
        normalizer_policy=policy_record(policy),
        aggregate=options.aggregate,
        bootstrap=_bootstrap_record(options),
        n_shared=n_shared,
        n_clusters=columns.n_clusters,
        arms_order=tuple(arms),
        unpaired=unpaired,
        arms={name: arms_out[name][0] for name in arms},
        pairs=tuple(apply_holm(pairs)),
        diagnostics=diagnostics,
        determinism=arm_determinism(arms),
    )


def _groups(names: list[str], reference: str, jobs: int) -> list[list[str]]:
    """The arms each worker counts and figures: the challengers in up to `jobs` runs of
    consecutive arms, as even as they split; the reference arm's own figures go with
    the last (never longer) run."""
    challengers = [name for name in names if name != reference]
    n = max(1, min(jobs, len(challengers)))
    size, extra = divmod(len(challengers), n)
    groups: list[list[str]] = []
    at = 0
    for g in range(n):
        stop = at + size + (1 if g < extra else 0)
        groups.append(challengers[at:stop])
        at = stop
    groups[-1].insert(0, reference)
    return groups


@dataclass(frozen=True)
class _GroupDone:
    """What one group of arms gives back: each arm's block and diagnostics, each
    challenger's paired differences, each arm's rates for the ranking flips, and the
    normalisers' metrics and views those rates are on."""

    arms: dict[str, tuple[ComparisonArm, JSONObject]]
    pairs: dict[str, list[PairedDifference]]
    rates: dict[str, dict[str, NormalizerRates]]
    views: NormalizerViews


def _group_work(base: CompareInputs, names: list[str]) -> _GroupDone:
    """Count the group's arms (into this process's copy of the reference arm's table),
    then every figure of theirs."""
    inputs = count_inputs(base.columns, names, base)
    reference, aggregate = base.reference, base.options.aggregate
    rows = inputs.vs_human
    return _GroupDone(
        arms={name: arm_figures(inputs, name) for name in names},
        pairs={name: pair_figures(inputs, name) for name in names if name != reference},
        rates={name: normalizer_rates(rows[name], aggregate) for name in names},
        views=normalizer_views(rows[reference]),
    )


def _add_ranking_flips(
    diagnostics: dict[str, dict[str, JSONValue]],
    rates: Mapping[str, Mapping[str, NormalizerRates]],
    views: NormalizerViews,
) -> None:
    """Each arm's `normalizer_ranking_flip` block (it needs every arm's rates at once)."""
    for name, block in flips_from_rates(rates, views).items():
        diagnostics[name]["normalizer_ranking_flip"] = block
        flags = diagnostics[name]["flags"]
        if block["flagged"] and isinstance(flags, list):
            flags.append("normalizer_ranking_flip")


#: The bootstrap block's keys in compare.json's order (those set are written).
_BOOTSTRAP_KEYS = (
    "resamples",
    "seed",
    "level",
    "method",
    "unit",
    "seeding",
    "generator",
    "quantile_rule",
    "paired_and_exact_match",
)


def _bootstrap_record(options: CompareOptions) -> BootstrapRecord:
    """How every interval was drawn: earmark's PCG64 percentile, or a protocol's generator
    for the per-arm intervals."""
    b, protocol = options.bootstrap, options.protocol
    record = BootstrapRecord(
        resamples=b.resamples,
        seed=b.seed,
        level=b.level,
        method="percentile",
        unit="clip (rows sharing an utterance id are resampled together)",
        seeding="every interval re-seeds numpy PCG64 with this seed",
        generator=_generator(b) if protocol is None else protocol.generator,
        quantile_rule=None if protocol is None else protocol.quantile_rule,
        paired_and_exact_match=(
            "numpy PCG64 percentile (the protocol publishes no paired procedure)"
            if options.python_random
            else None
        ),
    )
    written = tuple(k for k in _BOOTSTRAP_KEYS if getattr(record, k) is not None)
    return replace(record, key_order=written)


def _generator(settings: BootstrapSettings) -> str | None:
    """The generator as results record it (`BootstrapSettings.to_dict`: where score names
    it, compare does)."""
    named = settings.to_dict().get("generator")
    return named if isinstance(named, str) else None
