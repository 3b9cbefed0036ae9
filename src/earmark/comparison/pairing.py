"""Which rows a comparison compares: keys every arm has, with the same human reference.

Every other row is listed in `unpaired` with its arm and a reason, never dropped silently.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from earmark.comparison.loading import ArmData, RowKey
from earmark.results.codec import JSONValue

IntArray = NDArray[np.int64]


@dataclass
class SharedRows:
    """The shared keys in the reference arm's order, and each arm's row positions."""

    keys: list[RowKey]
    positions: dict[str, list[int]]
    #: compare.json's `unpaired` entries: arm, id, repeat and why the row is left out.
    unpaired: list[dict[str, JSONValue]]


def _unpaired(arm: str, key: RowKey, reason: str) -> dict[str, JSONValue]:
    return {"arm": arm, "id": key[0], "repeat": key[1], "reason": reason}


def align_arms(arms: Mapping[str, ArmData], reference: str) -> SharedRows:
    """Keys in every arm with the reference arm's human text; the rest listed with reasons."""
    ref_arm = arms[reference]
    if all(
        arm.keys == ref_arm.keys and arm.references == ref_arm.references for arm in arms.values()
    ):
        # Every arm holds the reference arm's rows in its order (files written by one
        # run, or one writer): every key is shared, at the same position everywhere.
        every = list(range(len(ref_arm.keys)))
        return SharedRows(list(ref_arm.keys), {name: every for name in arms}, [])
    indexes = {name: arm.index() for name, arm in arms.items()}
    ref_index = indexes[reference]
    all_keys: dict[RowKey, None] = dict.fromkeys(ref_arm.keys)
    for arm in arms.values():
        all_keys.update(dict.fromkeys(arm.keys))
    shared: list[RowKey] = []
    unpaired: list[dict[str, JSONValue]] = []
    for key in all_keys:
        missing = [name for name, idx in indexes.items() if key not in idx]
        if missing:
            reason = f"absent from arm(s) {', '.join(missing)}"
            unpaired += [
                _unpaired(name, key, reason) for name, idx in indexes.items() if key in idx
            ]
            continue
        ref_text = ref_arm.references[ref_index[key]]
        differing = [
            name for name, idx in indexes.items() if arms[name].references[idx[key]] != ref_text
        ]
        if differing:
            reason = (
                f"human reference text differs between arms ({', '.join(differing)} vs {reference})"
            )
            unpaired += [_unpaired(name, key, reason) for name in indexes]
            continue
        shared.append(key)
    positions = {name: [indexes[name][k] for k in shared] for name in arms}
    return SharedRows(shared, positions, unpaired)


def cluster_codes(values: Sequence[str]) -> IntArray:
    """Each row's clip as a small integer, numbered in order of first appearance."""
    seen: dict[str, int] = {}
    return np.fromiter(
        (seen.setdefault(v, len(seen)) for v in values), dtype=np.int64, count=len(values)
    )


def row_scopes(
    languages: Sequence[str | None], slices: Sequence[tuple[str, ...]]
) -> tuple[dict[str, IntArray], dict[str, IntArray]]:
    """Positions of the rows of each language (`und` when none) and of each slice, sorted."""
    by_lang: dict[str, list[int]] = defaultdict(list)
    by_slice: dict[str, list[int]] = defaultdict(list)
    for pos, (lang, sl) in enumerate(zip(languages, slices, strict=True)):
        by_lang[lang or "und"].append(pos)
        for s in sl:
            by_slice[s].append(pos)

    def arrays(groups: dict[str, list[int]]) -> dict[str, IntArray]:
        return {k: np.asarray(v, dtype=np.int64) for k, v in sorted(groups.items())}

    return arrays(by_lang), arrays(by_slice)
