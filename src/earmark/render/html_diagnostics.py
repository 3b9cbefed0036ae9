"""The diagnostics section: hallucination counts per language, examples of output on
no-speech clips and of language mismatches, the run's flags and compare.json's."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from earmark.language_tags import base_language
from earmark.render.html_examples import examples_table, transcript
from earmark.render.html_inputs import ReportInputs
from earmark.render.html_page import Markup, esc, html_table, num, pct, section


def render_diagnostics(page: ReportInputs, examples: int = 10) -> str:
    rows: list[list[object]] = []
    mismatch_examples: list[dict[str, Any]] = []
    no_speech_examples: list[dict[str, Any]] = []
    for arm_name, arm in page.results.arms.items():
        arm_rows = page.arm_rows(arm_name)
        for lang, block in arm.by_language.items():
            h = block.hallucination
            lang_rows = [r for r in arm_rows if base_language(r.get("language")) == lang]
            mismatches = [r for r in lang_rows if r.get("language_mismatch")]
            mismatch_examples += mismatches
            for r in lang_rows:
                view = (r.get("views") or {}).get(block.primary_view) or {}
                if view.get("reference") == "" and view.get("hypothesis"):
                    no_speech_examples.append(r)
            rate = h.no_speech_output_rate
            rows.append(
                [
                    arm_name,
                    lang,
                    num(
                        f"{h.no_speech_with_output}/{h.no_speech_rows}"
                        + (f" ({100 * rate:.0f}%)" if rate is not None else "")
                    ),
                    num(str(h.empty_outputs)),
                    num(str(h.repetition_loops)),
                    num(str(h.runaway_outputs)),
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
    flagged: Mapping[str, Any] = page.results.diagnostics or {}
    if flagged:
        body.append("<h3>Flags</h3>")
        body.append(html_table(["arm", "diagnostic", "status", "why"], _flag_rows(flagged)))
    extra = (page.run.compare or {}).get("diagnostics") or {}
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


def _flag_rows(flagged: Mapping[str, Any]) -> list[list[object]]:
    """One row per arm and harness check of results.json's `diagnostics`, with the
    reasons each normaliser gave, and a row when the normaliser flips a ranking."""
    rows: list[list[object]] = []
    for name, diag in flagged.items():
        for kind in ("insertion", "truncation", "script_mismatch", "empty_outputs"):
            check = diag.get(kind) or {}
            reasons: list[str] = []
            for sub in (check.get("by_normalizer") or {}).values():
                reasons += sub.get("reasons") or []
            reasons += check.get("reasons") or []
            rows.append(
                [name, kind.replace("_", " "), _flag_badge(check.get("flagged")), _list(reasons)]
            )
        flips = diag.get("normalizer_ranking_flip") or {}
        if flips.get("flagged"):
            rows.append(
                [
                    name,
                    "normaliser changes ranking",
                    _flag_badge(True),
                    _list([_flip_text(name, f) for f in flips.get("flips") or []]),
                ]
            )
    return rows


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
