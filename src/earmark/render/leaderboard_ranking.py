"""Ranking: competition ranks within each group, unverifiable rows after verifiable ones,
rows below the coverage minimum unranked; the board as leaderboard.json holds it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

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
class Leaderboard:
    entries: list[Entry]
    runs: list[dict[str, Any]]
    created: str
    min_coverage: float = 1.0
    self_reported: list[SelfReported] = field(default_factory=list)
    contamination: list[dict[str, Any]] = field(default_factory=list)
    contamination_share: float = 0.0

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
            "(corpus hash, selection, language, normaliser, view, metric) group; lower is "
            "better; unverifiable rows rank after all verifiable rows; null values are "
            "unranked; rows whose coverage (rows with an engine hypothesis / rows) is below "
            "min_coverage are unranked",
            "min_coverage": self.min_coverage,
            "runs": self.runs,
            "entries": [e.to_dict() for e in self.entries],
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
) -> Leaderboard:
    """Rank every run's arms within their groups; entries sorted by group then rank.
    Rows below `min_coverage` keep their figures but get no rank. Contamination reports
    mark rows; self-reported rows are kept apart and never ranked."""
    check_min_coverage(min_coverage)
    entries = _disambiguate([e for run in runs for e in entries_of_run(run, min_coverage)])
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
    )
