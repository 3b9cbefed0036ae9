"""The demo's terminal table: per language WER/CER with CIs, speed, no-speech output."""

from __future__ import annotations

from typing import Any

from earmark.report.markdown import fmt_rate

ENGLISH_ONLY_NOTE = (
    "{arm} is an English-only model: the Mandarin and Irish rows show what such a model does "
    "to other languages (it answers in fluent English — insertions and substitutions, not "
    "a transcript), which is why earmark keeps insertion and no-speech diagnostics beside "
    "WER. To evaluate a multilingual model, run e.g.\n"
    "  earmark run --manifest <manifest.jsonl> --arm "
    "'faster-whisper:/path/to/whisper-small-ct2?compute_type=int8&beam_size=5' --out runs/small\n"
    "(Irish is not a Whisper language; use a CTC model for it — see `earmark engines`)."
)


def print_demo_table(results: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for name, arm in results["arms"].items():
        table = Table(title=f"earmark demo — {name} (micro rates, 95% clip-bootstrap CI)")
        for col in (
            "language",
            "normaliser",
            "N",
            "WER",
            "CER",
            "RTF",
            "p95 latency",
            "output on no-speech",
            "runaway / loops",
        ):
            table.add_column(col, overflow="fold")
        speed = arm.get("resources_by_language", {})
        for lang, block in arm["by_language"].items():
            view = block["views"][block["primary_view"]]
            lang_speed = speed.get(lang, {})
            rtf = lang_speed.get("real_time_factor")
            p95 = lang_speed.get("latency_p95_seconds")
            h = block["hallucination"]
            no_speech = (
                f"{h['no_speech_with_output']}/{h['no_speech_rows']}"
                if h["no_speech_rows"]
                else "—"
            )
            table.add_row(
                lang,
                block["normalizer"]["name"],
                str(block["n_utterances"]),
                fmt_rate(view.get("wer")) if view.get("wer") else "n/a (chars)",
                fmt_rate(view.get("cer")),
                f"{rtf:.3f}" if rtf is not None else "—",
                f"{p95:.2f} s" if p95 is not None else "—",
                no_speech,
                f"{h['runaway_outputs']} / {h['repetition_loops']}",
            )
        console.print(table)
        res = arm.get("resources") or {}
        if res:
            console.print(
                f"load {res.get('load_seconds', 0):.2f} s · overall RTF "
                f"{(res.get('real_time_factor') or 0):.3f} · p95 "
                f"{(res.get('latency_p95_seconds') or 0):.2f} s · peak RSS "
                f"{(res.get('peak_rss_bytes') or 0) / 2**20:.0f} MiB · CPU "
                f"{(res.get('cpu_seconds') or 0):.1f} s"
            )
        model = arm.get("model") or {}
        cpu = (model.get("extra") or {}).get("cpu_runtime") or {}
        if cpu:
            pinned = cpu.get("pinned") or {}
            console.print(
                f"decoded with CTranslate2 ISA {cpu.get('isa') or 'unknown'} "
                f"({'pinned' if pinned.get('CT2_FORCE_CPU_ISA') else 'chosen by the runtime'}), "
                f"SGEMM {cpu.get('sgemm_backend') or 'unknown'}, "
                f"{(arm.get('resources') or {}).get('threads') or '?'} thread(s); "
                + (
                    "deterministic (per-clip seeded sampling)"
                    if arm.get("deterministic")
                    else f"NOT deterministic: {arm.get('determinism_note')}"
                )
            )
        if arm.get("language_mismatches"):
            console.print(
                f"{arm['language_mismatches']} clip(s) were decoded in another language than "
                "requested (recorded as a deviation in provenance.json)."
            )
        if model.get("english_only"):
            console.print(ENGLISH_ONLY_NOTE.format(arm=name))
