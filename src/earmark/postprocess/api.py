"""What `earmark postprocess` does, callable from Python (the CLI is a thin mirror)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from earmark import __version__
from earmark.errors import EarmarkError
from earmark.metrics.punctuation import run_punctuation_probes
from earmark.outputs import refuse_own_input
from earmark.postprocess.evaluate import run_processor, summarise
from earmark.postprocess.files import (
    delivered_rows,
    predictions_path,
    read_sources,
    write_outputs,
)
from earmark.postprocess.guard import LexicalGuard
from earmark.postprocess.markdown import render_postprocess_markdown
from earmark.postprocess.openai_chat import ChatProcessor, ModelDigest, served_identity
from earmark.postprocess.processors import build_processor
from earmark.postprocess.protocol import Processor
from earmark.postprocess.report import PostprocessReport
from earmark.results.codec import JSONObject, JSONValue
from earmark.rundir.layout import POSTPROCESS, POSTPROCESS_MARKDOWN, PREDICTIONS
from earmark.scoring.probes import refuse_failed_punctuation_probes
from earmark.stats.settings import (
    DEFAULT_GENERATOR,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    BootstrapSettings,
)


@dataclass(frozen=True)
class PostprocessOptions:
    """What `earmark postprocess` runs: a run's (or `earmark score` output's) transcripts
    through `processor` `repeats` times (default 3), guarded by the lexical guard, with
    the clip bootstrap's settings, writing to `out` when given.

    With `plan`, the processor, repeats, prompt and guard options come from the plan's
    `[postprocess]` table (and bootstrap and seed from the plan, when it gives them); a
    setting also given here must agree. `expect_sha256` refuses a plan whose bytes
    changed since `earmark plan freeze`, and a prompt file whose SHA-256 is not the
    frozen one is refused either way."""

    run: str | os.PathLike[str]
    processor: str | None = None
    repeats: int | None = None
    out: str | os.PathLike[str] | None = None
    arm: str | None = None
    allow_substitutions: tuple[str, ...] = ()
    guard_marks: str = ""
    resamples: int | None = None
    seed: int | None = None
    level: float = DEFAULT_LEVEL
    #: The bootstrap's generator (`earmark.stats.settings.GENERATORS`), recorded; a plan
    #: does not fix it.
    generator: str = DEFAULT_GENERATOR
    plan: str | os.PathLike[str] | None = None
    expect_sha256: str | None = None

    def __post_init__(self) -> None:
        # A list given from Python is kept as a tuple: the options stay frozen.
        object.__setattr__(self, "allow_substitutions", tuple(self.allow_substitutions))


@dataclass(frozen=True)
class _Settings:
    """The settings the evaluation runs with, after the plan (if any) decided them."""

    processor: str
    repeats: int
    allow_substitutions: tuple[str, ...]
    guard_marks: str
    bootstrap: BootstrapSettings
    prompt_file: str | None = None
    #: The frozen plan's record in postprocess.json; None without a plan.
    plan: _PlanRecord | None = None


@dataclass(frozen=True)
class _PlanRecord:
    file: str
    sha256: str
    expected_sha256: str | None
    postprocess: JSONObject
    prompt: JSONObject
    #: The frozen prompt's SHA-256 an `openai-chat` processor must be built with.
    prompt_sha256: str | None

    def to_json(self, prompt_checked: bool) -> JSONObject:
        prompt = {**self.prompt, "status": "checked"} if prompt_checked else self.prompt
        return {
            "file": self.file,
            "sha256": self.sha256,
            "expected_sha256": self.expected_sha256,
            "frozen": self.expected_sha256 is not None,
            "postprocess": dict(self.postprocess),
            "prompt": dict(prompt),
        }


def postprocess_transcripts(
    options: PostprocessOptions, *, progress: Callable[[int, int], None] | None = None
) -> PostprocessReport:
    """Post-process a run's transcripts, evaluate, and (with `options.out`) write
    postprocess.json, postprocess.md, a delivered predictions.jsonl and artefacts.sha256.

    Everything is validated (plan, processor spec, guard options, input rows) before the
    first processor call; the report is returned whether or not files are written."""
    settings = _settings(options)
    # First: a broken instrument must not cost a single processor call, nor write a file.
    probes = run_punctuation_probes()
    refuse_failed_punctuation_probes(probes, "earmark postprocess")
    built = build_processor(settings.processor, prompt_file=settings.prompt_file)
    prompt_checked = settings.plan is not None and _check_built_prompt(built, settings.plan)
    guard = (
        LexicalGuard.from_options(settings.allow_substitutions, settings.guard_marks)
        if built.guarded
        else None
    )
    if options.out is not None:
        written = (PREDICTIONS, POSTPROCESS, POSTPROCESS_MARKDOWN)
        refuse_own_input(options.out, (predictions_path(options.run),), written, "postprocess")
    sources, source_info = read_sources(options.run, arm=options.arm)
    repeats = settings.repeats
    digest: ModelDigest | None = None
    try:
        records = run_processor(sources, built, repeats=repeats, guard=guard, progress=progress)
        if isinstance(built, ChatProcessor):  # after the last call: what served them
            digest = built.model_digest()
    finally:
        built.close()
    summary = summarise(
        sources, records, repeats=repeats, guard=guard, bootstrap=settings.bootstrap
    )
    described = built.describe()
    served: JSONObject | None = None
    if built.kind == "openai-chat":
        served = served_identity(str(described["model"]), [r.detail for r in records], digest)
        if not served["consistent"]:
            warning = (
                "the server reported more than one model or system fingerprint during the "
                f"evaluation: {served['reported_models']} {served['system_fingerprints']}"
            )
            summary = replace(summary, warnings=(*summary.warnings, warning))
    report = PostprocessReport(
        earmark_version=__version__,
        created=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        source=source_info,
        processor_spec=settings.processor,
        processor=described,
        plan=None if settings.plan is None else settings.plan.to_json(prompt_checked),
        served_model=served,
        guard=None if guard is None else guard.to_dict(),
        summary=summary,
        punctuation_probes=tuple(p.as_dict() for p in probes),  # type: ignore[misc]
        sources=tuple(sources),
        outputs=tuple(records),
    )
    if options.out is not None:
        delivered = delivered_rows(
            sources,
            records,
            repeats=repeats,
            processor_kind=built.kind,
            source_arm=source_info.arm,
        )
        write_outputs(options.out, report, delivered, render_postprocess_markdown(report))
    return report


def _settings(options: PostprocessOptions) -> _Settings:
    """The processor, repeats, guard and bootstrap settings: the plan's, or the options'."""
    if options.plan is not None:
        return _plan_settings(options)
    if options.expect_sha256 is not None:
        raise EarmarkError("--expect-sha256 needs --plan", field="expect-sha256")
    if options.processor is None:
        raise EarmarkError(
            "no processor", field="processor", hint="give --processor SPEC, or --plan PLAN.toml"
        )
    return _Settings(
        processor=options.processor,
        repeats=3 if options.repeats is None else options.repeats,
        allow_substitutions=tuple(options.allow_substitutions),
        guard_marks=options.guard_marks,
        bootstrap=BootstrapSettings(
            resamples=DEFAULT_RESAMPLES if options.resamples is None else options.resamples,
            seed=DEFAULT_SEED if options.seed is None else options.seed,
            level=options.level,
            generator=options.generator,
        ),
    )


def _plan_settings(options: PostprocessOptions) -> _Settings:
    """The frozen plan's settings, each given setting checked against them, and the
    record of the plan that postprocess.json keeps."""
    from earmark.postprocess.plan import plan_postprocess
    from earmark.rundir.plan_file import check_frozen, file_sha256, read_plan_toml

    assert options.plan is not None
    path = os.fspath(options.plan)
    expect = options.expect_sha256
    digest = check_frozen(path, expect) if expect else file_sha256(path)
    frozen = plan_postprocess(path)
    top = read_plan_toml(path)

    def agree(flag: str, given: JSONValue, planned: JSONValue, unset: JSONValue = None) -> None:
        if given != unset and given != planned:
            raise EarmarkError(
                f"--{flag} {given!r} differs from the frozen plan's {planned!r}",
                file=path,
                field=flag,
                hint="with --plan, the plan decides; leave the option out",
            )

    resamples = int(top.get("bootstrap", DEFAULT_RESAMPLES))
    seed = int(top.get("seed", DEFAULT_SEED))
    agree("processor", options.processor, frozen.processor)
    agree("repeats", options.repeats, frozen.repeats)
    agree(
        "allow-substitution",
        list(options.allow_substitutions),
        list(frozen.allow_substitutions),
        [],
    )
    agree("guard-marks", options.guard_marks, frozen.guard_marks, "")
    agree("bootstrap", options.resamples, resamples)
    agree("seed", options.seed, seed)
    record = _PlanRecord(
        file=path,
        sha256=digest,
        expected_sha256=expect.strip().lower() if expect else None,
        postprocess=frozen.to_dict(),
        prompt=frozen.check_prompt(),
        prompt_sha256=frozen.prompt_sha256,
    )
    return _Settings(
        processor=frozen.processor,
        repeats=frozen.repeats,
        allow_substitutions=tuple(frozen.allow_substitutions),
        guard_marks=frozen.guard_marks,
        bootstrap=BootstrapSettings(
            resamples=resamples, seed=seed, level=options.level, generator=options.generator
        ),
        prompt_file=frozen.prompt_path,
        plan=record,
    )


def _check_built_prompt(built: Processor, record: _PlanRecord) -> bool:
    """An `openai-chat` processor's template is the frozen prompt (a file, or the
    built-in prompt when the plan names no file); True when it was checked."""
    frozen = record.prompt_sha256
    if built.kind != "openai-chat" or frozen is None:
        return False
    actual = getattr(built, "prompt_sha256", None)
    if actual != frozen:
        raise EarmarkError(
            f"the prompt in use has sha256 {actual}, not the frozen {frozen}",
            file=record.file,
            field="postprocess.prompt_sha256",
            hint="a frozen prompt must not change; freeze a new plan and record the deviation",
        )
    return True
