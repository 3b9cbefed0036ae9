"""`earmark.import_corpus`, `earmark.fetch` and `earmark.demo`: corpora onto disk, and the
bundled demo run."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_choice, check_count, check_out
from earmark.errors import EarmarkError

if TYPE_CHECKING:
    from earmark.corpus.fetch.fleurs import FetchReport
    from earmark.corpus.sources.report import ImportReport
    from earmark.results import Results

#: `earmark import`'s corpus layouts.
SOURCES = ("fleurs", "common-voice", "kaldi", "nemo", "lhotse", "hf-datasets")
#: faster-whisper's own decoding (beam 5, temperature fallback, seeded per clip) in float32:
#: on one machine int8 decoded a clip into a loop under one CPU code path and correctly under
#: another, while float32 gave byte-identical hypotheses under GENERIC, AVX, AVX2 and AVX512.
DEMO_ARM = "faster-whisper:bundled:tiny.en?compute_type=float32&beam_size=5&name=tiny.en"
#: The CPU code path the README's table was produced with; pinned whenever the CPU has it.
DEMO_CPU_ISA = "AVX2"


def import_corpus(
    source: str,
    path: PathArg,
    *,
    out: PathArg,
    language: str | None = None,
    split: str | None = None,
    licence: str | None = None,
    consent: str | None = None,
    config: str | None = None,
    locale: str | None = None,
    revision: str | None = None,
    dataset: str | None = None,
    audio_root: PathArg | None = None,
    audio_dir: PathArg | None = None,
    relative_to: PathArg | None = None,
    recordings: PathArg | None = None,
    no_hash: bool = False,
    text_column: str | None = None,
) -> ImportReport:
    """`earmark import SOURCE PATH --out MANIFEST`: a corpus layout on disk as a manifest
    and its sidecar, every row checked against the manifest reader's rules (an import
    that keeps no row raises). A keyword the layout does not take is refused."""
    from earmark.corpus.sources import IMPORTERS

    check_out(out)
    check_out(audio_dir, "audio-dir")
    check_choice("source", source, SOURCES)
    importer = IMPORTERS[source]
    given = {
        "language": language,
        "split": split,
        "licence": licence,
        "consent_basis": consent,
        "config": config,
        "locale": locale,
        "revision": revision,
        "dataset": dataset,
        "audio_root": audio_root,
        "audio_dir": audio_dir,
        "relative_to": relative_to,
        "recordings": recordings,
        "text_column": text_column,
    }
    keywords = _accepted(importer, source, {k: v for k, v in given.items() if v is not None})
    if no_hash:
        keywords.update(_accepted(importer, source, {"hash_audio": False}))
    return importer(path, out, **keywords)


def _accepted(
    importer: Callable[..., ImportReport], source: str, keywords: dict[str, object]
) -> dict[str, object]:
    """`keywords`, refused with the flag's name when the importer does not take one."""
    flags = {"consent_basis": "consent", "hash_audio": "no_hash"}
    accepted = inspect.signature(importer).parameters
    for keyword in keywords:
        if keyword not in accepted:
            option = flags.get(keyword, keyword)
            flag = "--" + option.replace("_", "-")
            if keyword == "hash_audio":
                raise EarmarkError(f"{flag} does not apply to source {source!r}")
            raise EarmarkError(f"{flag} does not apply to source {source!r}", field=option)
    return keywords


def fetch(
    corpus: str,
    *,
    languages: str,
    per_language: int,
    out: PathArg,
    split: str = "test",
    layout: str = "parquet",
    revision: str | None = None,
    base_url: str | None = None,
    distinct_text_ids: bool = False,
    max_shard_bytes: int | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> FetchReport:
    """`earmark fetch fleurs --languages L,... --per-language N --out DIR`: the first N
    clips per language, resumably (finished languages are not downloaded again); the
    only verb that downloads anything. `on_progress` receives one line per step."""
    from earmark.corpus.fetch.fleurs import (
        DEFAULT_BASE_URL,
        DEFAULT_MAX_SHARD_BYTES,
        fetch_fleurs,
    )

    check_choice("corpus", corpus, ("fleurs",))
    check_choice("layout", layout, ("parquet", "tsv-tar"))
    check_count("per_language", per_language, 1)
    check_count("max_shard_bytes", max_shard_bytes, 1)
    check_out(out)
    return fetch_fleurs(
        languages.split(","),
        per_language,
        out,
        base_url=base_url or DEFAULT_BASE_URL,
        revision=revision,
        split=split,
        keep_distinct_text_ids=distinct_text_ids,
        layout=layout,
        on_progress=on_progress,
        max_shard_bytes=max_shard_bytes or DEFAULT_MAX_SHARD_BYTES,
    )


def demo_isa(cpu_isa: str) -> str | None:
    """The CPU code path the demo pins: `cpu_isa` when this CPU has it, else None (the
    runtime chooses; `auto` asks for that)."""
    from earmark.engines.cpu_runtime import cpu_flags, supports_isa

    isa = None if cpu_isa.lower() == "auto" else cpu_isa.upper()
    return isa if isa is not None and supports_isa(isa, cpu_flags()) else None


def demo(
    *,
    out: PathArg = "earmark-demo",
    arm: str = DEMO_ARM,
    bootstrap: int = 10_000,
    cpu_isa: str = DEMO_CPU_ISA,
    quiet: bool = False,
) -> Results:
    """`earmark demo`: the bundled Whisper tiny.en over the bundled demo corpus (English,
    Mandarin, Irish, no speech), offline, into the run folder `out`; the typed results.
    On a CPU without `cpu_isa` the runtime picks its own code path (see `demo_isa`)."""
    from earmark.corpus.demo import demo_audio_root, demo_manifest_path
    from earmark.engines.spec import parse_arm_spec
    from earmark.execution.options import RunOptions
    from earmark.execution.plan import RunPlan
    from earmark.execution.runner import run_plan

    check_out(out)
    check_count("bootstrap", bootstrap, 0)
    plan = RunPlan(
        manifest=str(demo_manifest_path()),
        audio_root=str(demo_audio_root()),
        arms=(parse_arm_spec(arm),),
        normalizer="auto",
        bootstrap=bootstrap,
        threads=1,
        cpu_isa=demo_isa(cpu_isa),
    )
    return run_plan(plan, os.fspath(out), RunOptions(quiet=quiet))
