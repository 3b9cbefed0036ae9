"""Re-score the checked-in example runs after a deliberate change to what scoring records.

The example runs under `tests/*/data/example-run/` are real tiny.en runs whose hypotheses
must never change; what scoring derives from them (figures, per-row counts, per-language
latency) is recomputed here with the current scorer, exactly as `earmark verify` recomputes
it, and written back. Run it only when a change adds or alters a recorded figure on purpose
(and say so in the commit); `earmark verify` on each folder must pass afterwards.

    python scripts/rescore_example_runs.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = sorted(ROOT.glob("tests/*/data/example-run"))


def rescore(folder: Path) -> None:
    from earmark.execution.resources import latency_by_language
    from earmark.scoring.options import ScoringOptions
    from earmark.scoring.policy import NormalizerPolicy
    from earmark.scoring.scorer import score_rows
    from earmark.stats.settings import BootstrapSettings
    from earmark.verification import SCORED_KEYS, _scoring_rows

    results = json.loads((folder / "results.json").read_text("utf-8"))
    plan = json.loads((folder / "plan.json").read_text("utf-8"))["plan"]
    lines = (folder / "predictions.jsonl").read_text("utf-8").split("\n")
    rows = [json.loads(line) for line in lines if line]
    for name, arm in results["arms"].items():
        arm_rows = [r for r in rows if r.get("arm") == name]
        policy = arm["normalizer_policy"]
        boot = arm["bootstrap"]
        options = ScoringOptions(
            policy=NormalizerPolicy(
                default=policy["default"], by_language=dict(policy.get("by_language") or {})
            ),
            aggregate=arm["aggregate"],
            bootstrap=BootstrapSettings(
                resamples=int(boot["resamples"]),
                seed=int(boot["seed"]),
                level=float(boot.get("level", 0.95)),
            ),
        )
        scored = score_rows(_scoring_rows(arm_rows, int(plan.get("repeats", 1))), options)
        summary: dict[str, Any] = scored.to_dict()
        excluded = (arm.get("coverage") or {}).get("excluded")
        for key in SCORED_KEYS:
            if key in summary:
                arm[key] = summary[key]
        if excluded is not None:
            arm["coverage"]["excluded"] = excluded
        for row, record in zip(arm_rows, scored.records, strict=True):
            for key in ("views", "normalizer"):
                if key in record:
                    row[key] = record[key]
        if "resources_by_language" in arm:
            arm["resources_by_language"] = latency_by_language(arm_rows)
    (folder / "predictions.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows), "utf-8"
    )
    (folder / "results.json").write_text(
        json.dumps(results, ensure_ascii=False, indent=2) + "\n", "utf-8"
    )


def main() -> int:
    from earmark.verification import verify_run

    for folder in FOLDERS:
        rescore(folder)
        report = verify_run(folder)
        bad = [c for c in report.checks if c.status == "mismatch"]
        print(f"{folder.relative_to(ROOT)}: {'OK' if not bad else 'MISMATCH'}")
        for check in bad:
            print(f"  {check.name}: {check.detail}")
        if bad:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
