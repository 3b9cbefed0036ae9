"""`parts.count_pieces`, the per-row counts of predictions.jsonl joined into each line,
equals orjson's own encoding of each row's counts dict: small counts (looked up) and
counts too large for the table, or negative, formatted."""

from __future__ import annotations

import numpy as np
import orjson
from hypothesis import given
from hypothesis import strategies as st

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


def _blocks(counts: np.ndarray) -> list[bytes]:
    return parts._Line.of(parts.count_pieces(counts)).join()


def test_count_pieces_equal_orjson_small_large_and_empty() -> None:
    rng = np.random.default_rng(5)
    small = rng.integers(0, 40, size=(3_000, 4), dtype=np.int64)
    large = small.copy()
    large[::7, 3] += 1 << 15
    large[5, 0] = 10**12
    edge = np.array([[parts._DECIMAL_TABLE - 1, 0, 0, 0], [0, 0, 0, parts._DECIMAL_TABLE]])
    for counts in (small, large, edge, small[:10], small[::-1]):
        assert _blocks(counts) == [_orjson(row) for row in counts.tolist()]
    empty = np.zeros((0, 4), dtype=np.int64)
    assert list(zip(*[p for p in parts.count_pieces(empty) if isinstance(p, list)])) == []


@given(st.lists(st.tuples(*[st.integers(-(2**40), 2**40)] * 4), min_size=1, max_size=30))
def test_count_pieces_equal_orjson_for_any_counts(rows: list[tuple[int, int, int, int]]) -> None:
    counts = np.array(rows, dtype=np.int64)
    assert _blocks(counts) == [_orjson(list(row)) for row in rows]
