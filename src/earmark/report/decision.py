"""Dated promotion/rejection records (seed 000): does a challenger replace the baseline?

The rule, with every threshold configurable and recorded:

- **Quality win**: in every scored language the challenger's primary-view error rate is
  at least 20% lower, relative to the baseline (`min_relative_error_reduction`), and —
  by default — the paired 95% CI of challenger − baseline lies entirely below 0.
- **Speed or cost win**: latency (p95 per clip) or core cost (CPU seconds per audio
  second) at least 30% lower, measured on the same host profile, *and* non-inferior
  error in every language: the upper CI bound of challenger − baseline ≤ the margin
  (default 0.0).

The metric is the language's primary unit: CER for character-scored normalisers
(`zh-eval-v1`), WER for word-scored ones; `metric = "cer"` uses CER everywhere (every
normaliser has character units). The paired CI comes from `stats.paired_bootstrap` on the
per-row counts of rows paired by (id, repeat), clips resampled together.

Verdicts:
- `reject` — in some language the challenger is significantly worse (lower CI bound of
  challenger − baseline above the margin);
- `promote` — a quality or a speed/cost win, the run verifiable, resource ceilings met;
- `research only` — a win, but a side lacks model revision/hashes, corpus hash or host
  profile, or the challenger breaks a resource ceiling (an opt-in preset, not a default);
- `stay` — no rule met: keep the baseline; also when a side's coverage (rows with a
  hypothesis from the engine / rows) is below `min_coverage` in some language (default:
  every row), since a row without a hypothesis is scored as all deletions and an arm
  that never loaded would otherwise "lose" or "win" on figures that are not results.

A win is necessary, not sufficient. Three gates are checked from what the run recorded
(`record_gates`): *licence* (the challenger's model licence and its source, the corpus
licence and consent basis), *offline cache* (the egress audit covered the arm's whole
process tree, refused the network and saw no attempt off this machine) and *packaging*
(file hashes, an immutable revision that agrees with them, runtime version). A win with a
gate failing is `blocked`, the missing items named, until a rerun records them. The rest
(the weights' actual terms, memory on every hardware profile, packaging on every OS,
timestamps, command safety, long-form stability) stays a checklist a person confirms.

A challenger above a pre-registered error-rate ceiling of the run's plan (`[ceilings]`,
per language or slice) is `reject`. Different data (manifest, selection, normaliser,
language policy, rows or references) is refused outright, and so are different decoding
settings (`settings_comparison`) unless named in `allow_setting_differences`.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from datetime import date as Date
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_json, atomic_write_text
from earmark.report.decision_gates import record_gates
from earmark.report.decision_settings import settings_comparison
from earmark.report.run_directory import (
    RunDirectory,
    base_language,
    load_run,
    primary_metric_name,
    row_key,
)

SCHEMA_ID = "earmark.decision/1"
VERDICTS = ("promote", "blocked", "stay", "research only", "reject")
#: Host fields that must match before latency or CPU cost can be compared.
HOST_FIELDS = ("os", "arch", "cpu_model", "cores_available", "memory_bytes")


@dataclass(frozen=True)
class DecisionRules:
    """Thresholds of the promotion rule; every field can be set in a TOML file."""

    min_relative_error_reduction: float = 0.20
    min_latency_reduction: float = 0.30
    min_core_cost_reduction: float = 0.30
    non_inferiority_margin: float = 0.0
    metric: str = "auto"
    latency_statistic: str = "p95"
    require_significant_improvement: bool = True
    resamples: int = 10_000
    seed: int = 20260926
    level: float = 0.95
    max_peak_rss_bytes: int | None = None
    max_real_time_factor: float | None = None
    max_latency_seconds: float | None = None
    #: Share of rows (per language) that must have a hypothesis from the engine.
    min_coverage: float = 1.0
    #: Decoding settings allowed to differ between the sides (`settings_comparison`
    #: keys), or `("all",)`; anything else that differs refuses the comparison.
    allow_setting_differences: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from earmark.report.leaderboard import check_min_coverage

        check_min_coverage(self.min_coverage)
        allowed = self.allow_setting_differences
        if isinstance(allowed, str):
            allowed = tuple(allowed.split(","))
        if not isinstance(allowed, (list, tuple)) or not all(isinstance(k, str) for k in allowed):
            raise EarmarkError(
                "allow_setting_differences must be a list of setting names",
                field="allow_setting_differences",
                hint='e.g. ["beam_size", "threads"] or ["all"]',
            )
        allowed = tuple(sorted({k.strip() for k in allowed if k.strip()}))
        if "all" in allowed:
            allowed = ("all",)
        object.__setattr__(self, "allow_setting_differences", allowed)
        if self.metric not in ("auto", "cer", "wer"):
            raise EarmarkError(
                f"unknown metric {self.metric!r}", field="metric", hint="auto, cer or wer"
            )
        if self.latency_statistic not in ("p50", "p95"):
            raise EarmarkError(
                f"unknown latency statistic {self.latency_statistic!r}",
                field="latency_statistic",
                hint="p50 or p95",
            )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> DecisionRules:
        """Read thresholds from a TOML file: top-level keys, or a `[decision]` table."""
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            try:
                import tomli as tomllib  # type: ignore[no-redef,unused-ignore]
            except ModuleNotFoundError:
                raise EarmarkError(
                    "reading --rules needs Python 3.11 or the 'tomli' package",
                    file=str(path),
                    hint="pip install tomli",
                ) from None
        try:
            data = tomllib.loads(Path(path).read_text("utf-8"))
        except FileNotFoundError:
            raise EarmarkError("rules file not found", file=str(path)) from None
        except tomllib.TOMLDecodeError as exc:
            raise EarmarkError(f"invalid TOML: {exc}", file=str(path)) from None
        data = data.get("decision", data)
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise EarmarkError(
                    f"unknown rule {key!r}",
                    file=str(path),
                    field=key,
                    hint="known: " + ", ".join(sorted(known)),
                )
        try:
            return cls(**data)
        except TypeError as exc:
            raise EarmarkError(str(exc), file=str(path)) from None


def parse_run_arm(text: str) -> tuple[str, str | None]:
    """`RUN`, `RUN#ARM` (as `earmark compare` writes it) or `RUN:ARM`; a path that exists
    as given is never split."""
    if Path(text).exists():
        return text, None
    for separator in ("#", ":"):
        head, sep, arm = text.rpartition(separator)
        if sep and head and Path(head).exists():
            return head, arm or None
    raise EarmarkError("run directory not found", file=text, hint="use RUN_DIR or RUN_DIR#ARM")


def _pick_arm(run: RunDirectory, arm: str | None, role: str) -> str:
    if arm is not None:
        run.arm(arm)
        return arm
    if len(run.arm_names) != 1:
        raise EarmarkError(
            f"the {role} run has several arms; name one",
            file=str(run.path),
            hint=f"use {run.path}#ARM with ARM one of {', '.join(run.arm_names)}",
        )
    return run.arm_names[0]


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


def _shown(value: str | None) -> str:
    return "not recorded" if value is None else value


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


def _side_record(side: Side) -> dict[str, Any]:
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


def _gates(challenger: Side, resources: dict[str, Any]) -> list[dict[str, str]]:
    model = challenger.run.model(challenger.arm)
    egress = ((challenger.run.provenance or {}).get("arms") or {}).get(challenger.arm, {})
    egress = egress.get("egress") or {}
    rss = resources["peak_rss_bytes"]["challenger"]
    return [
        {
            "gate": "weight licence",
            "known": f"declared {model.get('licence') or 'not recorded'} (source: "
            f"{model.get('licence_source') or 'not recorded'}); an assertion, "
            "not a legal review — check the weights' own terms",
        },
        {
            "gate": "offline provisioning",
            "known": f"egress during the run: {_egress_summary(egress)}, "
            f"policy {egress.get('policy') or 'not recorded'} (checked above); confirm the "
            "product installs the weights from a provisioned cache with no download",
        },
        {
            "gate": "memory",
            "known": f"challenger peak RSS {_mib(rss)} vs baseline "
            f"{_mib(resources['peak_rss_bytes']['baseline'])}; confirm on every "
            "supported hardware profile",
        },
        {
            "gate": "packaging on every OS",
            "known": "optional extra, lazy import, installs on every "
            "claimed OS (Linux, macOS, Windows)",
        },
        {"gate": "timestamps", "known": "segment/word timestamps meet the product contract"},
        {
            "gate": "command safety",
            "known": "no new startup imports, downloads or egress on the default path",
        },
        {
            "gate": "long-form regressions",
            "known": "repetition/hallucination on 30-120 min recordings checked",
        },
    ]


def _egress_summary(egress: dict[str, Any]) -> str:
    """`N attempts`, or why the count is not the whole story (a process not audited)."""
    if not egress:
        return "not recorded"
    attempts = f"{len(egress.get('attempts') or [])} attempts seen"
    if egress.get("audited") is False:
        reason = egress.get("unaudited_reason") or "not every process was audited"
        return f"NOT AUDITED ({reason}); {attempts}"
    if "audited" not in egress:
        return attempts + " (the arm's own process only)"
    return attempts


def _mib(value: Any) -> str:
    return "not recorded" if value is None else f"{value / 2**20:.0f} MiB"


def decide(
    baseline: Side, challenger: Side, rules: DecisionRules, *, on: Date | None = None
) -> dict[str, Any]:
    """The decision record (a JSON-ready dict). Raises `EarmarkError` on different data
    and on decoding settings that differ without being allowed."""
    diffs = data_differences(baseline, challenger)
    if diffs:
        raise EarmarkError(
            "baseline and challenger were not scored on the same data: " + "; ".join(diffs),
            hint="run both arms on the same manifest, selection, normaliser and language "
            "policy (e.g. as arms of one `earmark run`)",
        )
    settings = settings_comparison(baseline, challenger, rules.allow_setting_differences)
    refused = [d for d in settings["differences"] if not d["allowed"]]
    if refused:
        raise EarmarkError(
            "baseline and challenger decoded with different settings: "
            + "; ".join(
                f"{d['key']}: baseline {_shown(d['baseline'])}, "
                f"challenger {_shown(d['challenger'])}"
                for d in refused
            ),
            hint="hold them constant, or name those under test: --allow-setting-differences "
            + ",".join(d["key"] for d in refused)
            + " (or all); the record lists them",
        )
    ceilings = ceiling_evidence(baseline, challenger)
    gates = record_gates(challenger)
    languages = sorted(baseline.summary.get("by_language", {}))
    evidence = [language_evidence(baseline, challenger, lang, rules) for lang in languages]
    resources = resource_evidence(baseline, challenger, rules)
    b_rec, c_rec = _side_record(baseline), _side_record(challenger)
    reasons: list[str] = []
    worse = [e for e in evidence if e["significantly_worse"]]
    quality = bool(evidence) and all(e["quality_win"] for e in evidence)
    non_inferior = bool(evidence) and all(e["non_inferior"] for e in evidence)
    speed = non_inferior and (resources["latency"]["met"] or resources["core_cost"]["met"])
    for e in evidence:
        reasons.append(_evidence_reason(e, rules))
    over = [c for c in ceilings["checks"] if c["met"] is False]
    for c in ceilings["checks"]:
        if c["met"] is None:
            reasons.append(
                f"ceiling {c['metric'].upper()} {c['scope']} ≤ {_pct(c['limit'])} not checked: "
                + str(c.get("challenger_null_reason") or "no value")
            )
    allowed = [d["key"] for d in settings["differences"]]
    if allowed:
        reasons.append(
            "decoding settings differ, allowed: "
            + "; ".join(
                f"{d['key']} {_shown(d['baseline'])} → {_shown(d['challenger'])}"
                for d in settings["differences"]
            )
            + " — the verdict is about these changes together with the system"
        )
    subject_keys = {d["key"] for d in settings["subject"]}
    if {"model", "compute_type"} <= subject_keys:
        reasons.append(
            "model and weight type both changed: the verdict is about the pair, "
            "not either change alone"
        )
    blocked = [g for g in gates if not g["passed"]]
    short = [
        f"{role} {e['language']}: {e['coverage'][role]['reason']}"
        for e in evidence
        for role in ("baseline", "challenger")
        if e["coverage"][role]["below_minimum"]
    ]
    if not resources["same_host"]:
        reasons.append(
            "latency and core cost not compared: the two runs' host profiles "
            "differ or are not recorded"
        )
    if short:
        verdict = "stay"
        reasons.insert(
            0,
            "not judged: " + "; ".join(short) + " — a row without a hypothesis is scored as "
            "all deletions, so these error rates are not results; keep the baseline, fix "
            "the failed arm and rerun (or lower min_coverage knowingly)",
        )
    elif worse or over:
        verdict = "reject"
        why = []
        if worse:
            why.append(
                "the challenger is significantly worse in "
                + ", ".join(e["language"] for e in worse)
                + f" (lower CI bound of challenger − baseline above the margin "
                f"{rules.non_inferiority_margin:+.4f})"
            )
        if over:
            why.append(
                "the challenger is over the pre-registered ceiling: "
                + ", ".join(
                    f"{c['metric'].upper()} {c['scope']} {_pct(c['challenger'])} > "
                    f"{_pct(c['limit'])}"
                    for c in over
                )
                + f" (plan {str(ceilings['plan_sha256'])[:12]})"
            )
        reasons.insert(0, "; ".join(why))
    elif quality or speed:
        wins = []
        if quality:
            wins.append(
                f"≥ {100 * rules.min_relative_error_reduction:.0f}% relative error "
                "reduction in every language"
            )
        if speed:
            met = [n for n in ("latency", "core_cost") if resources[n]["met"]]
            wins.append(
                " and ".join(m.replace("_", " ") for m in met) + " reduction at non-inferior error"
            )
        unverifiable = [
            f"{role}: {'; '.join(rec['missing'])}"
            for role, rec in (("baseline", b_rec), ("challenger", c_rec))
            if not rec["verifiable"]
        ]
        failed = [c for c in resources["ceilings"] if not c["met"]]
        if unverifiable:
            verdict = "research only"
            reasons.insert(
                0, "a win (" + "; ".join(wins) + ") but unverifiable — " + " | ".join(unverifiable)
            )
        elif failed:
            verdict = "research only"
            reasons.insert(
                0,
                "a win ("
                + "; ".join(wins)
                + ") but the challenger breaks "
                + ", ".join(f"{c['name']} ≤ {c['limit']}" for c in failed)
                + ": an opt-in preset on supported hardware, not the default",
            )
        elif blocked:
            verdict = "blocked"
            reasons.insert(
                0,
                "a win ("
                + "; ".join(wins)
                + ") but blocked until the record gates pass — "
                + " | ".join(f"{g['gate']}: {'; '.join(g['missing'])}" for g in blocked),
            )
        else:
            verdict = "promote"
            reasons.insert(
                0,
                "; ".join(wins) + "; verifiable; resource ceilings met; licence, offline "
                "cache and packaging gates pass",
            )
    else:
        verdict = "stay"
        reasons.insert(0, "no promotion rule met: keep the baseline")
    when = on or datetime.now(timezone.utc).date()
    return {
        "schema": SCHEMA_ID,
        "date": when.isoformat(),
        "verdict": verdict,
        "reasons": reasons,
        "baseline": b_rec,
        "challenger": c_rec,
        "corpus": {
            "dataset": baseline.run.corpus.get("dataset"),
            "manifest_sha256": baseline.run.manifest_sha256,
            "selection": (baseline.run.corpus.get("selection") or {}).get("rule"),
            "references_sha256": None
            if baseline.run.manifest_sha256
            else baseline.run.references_sha256(),
        },
        "rules": asdict(rules),
        "evidence": evidence,
        "resources": resources,
        "settings": settings,
        "ceilings": ceilings,
        "record_gates": gates,
        "gates": _gates(challenger, resources),
    }


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f}%"


def _pp_ci(ci: list[float] | None, point: float | None = None) -> str:
    head = "" if point is None else f"{100 * point:+.2f} pp "
    return head + ("—" if not ci else f"[{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]")


def _evidence_reason(e: dict[str, Any], rules: DecisionRules) -> str:
    if e.get("null_reason"):
        return f"{e['language']}: {e['null_reason']}"
    state = (
        "quality rule met"
        if e["quality_win"]
        else "non-inferior"
        if e["non_inferior"]
        else "not shown non-inferior"
    )
    return (
        f"{e['language']} {e['metric'].upper()} ({e['normalizer']}/{e['view']}): baseline "
        f"{_pct(e['baseline_rate'])} → challenger {_pct(e['challenger_rate'])}, relative "
        f"reduction {_pct(e['relative_reduction'])}, paired difference "
        f"{_pp_ci(e['difference_ci95'])}; {state}"
    )


def render_decision_markdown(record: dict[str, Any]) -> str:
    from earmark.report.markdown import md_code, md_table, md_text

    b, c = record["baseline"], record["challenger"]
    lines = [
        f"# Decision record {md_text(record['date'])}: {md_code(c['arm'])} vs baseline "
        f"{md_code(b['arm'])}",
        "",
        f"**Verdict: {md_text(record['verdict'])}**",
        "",
        "## Reasons",
        "",
        *[f"- {md_text(r)}" for r in record["reasons"]],
        "",
        "## Error rates (primary view, paired rows)",
        "",
    ]
    evidence = [
        [
            e["language"],
            f"{e['metric'].upper()} {e['normalizer']}/{e['view']}",
            str(e["n_paired"]),
            _fmt_coverage(e.get("coverage")),
            _fmt_metric(e["baseline"]),
            _fmt_metric(e["challenger"]),
            _pct(e["relative_reduction"]),
            _pp_ci(e["difference_ci95"], e["difference"]),
            "yes" if e["non_inferior"] else "no",
            "met" if e["quality_win"] else "no",
        ]
        for e in record["evidence"]
    ]
    header = [
        "language",
        "metric / view",
        "N paired",
        "coverage baseline / challenger",
        "baseline [95% CI]",
        "challenger [95% CI]",
        "relative reduction",
        "challenger − baseline [95% CI]",
        "non-inferior",
        "quality rule",
    ]
    lines.append(md_table(header, evidence))
    res = record["resources"]
    lat, core = res["latency"], res["core_cost"]
    speed = [
        [
            f"latency {lat['statistic']} (s)",
            _num(lat["baseline"]),
            _num(lat["challenger"]),
            _pct(lat["reduction"]),
            f"≥ {100 * record['rules']['min_latency_reduction']:.0f}%",
            "yes" if lat["met"] else "no",
        ],
        [
            "CPU s per audio s",
            _num(core["baseline"]),
            _num(core["challenger"]),
            _pct(core["reduction"]),
            f"≥ {100 * record['rules']['min_core_cost_reduction']:.0f}%",
            "yes" if core["met"] else "no",
        ],
        [
            "peak RSS",
            _mib(res["peak_rss_bytes"]["baseline"]),
            _mib(res["peak_rss_bytes"]["challenger"]),
            "",
            "",
            "",
        ],
    ]
    speed += [
        [
            f"ceiling: {ceiling['name']}",
            "",
            _num(ceiling["challenger"]),
            "",
            f"≤ {ceiling['limit']}",
            "yes" if ceiling["met"] else "no",
        ]
        for ceiling in res["ceilings"]
    ]
    lines += [
        "",
        "## Speed and cost" + ("" if res["same_host"] else " (not comparable: hosts differ)"),
        "",
        md_table(["measure", "baseline", "challenger", "reduction", "threshold", "met"], speed),
    ]
    lines += _ceilings_markdown(record.get("ceilings"))
    lines += _settings_markdown(record.get("settings"))
    corpus = record["corpus"]
    lines += [
        "",
        "## Provenance",
        "",
        f"- Corpus: {md_text(corpus['dataset'] or 'not recorded')}, manifest SHA-256 "
        f"{md_code(corpus['manifest_sha256'] or 'NOT RECORDED')}, selection "
        f"{md_text(corpus['selection'] or 'not recorded')}",
    ]
    for role, side in (("Baseline", b), ("Challenger", c)):
        model = side["model"]
        host = side["host"] or {}
        lines.append(
            f"- {role} {md_code(side['arm'])} ({md_text(side['run'])}): "
            f"{md_text(model.get('artifact_id') or '—')}, "
            f"revision {md_code(model.get('revision') or 'NOT RECORDED')}, "
            f"{len(model.get('file_sha256') or {})} file hashes; host "
            + md_text(
                f"{host.get('os', '?')}/{host.get('arch', '?')}, {host.get('cpu_model') or '?'}, "
                f"{host.get('cores_available', '?')} cores"
            )
            + "; "
            + (
                "verifiable"
                if side["verifiable"]
                else "**unverifiable**: " + md_text("; ".join(side["missing"]))
            )
        )
    rules = record["rules"]
    lines += [
        "",
        "## Rules applied",
        "",
        *[f"- {md_code(k)} = {md_text(json.dumps(v))}" for k, v in rules.items()],
        "",
        "## Record gates (checked from the challenger's records)",
        "",
        *[
            f"- [{'x' if g['passed'] else ' '}] **{md_text(g['gate'])}** — "
            + ("passes" if g["passed"] else "BLOCKED: " + md_text("; ".join(g["missing"])))
            for g in record.get("record_gates") or []
        ],
        "",
        "## Non-metric gates (a person confirms each before acting on the verdict)",
        "",
        *[f"- [ ] **{md_text(g['gate'])}** — {md_text(g['known'])}" for g in record["gates"]],
        "",
    ]
    return "\n".join(lines)


def _ceilings_markdown(ceilings: dict[str, Any] | None) -> list[str]:
    from earmark.report.markdown import md_code, md_table

    if not ceilings or not ceilings.get("checks"):
        return []
    rows = [
        [
            f"{c['metric'].upper()} {c['scope']} ({c.get('view') or '—'})",
            _pct(c["baseline"]),
            _pct(c["challenger"]),
            f"≤ {_pct(c['limit'])}",
            {True: "yes", False: "NO", None: "not checked"}[c["met"]],
        ]
        for c in ceilings["checks"]
    ]
    return [
        "",
        "## Pre-registered error-rate ceilings (plan "
        + md_code(str(ceilings.get("plan_sha256") or "—")[:12])
        + ")",
        "",
        md_table(["rate", "baseline", "challenger", "ceiling", "challenger met"], rows),
    ]


def _settings_markdown(settings: dict[str, Any] | None) -> list[str]:
    from earmark.report.markdown import md_table, md_text

    if not settings:
        return []
    rows = [
        [d["key"], _shown(d["baseline"]), _shown(d["challenger"]), kind]
        for kind, group in (
            ("the change under test", settings["subject"]),
            ("differs, allowed", settings["differences"]),
            ("not comparable (engines differ)", settings["not_comparable"]),
        )
        for d in group
    ]
    same = sorted(
        k
        for k, v in settings["baseline"].items()
        if settings["challenger"].get(k) == v and k not in ("backend", "model")
    )
    lines = ["", "## Decoding settings", ""]
    if rows:
        lines.append(md_table(["setting", "baseline", "challenger", "status"], rows))
        lines.append("")
    lines.append(
        "Equal on both sides: "
        + (md_text(", ".join(f"{k} = {settings['baseline'][k]}" for k in same)) or "—")
    )
    return lines


def _fmt_coverage(coverage: dict[str, Any] | None) -> str:
    if not coverage:
        return "—"
    parts = []
    for role in ("baseline", "challenger"):
        c = coverage[role]
        mark = " ⚠" if c["below_minimum"] else ""
        parts.append(f"{c['with_hypothesis']}/{c['rows']}{mark}")
    return " / ".join(parts)


def _num(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def _fmt_metric(metric: dict[str, Any] | None) -> str:
    from earmark.report.markdown import fmt_rate

    return fmt_rate(metric) if metric else "—"


def write_decision(
    baseline: str,
    challenger: str,
    out_dir: str | os.PathLike[str],
    *,
    rules: DecisionRules | None = None,
    on: Date | None = None,
) -> tuple[dict[str, Any], Path, Path]:
    """Decide `RUN[:ARM]` challenger vs baseline; write `decision-DATE.{md,json}` (with a
    `-2`, `-3` … suffix rather than overwrite an earlier record of the same day)."""
    b_path, b_arm = parse_run_arm(baseline)
    c_path, c_arm = parse_run_arm(challenger)
    b_run = load_run(b_path)
    c_run = b_run if Path(c_path).resolve() == Path(b_path).resolve() else load_run(c_path)
    b_side = Side(b_run, _pick_arm(b_run, b_arm, "baseline"))
    c_side = Side(c_run, _pick_arm(c_run, c_arm, "challenger"))
    if b_side.run is c_side.run and b_side.arm == c_side.arm:
        raise EarmarkError("baseline and challenger are the same arm of the same run")
    record = decide(b_side, c_side, rules or DecisionRules(), on=on)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"decision-{record['date']}"
    n = 1
    while (out / f"{stem}.json").exists() or (out / f"{stem}.md").exists():
        n += 1
        stem = f"decision-{record['date']}-{n}"
    md_path, json_path = out / f"{stem}.md", out / f"{stem}.json"
    atomic_write_text(md_path, render_decision_markdown(record))
    atomic_write_json(json_path, record)
    return record, md_path, json_path
