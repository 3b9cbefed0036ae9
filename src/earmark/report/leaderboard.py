"""Leaderboards across runs: systems (arms) × corpora, BlasBench-style (seed 003).

Only figures scored on the same data with the same normaliser are ranked together: the
ranking group is (corpus hash + selection, language, normaliser, view, metric). The
metric is the normaliser's first unit — WER for word-scored languages, CER for
character-scored ones (zh-eval-v1).

Seed 000: a result without model revision, corpus hash and host profile is not a
verifiable winner. Such rows carry a visible "unverifiable" mark and are ranked after
every verifiable row of their group. Ranks are competition ranks over the sorted values
(1, 2, 2, 4): equal values share a rank, and a null value has no rank.

Coverage is the share of the corpus's rows (clip × repeat) whose hypothesis came from the
engine (status `ok`). A row without one is scored as all deletions, so an arm that never
loaded has 100% WER — a figure that looks like a (bad) result and, on a CER-scored
language where real models exceed 100%, can even win. Rows below `min_coverage` (default:
every row) are not ranked; they are listed apart with their coverage and the reason.

Model type and size come from each arm's model record (`model.json` `extra.architecture`
and `extra.parameters`, written by engines that can state them exactly); a figure the
engine could not state exactly is blank, with the recorded reason.

A contamination report (`earmark manifest contamination`) marks rows, never re-ranks them:
a row is suspect when a report's manifest SHA-256 is the row's corpus, the report names no
system or names this arm, and in the row's language (the whole corpus for `all`) the share
of flagged utterances exceeds `contamination_share` (default 0: any flagged utterance) or
a canary was found in the declared text.

Self-reported figures (a paper's, a vendor's) are accepted as rows of their own, shown
apart as "self-reported (not verified)" and never ranked with figures earmark measured.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_text
from earmark.report.markdown import fmt_rate, md_table
from earmark.report.run_directory import (
    RunDirectory,
    base_language,
    load_run,
    primary_metric_name,
)

SCHEMA_ID = "earmark.leaderboard/1"
SELF_REPORTED_SCHEMA = "earmark.self-reported/1"
UNVERIFIABLE = "unverifiable"
SUSPECT = "contamination suspect"


@dataclass(frozen=True)
class Entry:
    """One system on one corpus × language, with what ranks it and what audits it."""

    system: str
    arm: str
    run: str
    corpus: str
    corpus_hash: str
    corpus_hash_kind: str
    """`manifest` (the manifest's SHA-256) or `references` (hash of the scored references,
    for `earmark score` outputs that record no manifest)."""
    selection: str
    language: str
    normalizer: str
    view: str
    metric: str
    n: int
    wer: dict[str, Any] | None
    cer: dict[str, Any] | None
    rtf: float | None
    peak_rss_bytes: int | None
    model_revision: str | None
    verifiable: bool
    missing: list[str] = field(default_factory=list)
    rank: int | None = None
    #: Rows with an engine hypothesis (status ok) and rows in the corpus scope.
    covered: int = 0
    rows: int = 0
    #: Non-ok statuses and their counts, e.g. {"arm_failed": 3}.
    not_ok: dict[str, int] = field(default_factory=dict)
    #: Why the row is not ranked (coverage below the minimum); None when it may rank.
    unranked_reason: str | None = None
    #: Model type (e.g. `WhisperForConditionalGeneration`) and exact parameter count from
    #: the model record; None with `parameters_note` saying why.
    architecture: str | None = None
    parameters: int | None = None
    parameters_note: str | None = None
    #: Why a contamination report marks this row suspect; None when none does.
    contamination: str | None = None

    @property
    def coverage(self) -> float | None:
        return self.covered / self.rows if self.rows else None

    @property
    def value(self) -> float | None:
        metric = self.wer if self.metric == "wer" else self.cer
        value = (metric or {}).get("value")
        return None if value is None else float(value)

    @property
    def group(self) -> tuple[str, str, str, str, str, str]:
        return (
            self.corpus_hash,
            self.selection,
            self.language,
            self.normalizer,
            self.view,
            self.metric,
        )


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


def _selection_key(corpus: dict[str, Any]) -> str:
    sel = corpus.get("selection") or {}
    text = json.dumps(
        {"rule": sel.get("rule"), "parameters": sel.get("parameters")}, sort_keys=True
    )
    return str(sel.get("rule") or "all rows") + " #" + hashlib.sha256(text.encode()).hexdigest()[:8]


def check_min_coverage(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise EarmarkError(
            f"minimum coverage {value!r} is not between 0 and 1",
            field="min-coverage",
            hint="1 (the default) ranks only arms with a hypothesis for every clip; 0.95 "
            "allows 5% of rows without one",
        )
    return value


def scope_statuses(run: RunDirectory, arm: str, language: str) -> Counter[str]:
    """Row statuses of one arm in one language (`all`: every language). Rows come from
    predictions.jsonl; without it, the arm's own coverage record (whole arm)."""
    rows = run.arm_rows(arm)
    if not rows:
        return Counter(run.arm(arm).get("coverage", {}).get("statuses") or {})
    return Counter(
        str(r.get("status") or "ok")
        for r in rows
        if language == "all" or base_language(r.get("language")) == language
    )


def coverage_reason(covered: int, rows: int, not_ok: dict[str, int], minimum: float) -> str:
    """`coverage 0/3 (0.0%) below the minimum 100%: arm_failed 3`."""
    share = covered / rows if rows else 0.0
    statuses = ", ".join(f"{status} {n}" for status, n in sorted(not_ok.items()))
    return (
        f"coverage {covered}/{rows} ({100 * share:.1f}%) below the minimum "
        f"{100 * minimum:g}%" + (f": {statuses}" if statuses else "")
    )


def entries_of_run(run: RunDirectory, min_coverage: float = 1.0) -> list[Entry]:
    """One entry per arm × language (plus `all` when one normaliser scored several
    languages), each from the block's primary view, with its coverage."""
    corpus = run.corpus
    if run.manifest_sha256:
        corpus_hash, kind = run.manifest_sha256, "manifest"
    else:
        corpus_hash, kind = run.references_sha256(), "references"
    dataset = str(corpus.get("dataset") or f"unnamed ({run.path.name})")
    selection = _selection_key(corpus)
    out = []
    for arm_name, arm in run.results["arms"].items():
        ok, missing = run.verifiable(arm_name)
        resources = arm.get("resources") or {}
        by_lang_res = arm.get("resources_by_language") or {}
        scopes = list(arm.get("by_language", {}).items())
        if arm.get("overall") and len(scopes) > 1:
            scopes.append(("all", arm["overall"]))
        for lang, block in scopes:
            view = block["views"].get(block["primary_view"], {})
            # The language's own RTF; the arm's when it covers just this one language.
            rtf = (by_lang_res.get(lang) or {}).get("real_time_factor")
            if lang == "all" or (rtf is None and len(arm.get("by_language", {})) == 1):
                rtf = resources.get("real_time_factor")
            statuses = scope_statuses(run, arm_name, lang)
            rows, covered = sum(statuses.values()), statuses.get("ok", 0)
            not_ok = {k: v for k, v in sorted(statuses.items()) if k != "ok"}
            below = rows == 0 or covered < min_coverage * rows - 1e-9
            out.append(
                Entry(
                    system=arm_name,
                    arm=arm_name,
                    run=str(run.path),
                    corpus=dataset,
                    corpus_hash=corpus_hash,
                    corpus_hash_kind=kind,
                    selection=selection,
                    language=lang,
                    normalizer=block["normalizer"]["name"],
                    view=block["primary_view"],
                    metric=primary_metric_name(block),
                    n=int(block.get("n_utterances", 0)),
                    wer=view.get("wer"),
                    cer=view.get("cer"),
                    rtf=None if rtf is None else float(rtf),
                    peak_rss_bytes=resources.get("peak_rss_bytes"),
                    model_revision=run.model(arm_name).get("revision"),
                    **model_shape(run.model(arm_name)),
                    verifiable=ok,
                    missing=missing,
                    covered=covered,
                    rows=rows,
                    not_ok=not_ok,
                    unranked_reason=coverage_reason(covered, rows, not_ok, min_coverage)
                    if below
                    else None,
                )
            )
    return out


def model_shape(model: dict[str, Any]) -> dict[str, Any]:
    """Architecture and parameter count as the engine recorded them (`model.json`
    `extra`); a count the engine did not record exactly is None with the reason."""
    extra = model.get("extra") or {}
    architecture = extra.get("architecture") or None
    if architecture and extra.get("model_class"):
        architecture = f"{architecture} ({extra['model_class']})"
    parameters = extra.get("parameters")
    exact = isinstance(parameters, int) and not isinstance(parameters, bool) and parameters > 0
    note = None
    if not exact:
        note = str(extra.get("parameters_note") or "not recorded by the engine")
    return {
        "architecture": str(architecture) if architecture else None,
        "parameters": parameters if exact else None,
        "parameters_note": note,
    }


@dataclass(frozen=True)
class SelfReported:
    """A figure someone else measured, with where it was published. Never ranked."""

    system: str
    manifest_sha256: str
    language: str
    metric: str
    value: float
    source: str
    corpus: str | None = None
    note: str | None = None


def load_self_reported(path: str | os.PathLike[str]) -> list[SelfReported]:
    """Rows of an `earmark.self-reported/1` file: `{"schema": ..., "rows": [{system,
    manifest_sha256, language, metric ("wer"/"cer"), value (a fraction: 0.123),
    source (an http(s) URL), corpus?, note?}]}`; a bare list of rows is accepted too."""
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except OSError as exc:
        raise EarmarkError(f"cannot read: {exc.strerror}", file=str(p)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise EarmarkError(f"not JSON: {exc}", file=str(p), line=line) from None
    if isinstance(data, dict):
        if data.get("schema") not in (None, SELF_REPORTED_SCHEMA):
            raise EarmarkError(
                f"schema {data.get('schema')!r} is not {SELF_REPORTED_SCHEMA}",
                file=str(p),
                field="schema",
            )
        data = data.get("rows")
    if not isinstance(data, list):
        raise EarmarkError(
            "expected a list of rows",
            file=str(p),
            field="rows",
            hint=f'{{"schema": "{SELF_REPORTED_SCHEMA}", "rows": [{{"system": ..., '
            '"manifest_sha256": ..., "language": ..., "metric": "wer", "value": 0.1, '
            '"source": "https://..."}]}',
        )
    return [_self_reported_row(row, p, i) for i, row in enumerate(data)]


def _self_reported_row(row: Any, path: Path, index: int) -> SelfReported:
    def bad(key: str, why: str, hint: str | None = None) -> EarmarkError:
        where = f"rows[{index}]" + (f".{key}" if key else "")
        return EarmarkError(why, file=str(path), field=where, hint=hint)

    if not isinstance(row, dict):
        raise bad("", "a row must be a JSON object")
    unknown = set(row) - {f.name for f in SelfReported.__dataclass_fields__.values()}
    if unknown:
        raise bad(sorted(unknown)[0], f"unknown field(s): {', '.join(sorted(unknown))}")
    text = {}
    for key in ("system", "manifest_sha256", "language", "metric", "source"):
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            raise bad(key, f"{key} is required (a non-empty string)")
        text[key] = value.strip()
    sha = text["manifest_sha256"].lower()
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise bad("manifest_sha256", "not a SHA-256", hint="`earmark manifest hash MANIFEST`")
    if text["metric"].lower() not in ("wer", "cer"):
        raise bad("metric", f"metric {text['metric']!r} is not wer or cer")
    value = row.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise bad("value", "value must be a number >= 0", hint="a fraction: 12.3% is 0.123")
    if not text["source"].startswith(("https://", "http://")):
        raise bad("source", "source must be the URL where the figure was published")
    for key in ("corpus", "note"):
        if row.get(key) is not None and not isinstance(row[key], str):
            raise bad(key, f"{key} must be a string")
    return SelfReported(
        system=text["system"],
        manifest_sha256=sha,
        language=text["language"],
        metric=text["metric"].lower(),
        value=float(value),
        source=text["source"],
        corpus=row.get("corpus"),
        note=row.get("note"),
    )


def contamination_mark(
    e: Entry, reports: Sequence[dict[str, Any]], max_share: float = 0.0
) -> str | None:
    """Why the contamination reports make this row suspect (the module docstring's rule)."""
    reasons = []
    for report in reports:
        if e.corpus_hash_kind != "manifest":
            continue
        if (report.get("corpus") or {}).get("manifest_sha256") != e.corpus_hash:
            continue
        system = (report.get("declared") or {}).get("system")
        if system and system not in (e.arm, e.system):
            continue
        scope = report.get("summary") or {}
        if e.language != "all":
            scope = (report.get("by_language") or {}).get(e.language) or {}
        flagged, total = int(scope.get("flagged") or 0), int(scope.get("utterances") or 0)
        canaries = [
            h["canary"]
            for h in (report.get("canaries") or {}).get("hits", [])
            if h.get("declared_count")
        ]
        declared = (report.get("declared") or {}).get("path", "?")
        if total and flagged / total > max_share:
            reasons.append(
                f"{flagged}/{total} utterances flagged ({100 * flagged / total:.1f}%) "
                f"against {declared}"
            )
        if canaries:
            reasons.append(f"canary {canaries[0]} in {declared}")
    return "; ".join(reasons) or None


def read_contamination(path: str | os.PathLike[str]) -> dict[str, Any]:
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except OSError as exc:
        raise EarmarkError(f"cannot read: {exc.strerror}", file=str(p)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise EarmarkError(f"not JSON: {exc}", file=str(p)) from None
    if not isinstance(data, dict) or data.get("schema") != "earmark.contamination/1":
        raise EarmarkError(
            "not a contamination report (schema earmark.contamination/1)",
            file=str(p),
            field="schema",
            hint="write one with `earmark manifest contamination`",
        )
    return data


def _disambiguate(entries: list[Entry]) -> list[Entry]:
    """The same arm name from two runs on one corpus becomes `arm @ run-dir`."""
    seen: dict[tuple[Any, ...], set[str]] = {}
    for e in entries:
        seen.setdefault((*e.group, e.arm), set()).add(e.run)
    clash = {key[-1] for key, runs in seen.items() if len(runs) > 1}
    return [
        Entry(**{**asdict(e), "system": f"{e.arm} @ {Path(e.run).name}"}) if e.arm in clash else e
        for e in entries
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
            "entries": [
                {**asdict(e), "value": e.value, "coverage": e.coverage, "ranked": _may_rank(e)}
                for e in self.entries
            ],
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


def _may_rank(e: Entry) -> bool:
    return e.unranked_reason is None


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
        Entry(
            **{
                **asdict(e),
                "contamination": contamination_mark(e, contamination, contamination_share),
            }
        )
        for e in entries
    ]
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, e in enumerate(entries):
        groups.setdefault(e.group, []).append(i)
    ranked = list(entries)
    for indices in groups.values():
        ranks = competition_ranks(
            [entries[i].value if _may_rank(entries[i]) else None for i in indices],
            [entries[i].verifiable for i in indices],
        )
        for i, rank in zip(indices, ranks, strict=True):
            ranked[i] = Entry(**{**asdict(entries[i]), "rank": rank})
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


# --- renderings ------------------------------------------------------------------------


def _mark(e: Entry) -> str:
    mark = "" if e.verifiable else f" ⚠ {UNVERIFIABLE}"
    return mark + (f" ⚠ {SUSPECT}" if e.contamination else "")


def _parameters(e: Entry) -> str:
    """`39.0M` (exact count in the JSON/CSV), or `—` when not recorded exactly."""
    if e.parameters is None:
        return "—"
    if e.parameters >= 10**9:
        return f"{e.parameters / 1e9:.2f}B"
    return f"{e.parameters / 1e6:.1f}M"


def _rank(e: Entry) -> str:
    return "—" if e.rank is None else str(e.rank)


def _mib(value: int | None) -> str:
    return "—" if value is None else f"{value / 2**20:.0f} MiB"


def _coverage(e: Entry) -> str:
    if not e.rows:
        return "0/0"
    return f"{e.covered}/{e.rows} ({100 * e.covered / e.rows:.1f}%)"


def _rtf(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _scope(e: Entry) -> str:
    return f"{e.corpus} [{e.corpus_hash_kind} {e.corpus_hash[:12]}] · {e.language}"


def _column_key(e: Entry) -> tuple[str, ...]:
    return e.group


def pivot(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    """Systems × (corpus · language): each cell `12.34% (#1)` in the group's metric."""
    columns: dict[tuple[str, ...], str] = {}
    for e in board.entries:
        columns.setdefault(_column_key(e), f"{_scope(e)} {e.metric.upper()}")
    systems: dict[str, bool] = {}
    for e in board.entries:
        systems[e.system] = systems.get(e.system, True) and e.verifiable
    cells = {(e.system, _column_key(e)): e for e in board.entries}
    rows = []
    for system, ok in systems.items():
        row = [system + ("" if ok else f" ⚠ {UNVERIFIABLE}")]
        for key in columns:
            cell = cells.get((system, key))
            if cell is None:
                row.append("")
            elif cell.value is None:
                row.append("null")
            elif cell.unranked_reason is not None:
                row.append(
                    f"{100 * cell.value:.2f}% (not ranked: coverage {cell.covered}/{cell.rows})"
                )
            else:
                row.append(f"{100 * cell.value:.2f}% (#{_rank(cell)})")
            if cell is not None and cell.contamination:
                row[-1] += f" ⚠ {SUSPECT}"
        rows.append(row)
    return ["system", *columns.values()], rows


DETAIL_HEADER = [
    "rank",
    "system",
    "corpus · language",
    "normaliser / view",
    "N",
    "coverage",
    "WER [95% CI]",
    "CER [95% CI]",
    "RTF",
    "peak RSS",
    "model revision",
    "architecture",
    "parameters",
    "verifiable",
]
UNRANKED_HEADER = [
    "system",
    "corpus · language",
    "normaliser / view",
    "N",
    "coverage",
    "WER [95% CI]",
    "CER [95% CI]",
    "why not ranked",
]


def detail_rows(board: Leaderboard) -> list[list[str]]:
    """The ranked rows (and rows with a null value); rows below the coverage minimum
    are in `unranked_rows`."""
    rows = []
    for e in board.ranked:
        rows.append(
            [
                _rank(e),
                e.system + _mark(e),
                _scope(e),
                f"{e.normalizer} / {e.view} (ranked by {e.metric.upper()})",
                str(e.n),
                _coverage(e),
                fmt_rate(e.wer) if e.wer else "n/a",
                fmt_rate(e.cer),
                _rtf(e.rtf),
                _mib(e.peak_rss_bytes),
                e.model_revision or "—",
                e.architecture or "—",
                _parameters(e),
                "yes" if e.verifiable else f"no: {'; '.join(e.missing)}",
            ]
        )
    return rows


def unranked_rows(board: Leaderboard) -> list[list[str]]:
    return [
        [
            e.system + _mark(e),
            _scope(e),
            f"{e.normalizer} / {e.view}",
            str(e.n),
            _coverage(e),
            fmt_rate(e.wer) if e.wer else "n/a",
            fmt_rate(e.cer),
            e.unranked_reason or "",
        ]
        for e in board.unranked
    ]


def _unranked_intro(board: Leaderboard) -> str:
    return (
        f"Rows whose coverage (rows with a hypothesis from the engine / rows) is below "
        f"{100 * board.min_coverage:g}% (`--min-coverage {board.min_coverage:g}`): a row "
        "without a hypothesis is scored as all deletions, so these figures are not results."
    )


SELF_REPORTED_HEADER = ["system", "corpus · language", "metric", "value", "source", "note"]
SELF_REPORTED_INTRO = (
    "Figures published by others (papers, vendors): not measured, normalised or checked by "
    "earmark, so never ranked with the rows above. Compare with care: the normaliser and "
    "the subset behind a published figure are rarely the ones above."
)


def _corpus_names(board: Leaderboard) -> dict[str, str]:
    return {e.corpus_hash: e.corpus for e in board.entries if e.corpus_hash_kind == "manifest"}


def self_reported_rows(board: Leaderboard) -> list[list[str]]:
    names = _corpus_names(board)
    rows = []
    for r in sorted(
        board.self_reported, key=lambda r: (r.manifest_sha256, r.language, r.metric, r.value)
    ):
        corpus = r.corpus or names.get(r.manifest_sha256) or "corpus"
        rows.append(
            [
                r.system,
                f"{corpus} [manifest {r.manifest_sha256[:12]}] · {r.language}",
                r.metric.upper(),
                f"{100 * r.value:.2f}%",
                r.source,
                r.note or "",
            ]
        )
    return rows


def contamination_rows(board: Leaderboard) -> list[list[str]]:
    return [[e.system, _scope(e), e.contamination or ""] for e in board.entries if e.contamination]


def _contamination_intro(board: Leaderboard) -> str:
    return (
        f"Rows on a corpus whose contamination report flags more than "
        f"{100 * board.contamination_share:g}% of the utterances in the row's language "
        "(`--contamination-share`), or finds a canary in the declared text. They keep their "
        "rank; the mark says the figure may reflect training on the test text."
    )


def render_markdown(board: Leaderboard) -> str:
    header, rows = pivot(board)
    parts = [
        "# earmark leaderboard",
        "",
        "Primary view per language; lower is better. Ranked within each corpus (manifest "
        "SHA-256 and selection) × language × normaliser. Competition ranks (1, 2, 2, 4); "
        f"rows marked ⚠ {UNVERIFIABLE} lack model revision, corpus hash or host profile "
        "and rank after every verifiable row.",
        "",
        "## Systems × corpora",
        "",
        md_table(header, rows),
        "",
        "## Detail",
        "",
        md_table(DETAIL_HEADER, detail_rows(board)),
        "",
    ]
    if board.unranked:
        parts += [
            "## Not ranked",
            "",
            _unranked_intro(board),
            "",
            md_table(UNRANKED_HEADER, unranked_rows(board)),
            "",
        ]
    if board.contamination:
        parts += ["## Contamination", "", _contamination_intro(board), ""]
        found = contamination_rows(board)
        parts += [
            md_table(["system", "corpus · language", "why suspect"], found)
            if found
            else "No row is suspect.",
            "",
        ]
    if board.self_reported:
        parts += [
            "## Self-reported (not verified)",
            "",
            SELF_REPORTED_INTRO,
            "",
            md_table(SELF_REPORTED_HEADER, self_reported_rows(board)),
            "",
        ]
    return "\n".join(parts)


CSV_FIELDS = [
    "rank",
    "system",
    "verifiable",
    "missing",
    "corpus",
    "corpus_hash_kind",
    "corpus_hash",
    "selection",
    "language",
    "normalizer",
    "view",
    "metric",
    "value",
    "n",
    "rows",
    "rows_with_hypothesis",
    "coverage",
    "unranked_reason",
    "wer",
    "wer_ci_low",
    "wer_ci_high",
    "cer",
    "cer_ci_low",
    "cer_ci_high",
    "substitutions",
    "deletions",
    "insertions",
    "ref_units",
    "rtf",
    "peak_rss_bytes",
    "model_revision",
    "architecture",
    "parameters",
    "parameters_note",
    "contamination",
    "run",
]


def render_csv(board: Leaderboard) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for e in board.entries:
        main = (e.wer if e.metric == "wer" else e.cer) or {}

        def ci(metric: dict[str, Any] | None, i: int) -> Any:
            bounds = (metric or {}).get("ci95")
            return "" if not bounds else bounds[i]

        writer.writerow(
            {
                "rank": "" if e.rank is None else e.rank,
                "system": e.system,
                "verifiable": str(e.verifiable).lower(),
                "missing": "; ".join(e.missing),
                "corpus": e.corpus,
                "corpus_hash_kind": e.corpus_hash_kind,
                "corpus_hash": e.corpus_hash,
                "selection": e.selection,
                "language": e.language,
                "normalizer": e.normalizer,
                "view": e.view,
                "metric": e.metric,
                "value": "" if e.value is None else e.value,
                "n": e.n,
                "rows": e.rows,
                "rows_with_hypothesis": e.covered,
                "coverage": "" if e.coverage is None else e.coverage,
                "unranked_reason": e.unranked_reason or "",
                "wer": "" if not e.wer or e.wer.get("value") is None else e.wer["value"],
                "wer_ci_low": ci(e.wer, 0),
                "wer_ci_high": ci(e.wer, 1),
                "cer": "" if not e.cer or e.cer.get("value") is None else e.cer["value"],
                "cer_ci_low": ci(e.cer, 0),
                "cer_ci_high": ci(e.cer, 1),
                "substitutions": main.get("substitutions", ""),
                "deletions": main.get("deletions", ""),
                "insertions": main.get("insertions", ""),
                "ref_units": main.get("ref_units", ""),
                "rtf": "" if e.rtf is None else e.rtf,
                "peak_rss_bytes": "" if e.peak_rss_bytes is None else e.peak_rss_bytes,
                "model_revision": e.model_revision or "",
                "architecture": e.architecture or "",
                "parameters": "" if e.parameters is None else e.parameters,
                "parameters_note": e.parameters_note or "",
                "contamination": e.contamination or "",
                "run": e.run,
            }
        )
    return buffer.getvalue()


#: The page's only script: sorts rows by a clicked header and filters them by corpus and
#: language. It reads every value from the JSON block (never from markup it would parse),
#: touches no network, and is allowed by its hash alone in the Content-Security-Policy.
BOARD_SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById("board-data").textContent);
  var byId = {};
  data.rows.forEach(function (r) { byId[r.id] = r; });
  function dataRows(tbody) {
    return Array.prototype.filter.call(tbody.rows, function (tr) {
      return tr.hasAttribute("data-row");
    });
  }
  function order(key, dir) {
    return function (a, b) {
      var x = byId[a.getAttribute("data-row")][key];
      var y = byId[b.getAttribute("data-row")][key];
      if (x === y) { return 0; }
      if (x === null || x === undefined) { return 1; }
      if (y === null || y === undefined) { return -1; }
      var c = (typeof x === "number" && typeof y === "number") ?
        x - y : String(x).localeCompare(String(y));
      return dir * c;
    };
  }
  document.querySelectorAll("table.board").forEach(function (table) {
    table.querySelectorAll("th button[data-key]").forEach(function (button) {
      button.addEventListener("click", function () {
        var th = button.parentNode;
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        Array.prototype.forEach.call(table.tBodies, function (tbody) {
          dataRows(tbody).sort(order(button.getAttribute("data-key"), dir))
            .forEach(function (tr) { tbody.appendChild(tr); });
        });
      });
    });
  });
  var selects = document.querySelectorAll("select[data-filter]");
  function applyFilter() {
    var want = {};
    selects.forEach(function (s) {
      if (s.value) { want[s.getAttribute("data-filter")] = s.value; }
    });
    var shown = 0;
    document.querySelectorAll("tr[data-row]").forEach(function (tr) {
      var row = byId[tr.getAttribute("data-row")];
      var show = Object.keys(want).every(function (k) { return row[k] === want[k]; });
      tr.hidden = !show;
      if (show) { shown += 1; }
    });
    document.getElementById("shown").textContent = String(shown);
  }
  selects.forEach(function (s) { s.addEventListener("change", applyFilter); });
})();
"""

BOARD_STYLE = """
body { max-width: 1640px; }
table.board th button { all: unset; cursor: pointer; font-weight: 600; }
table.board th button:focus-visible { outline: 2px solid #2952a3; }
table.board th[aria-sort=ascending] button::after { content: " \\25B2"; font-size: 0.8em; }
table.board th[aria-sort=descending] button::after { content: " \\25BC"; font-size: 0.8em; }
table.board td.sys { min-width: 10em; }
table.board tr.group-label td { background: #fff4d6; font-weight: 600; color: #6b5000; }
table.board tbody.unverifiable tr[data-row] { background: #fffaf0; }
table.board tbody.unverifiable tr[data-row] td:first-child { border-left: 4px solid #d9a400; }
table.board.unranked tr[data-row] { background: #f6f6f6; color: #5b6475; }
svg.ci { display: block; }
svg.ci .track { fill: #eef1f5; } svg.ci .val { fill: #4a6fa5; fill-opacity: 0.35; }
svg.ci .ci-line { stroke: #1d2330; stroke-width: 1.5; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 8px 0; }
"""


def _json_block(value: Any) -> str:
    """JSON for a `<script type="application/json">` block: `<`, `>` and `&` as \\u
    escapes, so no text in it can close the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _script_hash(script: str) -> str:
    import base64

    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()


#: Width of a CI bar cell (px) and its height.
CI_WIDTH, CI_HEIGHT = 140, 16


def _scales(board: Leaderboard) -> dict[tuple[str, ...], tuple[float, bool]]:
    """Per ranking group: the axis end of its CI bars, and whether that end cuts bars
    (the same rule as the report's charts, `plots.axis_cap`)."""
    from earmark.report.plots import axis_cap, nice_ticks

    extents: dict[tuple[str, ...], list[float]] = {}
    for e in board.entries:
        metric = (e.wer if e.metric == "wer" else e.cer) or {}
        ci = metric.get("ci95") or [None, None]
        top = ci[1] if ci[1] is not None else e.value
        if top is not None:
            extents.setdefault(e.group, []).append(float(top))
    out = {}
    for group, values in extents.items():
        cap = axis_cap(values)
        out[group] = (cap, True) if cap is not None else (nice_ticks(max(values))[-1], False)
    return out


def _ci_svg(e: Entry, scale: tuple[float, bool] | None) -> str:
    """The value as a light bar and its 95% CI as a line with end ticks, on the group's
    axis; an end past a cut axis runs to the edge with an arrow."""
    from earmark.report.html import esc

    metric = (e.wer if e.metric == "wer" else e.cer) or {}
    if e.value is None or scale is None:
        return ""
    span = scale[0] or 1.0
    inner = CI_WIDTH - 8

    def x(v: float) -> float:
        return 2 + inner * min(max(v, 0.0), span) / span

    mid = CI_HEIGHT / 2
    parts = [
        f'<rect class="track" x="2" y="3" width="{inner}" height="{CI_HEIGHT - 6}"/>',
        f'<rect class="val" x="2" y="3" width="{max(x(e.value) - 2, 0.5):.1f}" '
        f'height="{CI_HEIGHT - 6}"/>',
    ]
    ci = metric.get("ci95")
    text = f"{100 * e.value:.2f}%"
    if ci:
        lo, hi = x(float(ci[0])), x(float(ci[1]))
        parts.append(f'<line class="ci-line" x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}"/>')
        parts.append(
            f'<line class="ci-line" x1="{lo:.1f}" y1="{mid - 4}" x2="{lo:.1f}" y2="{mid + 4}"/>'
        )
        if float(ci[1]) <= span:
            parts.append(
                f'<line class="ci-line" x1="{hi:.1f}" y1="{mid - 4}" x2="{hi:.1f}" y2="{mid + 4}"/>'
            )
        else:
            parts.append(
                f'<path class="ci-arrow" d="M{hi:.1f},{mid - 4} L{hi + 5:.1f},{mid} '
                f'L{hi:.1f},{mid + 4} Z"/>'
            )
        text += f" [{100 * float(ci[0]):.2f}, {100 * float(ci[1]):.2f}]"
    axis = f"axis 0–{100 * span:g}%" + (" (cut)" if scale[1] else "")
    return (
        f'<svg class="ci" width="{CI_WIDTH}" height="{CI_HEIGHT}" role="img" '
        f'viewBox="0 0 {CI_WIDTH} {CI_HEIGHT}"><title>{esc(text)}, {esc(axis)}</title>'
        + "".join(parts)
        + f'</svg><span class="nowrap">{esc(e.metric.upper())} {esc(text)}</span>'
    )


def _row_data(e: Entry, row_id: str, table: str) -> dict[str, Any]:
    """What the script sorts and filters by (numbers as numbers, nulls sort last)."""

    def val(metric: dict[str, Any] | None) -> float | None:
        value = (metric or {}).get("value")
        return None if value is None else float(value)

    return {
        "id": row_id,
        "table": table,
        "rank": e.rank,
        "system": e.system,
        "corpus": e.corpus,
        "language": e.language,
        "normalizer": f"{e.normalizer} / {e.view}",
        "n": e.n,
        "coverage": e.coverage,
        "value": e.value,
        "wer": val(e.wer),
        "cer": val(e.cer),
        "rtf": e.rtf,
        "rss": e.peak_rss_bytes,
        "revision": e.model_revision,
        "architecture": e.architecture,
        "parameters": e.parameters,
        "verifiable": e.verifiable,
        "suspect": e.contamination is not None,
    }


#: (header, sort key, numeric) of the sortable tables.
BOARD_COLUMNS = [
    ("rank", "rank", True),
    ("system", "system", False),
    ("corpus", "corpus", False),
    ("language", "language", False),
    ("normaliser / view", "normalizer", False),
    ("N", "n", True),
    ("coverage", "coverage", True),
    ("ranked figure [95% CI]", "value", True),
    ("WER [95% CI]", "wer", True),
    ("CER [95% CI]", "cer", True),
    ("RTF", "rtf", True),
    ("peak RSS", "rss", True),
    ("model revision", "revision", False),
    ("architecture", "architecture", False),
    ("parameters", "parameters", True),
    ("verifiable", "verifiable", False),
]


def _board_table(
    entries: list[tuple[str, Entry]],
    scales: dict[tuple[str, ...], tuple[float, bool]],
    *,
    ranked: bool,
    table_id: str,
) -> str:
    from earmark.report.html import esc

    columns = BOARD_COLUMNS if ranked else [c for c in BOARD_COLUMNS if c[1] != "rank"]
    head = "".join(
        f'<th><button type="button" data-key="{esc(key)}">{esc(title)}</button></th>'
        for title, key, _ in columns
    )
    if not ranked:
        head += "<th>why not ranked</th>"

    def row(row_id: str, e: Entry) -> str:
        cells = {
            "rank": _rank(e),
            "system": esc(e.system)
            + ("" if e.verifiable else f' <span class="badge bad">⚠ {UNVERIFIABLE}</span>')
            + (
                f' <span class="badge bad" title="{esc(e.contamination)}">⚠ {SUSPECT}</span>'
                if e.contamination
                else ""
            ),
            "corpus": esc(e.corpus)
            + f'<br><code class="muted">{esc(e.corpus_hash_kind)} {esc(e.corpus_hash[:12])}</code>',
            "language": esc(e.language),
            "normalizer": esc(f"{e.normalizer} / {e.view}"),
            "n": esc(e.n),
            "coverage": esc(_coverage(e)),
            "value": _ci_svg(e, scales.get(e.group)),
            "wer": esc(fmt_rate(e.wer) if e.wer else "n/a"),
            "cer": esc(fmt_rate(e.cer)),
            "rtf": esc(_rtf(e.rtf)),
            "rss": esc(_mib(e.peak_rss_bytes)),
            "revision": f"<code>{esc(e.model_revision or '—')}</code>",
            "architecture": esc(e.architecture or "—"),
            "parameters": f'<span title="{esc(e.parameters_note or e.parameters)}">'
            f"{esc(_parameters(e))}</span>",
            "verifiable": "yes" if e.verifiable else esc(f"no: {'; '.join(e.missing)}"),
        }
        tds = []
        for _, key, numeric in columns:
            klass = ' class="num"' if numeric else (' class="sys"' if key == "system" else "")
            tds.append(f"<td{klass}>{cells[key]}</td>")
        if not ranked:
            tds.append(f"<td>{esc(e.unranked_reason or '')}</td>")
        return f'<tr data-row="{esc(row_id)}">' + "".join(tds) + "</tr>"

    bodies = []
    if ranked:
        good = [row(i, e) for i, e in entries if e.verifiable]
        bad = [row(i, e) for i, e in entries if not e.verifiable]
        if good:
            bodies.append('<tbody class="verifiable">' + "".join(good) + "</tbody>")
        if bad:
            bodies.append(
                '<tbody class="unverifiable"><tr class="group-label"><td colspan="'
                f'{len(columns)}">⚠ Unverifiable: no model revision, corpus hash or host '
                "profile; ranked after every verifiable row of their group</td></tr>"
                + "".join(bad)
                + "</tbody>"
            )
    else:
        bodies.append("<tbody>" + "".join(row(i, e) for i, e in entries) + "</tbody>")
    klass = "board" if ranked else "board unranked"
    return (
        f'<div class="table-scroll"><table class="{klass}" id="{esc(table_id)}"><thead><tr>'
        + head
        + "</tr></thead>"
        + "".join(bodies)
        + "</table></div>"
    )


def render_html(board: Leaderboard) -> str:
    """The page people share: a sortable, filterable table with CIs drawn as bars,
    unverifiable rows apart in the same table and unranked rows in their own; then the
    systems × corpora overview. One file: inline style, one inline script allowed by
    its hash, data in a JSON block; every user string escaped."""
    from earmark.report.html import CSP, STYLE, Markup, esc, html_table

    ranked = [(f"r{i}", e) for i, e in enumerate(board.ranked)]
    unranked = [(f"u{i}", e) for i, e in enumerate(board.unranked)]
    data = {
        "rows": [_row_data(e, i, "ranked") for i, e in ranked]
        + [_row_data(e, i, "unranked") for i, e in unranked]
    }
    scales = _scales(board)

    def options(key: str, label: str) -> str:
        values = sorted({getattr(e, key) for e in board.entries})
        return (
            f'<label>{esc(label)} <select data-filter="{esc(key)}"><option value="">all</option>'
            + "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
            + "</select></label>"
        )

    header, rows = pivot(board)
    overview: list[list[object]] = []
    for row in rows:
        cells: list[object] = [row[0]]
        if f"⚠ {UNVERIFIABLE}" in row[0]:
            name = row[0].replace(f" ⚠ {UNVERIFIABLE}", "")
            cells[0] = Markup(f'{esc(name)} <span class="badge bad">⚠ {UNVERIFIABLE}</span>')
        cells += [Markup(f'<span class="nowrap">{esc(c)}</span>') for c in row[1:]]
        overview.append(cells)
    csp = CSP + f"; script-src '{_script_hash(BOARD_SCRIPT)}'"
    total = len(ranked) + len(unranked)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>earmark leaderboard</title>\n<style>{STYLE}{BOARD_STYLE}</style>\n</head>\n"
        "<body>\n<h1>earmark leaderboard</h1>\n"
        "<p>Primary view per language; lower is better. Ranked within each corpus × language "
        "× normaliser; competition ranks (1, 2, 2, 4). Rows marked unverifiable lack model "
        "revision, corpus hash or host profile and rank after every verifiable row. Bars: "
        "the figure (shaded) and its 95% CI (line) on one axis per corpus × language; an "
        "arrow marks a CI past a cut axis. Click a header to sort.</p>\n"
        f'<div class="filters">{options("corpus", "corpus")}{options("language", "language")}'
        f'<span class="muted"><span id="shown">{total}</span> of {total} rows shown</span>'
        "</div>\n<h2>Ranked</h2>\n"
        + _board_table(ranked, scales, ranked=True, table_id="ranked")
        + (
            f"\n<h2>Not ranked</h2>\n<p>{esc(_unranked_intro(board))}</p>\n"
            + _board_table(unranked, scales, ranked=False, table_id="unranked")
            if unranked
            else ""
        )
        + (
            f"\n<h2>Contamination</h2>\n<p>{esc(_contamination_intro(board))}</p>\n"
            + html_table(["system", "corpus · language", "why suspect"], contamination_rows(board))
            if board.contamination
            else ""
        )
        + "\n<h2>Systems × corpora</h2>\n"
        + html_table(header, overview)
        + (
            f'\n<h2 id="self-reported">Self-reported (not verified)</h2>\n'
            f"<p>{esc(SELF_REPORTED_INTRO)}</p>\n"
            + html_table(SELF_REPORTED_HEADER, self_reported_rows(board))
            if board.self_reported
            else ""
        )
        + f"\n<footer>created {esc(board.created)}</footer>\n"
        f'<script type="application/json" id="board-data">{_json_block(data)}</script>\n'
        f"<script>{BOARD_SCRIPT}</script>\n</body>\n</html>\n"
    )


def write_leaderboard(
    run_dirs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    min_coverage: float = 1.0,
    self_reported: Sequence[str | os.PathLike[str]] = (),
    contamination: Sequence[str | os.PathLike[str]] = (),
    contamination_share: float = 0.0,
) -> dict[str, Path]:
    """Read the runs, rank them, and write leaderboard.{md,csv,json,html} into `out_dir`;
    `self_reported` and `contamination` are files (see `load_self_reported`,
    `earmark manifest contamination`)."""
    unique = list(dict.fromkeys(Path(p).resolve() for p in run_dirs))
    board = build_leaderboard(
        [load_run(p) for p in unique],
        min_coverage,
        self_reported=[row for path in self_reported for row in load_self_reported(path)],
        contamination=[read_contamination(path) for path in contamination],
        contamination_share=contamination_share,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "md": render_markdown(board),
        "csv": render_csv(board),
        "json": json.dumps(board.to_dict(), ensure_ascii=False, indent=2) + "\n",
        "html": render_html(board),
    }
    written = {}
    for ext, text in files.items():
        path = out / f"leaderboard.{ext}"
        atomic_write_text(path, text)
        written[ext] = path
    return written
