"""Per-row error counts of many row sets under one normaliser policy, each pair counted once.

`score_rows` counts one corpus. A comparison of a dozen arms asks for the same pairs over
and over: arms that agree produce the same (reference, hypothesis) pair, and the
reference arm's text is the reference of every "vs reference arm" figure. `PairTable`
keys each pair by (normaliser, reference, hypothesis), normalises and counts it once, and
`count_rows` hands back a `RowCounts`: per row, an index into the table.

The counting is score's own, step for step: the policy picks the normaliser by language,
`Normalizer.normalize_pair` renders both sides, `metrics.alignment.count_errors_array`
counts each of the normaliser's units on a view (words split on whitespace, characters
as code points), and the mixed unit (CJK characters + other words) is rendered by
`policy.mixed_unit` from the raw texts and tokenised by `metrics.tokens.mixed`. A test
pins every per-row count to `score_rows`' records, and `scope_metrics` builds the
results-schema metric objects with `scoring.metric.metric_result`, so a compare figure
and a results.json figure over the same rows are the same numbers, key for key.

Only the view kinds asked for are counted: `primary` (each normaliser's primary view, the
headline) and `raw` (for the ranking-flip diagnostic).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from earmark.metrics.alignment import count_errors_array
from earmark.metrics.tokens import mixed
from earmark.results.codec import JSONValue
from earmark.scoring.metric import MetricSettings, metric_result
from earmark.scoring.policy import MixedPair, NormalizerPolicy, mixed_unit
from earmark.stats.settings import BootstrapSettings
from earmark.text import get_normalizer
from earmark.text.base import Normalizer, ViewPair

IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
#: A pair to align: two texts (words or characters), or two token lists (the mixed unit).
TokenPair = tuple[Sequence[str], Sequence[str]]

#: The view kinds a table can count: each normaliser's primary view, and its raw view.
PRIMARY = "primary"
RAW = "raw"
VIEW_KINDS = (PRIMARY, RAW)
#: The mixed unit's name beside `word` and `char` (counted where the normaliser has one).
MIXED = "mixed"
#: Each unit's metric key in a metric block, as `score` writes them (`mixed_er` is not
#: `mer`: that key already means the match error rate inside every metric object).
METRIC_FOR_UNIT = {"word": "wer", "char": "cer", MIXED: "mixed_er"}
UNIT_FOR_METRIC = {metric: unit for unit, metric in METRIC_FOR_UNIT.items()}
_UNITS = ("word", "char", MIXED)


def _texts(pair: ViewPair) -> tuple[str, str] | str:
    """A rendered view pair's (reference, hypothesis), or why it cannot be counted."""
    if pair.null_reason is not None or pair.reference is None or pair.hypothesis is None:
        return pair.null_reason or "view_unavailable"
    return pair.reference, pair.hypothesis


@dataclass
class PairTable:
    """A growing table of distinct (normaliser, reference, hypothesis) pairs and their counts.

    Per (view kind, unit) a table of S, D, I, hits per entry; an entry whose view is
    unavailable (OpenCC missing, a kind not asked for) has zero counts and its reason in
    `reason(entry, kind, unit)`.
    """

    policy: NormalizerPolicy
    #: Per entry: the normaliser's name.
    normalizer_of: list[str] = field(default_factory=list)
    #: Per entry: the primary view's texts ("" where unavailable), for the diagnostics.
    primary_reference: list[str] = field(default_factory=list)
    primary_hypothesis: list[str] = field(default_factory=list)
    _index: dict[tuple[str, str, str, tuple[str, ...]], int] = field(default_factory=dict)
    #: Per (kind, "view" or "mixed"), per entry: "" when countable, else why not.
    _reasons: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: Per (kind, unit): (first entry, S/D/I/hits of the entries from there) per flush.
    _blocks: dict[tuple[str, str], list[tuple[int, IntArray]]] = field(default_factory=dict)
    _flat: dict[tuple[str, str], IntArray] = field(default_factory=dict)
    _counted: dict[tuple[str, str], BoolArray] = field(default_factory=dict)
    _pending: dict[tuple[str, str, str], list[TokenPair]] = field(default_factory=dict)
    _pending_at: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    _by_language: dict[str | None, str] = field(default_factory=dict)
    _normalizers: dict[str, Normalizer] = field(default_factory=dict)
    _mixed: dict[str, tuple[str, MixedPair] | None] = field(default_factory=dict)
    _plans: dict[str, _Plan] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for kind in VIEW_KINDS:
            self._reasons[(kind, "view")] = []
            self._reasons[(kind, MIXED)] = []

    def normalizer_name(self, language: str | None) -> str:
        """The policy's normaliser for `language` (asked once per distinct language)."""
        name = self._by_language.get(language)
        if name is None:
            name = self._by_language[language] = self.policy.for_language(language)
        return name

    def normalizer(self, name: str) -> Normalizer:
        norm = self._normalizers.get(name)
        if norm is None:
            norm = self._normalizers[name] = get_normalizer(name)
            self._mixed[name] = mixed_unit(norm)
        return norm

    def units(self, name: str) -> tuple[str, ...]:
        """The normaliser's own units (`word`, `char`), headline first."""
        return tuple(self.normalizer(name).units)

    def view(self, name: str, kind: str) -> str:
        """The view a kind names for this normaliser (`primary` -> its primary view)."""
        return self.normalizer(name).primary_view if kind == PRIMARY else kind

    def has_mixed(self, name: str, kind: str = PRIMARY) -> bool:
        """Does this normaliser count the mixed unit on the view `kind` names?"""
        self.normalizer(name)
        spec = self._mixed[name]
        return spec is not None and spec[0] == self.view(name, kind)

    def index_rows(
        self,
        references: Sequence[str],
        hypotheses: Sequence[str],
        names: Sequence[str],
        kinds: tuple[str, ...] = VIEW_KINDS,
    ) -> IntArray:
        """Table entry of each row's pair (`names`: each row's normaliser), counting pairs
        not seen yet (normalise and align once). Entries counted for other `kinds` are
        kept apart."""
        out = np.empty(len(references), dtype=np.int64)
        index = self._index
        for pos, (ref, hyp, name) in enumerate(zip(references, hypotheses, names, strict=True)):
            key = (name, ref, hyp, kinds)
            found = index.get(key)
            if found is None:
                found = index[key] = self._add(name, ref, hyp, kinds)
            out[pos] = found
        self._flush()
        return out

    def _queue(self, kind: str, unit: str, name: str, entry: int, pair: TokenPair) -> None:
        key = (kind, unit, name)
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = []
            self._pending_at[key] = []
        pending.append(pair)
        self._pending_at[key].append(entry)

    def _plan(self, name: str) -> _Plan:
        """What `_add` asks of a normaliser, found once (not per pair)."""
        plan = self._plans.get(name)
        if plan is None:
            norm = self.normalizer(name)
            spec = self._mixed[name]
            plan = self._plans[name] = _Plan(
                norm=norm,
                units=tuple(norm.units),
                views={kind: self.view(name, kind) for kind in VIEW_KINDS},
                mixed={
                    kind: spec[1] if spec is not None and self.has_mixed(name, kind) else None
                    for kind in VIEW_KINDS
                },
                no_mixed=f"normaliser {name} has no mixed unit on this view",
            )
        return plan

    def _add(self, name: str, ref: str, hyp: str, kinds: tuple[str, ...]) -> int:
        plan = self._plans.get(name) or self._plan(name)
        entry = len(self.normalizer_of)
        self.normalizer_of.append(name)
        pairs = plan.norm.normalize_pair(ref, hyp)
        for kind in VIEW_KINDS:
            view_reasons = self._reasons[(kind, "view")]
            mixed_reasons = self._reasons[(kind, MIXED)]
            if kind not in kinds:
                # One string object for every such entry (100,000s of them in a compare).
                view_reasons.append(_NOT_COUNTED[kind])
                mixed_reasons.append(_NOT_COUNTED[kind])
                if kind == PRIMARY:
                    self.primary_reference.append("")
                    self.primary_hypothesis.append("")
                continue
            texts = _texts(pairs[plan.views[kind]])
            if isinstance(texts, str):
                view_reasons.append(texts)
                if kind == PRIMARY:
                    self.primary_reference.append("")
                    self.primary_hypothesis.append("")
            else:
                view_reasons.append("")
                if kind == PRIMARY:
                    self.primary_reference.append(texts[0])
                    self.primary_hypothesis.append(texts[1])
                for unit in plan.units:
                    self._queue(kind, unit, name, entry, texts)
            # The mixed unit's tokens, as `score` renders them: from the raw texts.
            render = plan.mixed[kind]
            if render is None:
                mixed_reasons.append(plan.no_mixed)
                continue
            rendered = _texts(render(ref, hyp))
            if isinstance(rendered, str):
                mixed_reasons.append(rendered)
                continue
            self._queue(kind, MIXED, name, entry, (mixed(rendered[0]), mixed(rendered[1])))
            mixed_reasons.append("")
        return entry

    def _flush(self) -> None:
        """Count the queued pairs into a block of the entries added since the last flush
        (a (kind, unit) with nothing queued gets no block: its rows read as zeros). A
        pair of texts queued on two view kinds (a raw view that normalising left as it
        was) is aligned once."""
        total = len(self.normalizer_of)
        aligned: dict[tuple[str, str], tuple[list[TokenPair], list[int], IntArray]] = {}
        # Primary first: the raw view's pairs are looked up among its own.
        queued = sorted(self._pending.items(), key=lambda item: item[0][0] != PRIMARY)
        for key in dict.fromkeys((kind, unit) for (kind, unit, _), _ in queued):
            blocks = self._blocks.setdefault(key, [])
            start = blocks[-1][0] + len(blocks[-1][1]) if blocks else 0
            block = np.zeros((total - start, 4), dtype=np.int64)
            for (pk, pu, name), pairs in queued:
                if (pk, pu) != key or not pairs:
                    continue
                entries = self._pending_at[(pk, pu, name)]
                counted = _count_once(pairs, entries, pu, aligned.get((pu, name)))
                if pu != MIXED:
                    aligned.setdefault((pu, name), (pairs, entries, counted))
                block[np.asarray(entries, dtype=np.int64) - start] = counted
            blocks.append((start, block))
            self._flat.pop(key, None)
        self._pending.clear()
        self._pending_at.clear()

    def table(self, kind: str, unit: str) -> IntArray:
        """S, D, I, hits of every entry on one (view kind, unit) (zeros where not counted)."""
        key = (kind, unit)
        total = len(self.normalizer_of)
        flat = self._flat.get(key)
        if flat is None or len(flat) != total:
            blocks = self._blocks.get(key, [])
            flat = np.zeros((total, 4), dtype=np.int64)
            for start, block in blocks:
                flat[start : start + len(block)] = block
            self._flat[key] = flat
        return flat

    def reasons(self, kind: str, unit: str | None = None) -> list[str]:
        """Per entry: "" when the (kind, unit) is counted, else why not."""
        return self._reasons[(kind, MIXED if unit == MIXED else "view")]

    def counted(self, kind: str, unit: str | None = None) -> BoolArray:
        """Per entry: is the (kind, unit) counted (`reasons` is "")? Found once per size of
        the table, for every row set that reads it."""
        key = (kind, MIXED if unit == MIXED else "view")
        reasons = self._reasons[key]
        found = self._counted.get(key)
        if found is None or len(found) != len(reasons):
            found = self._counted[key] = np.fromiter(
                (r == "" for r in reasons), dtype=bool, count=len(reasons)
            )
        return found


def _count_once(
    pairs: list[TokenPair],
    entries: list[int],
    unit: str,
    before: tuple[list[TokenPair], list[int], IntArray] | None,
) -> IntArray:
    """`count_errors_array` of the pairs of `entries` (S, D, I, hits each), taking the
    counts of an entry whose pair `before` (the same unit's pairs, entries and counts
    on another view kind) holds the same texts from there: the same alignment."""

    def count(todo: list[TokenPair]) -> IntArray:
        return count_errors_array(todo, units="words" if unit == "word" else "given")

    if before is None:
        return count(pairs)
    old_pairs, old_entries, old_counts = before
    row_of = dict(zip(old_entries, range(len(old_entries)), strict=True))
    found = [row_of.get(e, -1) for e in entries]
    same = [
        k
        for k, (row, pair) in enumerate(zip(found, pairs, strict=True))
        if row >= 0 and old_pairs[row] == pair
    ]
    if not same:
        return count(pairs)
    out = np.empty((len(pairs), 4), dtype=np.int64)
    taken = np.zeros(len(pairs), dtype=bool)
    taken[same] = True
    out[same] = old_counts[[found[k] for k in same]]
    todo = np.flatnonzero(~taken).tolist()
    if todo:
        out[todo] = count([pairs[k] for k in todo])
    return out


@dataclass(frozen=True)
class _Plan:
    """A normaliser as `PairTable._add` reads it: its units, each kind's view, each
    kind's mixed-unit renderer (None where it counts none) and the reason then."""

    norm: Normalizer
    units: tuple[str, ...]
    views: dict[str, str]
    mixed: dict[str, MixedPair | None]
    no_mixed: str


#: Why an entry's view kind has no counts, when the kind was not asked for.
_NOT_COUNTED = {kind: f"{kind} view not counted here" for kind in VIEW_KINDS}


class RowNormalizers:
    """Each row's normaliser, as names and as codes: one object for every arm of a
    comparison (their rows share languages), so the scopes' normaliser sets and masks
    are found once, not per arm and figure (issue 25)."""

    def __init__(self, table: PairTable, languages: Sequence[str | None]) -> None:
        # Asked in order of first appearance: a policy that refuses a language refuses
        # the first one, as a row-by-row pass would.
        by_language = {lang: table.normalizer_name(lang) for lang in dict.fromkeys(languages)}
        #: Per row: the normaliser's name.
        self.names: list[str] = [by_language[lang] for lang in languages]
        #: The distinct names, sorted; `codes` index them.
        self.distinct: list[str] = sorted(set(by_language.values()))
        code_of = {name: code for code, name in enumerate(self.distinct)}
        self.codes: IntArray = np.fromiter(
            (code_of[name] for name in self.names), dtype=np.int64, count=len(self.names)
        )
        self._scopes: dict[int, tuple[IntArray, list[str]]] = {}
        self._masks: dict[str, BoolArray] = {}

    def __len__(self) -> int:
        return len(self.names)

    def within(self, positions: IntArray) -> list[str]:
        """The sorted names of the normalisers of the rows at `positions` (remembered per
        positions array: every arm asks for the same scopes)."""
        cached = self._scopes.get(id(positions))
        if cached is not None and cached[0] is positions:
            return cached[1]
        found = [self.distinct[c] for c in np.unique(self.codes[positions]).tolist()]
        self._scopes[id(positions)] = (positions, found)
        return found

    def mask(self, name: str) -> BoolArray:
        """Per row: is it scored with `name`?"""
        found = self._masks.get(name)
        if found is None:
            code = self.distinct.index(name) if name in self.distinct else -1
            found = self._masks[name] = self.codes == code
        return found

    def subset(self, positions: IntArray) -> list[str]:
        """The names of the rows at `positions`, in order."""
        names = self.names
        return [names[p] for p in positions.tolist()]


@dataclass
class RowCounts:
    """One row set's counts (an arm against one reference): an entry per row."""

    table: PairTable
    entries: IntArray
    #: Per row: the normaliser (shared by every row set of the same rows).
    rows: RowNormalizers
    _available: dict[tuple[str, bool], BoolArray] = field(default_factory=dict)

    @property
    def normalizers(self) -> list[str]:
        """Per row: the normaliser's name."""
        return self.rows.names

    def counts(self, unit: str, kind: str = PRIMARY) -> IntArray:
        """Per row S, D, I, hits on one unit (`word`, `char`, `mixed`) of a view kind."""
        return self.table.table(kind, unit)[self.entries]

    def available(self, kind: str = PRIMARY, unit: str | None = None) -> BoolArray:
        """Per row: is the view (or, for `mixed`, the mixed unit) counted? Cached: the
        table only grows, a row's entry never changes."""
        key = (kind, unit == MIXED)
        cached = self._available.get(key)
        if cached is None:
            ok = self.table.counted(kind, unit)
            cached = self._available[key] = ok[self.entries] if len(ok) else ok
        return cached

    def reason(self, position: int, kind: str = PRIMARY, unit: str | None = None) -> str:
        return self.table.reasons(kind, unit)[int(self.entries[position])]


def count_rows(
    table: PairTable,
    references: Sequence[str],
    hypotheses: Sequence[str | None],
    languages: Sequence[str | None],
    *,
    kinds: tuple[str, ...] = VIEW_KINDS,
    rows: RowNormalizers | None = None,
) -> RowCounts:
    """Counts of each row; a missing hypothesis is scored as empty (all deletions), as
    `score` scores it. `rows`, the rows' normalisers, when already found."""
    rows = RowNormalizers(table, languages) if rows is None else rows
    hyps = [h if h is not None else "" for h in hypotheses]
    return RowCounts(table, table.index_rows(references, hyps, rows.names, kinds), rows)


def null_metric(reason: str, aggregate: str) -> dict[str, JSONValue]:
    """A figure that cannot be computed: null, with why (never an invented number)."""
    return {"value": None, "ci95": None, "aggregate": aggregate, "null_reason": reason}


def scope_metrics(
    rows: RowCounts,
    positions: IntArray,
    clusters: IntArray | None,
    bootstrap: BootstrapSettings,
    aggregate: str,
) -> dict[str, JSONValue]:
    """The primary view's metric objects over `positions` (one scope): `wer`, `cer`, and
    `mixed_er` where the normaliser counts the mixed unit there, as `score` reports them.

    Null with a reason when the scope mixes normalisers (their figures are never summed)
    or the normaliser has no such unit (zh-eval-v1 scores characters only).
    """
    names = rows.rows.within(positions)
    if len(positions) == 0:
        return {"wer": null_metric("no rows", aggregate), "cer": null_metric("no rows", aggregate)}
    if len(names) > 1:
        reason = f"rows are scored with different normalisers ({', '.join(names)}); see by_language"
        return {"wer": null_metric(reason, aggregate), "cer": null_metric(reason, aggregate)}
    (name,) = names
    units = rows.table.units(name)
    b = bootstrap
    settings = MetricSettings(aggregate, b.resamples, b.seed, b.level, generator=b.generator)
    out: dict[str, JSONValue] = {}
    for unit in ("word", "char", MIXED):
        metric = METRIC_FOR_UNIT[unit]
        if unit == MIXED:
            if not rows.table.has_mixed(name):
                continue
        elif unit not in units:
            out[metric] = null_metric(f"normaliser {name} has no {unit} units", aggregate)
            continue
        available = rows.available(unit=unit)[positions]
        reasons = Counter(rows.reason(p, unit=unit) for p in positions[~available].tolist())
        kept = positions[available]
        out[metric] = metric_result(
            rows.counts(unit)[kept],
            None if clusters is None else clusters[kept],
            settings,
            null_reasons=reasons,
            n_rows=len(positions),
        ).to_dict()
    return out


__all__ = [
    "METRIC_FOR_UNIT",
    "MIXED",
    "PRIMARY",
    "RAW",
    "UNIT_FOR_METRIC",
    "PairTable",
    "RowCounts",
    "RowNormalizers",
    "count_rows",
    "null_metric",
    "scope_metrics",
]
