"""A run plan: corpus, selection, arms, normaliser policy, repeats, seeds.

A plan can be written as TOML and frozen before any data is acquired (seed 001): `earmark
plan freeze PLAN.toml` records the SHA-256 of the file's bytes, and `earmark run --plan
PLAN.toml --expect-sha256 H` refuses a plan whose bytes changed. Freezing reads the plan
only (no manifest, sidecar or audio yet), and a `[postprocess]` table freezes a
post-processor's settings and prompt (`earmark.postprocess.plan`; `earmark postprocess
--plan PLAN.toml --expect-sha256 H`). Paths in a plan file are relative to the plan's folder.

```toml
manifest = "corpus/manifest.jsonl"
audio_root = "corpus"            # default: the manifest's folder
normalizer = "auto"              # or a name, or "zh=zh-eval-v1,*=crude-v1"
# protocol = "blasbench-v1"      # a published protocol: fixes normalizer, bootstrap, seed
repeats = 1
bootstrap = 10000
seed = 20260926                  # bootstrap, and every clip's sampler (with the clip id)
threads = 1                      # every arm, local or on Ray (results depend on it)
# cpu_isa = "AVX2"               # pin the CPU code path (CTranslate2, oneDNN, OpenBLAS)
# cluster = "speaker"           # bootstrap unit (default "clip")
# min_per_slice = 50             # thinner language/slice/speaker blocks report null figures
# min_speakers = 10              # so do language/slice blocks with fewer speakers

[selection]                      # optional
languages = ["zh"]
first = 8
distinct_texts = true

[[arms]]
backend = "faster-whisper"
model = "bundled:tiny.en"
settings = { compute_type = "int8", beam_size = 5 }

[ceilings]                       # optional, pre-registered: the most error a system may
cer = { zh = 0.10 }              # have and still be chosen (`earmark decide` rejects a
wer = { en = 0.15, "en/noisy" = 0.25 }  # challenger above it); LANG or LANG/SLICE
```
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_text
from earmark.rundir.plan_file import file_sha256, read_plan_toml
from earmark.stats.settings import (
    DEFAULT_GENERATOR,
    DEFAULT_SEED,
    UNNAMED_GENERATOR,
    BootstrapSettings,
)

if TYPE_CHECKING:
    from earmark.corpus.model import Utterance
    from earmark.corpus.selection import SelectionRecord
    from earmark.scoring.options import ScoringOptions

CPU_ISAS = ("GENERIC", "AVX", "AVX2", "AVX512")
SELECTION_KEYS = {"languages", "slices", "fraction", "seed", "first", "distinct_texts"}
AUDIO_KEYS = {"min_seconds", "max_seconds", "max_bytes"}
#: Error rates a plan may cap (`[ceilings]`), each in the language's primary view.
CEILING_METRICS = ("cer", "wer")


def check_ceilings(ceilings: Any) -> dict[str, dict[str, float]]:
    """Validate `[ceilings]` and return it canonical (sorted, floats).

    `{metric: {scope: rate}}` with metric `cer` or `wer` and scope a language (`zh`) or
    a language's slice (`zh/noisy`): frozen with the plan, so the bar a challenger must
    stay under is set before anyone sees its figures (seed 000's pre-registered threshold).
    """
    if not isinstance(ceilings, dict):
        raise EarmarkError(
            "must be a table", field="ceilings", hint="[ceilings] cer = { zh = 0.1 }"
        )
    out: dict[str, dict[str, float]] = {}
    for metric, table in ceilings.items():
        where = f"ceilings.{metric}"
        if metric not in CEILING_METRICS:
            raise EarmarkError(
                f"unknown ceiling metric {metric!r}",
                field=where,
                hint="one of " + ", ".join(CEILING_METRICS),
            )
        if not isinstance(table, dict) or not table:
            raise EarmarkError(
                "must be a non-empty table of LANG or LANG/SLICE = rate",
                field=where,
                hint=f'{metric} = {{ zh = 0.1, "zh/noisy" = 0.2 }}',
            )
        canonical: dict[str, float] = {}
        for scope, value in table.items():
            language, _, slice_name = str(scope).partition("/")
            if not language.strip() or ("/" in str(scope) and not slice_name.strip()):
                raise EarmarkError(
                    f"bad scope {scope!r}", field=f"{where}.{scope}", hint="LANG or LANG/SLICE"
                )
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise EarmarkError(
                    f"ceiling must be a number, not {value!r}",
                    field=f"{where}.{scope}",
                    hint="a rate: 0.1 is 10%",
                )
            if not math.isfinite(value) or value < 0:
                raise EarmarkError(
                    f"ceiling must be a finite rate >= 0, not {value!r}",
                    field=f"{where}.{scope}",
                    hint="a rate: 0.1 is 10%",
                )
            canonical[str(scope)] = float(value)
        out[metric] = dict(sorted(canonical.items()))
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class RunPlan:
    manifest: str
    audio_root: str
    arms: tuple[ArmSpec, ...]
    normalizer: str = "auto"
    repeats: int = 1
    bootstrap: int = 10_000
    seed: int = DEFAULT_SEED
    selection: dict[str, Any] = field(default_factory=dict)
    audio: dict[str, Any] = field(default_factory=dict)
    allow_network: bool = False
    batch_size: int = 1
    #: Intra-op threads of every arm, wherever it runs (local process or Ray actor): part of
    #: the plan because results depend on it. An arm's own thread setting overrides it.
    threads: int = 1
    #: Pin the CPU code path (CTranslate2 ISA, oneDNN cap, MKL off): "AVX2", "AVX512",
    #: "AVX", "GENERIC"; None lets each runtime choose (recorded either way).
    cpu_isa: str | None = None
    #: A published protocol (`earmark.scoring.protocols`); normalizer, bootstrap and seed
    #: must then be the protocol's, and it also fixes aggregation and the CI generator.
    protocol: str | None = None
    #: Pre-registered error-rate ceilings `{metric: {LANG or LANG/SLICE: rate}}`
    #: (`check_ceilings`); `earmark decide` rejects a challenger above one.
    ceilings: dict[str, dict[str, float]] = field(default_factory=dict)
    #: The bootstrap unit ("clip" or "speaker") and the pre-registered per-slice minimum
    #: rows and speakers (`earmark.scoring.options.ScoringOptions`): frozen with the plan.
    cluster: str = "clip"
    min_per_slice: int | None = None
    min_speakers: int | None = None

    def __post_init__(self) -> None:
        if not self.arms:
            raise EarmarkError("a run needs at least one arm", field="arms")
        names = [a.name for a in self.arms]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise EarmarkError(
                f"arm names must be unique: {', '.join(dupes)}",
                field="arms",
                hint="give each arm a distinct name=... setting",
            )
        if self.repeats < 1:
            raise EarmarkError("repeats must be at least 1", field="repeats")
        if self.batch_size < 1:
            raise EarmarkError("batch_size must be at least 1", field="batch_size")
        if self.threads < 1:
            raise EarmarkError("threads must be at least 1", field="threads")
        if self.cpu_isa is not None and self.cpu_isa.upper() not in CPU_ISAS:
            raise EarmarkError(
                f"unknown cpu_isa {self.cpu_isa!r}",
                field="cpu_isa",
                hint="one of " + ", ".join(CPU_ISAS),
            )
        unknown = set(self.selection) - SELECTION_KEYS
        if unknown:
            raise EarmarkError(f"unknown selection key(s) {sorted(unknown)}", field="selection")
        object.__setattr__(self, "ceilings", check_ceilings(self.ceilings))
        unknown = set(self.audio) - AUDIO_KEYS
        if unknown:
            raise EarmarkError(f"unknown audio key(s) {sorted(unknown)}", field="audio")
        if self.protocol is not None:  # first: its message names the contradicting key
            from earmark.scoring.protocols import resolve

            resolve(
                self.protocol,
                normalizer=self.normalizer,
                resamples=self.bootstrap,
                seed=self.seed,
                flags={"normalizer": "normalizer", "resamples": "bootstrap", "seed": "seed"},
            )
        self.scoring_options()  # cluster and minimums checked now, not after decoding

    def scoring_options(self) -> ScoringOptions:
        """How the run's rows are scored: the plan's normaliser policy, bootstrap and seed,
        and with a protocol its aggregation and CI generator too."""
        from earmark.scoring.options import ScoringOptions
        from earmark.scoring.policy import NormalizerPolicy
        from earmark.scoring.protocols import get_protocol

        protocol = get_protocol(self.protocol) if self.protocol is not None else None
        return ScoringOptions(
            policy=NormalizerPolicy.parse(self.normalizer),
            aggregate=protocol.aggregate if protocol is not None else "micro",
            bootstrap=BootstrapSettings(
                resamples=self.bootstrap,
                seed=self.seed,
                # A protocol's figures are drawn as published (`ScoringChoice.generator`).
                generator=DEFAULT_GENERATOR if protocol is None else UNNAMED_GENERATOR,
            ),
            protocol=protocol,
            cluster=self.cluster,  # type: ignore[arg-type]  # checked by ScoringOptions
            min_per_slice=self.min_per_slice,
            min_speakers=self.min_speakers,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "manifest": self.manifest,
            "audio_root": self.audio_root,
            "arms": [a.to_dict() for a in self.arms],
            "normalizer": self.normalizer,
            "repeats": self.repeats,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "selection": dict(sorted(self.selection.items())),
            "audio": dict(sorted(self.audio.items())),
            "allow_network": self.allow_network,
            "batch_size": self.batch_size,
            # Only when set, so plans without one keep the hash they always had.
            **({"protocol": self.protocol} if self.protocol is not None else {}),
            # Absent means 1 thread and no pinned ISA (the defaults), for the same reason.
            **({"threads": self.threads} if self.threads != 1 else {}),
            **({"cpu_isa": self.cpu_isa.upper()} if self.cpu_isa else {}),
            **({"ceilings": self.ceilings} if self.ceilings else {}),
            **({"cluster": self.cluster} if self.cluster != "clip" else {}),
            **({"min_per_slice": self.min_per_slice} if self.min_per_slice is not None else {}),
            **({"min_speakers": self.min_speakers} if self.min_speakers is not None else {}),
        }

    def sha256(self) -> str:
        """Hash of the canonical plan (what it asks for, independent of file formatting)."""
        text = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def plan_from_dict(data: Mapping[str, Any]) -> RunPlan:
    """The plan as `RunPlan.to_dict` wrote it (plan.json, a spawned arm's argument)."""
    return RunPlan(
        manifest=data["manifest"],
        audio_root=data["audio_root"],
        arms=tuple(ArmSpec.from_mapping(a) for a in data["arms"]),
        normalizer=data["normalizer"],
        repeats=data["repeats"],
        bootstrap=data["bootstrap"],
        seed=data["seed"],
        selection=data["selection"],
        audio=data["audio"],
        allow_network=data["allow_network"],
        batch_size=data["batch_size"],
        threads=data.get("threads", 1),
        cpu_isa=data.get("cpu_isa"),
        protocol=data.get("protocol"),
        ceilings=data.get("ceilings", {}),
        cluster=data.get("cluster", "clip"),
        min_per_slice=data.get("min_per_slice"),
        min_speakers=data.get("min_speakers"),
    )


def selected_utterances(plan: RunPlan) -> tuple[list[Utterance], SelectionRecord]:
    """Read the manifest and apply the plan's selection (deterministic: every arm and
    every process computes the same list)."""
    from earmark.corpus.manifest import read_manifest
    from earmark.corpus.selection import select

    sel = dict(plan.selection)
    return select(
        read_manifest(plan.manifest),
        languages=sel.get("languages"),
        slices=sel.get("slices"),
        fraction=sel.get("fraction"),
        seed=sel.get("seed"),
        distinct_texts=bool(sel.get("distinct_texts", False)),
        n=sel.get("first"),
    )


def default_audio_root(manifest: str | os.PathLike[str], given: str | None = None) -> Path:
    """The explicit root, else the sidecar's `extra.audio_root` (importers write it, relative
    to the manifest's folder), else the manifest's folder."""
    from earmark.corpus.manifest import read_meta

    if given:
        return Path(given).resolve()
    recorded = read_meta(manifest).extra.get("audio_root")
    if isinstance(recorded, str) and recorded:
        return (Path(manifest).parent / recorded).resolve()
    return Path(manifest).parent


def load_plan(path: str | os.PathLike[str], *, resolve_data: bool = True) -> RunPlan:
    """Read a TOML plan; every problem names the file and the key.

    `resolve_data=False` checks the structure only (what `plan freeze` needs before any
    data exists): no manifest, sidecar or audio root is read, and the audio root is the
    plan's own `audio_root` or the manifest's folder, unresolved against the sidecar."""
    p = Path(path)
    data = read_plan_toml(p)
    base = p.resolve().parent
    if "postprocess" in data:
        from earmark.postprocess.plan import PostprocessPlan

        PostprocessPlan.from_table(data["postprocess"], base=base, file=str(p))
    if "manifest" not in data:
        raise EarmarkError("missing key", file=str(p), field="manifest")
    manifest = (base / str(data["manifest"])).resolve()
    audio_root = (base / str(data["audio_root"])).resolve() if "audio_root" in data else None
    arms_data = data.get("arms")
    if not isinstance(arms_data, list) or not arms_data:
        raise EarmarkError("a plan needs at least one [[arms]] table", file=str(p), field="arms")
    arms = tuple(ArmSpec.from_mapping(a, file=str(p)) for a in arms_data)
    try:
        protocol = str(data["protocol"]) if "protocol" in data else None
        defaults: dict[str, Any] = {"normalizer": "auto", "bootstrap": 10_000, "seed": DEFAULT_SEED}
        if protocol is not None:
            # A plan naming a protocol takes its settings; keys it also gives must agree.
            from earmark.scoring.protocols import get_protocol

            fixed = get_protocol(protocol)
            defaults = {
                "normalizer": fixed.normalizer,
                "bootstrap": fixed.resamples,
                "seed": fixed.seed,
            }
        return RunPlan(
            manifest=str(manifest),
            audio_root=str(
                audio_root or (default_audio_root(manifest) if resolve_data else manifest.parent)
            ),
            arms=arms,
            normalizer=str(data.get("normalizer", defaults["normalizer"])),
            repeats=int(data.get("repeats", 1)),
            bootstrap=int(data.get("bootstrap", defaults["bootstrap"])),
            seed=int(data.get("seed", defaults["seed"])),
            selection=dict(data.get("selection", {})),
            audio=dict(data.get("audio", {})),
            allow_network=bool(data.get("allow_network", False)),
            batch_size=int(data.get("batch_size", 1)),
            protocol=protocol,
            threads=int(data.get("threads", 1)),
            cpu_isa=str(data["cpu_isa"]) if data.get("cpu_isa") else None,
            ceilings=data.get("ceilings", {}),
            cluster=str(data.get("cluster", "clip")),
            min_per_slice=int(data["min_per_slice"]) if "min_per_slice" in data else None,
            min_speakers=int(data["min_speakers"]) if "min_speakers" in data else None,
        )
    except EarmarkError as exc:
        # An error about a file the plan names (its manifest, the sidecar) keeps that file.
        if exc.file is None:
            exc.file = str(p)
        raise
    except (TypeError, ValueError) as exc:
        raise EarmarkError(f"bad value: {exc}", file=str(p)) from None


@dataclass(frozen=True)
class FrozenPlan:
    """What `plan freeze` did: the plan's SHA-256, the record it wrote, and the prompt's
    SHA-256 when it recorded one in the plan."""

    sha256: str
    record: Path
    prompt_sha256_added: str | None = None


def freeze_plan(path: str | os.PathLike[str]) -> FrozenPlan:
    """Check the plan's structure (no data needed), then write `<plan>.sha256` beside it.

    Before any data is acquired: no manifest, sidecar or audio root is read. A plan may be
    a run (manifest and arms), a `[postprocess]` table, or both. A `[postprocess]`
    prompt file whose SHA-256 the plan does not give yet is hashed now and the hash is
    written into the plan's table, so the plan's own SHA-256 covers the prompt. The
    record is in `sha256sum` format: the plan's line, then the prompt file's."""
    p = Path(path)
    data = read_plan_toml(p)
    if "manifest" in data or "arms" in data or "postprocess" not in data:
        from earmark.engines.model_source import refuse_moving_refs

        # A moving hub ref (revision=main) would make the frozen plan mean whatever the
        # branch holds on the day it runs: refused, with the commit to record.
        refuse_moving_refs(load_plan(p, resolve_data=False).arms, look_up=True, file=str(p))
    from earmark.postprocess.plan import plan_postprocess, record_prompt_sha256

    added = None
    lines = []
    if "postprocess" in data:
        post = plan_postprocess(p)
        if post.prompt_path is not None:
            prompt = Path(post.prompt_path)
            if not prompt.is_file():
                if post.prompt_sha256 is None:
                    raise EarmarkError(
                        "the prompt file does not exist yet, and the plan gives no prompt_sha256",
                        file=str(prompt),
                        field="postprocess.prompt_file",
                        hint="write the prompt before freezing, or give its prompt_sha256",
                    )
            else:
                digest = file_sha256(prompt)
                if post.prompt_sha256 is None:
                    text = p.read_bytes().decode("utf-8")
                    atomic_write_text(p, record_prompt_sha256(text, digest, str(post.prompt_file)))
                    added = digest
                    plan_postprocess(p)  # the edited plan still reads
                elif post.prompt_sha256 != digest:
                    raise EarmarkError(
                        f"the prompt file's SHA-256 {digest} is not the plan's prompt_sha256 "
                        f"{post.prompt_sha256}",
                        file=str(p),
                        field="postprocess.prompt_sha256",
                        hint="freeze the prompt you mean to use",
                    )
                lines.append(f"{digest}  {post.prompt_file}\n")
    digest = file_sha256(p)
    out = Path(f"{os.fspath(p)}.sha256")
    atomic_write_text(out, f"{digest}  {p.name}\n" + "".join(lines))
    return FrozenPlan(digest, out, added)
