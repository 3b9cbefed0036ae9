"""The demo's terminal table: per language WER/CER with CIs, speed, no-speech output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from earmark.markdown_cells import md_table
from earmark.render.markdown import typed_results
from earmark.results import ArmResult, Results
from earmark.results.display import fmt_rate
from earmark.terminal_table import Column, print_fitted

#: The English-only note, cut where the commands go: prose wraps at the terminal's width,
#: a command is printed on lines of its own (split only at a shell line continuation, so
#: that each line fits 80 columns and the whole copies and runs as one command).
ENGLISH_ONLY_NOTE = (
    "{arm} is an English-only model: the Mandarin and Irish rows show what such a model does "
    "to other languages (it answers in fluent English — insertions and substitutions, not "
    "a transcript), which is why earmark keeps insertion and no-speech diagnostics beside "
    "WER. To evaluate a multilingual model, run e.g.:"
)
MULTILINGUAL_COMMAND = (
    "  earmark run --manifest MANIFEST.jsonl --out runs/small \\",
    "    --arm 'faster-whisper:/path/to/whisper-small?compute_type=int8&beam_size=5'",
)
IRISH_NOTE = "Irish is not a Whisper language: use a CTC model for it. The engines are listed by:"
ENGINES_COMMAND = "  earmark engines"

#: What the table's less obvious cells mean: (the cell or column as shown, its meaning).
#: A line is shown only when its cell is in the table.
LEGEND = (
    (
        "n/a (characters)",
        "WER is not computed: the normaliser scores characters only (Mandarin is written "
        "without spaces between words); read CER",
    ),
    (
        "output on no-speech",
        "no-speech clips that got any output / no-speech clips (— where there are none)",
    ),
    (
        "runaway / loops",
        "outputs more than twice as long as the reference / outputs where one stretch "
        "of words or characters repeats 4 or more times back to back",
    ),
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


def legend(rows: list[dict[str, str]]) -> list[tuple[str, str]]:
    """The legend lines that apply to `rows` (a column's line always: the column is there)."""
    cells = {cell for row in rows for cell in row.values()}
    return [(term, meaning) for term, meaning in LEGEND if term in FIXED_COLUMNS or term in cells]


def demo_markdown(results: Results | Mapping[str, Any]) -> str:
    """The machine-independent part of the demo's table as Markdown, with its legend:
    what the README shows."""
    blocks = []
    for arm in typed_results(results).arms.values():
        rows = demo_rows(arm)
        table = md_table(FIXED_COLUMNS, [[row[c] for c in FIXED_COLUMNS] for row in rows])
        keys = "\n".join(f"- `{term}`: {meaning}" for term, meaning in legend(rows))
        blocks.append(f"{table}\n\n{keys}\n")
    return "\n".join(blocks)


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
    """The demo's table fitted to the terminal (see `terminal.print_fitted`), its legend,
    then the arm's speed, code path, language and English-only notes. Prose wraps at the
    terminal's width; a command is printed on its own line and never wrapped, so it
    copies whole."""
    from rich.console import Console
    from rich.text import Text

    console = console if console is not None else Console()
    for name, arm in typed_results(results).arms.items():
        names = FIXED_COLUMNS[:5] + SPEED_COLUMNS + FIXED_COLUMNS[5:]
        rows = demo_rows(arm)
        print_fitted(
            console,
            [TERMINAL_COLUMNS[c] for c in names],
            [[row[c] for c in names] for row in rows],
            title=f"earmark demo — {name} (micro rates, 95% clip-bootstrap CI)",
        )
        for term, meaning in legend(rows):
            console.print(Text(f"{term}: {meaning}"))
        console.print()
        for line in _arm_notes(arm):
            console.print(Text(line))
        if arm.model is not None and arm.model.english_only:
            console.print(Text(ENGLISH_ONLY_NOTE.format(arm=name)))
            for command_line in MULTILINGUAL_COMMAND:
                console.print(Text(command_line), soft_wrap=True)
            console.print(Text(IRISH_NOTE))
            console.print(Text(ENGINES_COMMAND), soft_wrap=True)


def _arm_notes(arm: ArmResult) -> list[str]:
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
    return lines
