"""The counted rows every per-arm and per-pair figure of a comparison reads.

Built once in the parent process (every row normalised and counted), then handed to each
task as its first argument: forked workers inherit it, so nothing is pickled on the way in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from earmark.comparison.diagnostics import DiagnosticsMemo, dominant_script
from earmark.comparison.loading import ArmData
from earmark.comparison.options import CompareOptions
from earmark.comparison.paired import SegmentColumns, Segments
from earmark.comparison.pairing import SharedRows, cluster_codes, row_scopes
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.row_counts import PRIMARY, PairTable, RowCounts, count_rows

IntArray = NDArray[np.int64]
T = TypeVar("T")


def take(values: Sequence[T], positions: list[int]) -> list[T]:
    """`values` at `positions`, in that order."""
    return [values[p] for p in positions]


@dataclass(frozen=True)
class CompareInputs:
    """Everything the per-arm and per-pair work reads."""

    reference: str
    arms: Mapping[str, ArmData]
    aligned: SharedRows
    options: CompareOptions
    #: Each shared row's label in figures and lists: its id, or `id#repeat` with repeats.
    labels: list[str]
    human: list[str]
    languages: list[str | None]
    #: Each row's clip code; None when every row is its own clip (the bootstrap is faster).
    clusters: IntArray | None
    n_clusters: int
    ref_hyps: list[str | None]
    ref_scripts: list[str | None]
    by_lang: dict[str, IntArray]
    by_slice: dict[str, IntArray]
    table: PairTable
    vs_human: dict[str, RowCounts]
    vs_ref: dict[str, RowCounts]
    hyps: dict[str, list[str | None]]
    #: unit -> table entry -> alignment letters, filled as pairs need them (in a forked
    #: worker, its own copy: shared by the challengers that worker handles).
    letter_memo: dict[str, dict[int, str]] = field(default_factory=dict)
    #: unit -> the reference arm's MAPSSWE segments against itself, every row of the unit.
    segment_memo: dict[str, SegmentColumns] = field(default_factory=dict)
    #: unit -> (reference arm's entry, challenger's entry) -> that row's MAPSSWE segments.
    pair_segment_memo: dict[str, dict[tuple[int, int], Segments]] = field(default_factory=dict)

    #: Scripts and loop flags the diagnostics found (per process, like the memos above).
    diagnostics_memo: DiagnosticsMemo = field(default_factory=DiagnosticsMemo)

    def everything(self) -> IntArray:
        """Positions of every shared row (the overall scope)."""
        return np.arange(len(self.labels), dtype=np.int64)

    def sub_clusters(self, positions: IntArray) -> IntArray | None:
        """The clip codes of `positions` (None when every row is its own clip)."""
        return None if self.clusters is None else self.clusters[positions]


def count_inputs(
    arms: Mapping[str, ArmData],
    options: CompareOptions,
    policy: NormalizerPolicy,
    reference: str,
    aligned: SharedRows,
) -> CompareInputs:
    """Normalise and count every arm's shared rows against the humans and the reference arm."""
    ref_arm = arms[reference]
    ref_pos = aligned.positions[reference]
    ids = [k[0] for k in aligned.keys]
    labels = [f"{i}#{r}" for i, r in aligned.keys] if any(r for _, r in aligned.keys) else ids
    human = take(ref_arm.references, ref_pos)
    languages = take(ref_arm.languages, ref_pos)
    codes = cluster_codes(take(ref_arm.clusters, ref_pos))
    n = len(aligned.keys)
    n_clusters = int(codes.max()) + 1 if n else 0
    ref_hyps = take(ref_arm.hypotheses, ref_pos)
    ref_hyp_texts = [h if h is not None else "" for h in ref_hyps]
    by_lang, by_slice = row_scopes(languages, take(ref_arm.slices, ref_pos))
    table = PairTable(policy)
    vs_human: dict[str, RowCounts] = {}
    vs_ref: dict[str, RowCounts] = {}
    hyps: dict[str, list[str | None]] = {}
    for name, arm in arms.items():
        hyps[name] = take(arm.hypotheses, aligned.positions[name])
        vs_human[name] = count_rows(table, human, hyps[name], languages)
        vs_ref[name] = count_rows(table, ref_hyp_texts, hyps[name], languages, kinds=(PRIMARY,))
    for rows in (*vs_human.values(), *vs_ref.values()):
        # Fill the caches once, before any worker forks (each would fill its own copy).
        rows.available()
        rows.available(unit="mixed")
    return CompareInputs(
        reference=reference,
        arms=arms,
        aligned=aligned,
        options=options,
        labels=labels,
        human=human,
        languages=languages,
        clusters=None if n_clusters == n else codes,
        n_clusters=n_clusters,
        ref_hyps=ref_hyps,
        ref_scripts=[dominant_script(t) for t in human],
        by_lang=by_lang,
        by_slice=by_slice,
        table=table,
        vs_human=vs_human,
        vs_ref=vs_ref,
        hyps=hyps,
    )
