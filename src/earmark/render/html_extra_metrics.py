"""The optional metrics `earmark score` adds on request: punctuation F1 and critical
tokens (--punctuation, --critical-tokens), and timestamp accuracy (reference timings)."""

from __future__ import annotations

from typing import Any

from earmark.render.html_inputs import ReportInputs
from earmark.render.html_page import Markup, esc, html_table, num, section
from earmark.render.markdown import TIMESTAMP_HEADER, timestamp_rows
from earmark.results.display import fmt_stat


def render_punctuation(page: ReportInputs) -> str:
    """Seed 001's punctuation F1 and seed 000's critical tokens, when the arm has them."""
    punct_rows: list[list[object]] = []
    token_rows: list[list[object]] = []
    for arm_name, arm in page.results.arms.items():
        overall: Any = (arm.punctuation or {}).get("overall")
        if overall:
            for kind in ("position", "position_type"):
                punct_rows.append(
                    [
                        arm_name,
                        kind.replace("_", "+"),
                        num(f"{overall['ref_marks']} / {overall['hyp_marks']}"),
                        num(fmt_stat(overall[kind]["precision"])),
                        num(fmt_stat(overall[kind]["recall"])),
                        num(fmt_stat(overall[kind]["f1"])),
                    ]
                )
        tokens: Any = (arm.critical_tokens or {}).get("overall")
        if tokens:
            for category, c in tokens["categories"].items():
                if c["ref"] or c["hyp"]:
                    token_rows.append(
                        [
                            arm_name,
                            category,
                            num(str(c["ref"])),
                            num(str(c["matched"])),
                            num(str(c["lost"])),
                            num(fmt_stat(c["recall"])),
                        ]
                    )
    body: list[str] = []
    if punct_rows:
        body.append("<h3>Punctuation F1 (boundary projection)</h3>")
        header = ["arm", "match", "marks ref / hyp", "precision", "recall", "F1"]
        body.append(html_table(header, punct_rows))
    if token_rows:
        body.append("<h3>Critical tokens (exact, no numeral normalisation)</h3>")
        header = ["arm", "category", "in references", "matched", "lost", "recall"]
        body.append(html_table(header, token_rows))
    if not body:
        body.append(
            '<p class="muted">Not computed for this result (earmark score --punctuation '
            "--critical-tokens adds them).</p>"
        )
    return section("punctuation", "Punctuation and critical tokens", body)


def render_timestamps(page: ReportInputs) -> str:
    """Word and segment boundary offsets, when the manifest had reference timings."""
    rows: list[list[object]] = []
    for arm_name, arm in page.results.arms.items():
        for row in timestamp_rows(arm.timestamps):
            rows.append([arm_name, row[0], row[1], *(num(cell) for cell in row[2:])])
    if not rows:
        body = [
            '<p class="muted">No reference timings in the manifest (custom.segments or '
            "custom.words), or no timestamps from the system.</p>"
        ]
    else:
        body = [
            "<p>Absolute boundary offsets, hypothesis − reference. Words are paired only "
            "where recognised correctly; segments one-to-one by overlap.</p>",
            html_table(["arm", *(_unbroken(h) for h in TIMESTAMP_HEADER)], rows),
        ]
    return section("timestamps", "Timestamp accuracy", body)


def _unbroken(header: str) -> str:
    """A head with `|Δ|` kept whole: a browser may break after `|` (a break-after mark)."""
    if "|Δ|" not in header:
        return header
    before, after = esc(header).split("|Δ|", 1)
    return Markup(f'{before}<span class="nowrap">|Δ|</span>{after}')
