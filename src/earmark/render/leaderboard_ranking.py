"""Ranking: competition ranks within each group, unverifiable rows after verifiable ones,
rows below the coverage minimum unranked; declared system types; the mean over corpora;
the board as leaderboard.json holds it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from earmark.engines.system_type import UNDECLARED, parse_system_type
from earmark.errors import EarmarkError
from earmark.render.leaderboard_entries import Entry, check_min_coverage, entries_of_run
from earmark.render.leaderboard_external import SelfReported, contamination_mark
from earmark.render.run_directory import RunDirectory

SCHEMA_ID = "earmark.leaderboard/1"


def competition_ranks(
    values: Sequence[float | None], verifiable: Sequence[bool] | None = None
) -> list[int | None]:
    """Competition ranks (1, 2, 2, 4) of error rates, lower is better. With `verifiable`,
    every verifiable value ranks before every unverifiable one. `None` gets no rank.

    >>> competition_ranks([0.2, 0.1, 0.2, None, 0.3])
    [2, 1, 2, None, 4]
    >>> competition_ranks([0.1, 0.2, 0.3], [False, True, True])
    [3, 1, 2]
    """
    flags = list(verifiable) if verifiable is not None else [True] * len(values)
    keyed = [(not flags[i], round(float(v), 12), i) for i, v in enumerate(values) if v is not None]
    keyed.sort()
    ranks: list[int | None] = [None] * len(values)
    previous: tuple[bool, float] | None = None
    rank = 0
    for position, (unverified, value, index) in enumerate(keyed, start=1):
        if (unverified, value) != previous:
            rank = position
            previous = (unverified, value)
        ranks[index] = rank
    return ranks


def _disambiguate(entries: list[Entry]) -> list[Entry]:
    """The same arm name from two runs on one corpus becomes `arm @ run-dir`."""
    seen: dict[tuple[Any, ...], set[str]] = {}
    for e in entries:
        seen.setdefault((*e.group, e.arm), set()).add(e.run)
    clash = {key[-1] for key, runs in seen.items() if len(runs) > 1}
    return [
        replace(e, system=f"{e.arm} @ {Path(e.run).name}") if e.arm in clash else e for e in entries
    ]


@dataclass(frozen=True)
class CorpusMean:
    """One system's macro mean of a metric over the board's corpus · language columns
    (the Open ASR Leaderboard's "average WER"): each column counts once, nothing pooled.
    None, with the reason, unless the system has a ranked figure in every column."""

    system: str
    metric: str
    value: float | None
    columns: int
    covered: int
    reason: str | None = None


#: How the mean over corpora is computed, in words (leaderboard.json, md, html).
MEAN_RULE = (
    "macro mean of the per-column figures (each corpus · language column of that metric "
    "counts once; rows are not pooled); only for a system with a ranked figure in every "
    "such column from one model revision, only where the metric has at least two columns, "
    "and none where one corpus · language is scored two ways"
)


def corpus_means(entries: Sequence[Entry]) -> list[CorpusMean]:
    """The mean over corpora of each system, per metric (`MEAN_RULE`); `all` scopes are
    left out, since they repeat their languages' rows."""
    columns: dict[str, set[tuple[str, ...]]] = {}
    for e in entries:
        if e.language != "all":
            columns.setdefault(e.metric, set()).add(e.group)
    out = []
    systems = list(dict.fromkeys(e.system for e in entries))
    for metric, groups in sorted(columns.items(), key=lambda kv: kv[0] != "wer"):
        if len(groups) < 2:
            continue
        scopes = [(g[0], g[2]) for g in groups]
        twice = len(set(scopes)) < len(scopes)
        for system in systems:
            own = {e.group: e for e in entries if e.system == system and e.group in groups}
            if not own:
                continue
            usable = {g: e for g, e in own.items() if e.may_rank and e.value is not None}
            revisions = {e.model_revision for e in usable.values()}
            reason = None
            if twice:
                reason = (
                    f"a corpus · language is scored two ways (normaliser or rows) among the "
                    f"{metric.upper()} columns: a mean would count it twice"
                )
            elif len(usable) < len(groups):
                reason = f"ranked in {len(usable)} of {len(groups)} {metric.upper()} columns"
            elif len(revisions) > 1:
                reason = "the columns' figures come from different model revisions"
            values = [float(e.value) for e in usable.values() if e.value is not None]
            out.append(
                CorpusMean(
                    system=system,
                    metric=metric,
                    value=None if reason else sum(values) / len(values),
                    columns=len(groups),
                    covered=len(usable),
                    reason=reason,
                )
            )
    return out


def apply_system_types(entries: list[Entry], declared: Mapping[str, str]) -> list[Entry]:
    """Entries with the types declared by `--system-type NAME=TYPE` (NAME an arm or a
    system as the board names it). A name matching no entry, or a type contradicting the
    one the arm's record declares, is refused."""
    types = {name: parse_system_type(kind, field="system-type") for name, kind in declared.items()}
    names = {e.arm for e in entries} | {e.system for e in entries}
    unknown = sorted(set(types) - names)
    if unknown:
        raise EarmarkError(
            f"--system-type names {unknown[0][:80]!r}, which is no system on this board",
            field="system-type",
            hint="systems: " + ", ".join(sorted({e.system for e in entries}))[:400],
        )
    out = []
    for e in entries:
        kind = types.get(e.system, types.get(e.arm))
        if kind is None:
            out.append(e)
            continue
        if e.system_type not in (UNDECLARED, kind):
            raise EarmarkError(
                f"--system-type {e.system[:80]}={kind} contradicts the arm's own declaration "
                f"{e.system_type} ({e.system_type_source})",
                field="system-type",
            )
        out.append(replace(e, system_type=kind, system_type_source="--system-type"))
    return out


@dataclass(frozen=True)
class Leaderboard:
    entries: list[Entry]
    runs: list[dict[str, Any]]
    created: str
    min_coverage: float = 1.0
    self_reported: list[SelfReported] = field(default_factory=list)
    contamination: list[dict[str, Any]] = field(default_factory=list)
    contamination_share: float = 0.0
    means: list[CorpusMean] = field(default_factory=list)

    def mean_of(self, system: str, metric: str) -> CorpusMean | None:
        """The system's mean over corpora in `metric`; None where none is computed."""
        return next((m for m in self.means if (m.system, m.metric) == (system, metric)), None)

    @property
    def ranked(self) -> list[Entry]:
        return [e for e in self.entries if e.unranked_reason is None]

    @property
    def unranked(self) -> list[Entry]:
        """Rows below the coverage minimum: listed apart, never ranked."""
        return [e for e in self.entries if e.unranked_reason is not None]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_ID,
            "created": self.created,
            "ranking": "competition ranks (1,2,2,4) of the primary-view metric within each "
            "(corpus hash, rows scored, language, normaliser, view, metric) group; lower is "
            "better; unverifiable rows rank after all verifiable rows; null values are "
            "unranked; rows whose coverage (rows with an engine hypothesis / rows) is below "
            "min_coverage are unranked",
            "min_coverage": self.min_coverage,
            "runs": self.runs,
            "entries": [e.to_dict() for e in self.entries],
            "mean_over_corpora": {"rule": MEAN_RULE, "rows": [asdict(m) for m in self.means]},
            "contamination": {
                "reports": self.contamination,
                "max_flagged_share": self.contamination_share,
                "rule": "a row is suspect when a report on its manifest SHA-256 (naming no "
                "system, or this arm) has a flagged-utterance share above max_flagged_share "
                "in the row's language (the corpus for `all`), or a canary in the declared "
                "text; suspect rows keep their rank",
            },
            "self_reported": {
                "note": "figures published by others, not measured or checked by earmark; "
                "never ranked",
                "rows": [asdict(r) for r in self.self_reported],
            },
        }


def build_leaderboard(
    runs: Sequence[RunDirectory],
    min_coverage: float = 1.0,
    *,
    self_reported: Sequence[SelfReported] = (),
    contamination: Sequence[dict[str, Any]] = (),
    contamination_share: float = 0.0,
    system_types: Mapping[str, str] | None = None,
) -> Leaderboard:
    """Rank every run's arms within their groups; entries sorted by group then rank.
    Rows below `min_coverage` keep their figures but get no rank. Contamination reports
    mark rows; self-reported rows are kept apart and never ranked; `system_types` declares
    systems' types (`apply_system_types`)."""
    check_min_coverage(min_coverage)
    entries = _disambiguate([e for run in runs for e in entries_of_run(run, min_coverage)])
    entries = apply_system_types(entries, system_types or {})
    entries = [
        replace(e, contamination=contamination_mark(e, contamination, contamination_share))
        for e in entries
    ]
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, e in enumerate(entries):
        groups.setdefault(e.group, []).append(i)
    ranked = list(entries)
    for indices in groups.values():
        ranks = competition_ranks(
            [entries[i].value if entries[i].may_rank else None for i in indices],
            [entries[i].verifiable for i in indices],
        )
        for i, rank in zip(indices, ranks, strict=True):
            ranked[i] = replace(entries[i], rank=rank)
    ranked.sort(
        key=lambda e: (
            e.corpus,
            e.corpus_hash,
            e.language == "all",
            e.language,
            e.normalizer,
            e.rank is None,
            e.rank or 0,
            e.system,
        )
    )
    run_info = []
    for run in runs:
        ok, missing = run.verifiable()
        run_info.append(
            {"path": str(run.path), "arms": run.arm_names, "verifiable": ok, "missing": missing}
        )
    created = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    return Leaderboard(
        entries=ranked,
        runs=run_info,
        created=created,
        min_coverage=min_coverage,
        self_reported=list(self_reported),
        contamination=[
            {
                "manifest_sha256": (r.get("corpus") or {}).get("manifest_sha256"),
                "declared": (r.get("declared") or {}).get("path"),
                "system": (r.get("declared") or {}).get("system"),
                "summary": r.get("summary"),
            }
            for r in contamination
        ],
        contamination_share=contamination_share,
        means=corpus_means(ranked),
    )
