"""`earmark compare`: arms on the same utterances, against a reference arm and the humans.

The CLI is a thin mirror of `compare` (a test checks both give identical numbers). Only
utterance keys (id, repeat) present in every arm, with the same human reference text, are
compared (`pairing`); every other row is listed in `unpaired` with its arm and a reason.
The result is the typed `earmark.results.Comparison`; it becomes JSON only when written.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timezone

from earmark import __version__
from earmark.comparison.arm_figures import arm_figures
from earmark.comparison.determinism import arm_determinism
from earmark.comparison.diagnostics import ranking_flips
from earmark.comparison.inputs import CompareInputs, count_inputs
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

#: What one task of the comparison gives back: an arm's block and diagnostics, or a
#: challenger's paired differences.
_Done = tuple[ComparisonArm, JSONObject] | list[PairedDifference]


def compare_arms(
    arms: Mapping[str, ArmData], options: CompareOptions, *, jobs: int = 1
) -> Comparison:
    """compare.json's content for arms already loaded (`jobs` > 1 forks workers for the
    per-arm figures and the pairs; the numbers do not depend on it)."""
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
    inputs = count_inputs(arms, options, policy, reference, aligned)
    tasks = [("arm", name) for name in arms] + [
        ("pairs", name) for name in arms if name != reference
    ]
    done = fork_map(functools.partial(_work, inputs), tasks, jobs)
    arms_out: dict[str, ComparisonArm] = {}
    diagnostics: dict[str, dict[str, JSONValue]] = {}
    pair_lists: dict[str, list[PairedDifference]] = {}
    for (_, name), value in zip(tasks, done, strict=True):
        if isinstance(value, tuple):
            arms_out[name], diagnostics[name] = value[0], dict(value[1])
        else:
            pair_lists[name] = value
    _add_ranking_flips(diagnostics, inputs)
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
        n_shared=len(aligned.keys),
        n_clusters=inputs.n_clusters,
        arms_order=tuple(arms),
        unpaired=tuple(aligned.unpaired),
        arms=arms_out,
        pairs=tuple(apply_holm(pairs)),
        diagnostics=diagnostics,
        determinism=arm_determinism(arms),
    )


def _work(inputs: CompareInputs, task: tuple[str, str]) -> _Done:
    kind, name = task
    if kind == "arm":
        return arm_figures(inputs, name)
    return pair_figures(inputs, name)


def _add_ranking_flips(diagnostics: dict[str, dict[str, JSONValue]], inputs: CompareInputs) -> None:
    """Each arm's `normalizer_ranking_flip` block (it needs every arm's counts at once)."""
    for name, block in ranking_flips(inputs.vs_human, inputs.options.aggregate).items():
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
        generator=None if protocol is None else protocol.generator,
        quantile_rule=None if protocol is None else protocol.quantile_rule,
        paired_and_exact_match=(
            "numpy PCG64 percentile (the protocol publishes no paired procedure)"
            if options.python_random
            else None
        ),
    )
    written = tuple(k for k in _BOOTSTRAP_KEYS if getattr(record, k) is not None)
    return replace(record, key_order=written)
