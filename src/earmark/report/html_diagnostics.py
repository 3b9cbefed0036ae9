"""The diagnostics section: hallucination counts per language, examples of output on
no-speech clips and of language mismatches, the run's flags and compare.json's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from earmark.report.html_examples import examples_table, transcript
from earmark.report.html_page import Markup, esc, html_table, num, pct, section
from earmark.report.run_directory import RunDirectory, base_language


def render_diagnostics(run: RunDirectory, examples: int = 10) -> str:
    rows: list[list[object]] = []
    mismatch_examples: list[dict[str, Any]] = []
    no_speech_examples: list[dict[str, Any]] = []
    for arm_name in run.arm_names:
        arm = run.arm(arm_name)
        arm_rows = run.arm_rows(arm_name)
        for lang, block in arm.get("by_language", {}).items():
            h = block.get("hallucination") or {}
            lang_rows = [r for r in arm_rows if base_language(r.get("language")) == lang]
            mismatches = [r for r in lang_rows if r.get("language_mismatch")]
            mismatch_examples += mismatches
            primary = block.get("primary_view", "")
            for r in lang_rows:
                view = (r.get("views") or {}).get(primary) or {}
                if view.get("reference") == "" and view.get("hypothesis"):
                    no_speech_examples.append(r)
            rate = h.get("no_speech_output_rate")
            rows.append(
                [
                    arm_name,
                    lang,
                    num(
                        f"{h.get('no_speech_with_output', 0)}/{h.get('no_speech_rows', 0)}"
                        + (f" ({100 * rate:.0f}%)" if rate is not None else "")
                    ),
                    num(str(h.get("empty_outputs", 0))),
                    num(str(h.get("repetition_loops", 0))),
                    num(str(h.get("runaway_outputs", 0))),
                    num(f"{len(mismatches)}/{len(lang_rows)}" if lang_rows else "—"),
                ]
            )
    body: list[str] = [
        html_table(
            [
                "arm",
                "language",
                "output on no-speech",
                "empty outputs",
                "repetition loops",
                "runaway outputs (>2× ref)",
                "decoded in another language",
            ],
            rows,
        )
    ]
    if no_speech_examples:
        body.append("<h3>Output on no-speech clips</h3>")
        body.append(examples_table(no_speech_examples[:examples]))
    if mismatch_examples:
        body.append("<h3>Language mismatches (requested → used)</h3>")
        body.append(
            html_table(
                ["arm", "id", "requested → used", "hypothesis"],
                [
                    [
                        r.get("arm", ""),
                        r.get("id"),
                        f"{r.get('language_requested', r.get('language'))} → "
                        f"{r.get('language_used', '?')}",
                        Markup(transcript(r.get("hypothesis"), r.get("language_used"))),
                    ]
                    for r in mismatch_examples[:examples]
                ],
            )
        )
        if len(mismatch_examples) > examples:
            body.append(f'<p class="muted">… and {len(mismatch_examples) - examples} more.</p>')
    flagged = run.results.get("diagnostics") or {}
    if flagged:
        body.append("<h3>Flags</h3>")
        flag_rows: list[list[object]] = []
        for name, diag in flagged.items():
            for kind in ("insertion", "truncation", "script_mismatch", "empty_outputs"):
                block = diag.get(kind) or {}
                reasons: list[str] = []
                for sub in (block.get("by_normalizer") or {}).values():
                    reasons += sub.get("reasons") or []
                reasons += block.get("reasons") or []
                flag_rows.append(
                    [
                        name,
                        kind.replace("_", " "),
                        _flag_badge(block.get("flagged")),
                        _list(reasons),
                    ]
                )
            flips = diag.get("normalizer_ranking_flip") or {}
            if flips.get("flagged"):
                flag_rows.append(
                    [
                        name,
                        "normaliser changes ranking",
                        _flag_badge(True),
                        _list([_flip_text(name, f) for f in flips.get("flips") or []]),
                    ]
                )
        body.append(html_table(["arm", "diagnostic", "status", "why"], flag_rows))
    extra = (run.compare or {}).get("diagnostics") or {}
    if extra:
        body.append("<h3>Diagnostics from compare.json</h3>")
        body.append(
            html_table(
                ["arm", "flags"],
                [
                    [
                        name,
                        ", ".join(str(f).replace("_", " ") for f in diag.get("flags") or [])
                        or "none",
                    ]
                    for name, diag in extra.items()
                ],
            )
        )
        for name, diag in extra.items():
            body.append(
                f"<details><summary>{esc(name)}: every figure (JSON)</summary><pre>"
                f"{esc(json.dumps(diag, ensure_ascii=False, indent=2))}</pre></details>"
            )
    return section("diagnostics", "Diagnostics: hallucination and language", body)


def _flag_badge(flagged: object) -> Markup:
    if flagged:
        return Markup('<span class="badge bad">flagged</span>')
    return Markup('<span class="badge ok">ok</span>')


def _list(items: Sequence[str]) -> Markup | str:
    """Reasons as a short list (one line each), or a dash."""
    if not items:
        return "—"
    if len(items) == 1:
        return items[0]
    return Markup("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")


def _flip_text(arm: str, flip: dict[str, Any]) -> str:
    """`against b (en-v1): raw 10.00% vs 12.00%, normalised 8.00% vs 7.00%` — the order
    of the two arms on the raw texts is the reverse of their order once normalised."""
    raw = flip.get("raw") or [None, None]
    norm = flip.get("normalized") or [None, None]
    return (
        f"{arm} vs {flip.get('with')} ({flip.get('normalizer')}): raw {pct(raw[0])} vs "
        f"{pct(raw[1])}, normalised {pct(norm[0])} vs {pct(norm[1])}"
    )
