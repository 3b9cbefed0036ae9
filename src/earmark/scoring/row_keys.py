"""Repeated ids and the bootstrap's cluster codes, from an 8-byte digest per row.

A corpus of 1,000,000 rows checks its ids and numbers its clusters without keeping each
id's string: the digests are enough until two of them match (`RowKeys`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from operator import attrgetter

import numpy as np

from earmark.errors import EarmarkError
from earmark.formats.rows import ScoringRow
from earmark.scoring.columns import Columns, first_appearance

#: A row key's 64-bit digest: Python's own string hash (SipHash-1-3, keyed per process,
#: computed in C and cached on the string, ~10x cheaper per id than blake2b). Only which
#: digests are equal is ever used, never their values, and any two equal digests send
#: the scorer back to the id strings (`RowKeys`), so the per-process key and a collision
#: can change no output. Tests replace it to force collisions.
_digest: Callable[[str], int] = hash


class SortedRuns:
    """A growing set of 64-bit digests as a few sorted arrays of doubling sizes, so each
    chunk is checked against every earlier one with a binary search per array and the
    whole costs O(n log n), 8 bytes a digest (a Python set of ints: ~70)."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []

    def add(self, digests: np.ndarray) -> bool:
        """Add `digests`; True when one of them equals another or an earlier one."""
        if not len(digests):
            return False
        new = np.sort(digests)
        seen = bool((new[1:] == new[:-1]).any()) or self.contains_any(new)
        runs = self.runs
        runs.append(new)
        while len(runs) > 1 and len(runs[-2]) <= 2 * len(runs[-1]):
            # Two sorted runs back to back: the stable sort merges them in one pass.
            top = runs.pop()
            runs[-1] = np.sort(np.concatenate((runs[-1], top)), kind="stable")
        return seen

    def contains_any(self, digests: np.ndarray) -> bool:
        """Is any of `digests` (sorted or not) in the set?"""
        for run in self.runs:
            at = np.minimum(np.searchsorted(run, digests), len(run) - 1)
            if (run[at] == digests).any():
                return True
        return False


class ExactKeys:
    """Repeated ids and cluster codes from the id strings themselves: one dict entry per
    distinct cluster key (the id of an unclustered row), clustered rows' `id\\x00cluster`
    keys in a set. What `RowKeys` falls back to whenever two digests match."""

    def __init__(self) -> None:
        #: Cluster key -> (code << 1) | 1 when an unclustered row has it as its id.
        self.clusters: dict[str, int] = {}
        self.clustered_ids: set[str] = set()

    def codes(self, rows: Iterable[ScoringRow]) -> np.ndarray:
        """Each row's cluster code (numbered by first appearance of its cluster key); a
        repeated id (within a clip's cluster) is an error, at its first repeat."""
        clusters, clustered_ids = self.clusters, self.clustered_ids
        out = []
        for row in rows:
            ident = row.id
            if row.cluster is None:
                # Its own cluster, keyed by its id; the low bit marks the id as taken.
                v = clusters.get(ident)
                if v is None:
                    v = clusters[ident] = (len(clusters) << 1) | 1
                elif v & 1 or ("\x00" in ident and ident in clustered_ids):
                    raise duplicate_id(ident)
                else:
                    clusters[ident] = v | 1
            else:
                key = f"{ident}\x00{row.cluster}"
                if key in clustered_ids or clusters.get(key, 0) & 1:
                    raise duplicate_id(ident)
                clustered_ids.add(key)
                v = clusters.get(row.cluster)
                if v is None:
                    v = clusters[row.cluster] = len(clusters) << 1
            out.append(v >> 1)
        return np.asarray(out, dtype=np.int64)

    def speaker_codes(self, speaker_names: Sequence[str]) -> np.ndarray:
        """Per speaker: the code of its bootstrap key (`speaker\\x00NAME`), the code of a
        clip key spelled the same where there is one."""
        out = []
        for name in speaker_names:
            key = f"speaker\x00{name}"
            v = self.clusters.get(key)
            if v is None:
                v = self.clusters[key] = len(self.clusters) << 1
            out.append(v >> 1)
        return np.asarray(out, dtype=np.int64)


class RowKeys:
    """Finds repeated ids and numbers the bootstrap's clusters keeping 8 bytes per row.

    Each row's duplicate key (its id; `id\\x00cluster` for a clustered row) goes in as a
    64-bit digest (`_digest`) to a sorted set checked chunk by chunk; an unclustered row's
    cluster key is its id, so its digest serves both. Clustered rows keep each distinct
    cluster string once (repeats of a clip share it) to confirm equal digests exactly.
    When no two digests match, distinct digests are distinct keys, and the cluster codes
    follow from the digests: numbered by first appearance, as the key strings were.

    On any match that the kept cluster strings cannot confirm (a repeated id, a collision,
    a clip keyed like an earlier unclustered id), the keys are read again from the rows
    (`reread`) and everything from there on is `ExactKeys`': a repeated id is its error
    at its row, a collision merges nothing. Without `reread` the scorer cannot see earlier
    rows again, so it keeps the strings from the start (`ExactKeys`), as it always did.
    """

    def __init__(self, reread: Callable[[], Iterable[ScoringRow]] | None) -> None:
        self.reread = reread
        self.n = 0
        self.exact: ExactKeys | None = ExactKeys() if reread is None else None
        self._keys = SortedRuns()
        #: Digest -> string of every clustered row's cluster key.
        self._names: dict[int, str] = {}
        #: Rows before the first clustered one: every one of them its own cluster.
        self._alone: int | None = None
        self._columns = Columns()

    def add(self, rows: Sequence[ScoringRow]) -> None:
        """Take a chunk's keys; a repeated id is an error (`duplicate_id`)."""
        if self.exact is None and not self._add_digests(rows):
            self._go_exact()
        if self.exact is not None:
            self._columns.append("code", self.exact.codes(rows))
        self.n += len(rows)

    def _add_digests(self, rows: Sequence[ScoringRow]) -> bool:
        """Add the chunk's digests; False on a match the kept strings cannot confirm."""
        digest, names = _digest, self._names
        m = len(rows)
        if not names and set(map(_CLUSTER, rows)) == {None}:
            # No clustered row yet nor here (the common corpus): each key is the id's
            # digest, the loop below without a step per row.
            keys = np.fromiter(map(digest, map(_ID, rows)), dtype=np.int64, count=m)
            if self._keys.add(keys):
                return False
            if self._alone is not None:
                self._columns.append("digest", keys[max(self._alone - self.n, 0) :])
            return True
        keys = np.empty(m, dtype=np.int64)
        clusters = keys
        fresh: list[int] = []
        confirmed = True
        for k, row in enumerate(rows):
            cluster = row.cluster
            if cluster is None:
                d = keys[k] = digest(row.id)
                if clusters is not keys:
                    clusters[k] = d
                if names:
                    name = names.get(d)
                    # The id of an earlier clustered row's clip: the same key, or a collision.
                    if name is not None and name != row.id:
                        confirmed = False
                continue
            if clusters is keys:
                clusters = keys.copy()
                if self._alone is None:
                    self._alone = self.n + k
            keys[k] = digest(f"{row.id}\x00{cluster}")
            d = clusters[k] = digest(cluster)
            name = names.get(d)
            if name is None:
                names[d] = cluster
                fresh.append(d)
            elif name != cluster:
                confirmed = False
        if self._keys.add(keys) or not confirmed:
            return False
        # A clip key first seen here may be an earlier (or this chunk's) unclustered id:
        # the same key or a collision, which only the strings can tell.
        if fresh and self._keys.contains_any(np.asarray(fresh, dtype=np.int64)):
            return False
        if self._alone is not None:
            start = max(self._alone - self.n, 0)
            self._columns.append("digest", clusters[start:])
        return True

    def _go_exact(self) -> None:
        """Read the keys of the rows taken so far again and go on with the strings."""
        assert self.reread is not None
        self.exact = ExactKeys()
        rows = iter(self.reread())
        try:
            codes = self.exact.codes(islice(rows, self.n))
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()
        if len(codes) != self.n:
            raise RuntimeError(f"reread gave {len(codes)} rows, not the {self.n} scored")
        self._keys, self._names = SortedRuns(), {}
        self._columns = Columns()
        self._columns.append("code", codes)

    def seal(self, speaker_names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per row its cluster code and per speaker its key's code, once every row is in."""
        if self.exact is None:
            keys = np.asarray([_digest(f"speaker\x00{name}") for name in speaker_names])
            # A speaker keyed like a clip: the same key (they merge) or a collision.
            if keys.size and (
                self._keys.contains_any(keys) or bool(np.isin(keys, list(self._names)).any())
            ):
                self._go_exact()
        if self.exact is not None:
            codes = self._columns.take("code", np.zeros(0, dtype=np.int64))
            return codes, self.exact.speaker_codes(speaker_names)
        self._keys = SortedRuns()
        alone = self.n if self._alone is None else self._alone
        codes = np.empty(self.n, dtype=np.int64)
        codes[:alone] = np.arange(alone, dtype=np.int64)
        if alone < self.n:
            # The rest numbered by first appearance after the rows that stand alone.
            digests = self._columns.take("digest", np.zeros(0, dtype=np.int64))
            codes[alone:] = first_appearance(digests)
            codes[alone:] += alone
            del digests
        n_codes = int(codes.max()) + 1 if self.n else 0
        self._names = {}
        speakers = np.arange(n_codes, n_codes + len(speaker_names), dtype=np.int64)
        return codes, speakers


_ID, _CLUSTER = attrgetter("id"), attrgetter("cluster")


def duplicate_id(ident: str) -> EarmarkError:
    """The error of an id seen twice (within a clip's cluster)."""
    return EarmarkError(f"duplicate utterance id {ident!r} in scoring input", field="id")
