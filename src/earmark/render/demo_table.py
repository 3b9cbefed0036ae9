"""The demo's terminal table: per language WER/CER with CIs, speed, no-speech output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from earmark.markdown_cells import md_table
from earmark.render.markdown import typed_results
from earmark.results import ArmResult, Results
from earmark.results.display import fmt_rate
from earmark.terminal_table import Column, print_fitted

ENGLISH_ONLY_NOTE = (
    "{arm} is an English-only model: the Mandarin and Irish rows show what such a model does "
    "to other languages (it answers in fluent English — insertions and substitutions, not "
    "a transcript), which is why earmark keeps insertion and no-speech diagnostics beside "
    "WER. To evaluate a multilingual model, run e.g.\n"
    "  earmark run --manifest <manifest.jsonl> --arm "
    "'faster-whisper:/path/to/whisper-small-ct2?compute_type=int8&beam_size=5' --out runs/small\n"
    "(Irish is not a Whisper language; use a CTC model for it — see `earmark engines`)."
)


#: The columns that are the same on every machine (the README's table, pinned by a test).
FIXED_COLUMNS = (
    "language",
    "normaliser",
    "N",
    "WER [95% CI]",
    "CER [95% CI]",
    "output on no-speech",
    "runaway / loops",
)
#: The columns that depend on the machine and its load.
SPEED_COLUMNS = ("RTF", "p95 latency")


def demo_rows(arm: ArmResult) -> list[dict[str, str]]:
    """One row per language: the fixed columns and the speed columns, as printed."""
    speed = arm.resources_by_language or {}
    rows = []
    for lang, block in arm.by_language.items():
        metrics = block.view().metrics
        lang_speed = speed.get(lang)
        rtf = lang_speed.real_time_factor if lang_speed is not None else None
        p95 = lang_speed.latency_p95_seconds if lang_speed is not None else None
        h = block.hallucination
        wer = metrics.get("wer")
        rows.append(
            {
                "language": lang,
                "normaliser": block.normalizer.name,
                "N": str(block.n_utterances),
                "WER [95% CI]": fmt_rate(wer) if wer is not None else "n/a (characters)",
                "CER [95% CI]": fmt_rate(metrics.get("cer")),
                "output on no-speech": f"{h.no_speech_with_output}/{h.no_speech_rows}"
                if h.no_speech_rows
                else "—",
                "runaway / loops": f"{h.runaway_outputs} / {h.repetition_loops}",
                "RTF": f"{rtf:.3f}" if rtf is not None else "—",
                "p95 latency": f"{p95:.2f} s" if p95 is not None else "—",
            }
        )
    return rows


def demo_markdown(results: Results | Mapping[str, Any]) -> str:
    """The machine-independent part of the demo's table as Markdown: what the README shows."""
    tables = [
        md_table(FIXED_COLUMNS, [[row[c] for c in FIXED_COLUMNS] for row in demo_rows(arm)])
        for arm in typed_results(results).arms.values()
    ]
    return "\n".join(tables)


#: How each column shrinks on a narrow terminal (speed first, then the loop counts).
TERMINAL_COLUMNS = {
    "language": Column("language", "lang"),
    "normaliser": Column("normaliser", "norm."),
    "N": Column("N", numeric=True),
    "WER [95% CI]": Column("WER [95% CI]", "WER", numeric=True),
    "CER [95% CI]": Column("CER [95% CI]", "CER", numeric=True),
    "RTF": Column("RTF", drop=2, numeric=True),
    "p95 latency": Column("p95 latency", "p95", drop=2, numeric=True, breaks=()),
    "output on no-speech": Column("output on no-speech", "no-speech\noutput", numeric=True),
    "runaway / loops": Column("runaway / loops", "runaway\n/ loops", drop=1, numeric=True),
}


def print_demo_table(results: Results | Mapping[str, Any], console: Any = None) -> None:
    """The demo's table fitted to the terminal (see `terminal.print_fitted`), then the
    arm's speed, code path, language and English-only notes."""
    from rich.console import Console

    console = console if console is not None else Console()
    for name, arm in typed_results(results).arms.items():
        names = FIXED_COLUMNS[:5] + SPEED_COLUMNS + FIXED_COLUMNS[5:]
        print_fitted(
            console,
            [TERMINAL_COLUMNS[c] for c in names],
            [[row[c] for c in names] for row in demo_rows(arm)],
            title=f"earmark demo — {name} (micro rates, 95% clip-bootstrap CI)",
        )
        for line in _arm_notes(name, arm):
            console.print(line)


def _arm_notes(name: str, arm: ArmResult) -> list[str]:
    """The lines under an arm's table: speed, CPU code path and determinism, language."""
    lines = []
    res = arm.resources
    if res is not None and res.to_dict():
        lines.append(
            f"load {res.load_seconds or 0:.2f} s · overall RTF "
            f"{(res.real_time_factor or 0):.3f} · p95 "
            f"{(res.latency_p95_seconds or 0):.2f} s · peak RSS "
            f"{(res.peak_rss_bytes or 0) / 2**20:.0f} MiB · CPU "
            f"{(res.cpu_seconds or 0):.1f} s"
        )
    model = arm.model
    cpu = (model.engine_extra or {}).get("cpu_runtime") if model is not None else None
    if isinstance(cpu, dict) and cpu:
        pinned = cpu.get("pinned")
        forced = isinstance(pinned, dict) and pinned.get("CT2_FORCE_CPU_ISA")
        threads = res.threads if res is not None else None
        lines.append(
            f"decoded with CTranslate2 ISA {cpu.get('isa') or 'unknown'} "
            f"({'pinned' if forced else 'chosen by the runtime'}), "
            f"SGEMM {cpu.get('sgemm_backend') or 'unknown'}, "
            f"{threads or '?'} thread(s); "
            + (
                "deterministic (per-clip seeded sampling)"
                if arm.deterministic
                else f"NOT deterministic: {arm.determinism_note}"
            )
        )
    if arm.language_mismatches:
        lines.append(
            f"{arm.language_mismatches} clip(s) were decoded in another language than "
            "requested (recorded as a deviation in provenance.json)."
        )
    if model is not None and model.english_only:
        lines.append(ENGLISH_ONLY_NOTE.format(arm=name))
    return lines
