"""`compare.md` and the terminal table: readable views of compare.json, no new numbers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from earmark.markdown_cells import md_code, md_table, md_text
from earmark.results.codec import JSONValue
from earmark.results.comparison import (
    CompareMetric,
    Comparison,
    ComparisonArm,
    ComparisonScope,
    ExactMatch,
)
from earmark.results.display import fmt_rate

if TYPE_CHECKING:
    from rich.console import Console


def fmt_share(block: ExactMatch | None) -> str:
    """`91.67% [86.67, 95.83] (110/120)`."""
    if block is None or block.value is None:
        return "—"
    text = f"{100 * block.value:.2f}%"
    if block.ci:
        lo, hi = block.ci
        text += f" [{100 * lo:.2f}, {100 * hi:.2f}]"
    return f"{text} ({block.matches}/{block.n})"


def fmt_p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}"


def rate_cell(metric: CompareMetric | None) -> str:
    """The rate with its CI, or `—` when null (the reason is in compare.json)."""
    if metric is None or metric.value is None:
        return "—"
    return fmt_rate(metric.estimate())


def _metric_cells(block: ComparisonArm | ComparisonScope) -> list[str]:
    return [
        fmt_share(block.exact_match_vs_reference),
        rate_cell(block.vs_reference_arm.get("wer")),
        rate_cell(block.vs_reference_arm.get("cer")),
        rate_cell(block.vs_human.get("wer")),
        rate_cell(block.vs_human.get("cer")),
    ]


ARM_HEADER = [
    "exact vs ref arm",
    "WER vs ref arm",
    "CER vs ref arm",
    "WER vs human",
    "CER vs human",
]


def _arm_label(result: Comparison, name: str) -> str:
    return f"{name} (reference)" if name == result.reference_arm else name


def summary_rows(result: Comparison) -> list[list[str]]:
    """One row per arm: name, N, exact match, WER/CER vs reference arm and vs human."""
    return [
        [_arm_label(result, name), str(arm.exact_match_vs_reference.n), *_metric_cells(arm)]
        for name, arm in result.arms.items()
    ]


def pair_rows(result: Comparison, language: str | None = None) -> list[list[str]]:
    rows = []
    for p in result.pairs:
        if p.language != language or p.difference is None:
            continue
        assert p.reference_value is not None and p.challenger_value is not None
        diff = f"{100 * p.difference:+.2f}"
        if p.ci:
            diff += f" [{100 * p.ci[0]:+.2f}, {100 * p.ci[1]:+.2f}]"
        better = p.share_challenger_better
        rows.append(
            [
                p.challenger,
                f"{p.metric} / {p.view}",
                f"{100 * p.reference_value:.2f}%",
                f"{100 * p.challenger_value:.2f}%",
                diff,
                "—" if better is None else f"{100 * better:.1f}%",
                fmt_p(p.sign_test_p),
                fmt_p(p.wilcoxon_p),
                fmt_p(p.p_holm),
                _with_holm(p.mapsswe_p, p.mapsswe_p_holm),
                _with_holm(p.mcnemar_p, p.mcnemar_p_holm),
            ]
        )
    return rows


def _with_holm(raw: float | None, holm: float | None) -> str:
    """`0.012 (Holm 0.024)`, or the raw p alone when Holm changes nothing."""
    if raw is None or holm is None or holm == raw:
        return fmt_p(raw)
    return f"{fmt_p(raw)} (Holm {fmt_p(holm)})"


PAIR_HEADER = [
    "challenger",
    "metric / view",
    "reference",
    "challenger",
    "difference (points) [95% CI]",
    "challenger better in",
    "sign test p",
    "Wilcoxon p",
    "Holm p",
    "MAPSSWE p",
    "McNemar p",
]


def _unpaired_cells(entry: JSONValue) -> list[str]:
    """One `unpaired` entry as table cells: arm, id, repeat, reason."""
    row = entry if isinstance(entry, dict) else {}
    return [str(row.get(k)) for k in ("arm", "id", "repeat", "reason")]


def _flags(result: Comparison) -> dict[str, list[str]]:
    """Each arm's diagnostic flags, as `diagnostics.<arm>.flags` lists them."""
    out: dict[str, list[str]] = {}
    for name, diag in (result.diagnostics or {}).items():
        flags = diag.get("flags") if isinstance(diag, dict) else None
        out[name] = [str(f) for f in flags] if isinstance(flags, list) else []
    return out


def _scope_tables(
    result: Comparison, what: str, scopes: Mapping[str, Mapping[str, ComparisonScope]]
) -> list[str]:
    """Per arm, one table of its scopes (languages or slices); arms without any skipped."""
    lines: list[str] = []
    for name, by_scope in scopes.items():
        rows = [[k, str(block.n), *_metric_cells(block)] for k, block in by_scope.items()]
        if rows:
            lines += [f"### {md_text(name)}", "", md_table([what, "N", *ARM_HEADER], rows)]
            lines.append("")
    return lines


def _pair_languages(result: Comparison) -> list[str]:
    return sorted({p.language for p in result.pairs if p.language})


def render_compare_markdown(result: Comparison) -> str:
    """compare.md: the summary, the paired differences, per language and slice, the
    diagnostics' flags and the unpaired rows."""
    agg = result.aggregate
    boot = result.bootstrap
    unpaired = result.unpaired or ()
    lines = [
        "# earmark compare",
        "",
        f"Reference arm: **{md_text(result.reference_arm)}**. Shared utterances: "
        f"**N = {md_text(result.n_shared)}** ({md_text(result.n_clusters)} clips); "
        f"{len(unpaired)} unpaired row(s) listed below.",
        "",
        f"Normaliser policy: {md_code(result.normalizer_policy.to_dict())}. Rates are "
        f"**{md_text(agg)}** "
        + (
            "(corpus: summed errors / summed reference units)."
            if agg == "micro"
            else "(**macro**: mean of per-utterance rates, as the Parakeet weight-type harness "
            "publishes)."
        )
        + f" 95% clip-bootstrap CIs, B = {md_text(boot.resamples)}, "
        f"seed {md_text(boot.seed)}.",
        "",
        "Exact match: raw hypothesis byte-identical to the reference arm's (a missing "
        "hypothesis never matches). `—`: not computable (mixed normalisers, or no word "
        "units); each null carries its reason in compare.json.",
        "",
        *_determinism_lines(result),
        md_table(["arm", "N", *ARM_HEADER], summary_rows(result)),
        "",
        "## Paired differences vs the reference arm (challenger − reference)",
        "",
        "Tests per clip: sign and Wilcoxon on error counts (Holm p: Wilcoxon adjusted across "
        "challengers); McNemar (exact) on clips right/wrong; MAPSSWE (NIST's matched-pairs "
        "sentence-segment test) on segment error counts; their Holm-adjusted p in "
        "parentheses when it differs.",
        "",
    ]
    overall = pair_rows(result)
    if overall:
        lines += [md_table(PAIR_HEADER, overall), ""]
    else:
        lines += ["No overall paired figure (see per language).", ""]
    lines += ["## By language", ""]
    lines += _scope_tables(result, "language", {n: a.by_language for n, a in result.arms.items()})
    for lang in _pair_languages(result):
        rows = pair_rows(result, lang)
        if rows:
            lines += [f"Paired, {md_text(lang)}:", "", md_table(PAIR_HEADER, rows), ""]
    if any(arm.by_slice for arm in result.arms.values()):
        lines += ["## By slice", ""]
        lines += _scope_tables(result, "slice", {n: a.by_slice for n, a in result.arms.items()})
    lines += ["## Diagnostics", ""]
    diag_rows = [[name, ", ".join(flags) or "none"] for name, flags in _flags(result).items()]
    lines += [md_table(["arm", "flags"], diag_rows), ""]
    if unpaired:
        lines += ["## Unpaired rows (not compared)", ""]
        shown = unpaired[:200]
        lines += [
            md_table(["arm", "id", "repeat", "reason"], [_unpaired_cells(u) for u in shown]),
            "",
        ]
        if len(unpaired) > len(shown):
            lines += [f"… and {len(unpaired) - len(shown)} more in compare.json", ""]
    return "\n".join(lines)


def _determinism_note(result: Comparison) -> str | None:
    """The determinism note when churn may include sampling noise (absent from older files)."""
    block = result.determinism
    if not block or not block.get("churn_includes_sampling_noise"):
        return None
    return str(block.get("note"))


def _determinism_lines(result: Comparison) -> list[str]:
    """A warning paragraph when churn may include sampling noise."""
    note = _determinism_note(result)
    return [] if note is None else [f"**Determinism:** {md_text(note)}.", ""]


def print_compare(result: Comparison, console: Console | None = None) -> None:
    """The short terminal tables: one row per arm, N printed, then the overall pairs,
    fitted to the terminal's width (`terminal.print_fitted`: CIs stack, then the
    least needed columns go). Cells are plain text, never rich markup."""
    from rich.console import Console
    from rich.text import Text

    from earmark.terminal_table import Column, print_fitted

    console = console if console is not None else Console()
    rows = []
    for name, arm in result.arms.items():
        rows.append(
            [_arm_label(result, name), str(arm.exact_match_vs_reference.n), *_metric_cells(arm)]
        )
        if arm.vs_human["cer"].value is None:  # mixed normalisers: per language
            for lang, block in arm.by_language.items():
                rows.append([f"  {lang}", str(block.n), *_metric_cells(block)])
    drops = {"WER vs ref arm": 1, "CER vs ref arm": 1}
    print_fitted(
        console,
        [
            Column("arm", breaks=(" (",)),
            Column("N", numeric=True),
            *(Column(h, drop=drops.get(h, 0), numeric=True) for h in ARM_HEADER),
        ],
        rows,
        see="compare.md",
        title=f"earmark compare: N = {result.n_shared} shared utterances, reference "
        f"{result.reference_arm} ({result.aggregate}, 95% clip-bootstrap CI)",
    )
    note = _determinism_note(result)
    if note is not None:
        console.print(Text(f"Determinism: {note}."))
    _print_pairs(result, console)
    if result.unpaired:
        console.print(
            Text(f"{len(result.unpaired)} unpaired row(s) not compared (see compare.json)")
        )
    for name, flags in _flags(result).items():
        if flags:
            console.print(Text(f"diagnostics {name}: {', '.join(flags)}"))


def _print_pairs(result: Comparison, console: Console) -> None:
    """The overall pairs (per language when there is no overall figure), fitted."""
    from earmark.terminal_table import Column, print_fitted

    pairs = pair_rows(result)
    if not pairs:
        for lang in _pair_languages(result):
            pairs += [[f"{row[0]} ({lang})", *row[1:]] for row in pair_rows(result, lang)]
    if not pairs:
        return
    # Narrow terminals: short headers, then the two other tests' p, then the two rates
    # (the arm table above has them).
    short = {
        2: ("ref.", 1),
        3: ("chal.", 1),
        4: ("diff. (pp)\n[95% CI]", 0),
        5: ("better\nin", 0),
        6: ("sign p", 2),
        7: ("Wilc. p", 2),
        9: ("MAPSSWE", 2),
        10: ("McNemar", 2),
    }
    print_fitted(
        console,
        [
            Column(
                h,
                short.get(i, (None, 0))[0],
                drop=short.get(i, (None, 0))[1],
                numeric=i >= 2,
                breaks=(" [", " (", " / "),
            )
            for i, h in enumerate(PAIR_HEADER)
        ],
        pairs,
        title="challenger − reference (paired)",
        see="compare.md",
    )
