"""`earmark.verify`: recompute every figure and hash of a run (`earmark verify RUN_DIR`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_out

if TYPE_CHECKING:
    from earmark.verification import VerifyReport


def verify(run_dir: PathArg, *, json: PathArg | None = None) -> VerifyReport:
    """Re-normalise, recount, re-aggregate and re-bootstrap every figure of RUN_DIR's
    results.json from its predictions.jsonl, and check its hashes.

    Returns the report (`.ok` is False on a mismatch, where the CLI exits 1) instead of
    raising, so a caller can list the mismatched checks; with `json`, it is also written
    there as JSON.
    """
    from earmark.outputs import atomic_write_json
    from earmark.verification import verify_run

    check_out(json, "json")
    report = verify_run(run_dir)
    if json is not None:
        atomic_write_json(json, report.to_dict())
    return report
