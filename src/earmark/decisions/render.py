"""The decision record as Markdown, and the small formats its reasons share.

The record (`decide`'s JSON-ready dict) is the source of truth; this module only renders
it, so the Markdown a person reads can never say something the JSON does not.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date as Date
from typing import TYPE_CHECKING, Any

from earmark.results import DECISION_SCHEMA, display
from earmark.results.display import fmt_decimal, fmt_pct

if TYPE_CHECKING:
    from earmark.decisions.ceilings import Ceilings
    from earmark.decisions.evidence import (
        Coverage,
        DecisionEvidence,
        LanguageEvidence,
        ResourceEvidence,
    )
    from earmark.decisions.rules import (
        DecisionRules,
        Judgement,
        LanguageJudgement,
        ResourceJudgement,
    )
    from earmark.decisions.settings import SettingsComparison
    from earmark.decisions.sides import SideRecord

#: The record's schema id, the one `earmark.results.Decision` reads.
SCHEMA_ID = DECISION_SCHEMA


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
    return "not recorded" if value is None else display.fmt_mib(value)


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
        "rules": rules.to_dict(),
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


def render_decision_markdown(
    evidence: DecisionEvidence, judgement: Judgement, rules: DecisionRules, when: Date
) -> str:
    """The record as the Markdown a person reads: verdict and reasons first, then the
    figures behind them, provenance, the rules applied and the gates to confirm."""
    from earmark.markdown_cells import md_code, md_table, md_text

    b, c = evidence.baseline, evidence.challenger
    lines = [
        f"# Decision record {md_text(when.isoformat())}: {md_code(c.arm)} vs baseline "
        f"{md_code(b.arm)}",
        "",
        f"**Verdict: {md_text(judgement.verdict)}**",
        "",
        "## Reasons",
        "",
        *[f"- {md_text(r)}" for r in judgement.reasons],
        "",
        "## Error rates (primary view, paired rows)",
        "",
    ]
    rows = [
        [
            e.language,
            f"{e.metric.upper()} {e.normalizer}/{e.view}",
            str(e.n_paired),
            _fmt_coverage(e.baseline_coverage, e.challenger_coverage),
            _fmt_metric(e.baseline),
            _fmt_metric(e.challenger),
            fmt_pct(e.relative_reduction),
            fmt_pp_ci(e.difference_ci, e.difference),
            "yes" if j.non_inferior else "no",
            "met" if j.quality_win else "no",
        ]
        for e, j in zip(evidence.languages, judgement.languages, strict=True)
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
    lines.append(md_table(header, rows))
    lines += _speed_markdown(evidence.resources, judgement.resources, rules)
    lines += _ceilings_markdown(evidence.ceilings)
    lines += _settings_markdown(evidence.settings)
    corpus = evidence.corpus
    lines += [
        "",
        "## Provenance",
        "",
        f"- Corpus: {md_text(corpus['dataset'] or 'not recorded')}, manifest SHA-256 "
        f"{md_code(corpus['manifest_sha256'] or 'NOT RECORDED')}, selection "
        f"{md_text(corpus['selection'] or 'not recorded')}",
    ]
    for role, side in (("Baseline", b), ("Challenger", c)):
        lines.append(f"- {role} {md_code(side.arm)} ({md_text(side.run)}): " + _side_line(side))
    lines += [
        "",
        "## Rules applied",
        "",
        *[f"- {md_code(k)} = {md_text(json.dumps(v))}" for k, v in rules.to_dict().items()],
        "",
        "## Record gates (checked from the challenger's records)",
        "",
        *[
            f"- [{'x' if g.passed else ' '}] **{md_text(g.gate)}** — "
            + ("passes" if g.passed else "BLOCKED: " + md_text("; ".join(g.missing)))
            for g in evidence.record_gates
        ],
        "",
        "## Non-metric gates (a person confirms each before acting on the verdict)",
        "",
        *[f"- [ ] **{md_text(g['gate'])}** — {md_text(g['known'])}" for g in evidence.checklist],
        "",
    ]
    return "\n".join(lines)


def _side_line(side: SideRecord) -> str:
    """Model, revision, hashes and host of one side, and whether it can be verified."""
    from earmark.markdown_cells import md_code, md_text

    model = side.model
    host = side.host or {}
    return (
        f"{md_text(model['artifact_id'] or '—')}, "
        f"revision {md_code(model['revision'] or 'NOT RECORDED')}, "
        f"{len(model['file_sha256'] or {})} file hashes; host "
        + md_text(
            f"{host.get('os', '?')}/{host.get('arch', '?')}, {host.get('cpu_model') or '?'}, "
            f"{host.get('cores_available', '?')} cores"
        )
        + "; "
        + (
            "verifiable"
            if side.verifiable
            else "**unverifiable**: " + md_text("; ".join(side.missing))
        )
    )


def _speed_markdown(r: ResourceEvidence, j: ResourceJudgement, rules: DecisionRules) -> list[str]:
    from earmark.markdown_cells import md_table

    speed = [
        [
            f"latency {r.latency_statistic} (s)",
            fmt_decimal(r.latency.baseline),
            fmt_decimal(r.latency.challenger),
            fmt_pct(r.latency.reduction),
            f"≥ {100 * rules.min_latency_reduction:.0f}%",
            "yes" if j.latency_met else "no",
        ],
        [
            "CPU s per audio s",
            fmt_decimal(r.core_cost.baseline),
            fmt_decimal(r.core_cost.challenger),
            fmt_pct(r.core_cost.reduction),
            f"≥ {100 * rules.min_core_cost_reduction:.0f}%",
            "yes" if j.core_cost_met else "no",
        ],
        [
            "peak RSS",
            fmt_mib(r.peak_rss_bytes.baseline),
            fmt_mib(r.peak_rss_bytes.challenger),
            "",
            "",
            "",
        ],
    ]
    speed += [
        [
            f"ceiling: {ceiling.name}",
            "",
            fmt_decimal(ceiling.challenger),
            "",
            f"≤ {ceiling.limit}",
            "yes" if ceiling.met else "no",
        ]
        for ceiling in j.ceilings
    ]
    return [
        "",
        "## Speed and cost" + ("" if r.same_host else " (not comparable: hosts differ)"),
        "",
        md_table(["measure", "baseline", "challenger", "reduction", "threshold", "met"], speed),
    ]


def _ceilings_markdown(ceilings: Ceilings) -> list[str]:
    from earmark.markdown_cells import md_code, md_table

    if not ceilings.checks:
        return []
    rows = [
        [
            f"{c.metric.upper()} {c.scope} ({c.view or '—'})",
            fmt_pct(c.baseline),
            fmt_pct(c.challenger),
            f"≤ {fmt_pct(c.limit)}",
            {True: "yes", False: "NO", None: "not checked"}[c.met],
        ]
        for c in ceilings.checks
    ]
    return [
        "",
        "## Pre-registered error-rate ceilings (plan "
        + md_code(str(ceilings.plan_sha256 or "—")[:12])
        + ")",
        "",
        md_table(["rate", "baseline", "challenger", "ceiling", "challenger met"], rows),
    ]


def _settings_markdown(settings: SettingsComparison) -> list[str]:
    from earmark.markdown_cells import md_table, md_text

    rows = [
        [d.key, fmt_shown(d.baseline), fmt_shown(d.challenger), kind]
        for kind, group in (
            ("the change under test", settings.subject),
            ("differs, allowed", settings.differences),
            ("not comparable (engines differ)", settings.not_comparable),
        )
        for d in group
    ]
    same = sorted(
        k
        for k, v in settings.baseline.items()
        if settings.challenger.get(k) == v and k not in ("backend", "model")
    )
    lines = ["", "## Decoding settings", ""]
    if rows:
        lines.append(md_table(["setting", "baseline", "challenger", "status"], rows))
        lines.append("")
    lines.append(
        "Equal on both sides: "
        + (md_text(", ".join(f"{k} = {settings.baseline[k]}" for k in same)) or "—")
    )
    return lines


def _fmt_coverage(baseline: Coverage, challenger: Coverage) -> str:
    return " / ".join(
        f"{c.with_hypothesis}/{c.rows}{' ⚠' if c.below_minimum else ''}"
        for c in (baseline, challenger)
    )


def _fmt_metric(metric: Mapping[str, Any] | None) -> str:
    from earmark.results.display import fmt_rate

    return fmt_rate(dict(metric)) if metric else "—"
