"""Reference n-gram overlap with a declared text, and canary strings (pure: no I/O).

A model whose training text contains a test corpus's sentences can score well on it for
the wrong reason. This module answers one narrow question per utterance: what share of
its reference n-grams (positions, n units in a row) also occur somewhere in a declared
text? Callers normalise and split both sides the same way first (one normaliser, both
sides); this module only hashes, counts and compares.

N-grams are hashed to 64 bits (BLAKE2b) so the corpus's set is small and the declared
text is streamed through it: memory is the corpus n-gram set plus the subset found, never
proportional to the declared text. Two different n-grams share a hash with probability
about k²/2⁶⁵ for k distinct n-grams: negligible at corpus sizes.

>>> keys = ngram_keys("a b c d".split(), 3)
>>> len(keys), keys[0] == gram_key(("a", "b", "c"))
(2, True)
>>> scan = DeclaredTextScan(set(keys), n=3)
>>> scan.feed("x a b c y".split())
>>> matched_positions(keys, scan.found)
1
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field

__all__ = [
    "DeclaredTextScan",
    "Overlap",
    "canary_hits",
    "gram_key",
    "matched_positions",
    "ngram_keys",
]

#: Separator between units inside a hashed n-gram (ASCII unit separator): no normaliser
#: emits it, so ("ab", "c") and ("a", "bc") hash apart.
_SEP = "\x1f"


def gram_key(gram: Sequence[str]) -> int:
    """64-bit key of one n-gram, the same in every process (unlike `hash()`).

    >>> gram_key(("a", "bc")) != gram_key(("ab", "c"))
    True
    """
    digest = hashlib.blake2b(_SEP.join(gram).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def ngram_keys(units: Sequence[str], n: int) -> list[int]:
    """Keys of every n-gram position of `units`, in order (len(units) - n + 1 of them;
    none when there are fewer than n units).

    >>> ngram_keys(["a", "b"], 3)
    []
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return [gram_key(units[i : i + n]) for i in range(len(units) - n + 1)]


def matched_positions(keys: Iterable[int], found: Set[int]) -> int:
    """How many of an utterance's n-gram positions occur in the declared text."""
    return sum(1 for key in keys if key in found)


@dataclass
class DeclaredTextScan:
    """Streams a declared text through the corpus's n-gram set, keeping what it finds.

    `feed` takes one document's units; with `continues=True` the document carries on
    from the previous one (a plain-text file read line by line, where a sentence may wrap),
    so n-grams that span the break count too. Only the last n-1 units are carried.
    """

    wanted: Set[int]
    n: int
    found: set[int] = field(default_factory=set)
    #: Pieces fed (documents, or lines of a continuous text).
    documents: int = 0
    ngrams_scanned: int = 0
    _tail: list[str] = field(default_factory=list, repr=False)

    def feed(self, units: Sequence[str], *, continues: bool = False) -> None:
        stream = [*self._tail, *units] if continues else list(units)
        self.documents += 1
        keys = ngram_keys(stream, self.n)
        self.ngrams_scanned += len(keys)
        self.found.update(key for key in keys if key in self.wanted)
        self._tail = stream[len(stream) - self.n + 1 :] if self.n > 1 else []


@dataclass(frozen=True)
class Overlap:
    """One utterance's (or a sum's) n-gram positions and how many were found. Counts
    add; the share is taken at the edge, so a corpus share is Σ matched / Σ positions,
    never a mean of per-utterance shares.

    >>> (Overlap(4, 2) + Overlap(6, 0)).share
    0.2
    >>> Overlap(0, 0).share is None
    True
    """

    positions: int
    matched: int

    def __add__(self, other: Overlap) -> Overlap:
        return Overlap(self.positions + other.positions, self.matched + other.matched)

    @property
    def share(self) -> float | None:
        return self.matched / self.positions if self.positions else None

    @classmethod
    def of(cls, keys: Sequence[int], found: Set[int]) -> Overlap:
        return cls(len(keys), matched_positions(keys, found))


def canary_hits(canaries: Sequence[str], text: str) -> list[str]:
    """The canaries that occur in `text` verbatim (exact, case-sensitive substrings):
    a canary is a marker string (a GUID) that is meaningless unless copied whole.

    >>> canary_hits(["GUID-1", "GUID-2"], "xx GUID-2 yy")
    ['GUID-2']
    """
    return [c for c in canaries if c and c in text]
