"""The decision record as Markdown, and the small formats its reasons share.

The record (`decide`'s JSON-ready dict) is the source of truth; this module only renders
it, so the Markdown a person reads can never say something the JSON does not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import date as Date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from earmark.report.decision_evidence import DecisionEvidence, LanguageEvidence
    from earmark.report.decision_rules import (
        DecisionRules,
        Judgement,
        LanguageJudgement,
        ResourceJudgement,
    )

SCHEMA_ID = "earmark.decision/1"


def fmt_pct(value: float | None) -> str:
    """A rate as a percentage with two decimals; `—` for a rate that was not computed."""
    return "—" if value is None else f"{100 * value:.2f}%"


def fmt_pp_ci(ci: Sequence[float] | None, point: float | None = None) -> str:
    """A difference of rates (and its CI) in signed percentage points:
    `-4.55 pp [-5.91, -2.95]`."""
    head = "" if point is None else f"{100 * point:+.2f} pp "
    return head + ("—" if not ci else f"[{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]")


def fmt_shown(value: str | None) -> str:
    """A setting's value, or that it was not recorded (never an empty cell)."""
    return "not recorded" if value is None else value


def fmt_mib(value: Any) -> str:
    """Bytes in MiB, or `not recorded`."""
    return "not recorded" if value is None else f"{value / 2**20:.0f} MiB"


def decision_record(
    evidence: DecisionEvidence, judgement: Judgement, rules: DecisionRules, when: Date
) -> dict[str, Any]:
    """The decision record as JSON (`earmark.decision/1`): the verdict and reasons first,
    then every figure and check they rest on, so the record can be audited on its own."""
    return {
        "schema": SCHEMA_ID,
        "date": when.isoformat(),
        "verdict": judgement.verdict,
        "reasons": list(judgement.reasons),
        "baseline": evidence.baseline.to_json(),
        "challenger": evidence.challenger.to_json(),
        "corpus": dict(evidence.corpus),
        "rules": asdict(rules),
        "evidence": [
            _language_json(e, j)
            for e, j in zip(evidence.languages, judgement.languages, strict=True)
        ],
        "resources": _resources_json(evidence, judgement.resources),
        "settings": evidence.settings.to_json(),
        "ceilings": evidence.ceilings.to_json(),
        "record_gates": [g.to_json() for g in evidence.record_gates],
        "gates": [dict(g) for g in evidence.checklist],
    }


def _language_json(e: LanguageEvidence, j: LanguageJudgement) -> dict[str, Any]:
    out: dict[str, Any] = {
        "language": e.language,
        "normalizer": e.normalizer,
        "view": e.view,
        "metric": e.metric,
        "n_paired": e.n_paired,
        "n_skipped": e.n_skipped,
        "baseline": None if e.baseline is None else dict(e.baseline),
        "challenger": None if e.challenger is None else dict(e.challenger),
        "baseline_rate": e.baseline_rate,
        "challenger_rate": e.challenger_rate,
        "relative_reduction": e.relative_reduction,
        "difference": e.difference,
        "difference_ci95": None if e.difference_ci is None else list(e.difference_ci),
        "share_challenger_better": e.share_challenger_better,
        "quality_win": j.quality_win,
        "non_inferior": j.non_inferior,
        "significantly_worse": j.significantly_worse,
    }
    if e.null_reason:
        out["null_reason"] = e.null_reason
    out["coverage"] = {
        "baseline": e.baseline_coverage.to_json(),
        "challenger": e.challenger_coverage.to_json(),
    }
    return out


def _resources_json(evidence: DecisionEvidence, j: ResourceJudgement) -> dict[str, Any]:
    r = evidence.resources
    return {
        "same_host": r.same_host,
        "baseline_host": dict(r.baseline_host),
        "challenger_host": dict(r.challenger_host),
        "latency": {
            "statistic": r.latency_statistic,
            "baseline": r.latency.baseline,
            "challenger": r.latency.challenger,
            "reduction": r.latency.reduction,
            "met": j.latency_met,
        },
        "core_cost": {
            "baseline": r.core_cost.baseline,
            "challenger": r.core_cost.challenger,
            "reduction": r.core_cost.reduction,
            "met": j.core_cost_met,
        },
        "peak_rss_bytes": {
            "baseline": r.peak_rss_bytes.baseline,
            "challenger": r.peak_rss_bytes.challenger,
        },
        "ceilings": [
            {"name": c.name, "limit": c.limit, "challenger": c.challenger, "met": c.met}
            for c in j.ceilings
        ],
    }


def render_decision_markdown(record: dict[str, Any]) -> str:
    """The record as the Markdown a person reads: verdict and reasons first, then the
    figures behind them, provenance, the rules applied and the gates to confirm."""
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
            fmt_pct(e["relative_reduction"]),
            fmt_pp_ci(e["difference_ci95"], e["difference"]),
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
            fmt_pct(lat["reduction"]),
            f"≥ {100 * record['rules']['min_latency_reduction']:.0f}%",
            "yes" if lat["met"] else "no",
        ],
        [
            "CPU s per audio s",
            _num(core["baseline"]),
            _num(core["challenger"]),
            fmt_pct(core["reduction"]),
            f"≥ {100 * record['rules']['min_core_cost_reduction']:.0f}%",
            "yes" if core["met"] else "no",
        ],
        [
            "peak RSS",
            fmt_mib(res["peak_rss_bytes"]["baseline"]),
            fmt_mib(res["peak_rss_bytes"]["challenger"]),
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
            fmt_pct(c["baseline"]),
            fmt_pct(c["challenger"]),
            f"≤ {fmt_pct(c['limit'])}",
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
        [d["key"], fmt_shown(d["baseline"]), fmt_shown(d["challenger"]), kind]
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
