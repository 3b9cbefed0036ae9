"""The rows a comparison compares, and the counts every per-arm and per-pair figure reads.

`shared_columns` takes, in the parent process, what the figures need of each arm's shared
rows (texts, languages, durations), so the arms' own rows can be let go before any
worker forks. `count_inputs` normalises and counts a group of arms (the reference arm
and some challengers) against the humans and the reference arm: each forked worker
counts its own group, so the counting runs on every core and no process holds every
arm's counts (issue 25: 12 arms x 100,000 rows).
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
from earmark.comparison.paired import SegmentColumns
from earmark.comparison.pairing import SharedRows, cluster_codes, row_scopes
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.row_counts import PRIMARY, VIEW_KINDS, PairTable, RowCounts, RowNormalizers

IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
T = TypeVar("T")


def take(values: Sequence[T], positions: list[int]) -> list[T]:
    """`values` at `positions`, in that order."""
    if len(positions) == len(values) and (not positions or positions[-1] == len(values) - 1):
        if positions == list(range(len(values))):  # every row, in order: a copy
            return list(values)
    return [values[p] for p in positions]


@dataclass(frozen=True)
class ArmColumns:
    """What the figures read of one arm's shared rows, in the shared rows' order."""

    source: str
    hypotheses: list[str | None]
    audio_seconds: list[float | None]
    language_mismatch: list[bool]


@dataclass(frozen=True)
class CompareColumns:
    """The shared rows of every arm, as the figures read them (no counts yet)."""

    reference: str
    options: CompareOptions
    policy: NormalizerPolicy
    #: Each shared row's label in figures and lists: its id, or `id#repeat` with repeats.
    labels: list[str]
    human: list[str]
    languages: list[str | None]
    #: Each row's clip code; None when every row is its own clip (the bootstrap is faster).
    clusters: IntArray | None
    n_clusters: int
    ref_scripts: list[str | None]
    by_lang: dict[str, IntArray]
    by_slice: dict[str, IntArray]
    arms: dict[str, ArmColumns]

    def everything(self) -> IntArray:
        """Positions of every shared row (the overall scope)."""
        return np.arange(len(self.labels), dtype=np.int64)

    def sub_clusters(self, positions: IntArray) -> IntArray | None:
        """The clip codes of `positions` (None when every row is its own clip)."""
        return None if self.clusters is None else self.clusters[positions]

    @property
    def ref_hyps(self) -> list[str | None]:
        return self.arms[self.reference].hypotheses


def shared_columns(
    arms: Mapping[str, ArmData],
    options: CompareOptions,
    policy: NormalizerPolicy,
    reference: str,
    aligned: SharedRows,
) -> CompareColumns:
    """Every arm's shared rows, as the figures and the counting read them."""
    ref_arm = arms[reference]
    ref_pos = aligned.positions[reference]
    ids = [k[0] for k in aligned.keys]
    labels = [f"{i}#{r}" for i, r in aligned.keys] if any(r for _, r in aligned.keys) else ids
    human = take(ref_arm.references, ref_pos)
    languages = take(ref_arm.languages, ref_pos)
    codes = cluster_codes(take(ref_arm.clusters, ref_pos))
    n = len(aligned.keys)
    n_clusters = int(codes.max()) + 1 if n else 0
    by_lang, by_slice = row_scopes(languages, take(ref_arm.slices, ref_pos))
    columns: dict[str, ArmColumns] = {}
    for name, arm in arms.items():
        pos = aligned.positions[name]
        columns[name] = ArmColumns(
            source=arm.source,
            hypotheses=take(arm.hypotheses, pos),
            audio_seconds=take(arm.audio_seconds, pos),
            language_mismatch=take(arm.language_mismatch, pos),
        )
    return CompareColumns(
        reference=reference,
        options=options,
        policy=policy,
        labels=labels,
        human=human,
        languages=languages,
        clusters=None if n_clusters == n else codes,
        n_clusters=n_clusters,
        ref_scripts=[dominant_script(t) for t in human],
        by_lang=by_lang,
        by_slice=by_slice,
        arms=columns,
    )


@dataclass(frozen=True)
class CompareInputs:
    """Everything the per-arm and per-pair work of a group of arms reads: the shared
    rows, and the group's counts (the reference arm is in every group)."""

    columns: CompareColumns
    table: PairTable
    vs_human: dict[str, RowCounts]
    vs_ref: dict[str, RowCounts]
    #: unit -> table entry -> alignment letters, filled as pairs need them (per process:
    #: shared by the challengers that process handles).
    letter_memo: dict[str, dict[int, str]] = field(default_factory=dict)
    #: unit -> the reference arm's MAPSSWE segments against itself, every row of the unit.
    segment_memo: dict[str, SegmentColumns] = field(default_factory=dict)
    #: Scripts and loop flags the diagnostics found (per process, like the memos above).
    diagnostics_memo: DiagnosticsMemo = field(default_factory=DiagnosticsMemo)

    @property
    def reference(self) -> str:
        return self.columns.reference

    @property
    def options(self) -> CompareOptions:
        return self.columns.options


#: Rows counted at a time: the table queues each new pair's texts (and their tokens)
#: until it counts them, so a 100,000-row arm counted at once holds them all at once.
COUNT_CHUNK = 8192


def _count(
    table: PairTable,
    references: Sequence[str],
    hypotheses: Sequence[str | None],
    names: Sequence[str],
    kinds: tuple[str, ...],
) -> IntArray:
    """The table entries of every row's pair, `COUNT_CHUNK` rows at a time (the same
    entries: a table numbers pairs in the order first seen, whatever the chunks)."""
    hyps = [h if h is not None else "" for h in hypotheses]
    parts = [
        table.index_rows(
            references[at : at + COUNT_CHUNK],
            hyps[at : at + COUNT_CHUNK],
            names[at : at + COUNT_CHUNK],
            kinds,
        )
        for at in range(0, max(len(references), 1), COUNT_CHUNK)
    ]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _count_against(
    table: PairTable,
    references: list[str],
    hypotheses: list[str | None],
    rows: RowNormalizers,
    kinds: tuple[str, ...],
    like: tuple[IntArray, BoolArray] | None,
) -> RowCounts:
    """`RowCounts` of the rows; with `like` (the reference arm's entries, and which rows
    hold the reference arm's own hypothesis) those rows take the reference arm's entry
    (the same pair) and only the others are looked up."""
    if like is None:
        return RowCounts(table, _count(table, references, hypotheses, rows.names, kinds), rows)
    entries, same = like
    entries = entries.copy()
    differ = np.flatnonzero(~same)
    if differ.size:
        picked = differ.tolist()
        entries[differ] = _count(
            table, take(references, picked), take(hypotheses, picked), rows.subset(differ), kinds
        )
    return RowCounts(table, entries, rows)


def count_inputs(
    columns: CompareColumns, names: Sequence[str], base: CompareInputs | None = None
) -> CompareInputs:
    """Normalise and count the shared rows of the arms `names` (and of the reference arm)
    against the humans and the reference arm; a pair of texts is counted once. With
    `base`, its table grows (in a forked worker: that worker's copy) and its arms are
    not counted again."""
    table = PairTable(columns.policy) if base is None else base.table
    vs_human = {} if base is None else dict(base.vs_human)
    vs_ref = {} if base is None else dict(base.vs_ref)
    ref_hyps = columns.ref_hyps
    ref_hyp_texts = [h if h is not None else "" for h in ref_hyps]
    rows = (
        RowNormalizers(table, columns.languages)
        if base is None
        else base.vs_human[base.reference].rows
    )
    for name in dict.fromkeys([columns.reference, *names]):
        if name in vs_human:
            continue
        hyps = columns.arms[name].hypotheses
        human = ref = None
        if name != columns.reference:
            # A row holding the reference arm's hypothesis (one shared object when read
            # together, else equal) is the reference arm's pair on both tables.
            same = np.fromiter(
                (h is r or h == r for h, r in zip(hyps, ref_hyps, strict=True)),
                dtype=bool,
                count=len(hyps),
            )
            human = (vs_human[columns.reference].entries, same)
            ref = (vs_ref[columns.reference].entries, same)
        vs_human[name] = _count_against(table, columns.human, hyps, rows, VIEW_KINDS, human)
        vs_ref[name] = _count_against(table, ref_hyp_texts, hyps, rows, (PRIMARY,), ref)
    return CompareInputs(columns=columns, table=table, vs_human=vs_human, vs_ref=vs_ref)
