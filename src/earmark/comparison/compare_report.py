"""`compare.md` and the terminal table: readable views of compare.json, no new numbers."""

from __future__ import annotations

from typing import Any

from earmark.markdown_cells import md_code, md_table, md_text
from earmark.results.display import fmt_rate


def fmt_share(block: dict[str, Any] | None) -> str:
    """`91.67% [86.67, 95.83] (110/120)`."""
    if not block or block.get("value") is None:
        return "—"
    text = f"{100 * block['value']:.2f}%"
    if block.get("ci95"):
        lo, hi = block["ci95"]
        text += f" [{100 * lo:.2f}, {100 * hi:.2f}]"
    return f"{text} ({block['matches']}/{block['n']})"


def fmt_p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}"


def rate_cell(metric: dict[str, Any] | None) -> str:
    """The rate with its CI, or `—` when null (the reason is in compare.json)."""
    if not metric or metric.get("value") is None:
        return "—"
    return fmt_rate(metric)


def _metric_cells(block: dict[str, Any]) -> list[str]:
    return [
        fmt_share(block["exact_match_vs_reference"]),
        rate_cell(block["vs_reference_arm"].get("wer")),
        rate_cell(block["vs_reference_arm"].get("cer")),
        rate_cell(block["vs_human"].get("wer")),
        rate_cell(block["vs_human"].get("cer")),
    ]


ARM_HEADER = [
    "exact vs ref arm",
    "WER vs ref arm",
    "CER vs ref arm",
    "WER vs human",
    "CER vs human",
]


def summary_rows(result: dict[str, Any]) -> list[list[str]]:
    """One row per arm: name, N, exact match, WER/CER vs reference arm and vs human."""
    rows = []
    for name, arm in result["arms"].items():
        label = f"{name} (reference)" if name == result["reference_arm"] else name
        rows.append([label, str(arm["exact_match_vs_reference"]["n"]), *_metric_cells(arm)])
    return rows


def pair_rows(result: dict[str, Any], language: str | None = None) -> list[list[str]]:
    rows = []
    for p in result["pairs"]:
        if p.get("language") != language or p.get("difference") is None:
            continue
        ci = p.get("ci95")
        diff = f"{100 * p['difference']:+.2f}"
        if ci:
            diff += f" [{100 * ci[0]:+.2f}, {100 * ci[1]:+.2f}]"
        better = p.get("share_challenger_better")
        rows.append(
            [
                p["challenger"],
                f"{p['metric']} / {p['view']}",
                f"{100 * p['reference_value']:.2f}%",
                f"{100 * p['challenger_value']:.2f}%",
                diff,
                "—" if better is None else f"{100 * better:.1f}%",
                fmt_p(p.get("sign_test_p")),
                fmt_p(p.get("wilcoxon_p")),
                fmt_p(p.get("p_holm")),
                _with_holm(p, "mapsswe_p"),
                _with_holm(p, "mcnemar_p"),
            ]
        )
    return rows


def _with_holm(pair: dict[str, Any], key: str) -> str:
    """`0.012 (Holm 0.024)`, or the raw p alone when Holm changes nothing."""
    raw, holm = pair.get(key), pair.get(f"{key}_holm")
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


def render_compare_markdown(result: dict[str, Any]) -> str:
    agg = result["aggregate"]
    boot = result["bootstrap"]
    lines = [
        "# earmark compare",
        "",
        f"Reference arm: **{md_text(result['reference_arm'])}**. Shared utterances: "
        f"**N = {md_text(result['n_shared'])}** ({md_text(result['n_clusters'])} clips); "
        f"{len(result['unpaired'])} unpaired row(s) listed below.",
        "",
        f"Normaliser policy: {md_code(result['normalizer_policy'])}. Rates are "
        f"**{md_text(agg)}** "
        + (
            "(corpus: summed errors / summed reference units)."
            if agg == "micro"
            else "(**macro**: mean of per-utterance rates, as the Parakeet weight-type harness "
            "publishes)."
        )
        + f" 95% clip-bootstrap CIs, B = {md_text(boot['resamples'])}, "
        f"seed {md_text(boot['seed'])}.",
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
    for name, arm in result["arms"].items():
        rows = [
            [lang, str(block["n"]), *_metric_cells(block)]
            for lang, block in arm["by_language"].items()
        ]
        if rows:
            lines += [f"### {md_text(name)}", "", md_table(["language", "N", *ARM_HEADER], rows)]
            lines.append("")
    languages = sorted({p["language"] for p in result["pairs"] if p.get("language")})
    for lang in languages:
        rows = pair_rows(result, lang)
        if rows:
            lines += [f"Paired, {md_text(lang)}:", "", md_table(PAIR_HEADER, rows), ""]
    if any(arm["by_slice"] for arm in result["arms"].values()):
        lines += ["## By slice", ""]
        for name, arm in result["arms"].items():
            rows = [
                [sl, str(block["n"]), *_metric_cells(block)]
                for sl, block in arm["by_slice"].items()
            ]
            if rows:
                lines += [f"### {md_text(name)}", "", md_table(["slice", "N", *ARM_HEADER], rows)]
                lines.append("")
    lines += ["## Diagnostics", ""]
    diag_rows = []
    for name, diag in result["diagnostics"].items():
        diag_rows.append([name, ", ".join(diag["flags"]) or "none"])
    lines += [md_table(["arm", "flags"], diag_rows), ""]
    if result["unpaired"]:
        lines += ["## Unpaired rows (not compared)", ""]
        shown = result["unpaired"][:200]
        lines += [
            md_table(
                ["arm", "id", "repeat", "reason"],
                [[u["arm"], u["id"], str(u["repeat"]), u["reason"]] for u in shown],
            ),
            "",
        ]
        if len(result["unpaired"]) > len(shown):
            lines += [f"… and {len(result['unpaired']) - len(shown)} more in compare.json", ""]
    return "\n".join(lines)


def _determinism_lines(result: dict[str, Any]) -> list[str]:
    """A warning paragraph when churn may include sampling noise (absent from older files)."""
    block = result.get("determinism")
    if not block or not block.get("churn_includes_sampling_noise"):
        return []
    return [f"**Determinism:** {md_text(block['note'])}.", ""]


def print_compare(result: dict[str, Any], console: Any = None) -> None:
    """The short terminal tables: one row per arm, N printed, then the overall pairs,
    fitted to the terminal's width (`terminal.print_fitted`: CIs stack, then the
    least needed columns go). Cells are plain text, never rich markup."""
    from rich.console import Console
    from rich.text import Text

    from earmark.terminal_table import Column, print_fitted

    console = console if console is not None else Console()
    rows = []
    for name, arm in result["arms"].items():
        label = f"{name} (reference)" if name == result["reference_arm"] else name
        rows.append([label, str(arm["exact_match_vs_reference"]["n"]), *_metric_cells(arm)])
        if arm["vs_human"]["cer"].get("value") is None:  # mixed normalisers: per language
            for lang, block in arm["by_language"].items():
                rows.append([f"  {lang}", str(block["n"]), *_metric_cells(block)])
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
        title=f"earmark compare: N = {result['n_shared']} shared utterances, reference "
        f"{result['reference_arm']} ({result['aggregate']}, 95% clip-bootstrap CI)",
    )
    if _determinism_lines(result):
        console.print(Text(f"Determinism: {result['determinism']['note']}."))
    pairs = pair_rows(result)
    if not pairs:
        for lang in sorted({p["language"] for p in result["pairs"] if p.get("language")}):
            pairs += [[f"{row[0]} ({lang})", *row[1:]] for row in pair_rows(result, lang)]
    if pairs:
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
    if result["unpaired"]:
        console.print(
            Text(f"{len(result['unpaired'])} unpaired row(s) not compared (see compare.json)")
        )
    for name, diag in result["diagnostics"].items():
        if diag["flags"]:
            console.print(Text(f"diagnostics {name}: {', '.join(diag['flags'])}"))
