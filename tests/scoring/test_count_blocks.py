"""`parts.count_blocks`, the per-row counts of predictions.jsonl, equals orjson's own
encoding of each row's counts dict: small counts (packed keys, the per-process memo,
refilled when full) and counts too large to pack."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from earmark.scoring import parts


def _orjson(row: list[int]) -> bytes:
    s, d, i, h = row
    counts = {
        "substitutions": s,
        "deletions": d,
        "insertions": i,
        "hits": h,
        "ref_units": s + d + h,
        "hyp_units": s + i + h,
    }
    return orjson.dumps(counts, option=orjson.OPT_SORT_KEYS)


def test_count_blocks_equal_orjson_small_large_and_after_the_memo_fills(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(5)
    small = rng.integers(0, 40, size=(3_000, 4), dtype=np.int64)
    large = small.copy()
    large[::7, 3] += 1 << 15
    large[5, 0] = 10**12
    monkeypatch.setattr(parts, "_BLOCKS", {})
    monkeypatch.setattr(parts, "_BLOCKS_KEPT", 500)  # forces the memo to empty and refill
    for counts in (small, large, small[:10], small[::-1], np.zeros((0, 4), dtype=np.int64)):
        assert parts.count_blocks(counts) == [_orjson(row) for row in counts.tolist()]
    assert len(parts._BLOCKS) <= 3_000
