"""The evidence of a decision, read from the two compared runs.

Everything `earmark decide` measures before it applies the rule: whether the sides are the
same data, each language's paired figures and coverage, latency and core cost on the same
host, the plan's pre-registered ceilings and what each side recorded of itself. The rule
itself (`decision_rules`) only reads what this module gathered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from earmark.errors import EarmarkError
from earmark.report.decision_rules import DecisionRules
from earmark.report.run_directory import (
    RunDirectory,
    base_language,
    primary_metric_name,
    row_key,
)

#: Host fields that must match before latency or CPU cost can be compared.
HOST_FIELDS = ("os", "arch", "cpu_model", "cores_available", "memory_bytes")


@dataclass(frozen=True)
class Side:
    """A run and one of its arms."""

    run: RunDirectory
    arm: str

    @property
    def summary(self) -> dict[str, Any]:
        return self.run.arm(self.arm)

    @property
    def resources(self) -> dict[str, Any]:
        return dict(self.summary.get("resources") or {})

    def language_policy(self) -> dict[str, Any]:
        spec = self.summary.get("spec") or {}
        settings = spec.get("settings") or {}
        extra = self.run.model(self.arm).get("extra") or {}
        return {
            "language_policy": extra.get("language_policy") or settings.get("language_policy"),
            "language": settings.get("language"),
            "task": settings.get("task"),
        }

    def label(self) -> str:
        return f"{self.run.path}:{self.arm}"


def data_differences(baseline: Side, challenger: Side) -> list[str]:
    """Everything that makes the two sides not the same data; empty when they are."""
    diffs = []
    b_sha, c_sha = baseline.run.manifest_sha256, challenger.run.manifest_sha256
    if b_sha != c_sha:
        diffs.append(
            f"manifest sha256: baseline {b_sha or 'not recorded'}, "
            f"challenger {c_sha or 'not recorded'}"
        )
    b_sel = baseline.run.corpus.get("selection") or {}
    c_sel = challenger.run.corpus.get("selection") or {}
    for key in ("rule", "parameters"):
        if b_sel.get(key) != c_sel.get(key):
            diffs.append(
                f"selection {key}: baseline {b_sel.get(key)!r}, challenger {c_sel.get(key)!r}"
            )
    for key in ("normalizer_policy", "aggregate"):
        b, c = baseline.summary.get(key), challenger.summary.get(key)
        if b != c:
            diffs.append(f"{key.replace('_', ' ')}: baseline {b!r}, challenger {c!r}")
    b_lang, c_lang = baseline.language_policy(), challenger.language_policy()
    if b_lang != c_lang:
        diffs.append(f"decode language policy: baseline {b_lang!r}, challenger {c_lang!r}")
    b_rows = {row_key(r): r for r in baseline.run.arm_rows(baseline.arm)}
    c_rows = {row_key(r): r for r in challenger.run.arm_rows(challenger.arm)}
    only_b = sorted(set(b_rows) - set(c_rows))
    only_c = sorted(set(c_rows) - set(b_rows))
    for side, keys in (("baseline", only_b), ("challenger", only_c)):
        if keys:
            shown = ", ".join(f"{i}#{r}" for i, r in keys[:5])
            diffs.append(f"{len(keys)} rows only in the {side} (e.g. {shown})")
    changed = [
        k
        for k in sorted(set(b_rows) & set(c_rows))
        if b_rows[k].get("reference") != c_rows[k].get("reference")
    ]
    if changed:
        shown = ", ".join(f"{i}#{r}" for i, r in changed[:5])
        diffs.append(f"{len(changed)} rows have different references (e.g. {shown})")
    return diffs


def ceiling_evidence(baseline: Side, challenger: Side) -> dict[str, Any]:
    """The plan's pre-registered error-rate ceilings (`[ceilings]`) against each side's rate
    in the language's (or slice's) primary view; the challenger's decides.

    The ceilings come from `results.json`'s `plan` of either side; two runs whose plans
    froze different ceilings are refused (which bar was registered?)."""
    b_plan = baseline.run.results.get("plan") or {}
    c_plan = challenger.run.results.get("plan") or {}
    b_ceil, c_ceil = b_plan.get("ceilings") or {}, c_plan.get("ceilings") or {}
    if b_ceil and c_ceil and b_ceil != c_ceil:
        raise EarmarkError(
            "the two runs' plans pre-registered different error-rate ceilings: baseline "
            f"{json.dumps(b_ceil, sort_keys=True)}, "
            f"challenger {json.dumps(c_ceil, sort_keys=True)}",
            field="ceilings",
            hint="a ceiling is fixed before the runs; decide runs of plans that froze the same one",
        )
    ceilings = c_ceil or b_ceil
    plan = c_plan if c_ceil else b_plan
    checks = []
    for metric, table in sorted(ceilings.items()):
        for scope, limit in sorted(table.items()):
            language, _, slice_name = scope.partition("/")
            entry: dict[str, Any] = {"metric": metric, "scope": scope, "limit": float(limit)}
            for role, side in (("baseline", baseline), ("challenger", challenger)):
                entry[role], view, why = _scope_rate(side, metric, language, slice_name or None)
                entry["view"] = view or entry.get("view")
                if why:
                    entry[f"{role}_null_reason"] = why
            value = entry["challenger"]
            entry["met"] = None if value is None else value <= float(limit) + 1e-12
            entry["baseline_met"] = (
                None if entry["baseline"] is None else entry["baseline"] <= float(limit) + 1e-12
            )
            checks.append(entry)
    return {"plan_sha256": plan.get("sha256") if ceilings else None, "checks": checks}


def _scope_rate(
    side: Side, metric: str, language: str, slice_name: str | None
) -> tuple[float | None, str | None, str | None]:
    """(rate, view, why it is None) of one language or one of its slices, primary view."""
    block = (side.summary.get("by_language") or {}).get(language)
    if block is None:
        return None, None, f"language {language} not scored in this run"
    if slice_name is not None:
        block = (block.get("by_slice") or {}).get(slice_name)
        if block is None:
            return None, None, f"slice {slice_name} of {language} not scored in this run"
    view = block.get("primary_view")
    figures = ((block.get("views") or {}).get(view) or {}).get(metric)
    if not figures:
        return None, view, f"no {metric.upper()} in the {view} view of {language}"
    value = figures.get("value")
    if value is None:
        return None, view, str(figures.get("null_reason") or "no value")
    return float(value), view, None


def _metric_of(block: dict[str, Any], rules: DecisionRules) -> str:
    if rules.metric == "auto":
        return primary_metric_name(block)
    units = block.get("normalizer", {}).get("units") or []
    if rules.metric == "wer" and "word" not in units:
        return "cer"
    return rules.metric


def language_evidence(
    baseline: Side, challenger: Side, language: str, rules: DecisionRules
) -> dict[str, Any]:
    """Paired figures of one language: values, the paired difference and its CI, and
    which rule parts hold."""
    from earmark.stats import paired_bootstrap

    block_b = baseline.summary["by_language"][language]
    block_c = challenger.summary["by_language"][language]
    metric = _metric_of(block_b, rules)
    view = block_b["primary_view"]
    c_rows = {
        row_key(r): r
        for r in challenger.run.arm_rows(challenger.arm)
        if base_language(r.get("language")) == language
    }
    errors_b, errors_c, ref_units, clusters = [], [], [], []
    skipped = 0
    for r in baseline.run.arm_rows(baseline.arm):
        if base_language(r.get("language")) != language:
            continue
        key = row_key(r)
        cb = ((r.get("views") or {}).get(view) or {}).get(metric)
        cc = ((c_rows.get(key, {}).get("views") or {}).get(view) or {}).get(metric)
        if not cb or not cc:
            skipped += 1
            continue
        ref_b = cb["substitutions"] + cb["deletions"] + cb["hits"]
        ref_c = cc["substitutions"] + cc["deletions"] + cc["hits"]
        if ref_b != ref_c:
            raise EarmarkError(
                f"row {key[0]}#{key[1]} has {ref_b} reference units in the baseline and "
                f"{ref_c} in the challenger",
                hint="both must be scored with the same normaliser version",
            )
        errors_b.append(cb["substitutions"] + cb["deletions"] + cb["insertions"])
        errors_c.append(cc["substitutions"] + cc["deletions"] + cc["insertions"])
        ref_units.append(ref_b)
        clusters.append(key[0])
    out: dict[str, Any] = {
        "language": language,
        "normalizer": block_b["normalizer"]["name"],
        "view": view,
        "metric": metric,
        "n_paired": len(ref_units),
        "n_skipped": skipped,
        "baseline": _metric_summary(block_b["views"][view].get(metric)),
        "challenger": _metric_summary(block_c["views"][view].get(metric)),
    }
    paired = None
    if ref_units and sum(ref_units) > 0:
        paired = paired_bootstrap(
            errors_b,
            errors_c,
            ref_units,
            clusters=clusters,
            resamples=rules.resamples,
            seed=rules.seed,
            level=rules.level,
        )
    rate_b = paired.rate_a if paired else None
    rate_c = paired.rate_b if paired else None
    rel = (rate_b - rate_c) / rate_b if rate_b and rate_c is not None else None
    low = paired.low if paired else None
    high = paired.high if paired else None
    margin = rules.non_inferiority_margin
    improvement_ok = rel is not None and rel >= rules.min_relative_error_reduction - 1e-12
    significant_ok = high is not None and high < 0
    out.update(
        {
            "baseline_rate": rate_b,
            "challenger_rate": rate_c,
            "relative_reduction": rel,
            "difference": paired.difference if paired else None,
            "difference_ci95": None if low is None or high is None else [low, high],
            "share_challenger_better": paired.share_b_better if paired else None,
            "quality_win": bool(
                improvement_ok and (significant_ok or not rules.require_significant_improvement)
            ),
            "non_inferior": high is not None and high <= margin,
            "significantly_worse": low is not None and low > margin,
        }
    )
    if paired is None:
        out["null_reason"] = "no paired rows with reference units"
    out["coverage"] = {
        "baseline": side_coverage(baseline, language, rules.min_coverage),
        "challenger": side_coverage(challenger, language, rules.min_coverage),
    }
    return out


def side_coverage(side: Side, language: str, minimum: float) -> dict[str, Any]:
    """Rows of one side in one language with a hypothesis from the engine, and why the
    side cannot be judged when they are fewer than `minimum` of the rows."""
    from earmark.report.leaderboard import coverage_reason, scope_statuses

    statuses = scope_statuses(side.run, side.arm, language)
    rows, covered = sum(statuses.values()), statuses.get("ok", 0)
    not_ok = {k: v for k, v in sorted(statuses.items()) if k != "ok"}
    below = rows == 0 or covered < minimum * rows - 1e-9
    return {
        "rows": rows,
        "with_hypothesis": covered,
        "share": covered / rows if rows else None,
        "not_ok": not_ok,
        "below_minimum": below,
        "reason": coverage_reason(covered, rows, not_ok, minimum) if below else None,
    }


def _metric_summary(metric: dict[str, Any] | None) -> dict[str, Any] | None:
    if not metric:
        return None
    keys = (
        "value",
        "ci95",
        "substitutions",
        "deletions",
        "insertions",
        "ref_units",
        "n_scored",
        "null_reason",
    )
    return {k: metric[k] for k in keys if k in metric}


def _reduction(base: float | None, chal: float | None) -> float | None:
    if base is None or chal is None or base <= 0:
        return None
    return (base - chal) / base


def resource_evidence(baseline: Side, challenger: Side, rules: DecisionRules) -> dict[str, Any]:
    """Latency and core cost, compared only on the same host profile."""
    b_host = {k: baseline.run.host.get(k) for k in HOST_FIELDS}
    c_host = {k: challenger.run.host.get(k) for k in HOST_FIELDS}
    same_host = bool(baseline.run.host) and b_host == c_host
    key = f"latency_{rules.latency_statistic}_seconds"
    rb, rc = baseline.resources, challenger.resources
    latency: dict[str, Any] = {
        "statistic": rules.latency_statistic,
        "baseline": rb.get(key),
        "challenger": rc.get(key),
        "reduction": _reduction(rb.get(key), rc.get(key)),
    }
    core: dict[str, Any] = {
        "baseline": rb.get("cpu_seconds_per_audio_second"),
        "challenger": rc.get("cpu_seconds_per_audio_second"),
        "reduction": _reduction(
            rb.get("cpu_seconds_per_audio_second"), rc.get("cpu_seconds_per_audio_second")
        ),
    }
    latency["met"] = bool(
        same_host
        and latency["reduction"] is not None
        and latency["reduction"] >= rules.min_latency_reduction - 1e-12
    )
    core["met"] = bool(
        same_host
        and core["reduction"] is not None
        and core["reduction"] >= rules.min_core_cost_reduction - 1e-12
    )
    ceilings = []
    for name, limit, value in (
        ("peak RSS bytes", rules.max_peak_rss_bytes, rc.get("peak_rss_bytes")),
        ("real-time factor", rules.max_real_time_factor, rc.get("real_time_factor")),
        (f"latency {rules.latency_statistic} seconds", rules.max_latency_seconds, rc.get(key)),
    ):
        if limit is None:
            continue
        ok = value is not None and value <= limit
        ceilings.append({"name": name, "limit": limit, "challenger": value, "met": ok})
    return {
        "same_host": same_host,
        "baseline_host": b_host,
        "challenger_host": c_host,
        "latency": latency,
        "core_cost": core,
        "peak_rss_bytes": {
            "baseline": rb.get("peak_rss_bytes"),
            "challenger": rc.get("peak_rss_bytes"),
        },
        "ceilings": ceilings,
    }


def side_record(side: Side) -> dict[str, Any]:
    """What the record says of one side: its model, spec, host and whether it is verifiable."""
    model = side.run.model(side.arm)
    ok, missing = side.run.verifiable(side.arm)
    return {
        "run": str(side.run.path),
        "arm": side.arm,
        "model": {
            k: model.get(k)
            for k in (
                "artifact_id",
                "revision",
                "file_sha256",
                "licence",
                "licence_source",
                "runtime",
                "runtime_version",
                "compute_type",
            )
        },
        "spec": side.summary.get("spec"),
        "host": side.run.host or None,
        "verifiable": ok,
        "missing": missing,
    }
