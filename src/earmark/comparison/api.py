"""`earmark compare`: arms on the same utterances, against a reference arm and the humans.

The CLI is a thin mirror of `compare` (a test checks both give identical numbers). Only
utterance keys (id, repeat) present in every arm, with the same human reference text, are
compared; every other row is listed in `unpaired` with its arm and a reason.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from earmark import __version__
from earmark.comparison.churn import exact_match_block, exact_matches
from earmark.comparison.diagnostics import ArmRows, diagnose_arm, dominant_script, ranking_flips
from earmark.comparison.loading import ArmData, RowKey
from earmark.comparison.paired import (
    Segments,
    apply_holm,
    paired_comparison,
    row_letters,
    row_segments,
)
from earmark.comparison.parallel import fork_map
from earmark.errors import EarmarkError
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.protocols import Protocol
from earmark.scoring.row_counts import (
    METRIC_FOR_UNIT,
    PRIMARY,
    UNIT_FOR_METRIC,
    PairTable,
    RowCounts,
    count_rows,
    null_metric,
    scope_metrics,
)
from earmark.stats.protocol_bootstrap import python_random_ci
from earmark.stats.settings import BootstrapSettings

SCHEMA_ID = "earmark.compare/1"
Aggregate = Literal["micro", "macro"]


@dataclass(frozen=True)
class CompareOptions:
    """Everything that changes a compare number; recorded in compare.json."""

    normalizer: str
    reference: str | None = None
    aggregate: Aggregate = "micro"
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    #: A published protocol (`--protocol`): with the python-random generator it draws the
    #: per-arm intervals; paired and exact-match intervals stay earmark's (PCG64).
    protocol: Protocol | None = None

    @property
    def python_random(self) -> bool:
        return self.protocol is not None and self.protocol.generator == "python-random"


@dataclass
class Alignment:
    """The shared keys in the reference arm's order, and each arm's row positions."""

    keys: list[RowKey]
    positions: dict[str, list[int]]
    unpaired: list[dict[str, Any]]


def align_arms(arms: Mapping[str, ArmData], reference: str) -> Alignment:
    """Keys in every arm with the reference arm's human text; the rest listed with reasons."""
    indexes = {name: arm.index() for name, arm in arms.items()}
    ref_arm = arms[reference]
    ref_index = indexes[reference]
    all_keys: dict[RowKey, None] = dict.fromkeys(ref_arm.keys)
    for arm in arms.values():
        all_keys.update(dict.fromkeys(arm.keys))
    shared: list[RowKey] = []
    unpaired: list[dict[str, Any]] = []
    for key in all_keys:
        missing = [name for name, idx in indexes.items() if key not in idx]
        if missing:
            for name, idx in indexes.items():
                if key in idx:
                    unpaired.append(
                        {
                            "arm": name,
                            "id": key[0],
                            "repeat": key[1],
                            "reason": f"absent from arm(s) {', '.join(missing)}",
                        }
                    )
            continue
        ref_text = ref_arm.references[ref_index[key]]
        differing = [
            name for name, idx in indexes.items() if arms[name].references[idx[key]] != ref_text
        ]
        if differing:
            for name in indexes:
                unpaired.append(
                    {
                        "arm": name,
                        "id": key[0],
                        "repeat": key[1],
                        "reason": "human reference text differs between arms "
                        f"({', '.join(differing)} vs {reference})",
                    }
                )
            continue
        shared.append(key)
    positions = {name: [indexes[name][k] for k in shared] for name in arms}
    return Alignment(shared, positions, unpaired)


def _codes(values: Sequence[str]) -> NDArray[np.int64]:
    seen: dict[str, int] = {}
    return np.fromiter(
        (seen.setdefault(v, len(seen)) for v in values), dtype=np.int64, count=len(values)
    )


def _scopes(
    languages: Sequence[str | None], slices: Sequence[tuple[str, ...]]
) -> tuple[dict[str, NDArray[np.int64]], dict[str, NDArray[np.int64]]]:
    by_lang: dict[str, list[int]] = defaultdict(list)
    by_slice: dict[str, list[int]] = defaultdict(list)
    for pos, (lang, sl) in enumerate(zip(languages, slices, strict=True)):
        by_lang[lang or "und"].append(pos)
        for s in sl:
            by_slice[s].append(pos)

    def arrays(groups: dict[str, list[int]]) -> dict[str, NDArray[np.int64]]:
        return {k: np.asarray(v, dtype=np.int64) for k, v in sorted(groups.items())}

    return arrays(by_lang), arrays(by_slice)


def _take(values: Sequence[Any], positions: list[int]) -> list[Any]:
    return [values[p] for p in positions]


def compare_arms(
    arms: Mapping[str, ArmData], options: CompareOptions, *, jobs: int = 1
) -> dict[str, Any]:
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
    policy = NormalizerPolicy.parse(options.normalizer)
    bootstrap = options.bootstrap
    aligned = align_arms(arms, reference)
    n = len(aligned.keys)
    ref_arm = arms[reference]
    ref_pos = aligned.positions[reference]
    ids = [k[0] for k in aligned.keys]
    labels = [f"{i}#{r}" for i, r in aligned.keys] if any(r for _, r in aligned.keys) else ids
    human = _take(ref_arm.references, ref_pos)
    languages = _take(ref_arm.languages, ref_pos)
    slices = _take(ref_arm.slices, ref_pos)
    codes = _codes(_take(ref_arm.clusters, ref_pos))
    n_clusters = int(codes.max()) + 1 if n else 0
    # Every row its own clip (no repeats): the bootstrap needs no cluster map (faster).
    clusters: NDArray[np.int64] | None = None if n_clusters == n else codes
    ref_hyps = _take(ref_arm.hypotheses, ref_pos)
    ref_hyp_texts = [h if h is not None else "" for h in ref_hyps]
    by_lang, by_slice = _scopes(languages, slices)

    table = PairTable(policy)
    vs_human: dict[str, RowCounts] = {}
    vs_ref: dict[str, RowCounts] = {}
    hyps: dict[str, list[str | None]] = {}
    for name, arm in arms.items():
        hyps[name] = _take(arm.hypotheses, aligned.positions[name])
        vs_human[name] = count_rows(table, human, hyps[name], languages)
        vs_ref[name] = count_rows(table, ref_hyp_texts, hyps[name], languages, kinds=(PRIMARY,))
    for rows in (*vs_human.values(), *vs_ref.values()):
        # Fill the caches once, before any worker forks (each would fill its own copy).
        rows.available()
        rows.available(unit="mixed")

    inputs = _CompareInputs(
        reference=reference,
        arms=arms,
        aligned=aligned,
        labels=labels,
        human=human,
        languages=languages,
        clusters=clusters,
        ref_hyps=ref_hyps,
        ref_scripts=[dominant_script(t) for t in human],
        by_lang=by_lang,
        by_slice=by_slice,
        table=table,
        vs_human=vs_human,
        vs_ref=vs_ref,
        hyps=hyps,
        bootstrap=bootstrap,
        aggregate=options.aggregate,
    )
    tasks = [("arm", name) for name in arms] + [
        ("pairs", name) for name in arms if name != reference
    ]
    done = fork_map(functools.partial(_work, inputs), tasks, jobs)
    arms_out: dict[str, Any] = {}
    diagnostics: dict[str, Any] = {}
    pair_lists: dict[str, list[dict[str, Any]]] = {}
    for (kind, name), value in zip(tasks, done, strict=True):
        if kind == "arm":
            arms_out[name], diagnostics[name] = value
        else:
            pair_lists[name] = value
    if options.python_random:
        for name in arms:
            _protocol_intervals(arms_out[name], vs_human[name], vs_ref[name], inputs)
    flips = ranking_flips(vs_human, options.aggregate)
    for name, block in flips.items():
        diagnostics[name]["normalizer_ranking_flip"] = block
        if block["flagged"]:
            diagnostics[name]["flags"].append("normalizer_ranking_flip")
    # Overall first, then per language; challengers in the order given.
    pairs = sorted(
        (p for name in arms if name in pair_lists for p in pair_lists[name]),
        key=lambda p: (p["language"] is not None, p["language"] or ""),
    )
    apply_holm(pairs)
    protocol: dict[str, Any] = {}
    generator: dict[str, Any] = {}
    if options.protocol is not None:
        protocol["protocol"] = options.protocol.to_dict()
        generator = {
            "generator": options.protocol.generator,
            "quantile_rule": options.protocol.quantile_rule,
        }
        if options.python_random:
            generator["paired_and_exact_match"] = (
                "numpy PCG64 percentile (the protocol publishes no paired procedure)"
            )
    return {
        "schema": SCHEMA_ID,
        **protocol,
        "earmark_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "reference_arm": reference,
        "normalizer_policy": policy.to_dict(),
        "aggregate": options.aggregate,
        "bootstrap": {
            **bootstrap.to_dict(),
            "method": "percentile",
            "unit": "clip (rows sharing an utterance id are resampled together)",
            "seeding": "every interval re-seeds numpy PCG64 with this seed",
            **generator,
        },
        "n_shared": n,
        "n_clusters": n_clusters,
        "arms_order": list(arms),
        "unpaired": aligned.unpaired,
        "arms": arms_out,
        "pairs": pairs,
        "diagnostics": diagnostics,
        "determinism": arm_determinism(arms),
    }


def arm_determinism(arms: Mapping[str, ArmData]) -> dict[str, Any]:
    """Which arms repeat their hypotheses exactly, and what that means for churn.

    Exact-match churn between two arms is meant to measure what the weights or settings
    changed; if an arm samples without a seed, part of it is sampling noise. An arm read from
    a plain predictions file carries no record, so it is `None` (unknown), never assumed.
    """
    per_arm: dict[str, Any] = {}
    for name, arm in arms.items():
        recorded = arm.recorded or {}
        value = recorded.get("deterministic")
        per_arm[name] = {
            "deterministic": value if isinstance(value, bool) else None,
            "note": recorded.get("determinism_note")
            or "not recorded (no earmark run results for this arm)",
        }
    doubtful = sorted(n for n, d in per_arm.items() if d["deterministic"] is not True)
    return {
        "arms": per_arm,
        "churn_includes_sampling_noise": bool(doubtful),
        "note": (
            "churn on "
            + ", ".join(doubtful)
            + " includes sampling noise (not deterministic, or not known to be): a rerun of "
            "the same arm can change hypotheses too"
            if doubtful
            else "every arm is deterministic: churn is what the arms change"
        ),
    }


@dataclass(frozen=True)
class _CompareInputs:
    """Everything the per-arm and per-pair work reads: handed to each task as its first
    argument (forked workers inherit it; nothing is pickled on the way in)."""

    reference: str
    arms: Mapping[str, ArmData]
    aligned: Alignment
    labels: list[str]
    human: list[str]
    languages: list[str | None]
    clusters: NDArray[np.int64] | None
    ref_hyps: list[str | None]
    ref_scripts: list[str | None]
    by_lang: dict[str, NDArray[np.int64]]
    by_slice: dict[str, NDArray[np.int64]]
    table: PairTable
    vs_human: dict[str, RowCounts]
    vs_ref: dict[str, RowCounts]
    hyps: dict[str, list[str | None]]
    bootstrap: BootstrapSettings
    aggregate: str
    #: unit -> table entry -> alignment letters, filled as pairs need them (in a forked
    #: worker, its own copy: shared by the challengers that worker handles).
    letter_memo: dict[str, dict[int, str]] = field(default_factory=dict)
    #: unit -> (reference arm's entry, challenger's entry) -> that row's MAPSSWE segments.
    segment_memo: dict[str, dict[tuple[int, int], Segments]] = field(default_factory=dict)

    def everything(self) -> NDArray[np.int64]:
        """Positions of every shared row (the overall scope)."""
        return np.arange(len(self.labels), dtype=np.int64)


def _work(inputs: _CompareInputs, task: tuple[str, str]) -> Any:
    kind, name = task
    if kind == "arm":
        return _arm_figures(inputs, name)
    return _pairs(inputs, name)


def _protocol_intervals(
    block: dict[str, Any], vs_human: RowCounts, vs_ref: RowCounts, inputs: _CompareInputs
) -> None:
    """Replace the per-arm intervals (overall, by language, by slice) with the protocol's
    python-random ones (`earmark.stats.protocol_bootstrap`), in place."""
    p = inputs.bootstrap
    scopes = [(block, inputs.everything())]
    scopes += [(block["by_language"][k], v) for k, v in inputs.by_lang.items()]
    scopes += [(block["by_slice"][k], v) for k, v in inputs.by_slice.items()]
    for scope, positions in scopes:
        for key, rows in (("vs_human", vs_human), ("vs_reference_arm", vs_ref)):
            for metric, figure in scope[key].items():
                if figure.get("value") is None or p.resamples == 0:
                    continue
                unit = UNIT_FOR_METRIC[metric]
                kept = positions[rows.available(unit=unit)[positions]]
                counts = rows.counts(unit)[kept]
                clusters = None if inputs.clusters is None else inputs.clusters[kept].tolist()
                ci = python_random_ci(
                    (counts[:, 0] + counts[:, 1] + counts[:, 2]).tolist(),
                    (counts[:, 0] + counts[:, 1] + counts[:, 3]).tolist(),
                    clusters=clusters,
                    resamples=p.resamples,
                    seed=p.seed,
                    level=p.level,
                )
                figure["ci95"] = None if ci is None else [ci.low, ci.high]


def _arm_figures(inputs: _CompareInputs, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One arm's compare.json block and its diagnostics."""
    bootstrap, clusters, aggregate = inputs.bootstrap, inputs.clusters, inputs.aggregate
    matches = exact_matches(inputs.hyps[name], inputs.ref_hyps)

    def scope_block(positions: NDArray[np.int64]) -> dict[str, Any]:
        return {
            "exact_match_vs_reference": exact_match_block(
                matches[positions], _sub(clusters, positions), bootstrap
            ),
            "vs_reference_arm": scope_metrics(
                inputs.vs_ref[name], positions, clusters, bootstrap, aggregate
            ),
            "vs_human": scope_metrics(
                inputs.vs_human[name], positions, clusters, bootstrap, aggregate
            ),
            "n": int(positions.size),
        }

    overall = scope_block(inputs.everything())
    block = {
        "source": inputs.arms[name].source,
        "exact_match_vs_reference": overall["exact_match_vs_reference"],
        "vs_reference_arm": overall["vs_reference_arm"],
        "vs_human": overall["vs_human"],
        "by_language": {k: scope_block(v) for k, v in inputs.by_lang.items()},
        "by_slice": {k: scope_block(v) for k, v in inputs.by_slice.items()},
        "differs_from_reference": [inputs.labels[p] for p in np.flatnonzero(~matches).tolist()],
    }
    pos = inputs.aligned.positions[name]
    arm = inputs.arms[name]
    diagnostics = diagnose_arm(
        ArmRows(
            ids=inputs.labels,
            references=inputs.human,
            hypotheses=inputs.hyps[name],
            languages=inputs.languages,
            audio_seconds=_take(arm.audio_seconds, pos),
            language_mismatch=_take(arm.language_mismatch, pos),
            vs_human=inputs.vs_human[name],
        ),
        inputs.ref_scripts,
    )
    return block, diagnostics


def _pairs(inputs: _CompareInputs, challenger: str) -> list[dict[str, Any]]:
    """Paired figures of one challenger vs the reference arm: overall, then per language."""
    reference, table, clusters = inputs.reference, inputs.table, inputs.clusters
    ref_rows = inputs.vs_human[reference]
    challenger_rows = inputs.vs_human[challenger]
    scopes: list[tuple[str | None, NDArray[np.int64]]] = [
        (None, inputs.everything()),
        *inputs.by_lang.items(),
    ]
    found: dict[str, _RowSegments] = {}
    out: list[dict[str, Any]] = []
    for language, positions in scopes:
        names = sorted({ref_rows.normalizers[p] for p in positions.tolist()})
        base = {"reference": reference, "challenger": challenger, "language": language}
        if len(names) != 1:
            reason = (
                f"rows are scored with different normalisers ({', '.join(names)}); "
                "see the per-language pairs"
                if names
                else "no rows"
            )
            for metric in ("wer", "cer"):
                out.append(
                    {
                        **base,
                        "metric": metric,
                        "view": None,
                        "normalizer": None,
                        **_null_pair(reason),
                    }
                )
            continue
        name = names[0]
        norm = table.normalizer(name)
        available = ref_rows.available()[positions] & challenger_rows.available()[positions]
        kept = positions[available]
        for unit in norm.units:
            segments = None
            if clusters is None:  # MAPSSWE takes one hypothesis per utterance
                if unit not in found:
                    found[unit] = _RowSegments(inputs, challenger, unit)
                segments = found[unit].get(kept)
            result = paired_comparison(
                ref_rows.counts(unit)[kept],
                challenger_rows.counts(unit)[kept],
                _sub(clusters, kept),
                inputs.bootstrap,
                inputs.aggregate,
                segments,
            )
            out.append(
                {
                    **base,
                    "metric": METRIC_FOR_UNIT[unit],
                    "view": norm.primary_view,
                    "normalizer": name,
                    **result,
                }
            )
    return out


class _RowSegments:
    """Each row's MAPSSWE segments for one challenger and unit, found once whichever
    scopes (overall, its language) hold the row. Letters and segments are memoised by
    table entry (and entry pair) in `inputs`: a row where the challenger agrees with the
    reference arm has one entry on both sides, so it is aligned and segmented once for
    every challenger a worker handles."""

    def __init__(self, inputs: _CompareInputs, challenger: str, unit: str) -> None:
        self.reference_entries = inputs.vs_human[inputs.reference].entries
        self.challenger_entries = inputs.vs_human[challenger].entries
        self.texts = (inputs.table.primary_reference, inputs.table.primary_hypothesis)
        self.letters = inputs.letter_memo.setdefault(unit, {})
        self.by_entries = inputs.segment_memo.setdefault(unit, {})
        self.unit = unit

    def get(self, rows: NDArray[np.int64]) -> list[Segments]:
        pairs = list(
            zip(
                self.reference_entries[rows].tolist(),
                self.challenger_entries[rows].tolist(),
                strict=True,
            )
        )
        todo = list({pair: None for pair in pairs if pair not in self.by_entries})
        if todo:
            xs, ys = (np.asarray(side, dtype=np.int64) for side in zip(*todo, strict=True))
            x = row_letters(*self.texts, xs, self.unit, self.letters)
            y = row_letters(*self.texts, ys, self.unit, self.letters)
            self.by_entries.update(zip(todo, row_segments(x, y), strict=True))
        return [self.by_entries[pair] for pair in pairs]


def _sub(clusters: NDArray[np.int64] | None, positions: NDArray[np.int64]) -> Any:
    return None if clusters is None else clusters[positions]


def _null_pair(reason: str) -> dict[str, Any]:
    return {
        "reference_value": None,
        "challenger_value": None,
        "difference": None,
        "ci95": None,
        "share_challenger_better": None,
        "share_tied": None,
        "sign_test_p": None,
        "wilcoxon_p": None,
        "mcnemar_p": None,
        "mapsswe_p": None,
        "null_reason": reason,
    }


__all__ = [
    "CompareOptions",
    "align_arms",
    "compare_arms",
    "null_metric",
]
