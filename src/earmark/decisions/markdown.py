"""The decision record as the Markdown a person reads (`decision-DATE.md`).

It renders the typed record (`earmark.results.Decision`) and nothing else, so the Markdown
can never say something the JSON does not.
"""

from __future__ import annotations

import json

from earmark.decisions.formatting import fmt_mib, fmt_pp_ci, fmt_shown
from earmark.markdown_cells import md_code, md_table, md_text
from earmark.results.decision import (
    Decision,
    DecisionResources,
    DecisionSide,
    PlanCeilings,
    RulesApplied,
    SettingsComparison,
    SideCoverage,
    SideRate,
)
from earmark.results.display import fmt_decimal, fmt_pct, fmt_rate


def render_decision_markdown(decision: Decision) -> str:
    """The record as the Markdown a person reads: verdict and reasons first, then the
    figures behind them, provenance, the rules applied and the gates to confirm."""
    b, c = decision.baseline, decision.challenger
    lines = [
        f"# Decision record {md_text(decision.date)}: {md_code(c.arm)} vs baseline "
        f"{md_code(b.arm)}",
        "",
        f"**Verdict: {md_text(decision.verdict)}**",
        "",
        "## Reasons",
        "",
        *[f"- {md_text(r)}" for r in decision.reasons],
        "",
        "## Error rates (primary view, paired rows)",
        "",
    ]
    rows = [
        [
            e.language,
            f"{e.metric.upper()} {e.normalizer}/{e.view}",
            str(e.n_paired),
            _fmt_coverage(e.coverage.baseline, e.coverage.challenger),
            _fmt_rate(e.baseline),
            _fmt_rate(e.challenger),
            fmt_pct(e.relative_reduction),
            fmt_pp_ci(e.difference_ci, e.difference),
            "yes" if e.non_inferior else "no",
            "met" if e.quality_win else "no",
        ]
        for e in decision.evidence
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
    lines += _speed_markdown(decision.resources, decision.rules)
    lines += _ceilings_markdown(decision.ceilings)
    lines += _settings_markdown(decision.settings)
    lines += _provenance_markdown(decision)
    lines += [
        "",
        "## Rules applied",
        "",
        *[
            f"- {md_code(k)} = {md_text(json.dumps(v))}"
            for k, v in decision.rules.to_dict().items()
        ],
        "",
        "## Record gates (checked from the challenger's records)",
        "",
        *[
            f"- [{'x' if g.passed else ' '}] **{md_text(g.gate)}** — "
            + ("passes" if g.passed else "BLOCKED: " + md_text("; ".join(g.missing)))
            for g in decision.record_gates
        ],
        "",
        "## Non-metric gates (a person confirms each before acting on the verdict)",
        "",
        *[f"- [ ] **{md_text(g.gate)}** — {md_text(g.known)}" for g in decision.gates],
        "",
    ]
    return "\n".join(lines)


def _provenance_markdown(decision: Decision) -> list[str]:
    """The corpus both sides ran on, and each side's model, hashes and host."""
    corpus = decision.corpus
    lines = [
        "",
        "## Provenance",
        "",
        f"- Corpus: {md_text(corpus.dataset or 'not recorded')}, manifest SHA-256 "
        f"{md_code(corpus.manifest_sha256 or 'NOT RECORDED')}, selection "
        f"{md_text(corpus.selection or 'not recorded')}",
    ]
    for role, side in (("Baseline", decision.baseline), ("Challenger", decision.challenger)):
        lines.append(f"- {role} {md_code(side.arm)} ({md_text(side.run)}): " + _side_line(side))
    return lines


def _side_line(side: DecisionSide) -> str:
    """Model, revision, hashes and host of one side, and whether it can be verified."""
    model = side.model
    host = side.host or {}
    hashes = model.get("file_sha256")
    return (
        f"{md_text(str(model.get('artifact_id') or '—'))}, "
        f"revision {md_code(str(model.get('revision') or 'NOT RECORDED'))}, "
        f"{len(hashes) if isinstance(hashes, dict) else 0} file hashes; host "
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


def _speed_markdown(r: DecisionResources, rules: RulesApplied) -> list[str]:
    speed = [
        [
            f"latency {r.latency.statistic} (s)",
            fmt_decimal(r.latency.baseline),
            fmt_decimal(r.latency.challenger),
            fmt_pct(r.latency.reduction),
            f"≥ {100 * rules.min_latency_reduction:.0f}%",
            "yes" if r.latency.met else "no",
        ],
        [
            "CPU s per audio s",
            fmt_decimal(r.core_cost.baseline),
            fmt_decimal(r.core_cost.challenger),
            fmt_pct(r.core_cost.reduction),
            f"≥ {100 * rules.min_core_cost_reduction:.0f}%",
            "yes" if r.core_cost.met else "no",
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
        for ceiling in r.ceilings
    ]
    return [
        "",
        "## Speed and cost" + ("" if r.same_host else " (not comparable: hosts differ)"),
        "",
        md_table(["measure", "baseline", "challenger", "reduction", "threshold", "met"], speed),
    ]


def _ceilings_markdown(ceilings: PlanCeilings) -> list[str]:
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


def _fmt_coverage(baseline: SideCoverage, challenger: SideCoverage) -> str:
    return " / ".join(
        f"{c.with_hypothesis}/{c.rows}{' ⚠' if c.below_minimum else ''}"
        for c in (baseline, challenger)
    )


def _fmt_rate(rate: SideRate | None) -> str:
    return fmt_rate(rate.to_dict()) if rate else "—"
