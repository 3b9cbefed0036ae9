"""`earmark.report` and `earmark.leaderboard`: a run's HTML page, and systems ranked
across runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from earmark.api.values import PathArg, check_count, check_out, check_share
from earmark.errors import EarmarkError


def report(
    run_dir: PathArg,
    *,
    compare: PathArg | None = None,
    out: PathArg | None = None,
    title: str | None = None,
    worst: int = 5,
) -> Path:
    """`earmark report RUN_DIR`: the self-contained HTML report (default
    RUN_DIR/report.html); returns the path written."""
    from earmark.render.html import write_html_report

    check_out(out)
    check_count("worst", worst, 0)
    return write_html_report(run_dir, compare=compare, out=out, title=title, worst_k=worst)


def leaderboard(
    run_dirs: Sequence[PathArg],
    *,
    out: PathArg,
    min_coverage: float = 1.0,
    self_reported: Sequence[PathArg] = (),
    contamination: Sequence[PathArg] = (),
    contamination_share: float = 0.0,
    system_type: Sequence[str] = (),
) -> Mapping[str, Path]:
    """`earmark leaderboard RUN_DIR ... --out OUT`: rank the runs' arms per corpus and
    language; returns the files written into OUT by kind (md, csv, json, html).
    `system_type` declares systems' types as `NAME=TYPE` (open, open-weights, api,
    closed), shown in their own column."""
    from earmark.render.leaderboard import write_leaderboard

    check_out(out)
    check_share("min_coverage", min_coverage)
    check_share("contamination_share", contamination_share)
    return write_leaderboard(
        run_dirs,
        out,
        min_coverage=min_coverage,
        self_reported=self_reported,
        contamination=contamination,
        contamination_share=contamination_share,
        system_types=declared_types(system_type),
    )


def declared_types(pairs: Sequence[str]) -> dict[str, str]:
    """`NAME=TYPE` pairs as a mapping; a pair without `=` or a name given twice is refused
    (the types themselves are checked against the board's systems when it is built)."""
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, kind = pair.rpartition("=")
        if not sep or not name.strip():
            raise EarmarkError(
                f"--system-type {pair[:80]!r} is not NAME=TYPE",
                field="system-type",
                hint="e.g. --system-type whisper-large=open-weights",
            )
        if name.strip() in found:
            raise EarmarkError(
                f"--system-type names {name.strip()[:80]!r} twice", field="system-type"
            )
        found[name.strip()] = kind
    return found
