"""Score reference/hypothesis rows: normalise both sides, count edits, aggregate, bootstrap.

Per row and per (view, unit) the scorer keeps the four counts S, D, I, C in a numpy
array; every figure (micro rate, macro rate, CIs, breakdowns by language and slice) is
computed from those counts, so the numbers in `results.json` can be re-derived from
`predictions.jsonl` alone (`earmark verify` does exactly that).

Rows are grouped by the normaliser their language gets; figures from different
normalisers are never summed (the top-level `overall` block is null with a reason then).
The scorer builds the typed `earmark.results.ArmResult`; JSON is written at the edge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from earmark.collector import collector_paused
from earmark.formats.rows import ScoringRow
from earmark.metrics.tokens import CHAR_CONVENTION, MIXED_CONVENTION, WORD_CONVENTION
from earmark.results.arm import ArmResult, Coverage, RowStatus
from earmark.results.codec import JSONValue
from earmark.results.scope import ScopeResult
from earmark.scoring.blocks import scope_block
from earmark.scoring.breakdowns import language_blocks
from earmark.scoring.counting import score_part
from earmark.scoring.groups import WORST_KEPT, Group
from earmark.scoring.metric import MIXED_METRIC
from earmark.scoring.options import ScoringOptions
from earmark.scoring.parts import Part, RowRecord, record_lines_in_order, records_in_order
from earmark.scoring.row_facts import RowFacts, language_key
from earmark.text import get_normalizer

EMPTY_REFERENCE_CONVENTION = (
    "per-utterance rate with an empty reference is 0 when the hypothesis is empty, else 1 "
    "(macro only; micro rates sum counts)"
)


@dataclass
class ScoreResult:
    """The scored corpus: aggregate blocks now, per-row records on demand (when kept)."""

    options: ScoringOptions
    rows: list[ScoringRow]
    #: Every figure of the corpus, typed: what results.json's `arms.<name>` holds.
    arm: ArmResult
    groups: dict[str, Group]
    #: How many worst utterances per language each group kept (`WORST_KEPT`).
    worst_kept: int = WORST_KEPT

    def to_dict(self) -> dict[str, JSONValue]:
        """The arm's figures as results.json writes them (encoded afresh on each call)."""
        return self.arm.to_dict()

    @property
    @collector_paused()
    def records(self) -> list[RowRecord]:
        """Per-row records in input order (raw texts, status, normalised views, counts)."""
        return list(self.iter_records())

    def iter_records(self) -> Iterator[RowRecord]:
        """`records` one at a time, so a writer can stream them instead of holding every
        row's record (a few KB each) at once. Only where the scorer kept its texts
        (`score_rows`); a streamed corpus wrote its records as it went."""
        parts = [part for group in self.groups.values() for part in group.parts]
        if len(self.rows) != sum(len(part.rows) for part in parts) or (
            not parts and any(group.n for group in self.groups.values())
        ):
            raise RuntimeError("this corpus was scored streaming: its records were not kept")
        yield from records_in_order(parts, 0, len(self.rows))


class CorpusScorer:
    """Scores a corpus chunk by chunk, in input order, and keeps per-row counts only.

    `add` normalises and counts a chunk and hands back its predictions.jsonl records
    (built lazily, from that chunk's texts: consume them before the next `add`); the
    texts then go, except each language's few worst rows (`WORST_KEPT`) and the edit
    tallies the error analysis ranks. `finish` computes every figure from the counts.
    The figures and records are the same whatever the chunk size (tests pin it), so a
    1,000,000-row file scores in memory that grows only by the per-row counts and codes
    (`Group`, `RowFacts`) and an 8-byte digest of each id (`RowKeys`). `keep=True`
    keeps each chunk's rows and texts too, for `ScoreResult.records`, the sclite reports
    and the punctuation metrics.

    `reread` gives the same rows again from the first (`readers.PairStream.reread`): the
    ids are then kept as digests, and read again only if two digests match. Without it
    (and without `keep`) the scorer cannot look back, so it keeps each id's string.
    Besides the per-row state, the error analysis's edit tallies grow with the distinct
    confusions (substitution pairs, inserted and deleted units): up to a few per row on
    random text, far fewer on real transcripts, which repeat their confusions.
    """

    def __init__(
        self,
        options: ScoringOptions,
        *,
        keep: bool = False,
        reread: Callable[[], Iterable[ScoringRow]] | None = None,
    ) -> None:
        self.options = options
        self.keep = keep
        if reread is None and keep:
            reread = self._kept_rows
        self.facts = RowFacts(reread=reread)
        self.groups: dict[str, Group] = {}
        self.rows: list[ScoringRow] = []
        # The policy answers per language; a corpus has a handful, not one per row.
        self._norm_of: dict[str | None, str] = {}

    def add(self, rows: Sequence[ScoringRow]) -> Iterator[RowRecord]:
        """Score `rows` (the next chunk); returns their records, built as iterated."""
        start = self.facts.n
        return records_in_order(self._score(rows), start, len(rows))

    def add_lines(self, rows: Sequence[ScoringRow]) -> list[bytes]:
        """Score `rows` (the next chunk); returns their predictions.jsonl lines, the
        bytes orjson writes for `add`'s records (keys sorted, newline-terminated)."""
        start = self.facts.n
        return record_lines_in_order(self._score(rows), start, len(rows))

    def _score(self, rows: Sequence[ScoringRow]) -> list[Part]:
        """Code, normalise and count one chunk; its parts, one per normaliser."""
        start = self.facts.n
        self.facts.add(rows)
        by_norm: dict[str, list[int]] = defaultdict(list)
        languages = set(map(_LANGUAGE, rows))
        if len(languages) == 1:  # one language (the common chunk): no step per row
            by_norm[self._normalizer_of(next(iter(languages)))] = list(range(len(rows)))
        else:
            for k, row in enumerate(rows):
                by_norm[self._normalizer_of(row.language)].append(k)
        parts = []
        for name, at in sorted(by_norm.items()):
            group = self.groups.get(name)
            if group is None:
                group = self.groups[name] = Group(normalizer=get_normalizer(name))
            part = Part(
                normalizer=group.normalizer,
                rows=[rows[k] for k in at] if len(at) < len(rows) else list(rows),
                index=[start + k for k in at],
            )
            score_part(part, group.edits, self.options.word_counter)
            group.absorb(part, keep=self.keep, worst=WORST_KEPT)
            parts.append(part)
        if self.keep:
            self.rows.extend(rows)
        return parts

    def _normalizer_of(self, language: str | None) -> str:
        """The policy's normaliser for `language`, asked once per language."""
        name = self._norm_of.get(language)
        if name is None:
            name = self._norm_of[language] = self.options.policy.for_language(language)
        return name

    def _kept_rows(self) -> list[ScoringRow]:
        return self.rows

    def finish(self) -> ScoreResult:
        """Every figure of the corpus (`ScoreResult.summary`), from the kept counts."""
        options = self.options
        facts = self.facts
        facts.seal()
        if options.protocol is not None:
            options.protocol.check_languages(facts.language_names)
        groups = {name: self.groups[name] for name in sorted(self.groups)}
        for group in groups.values():
            group.seal()
        # Per row: its language as the blocks name it ("und" for none).
        base_of = [language_key(name) for name in facts.language_names]
        by_language: dict[str, ScopeResult] = {}
        for group in groups.values():
            by_language.update(language_blocks(group, facts, base_of, options))
        overall: ScopeResult | None = None
        overall_null = None
        if len(groups) == 1:
            (group,) = groups.values()
            overall = scope_block(group, np.arange(group.n, dtype=np.int64), facts, options)
        else:
            overall_null = (
                "languages are scored with different normalisers "
                f"({', '.join(sorted(groups))}); see by_language"
                if groups
                else "no rows"
            )
        settings = options.arm_settings()
        arm = ArmResult(
            protocol=settings.protocol,
            normalizer_policy=settings.normalizer_policy,
            aggregate=settings.aggregate,
            bootstrap=settings.bootstrap,
            minimums=settings.minimums,
            glm=settings.glm,
            alignment=settings.alignment,
            conventions=CONVENTIONS,
            coverage=_coverage(facts),
            overall=overall,
            overall_null_reason=overall_null,
            by_language=by_language,
        )
        return ScoreResult(options=options, rows=self.rows, arm=arm, groups=groups)


_LANGUAGE = attrgetter("language")

#: What each figure counts and how the edge cases are scored, in words.
CONVENTIONS = {
    "wer": f"word units: {WORD_CONVENTION}",
    "cer": f"character units: {CHAR_CONVENTION}",
    MIXED_METRIC: f"mixed units (code-switched Mandarin): {MIXED_CONVENTION}",
    "empty_reference": EMPTY_REFERENCE_CONVENTION,
    "missing_hypothesis": "scored as an empty hypothesis (all deletions) and listed",
}


def _coverage(facts: RowFacts) -> Coverage:
    """Every reference accounted for: all are scored; statuses other than ok listed."""
    status_counts = np.bincount(facts.status_code, minlength=len(facts.status_names))
    statuses = {
        facts.status_names[code]: int(count)
        for code, count in enumerate(status_counts.tolist())
        if count
    }
    return Coverage(
        references=facts.n,
        scored=facts.n,
        statuses=dict(sorted(statuses.items())),
        not_ok=tuple(RowStatus(id=ident, status=status) for ident, status in facts.not_ok),
    )


@collector_paused()
def score_rows(rows: Iterable[ScoringRow], options: ScoringOptions) -> ScoreResult:
    """Score every row; no row is dropped (missing hypotheses count as deletions)."""
    scorer = CorpusScorer(options, keep=True)
    scorer.add(list(rows))
    return scorer.finish()
