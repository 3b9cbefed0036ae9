"""The leaderboard as text: leaderboard.md (systems × corpora, detail, unranked,
contamination, self-reported) and leaderboard.csv (one line per entry, exact figures)."""

from __future__ import annotations

import csv
import io

from earmark.markdown_cells import md_table
from earmark.render.leaderboard_entries import SUSPECT, UNVERIFIABLE, Entry
from earmark.render.leaderboard_ranking import MEAN_RULE, CorpusMean, Leaderboard
from earmark.results import MetricResult
from earmark.results.display import fmt_decimal, fmt_mib, fmt_rate


def _mark(e: Entry) -> str:
    mark = "" if e.verifiable else f" ⚠ {UNVERIFIABLE}"
    return mark + (f" ⚠ {SUSPECT}" if e.contamination else "")


def parameters_text(e: Entry) -> str:
    """`39.0M` (exact count in the JSON/CSV), or `—` when not recorded exactly."""
    if e.parameters is None:
        return "—"
    if e.parameters >= 10**9:
        return f"{e.parameters / 1e9:.2f}B"
    return f"{e.parameters / 1e6:.1f}M"


def rtfx_text(e: Entry) -> str:
    """`3.45`, `34.5`, `345`: audio seconds per second to three figures where it is below
    1000 (the CSV keeps the exact figure), or `—` where none was measured."""
    if e.rtfx is None:
        return "—"
    return f"{e.rtfx:.2f}" if e.rtfx < 10 else f"{e.rtfx:.1f}" if e.rtfx < 100 else f"{e.rtfx:.0f}"


def revision_text(e: Entry) -> str:
    """The revision, marked `(declared)` where a user declared it for saved hypotheses;
    `—` where there is none."""
    if e.model_revision is None:
        return "—"
    declared = e.model_revision_note is not None and e.model_revision_note.startswith("declared")
    return e.model_revision + (" (declared)" if declared else "")


def rank_text(e: Entry) -> str:
    """`3`, or `—` for an entry without a rank (null value, or not ranked)."""
    return "—" if e.rank is None else str(e.rank)


def coverage_text(e: Entry) -> str:
    """`14/15 (93.3%)`: rows with an engine hypothesis of the scope's rows."""
    if not e.rows:
        return "0/0"
    return f"{e.covered}/{e.rows} ({100 * e.covered / e.rows:.1f}%)"


def _scope(e: Entry) -> str:
    return f"{e.corpus} [{e.corpus_hash_kind} {e.corpus_hash[:12]}] · {e.language}"


def column_titles(entries: list[Entry]) -> dict[tuple[str, ...], str]:
    """One title per ranking group: corpus, hash and language, then the normaliser and
    view, then the selection, each added only where a shorter title would name two groups
    (a corpus scored twice differently is two columns, and their titles say how)."""
    rules: dict[tuple[str, ...], dict[str, None]] = {}
    for e in entries:
        rules.setdefault(e.group, {})[e.selection.rsplit(" #", 1)[0]] = None
    parts: dict[tuple[str, ...], list[str]] = {}
    for e in entries:
        parts.setdefault(
            e.group,
            [
                _scope(e),
                f"{e.normalizer} / {e.view}",
                "selection " + " = ".join(rules[e.group]),
                f"rows #{e.rows_sha256[:8]}",
            ],
        )
    titles: dict[tuple[str, ...], str] = {}
    for group, own in parts.items():
        # Peers the title does not yet tell apart from this group; add a part only
        # where one of them differs in it.
        peers = [p for g, p in parts.items() if g != group and p[0] == own[0]]
        chosen = [own[0]]
        for i in range(1, len(own)):
            if any(p[i] != own[i] for p in peers):
                chosen.append(own[i])
                peers = [p for p in peers if p[i] == own[i]]
        titles[group] = " · ".join(chosen) + f" {group[-1].upper()}"
    return titles


def system_types(board: Leaderboard) -> dict[str, str]:
    """Each system's declared type (several, joined, when its runs declare differently)."""
    found: dict[str, list[str]] = {}
    for e in board.entries:
        kinds = found.setdefault(e.system, [])
        if e.system_type not in kinds:
            kinds.append(e.system_type)
    return {system: ", ".join(kinds) for system, kinds in found.items()}


def mean_text(mean: CorpusMean | None) -> str:
    """`12.34%`, or `—` with the reason when the system lacks a column."""
    if mean is None:
        return ""
    if mean.value is None:
        return f"— ({mean.reason})"
    return f"{100 * mean.value:.2f}%"


def mean_headers(board: Leaderboard) -> list[tuple[str, str]]:
    """(metric, title) of each mean-over-corpora column the board has."""
    found = dict.fromkeys(m.metric for m in board.means)
    columns = {m.metric: m.columns for m in board.means}
    return [(k, f"mean {k.upper()} over {columns[k]} columns (macro)") for k in found]


def pivot(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    """Systems × (corpus · language): each cell `12.34% (#1)` in the group's metric,
    then the system's mean over corpora per metric."""
    columns = column_titles(board.entries)
    systems: dict[str, bool] = {}
    for e in board.entries:
        systems[e.system] = systems.get(e.system, True) and e.verifiable
    cells: dict[tuple[str, tuple[str, ...]], Entry] = {
        (e.system, e.group): e for e in board.entries
    }
    kinds = system_types(board)
    means = mean_headers(board)
    rows = []
    for system, ok in systems.items():
        row = [system + ("" if ok else f" ⚠ {UNVERIFIABLE}"), kinds[system]]
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
                row.append(f"{100 * cell.value:.2f}% (#{rank_text(cell)})")
            if cell is not None and cell.contamination:
                row[-1] += f" ⚠ {SUSPECT}"
        row += [mean_text(board.mean_of(system, metric)) for metric, _ in means]
        rows.append(row)
    return ["system", "system type", *columns.values(), *(t for _, t in means)], rows


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
    "RTFx",
    "peak RSS",
    "model revision",
    "architecture",
    "parameters",
    "model files",
    "system type",
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
                rank_text(e),
                e.system + _mark(e),
                _scope(e),
                f"{e.normalizer} / {e.view} (ranked by {e.metric.upper()})",
                str(e.n),
                coverage_text(e),
                fmt_rate(e.wer) if e.wer else "n/a",
                fmt_rate(e.cer),
                fmt_decimal(e.rtf),
                rtfx_text(e),
                fmt_mib(e.peak_rss_bytes),
                revision_text(e),
                e.architecture or "—",
                parameters_text(e),
                fmt_mib(e.model_size_bytes),
                e.system_type,
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
            coverage_text(e),
            fmt_rate(e.wer) if e.wer else "n/a",
            fmt_rate(e.cer),
            e.unranked_reason or "",
        ]
        for e in board.unranked
    ]


def unranked_intro(board: Leaderboard) -> str:
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


def contamination_intro(board: Leaderboard) -> str:
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
        "SHA-256 and the rows scored) × language × normaliser. Competition ranks (1, 2, 2, 4); "
        f"rows marked ⚠ {UNVERIFIABLE} lack model revision, corpus hash or host profile "
        "(or are saved hypotheses without a declared model) and rank after every verifiable "
        "row. RTFx: audio seconds per processing second (1 / RTF).",
        "",
        "## Systems × corpora",
        "",
        md_table(header, rows),
        "",
        *([f"Mean over corpora: {MEAN_RULE}.", ""] if board.means else []),
        "## Detail",
        "",
        md_table(DETAIL_HEADER, detail_rows(board)),
        "",
    ]
    if board.unranked:
        parts += [
            "## Not ranked",
            "",
            unranked_intro(board),
            "",
            md_table(UNRANKED_HEADER, unranked_rows(board)),
            "",
        ]
    if board.contamination:
        parts += ["## Contamination", "", contamination_intro(board), ""]
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
    "rtfx",
    "rtfx_note",
    "peak_rss_bytes",
    "model_revision",
    "model_revision_note",
    "architecture",
    "parameters",
    "parameters_note",
    "model_size_bytes",
    "model_size_note",
    "system_type",
    "system_type_source",
    "mean_over_corpora",
    "mean_over_corpora_note",
    "contamination",
    "run",
]


def _figure_cells(name: str, metric: MetricResult | None) -> dict[str, object]:
    """`wer`, `wer_ci_low`, `wer_ci_high` (or cer): exact figures, blank when absent."""
    value = None if metric is None else metric.value
    ci = None if metric is None else metric.ci
    return {
        name: "" if value is None else value,
        f"{name}_ci_low": "" if not ci else ci[0],
        f"{name}_ci_high": "" if not ci else ci[1],
    }


def render_csv(board: Leaderboard) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for e in board.entries:
        main = e.ranked_metric
        mean = board.mean_of(e.system, e.metric)
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
                **_figure_cells("wer", e.wer),
                **_figure_cells("cer", e.cer),
                "substitutions": "" if main is None else main.substitutions,
                "deletions": "" if main is None else main.deletions,
                "insertions": "" if main is None else main.insertions,
                "ref_units": "" if main is None else main.ref_units,
                "rtf": "" if e.rtf is None else e.rtf,
                "rtfx": "" if e.rtfx is None else e.rtfx,
                "rtfx_note": e.rtfx_note or "",
                "peak_rss_bytes": "" if e.peak_rss_bytes is None else e.peak_rss_bytes,
                "model_revision": e.model_revision or "",
                "model_revision_note": e.model_revision_note or "",
                "architecture": e.architecture or "",
                "parameters": "" if e.parameters is None else e.parameters,
                "parameters_note": e.parameters_note or "",
                "model_size_bytes": "" if e.model_size_bytes is None else e.model_size_bytes,
                "model_size_note": e.model_size_note or "",
                "system_type": e.system_type,
                "system_type_source": e.system_type_source or "",
                "mean_over_corpora": "" if mean is None or mean.value is None else mean.value,
                "mean_over_corpora_note": "" if mean is None else mean.reason or "",
                "contamination": e.contamination or "",
                "run": e.run,
            }
        )
    return buffer.getvalue()


#: The page's only script: sorts rows by a clicked header and filters them by corpus and
