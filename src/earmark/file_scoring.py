"""`earmark score` as a library call: read a predictions file, score it, and write the
folder when one is given.

What is read (`ScoreInputs`) and what is computed (`ScoreFigures`) are two option
objects; `earmark.api` maps the command's flags onto them and the CLI calls that verb,
so a script and the command give the same result.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from earmark.artefacts import write_artefacts
from earmark.collector import collector_paused
from earmark.errors import EarmarkError
from earmark.formats.fields import FieldNames
from earmark.formats.memory import MEMORY_FORMAT, MemoryRows
from earmark.formats.pairs import stream_pairs
from earmark.formats.rows import ScoringRow
from earmark.formats.stream import PairStream
from earmark.language_tags import NO_SINGLE_LANGUAGE, base_language
from earmark.outputs import (
    atomic_write_bytes,
    fsync_folder,
    lock_output_folder,
    refuse_own_input,
)
from earmark.render.markdown import render_results_markdown
from earmark.results.arm import ArmResult, Exclusion, NormalizerChoice
from earmark.rundir.bounds import refuse_long_rows
from earmark.rundir.layout import ARTEFACTS, PREDICTIONS, RESULTS, RESULTS_MARKDOWN
from earmark.rundir.results_file import build_results, write_results
from earmark.scoring.error_analysis import error_analysis_section
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import AUTO_BY_LANGUAGE, CHARACTER_LANGUAGES, NormalizerPolicy
from earmark.scoring.probes import ProbeResult, failed, run_scorer_probes
from earmark.scoring.protocols import ScoringChoice, resolve
from earmark.scoring.scorer import CorpusScorer, ScoreResult
from earmark.stats.settings import BootstrapSettings

if TYPE_CHECKING:
    from earmark.results.codec import JSONValue
    from earmark.results.results_file import Results
    from earmark.scoring.glm import Glm

#: Rows scored at a time: what is held besides the per-row counts (their texts and
#: records, a few KB a row). Small enough that a chunk's objects stay in cache and its
#: freed memory is reused by the next (2,000 rows: ~8% less CPU in scoring and records
#: than 10,000), large enough that the per-chunk numpy calls do not show. Read at each
#: call (a module setting rather than a figure: it changes no output), so tests can force
#: tiny chunks.
CHUNK_ROWS = 2_000

#: Where `score --glm ... --out DIR` keeps a copy of the rules file.
GLM_COPY = "rules.glm"
#: The policy scoring follows when neither a normaliser nor a protocol is named: the one
#: `earmark run` and a plan default to (each language its own normaliser; rows naming no
#: language, and languages without one of their own, crude-v1).
DEFAULT_POLICY = "auto"
#: The arm name of rows given in memory (a file's is its stem).
MEMORY_ARM = "rows"


class PredictionsEntry(TypedDict):
    """results.json's `predictions`: the file the figures were computed from, by hash."""

    file: str
    sha256: str
    bytes: int
    rows: int


@dataclass(frozen=True)
class ScoreInputs:
    """What `earmark score` reads: the file(s) (or rows given in memory), their format
    and field names, and which rows count (`--language` for rows naming none, `--arm` of a
    run's file, unmatched hypotheses listed and skipped rather than refused)."""

    predictions: str | os.PathLike[str] | MemoryRows
    refs: str | os.PathLike[str] | None = None
    format: str | None = None
    fields: FieldNames = FieldNames()
    language: str | None = None
    arm: str | None = None
    exclude_unmatched: bool = False


@dataclass(frozen=True)
class ScoreFigures:
    """What `earmark score` computes: the protocol or the settings it would fix (None:
    not given; resolved once, by `earmark.scoring.protocols.resolve`), the optional
    metrics and figures (`extra_metrics`: "wip"), the word alignment of every figure, the
    sclite reports, GLM rules, the bootstrap unit and the pre-registered minimums."""

    normalizer: str | None = None
    protocol: str | None = None
    aggregate: str | None = None
    resamples: int | None = None
    seed: int | None = None
    #: The bootstrap's generator (`earmark.stats.settings.GENERATORS`; None: the default,
    #: or the protocol's). A protocol fixes its own, so naming one with it is refused.
    generator: str | None = None
    punctuation: bool = False
    punctuation_marks: str | None = None
    critical_tokens: bool = False
    #: Optional figures beside MER and WIL ("wip"); results without them keep their bytes.
    extra_metrics: tuple[str, ...] = ()
    sclite_reports: bool = False
    alignment: str = "earmark"
    #: The rule the sclite reports read speakers from trn ids by: sclite's `-i` rule of
    #: that name, or "earmark" (None: earmark's).
    id_format: str | None = None
    glm: str | os.PathLike[str] | None = None
    cluster: str = "clip"
    min_per_slice: int | None = None
    min_speakers: int | None = None

    @property
    def default_normalizer(self) -> bool:
        """Neither a normaliser nor a protocol was named: `DEFAULT_POLICY` chooses."""
        return self.normalizer is None and self.protocol is None

    def choice(self) -> ScoringChoice:
        """The protocol merged with the settings given; a contradiction names the flag."""
        return resolve(
            self.protocol,
            normalizer=self.normalizer,
            default_normalizer=DEFAULT_POLICY,
            aggregate=self.aggregate,
            resamples=self.resamples,
            seed=self.seed,
            punctuation=self.punctuation,
            punctuation_marks=self.punctuation_marks,
        )


def score_predictions(
    inputs: ScoreInputs,
    figures: ScoreFigures = ScoreFigures(),
    *,
    out_dir: str | os.PathLike[str] | None = None,
) -> Results:
    """Score a predictions file (optionally joined to references) and return its typed
    results; with `out_dir`, also write results.json (byte for byte `to_json()` of what
    is returned), predictions.jsonl, results.md and last artefacts.sha256
    (`earmark.artefacts`), holding the folder's lock throughout (a second writer into it
    gets an `EarmarkError`). Without `out_dir` nothing is written.

    `figures.protocol` (e.g. "blasbench-v1") fixes normaliser, aggregation, resamples,
    seed and CI generator; a setting given with it must agree. Without one: aggregate
    "micro", 10,000 resamples, seed 20260926; without a normaliser either, the `auto`
    policy chooses one per language (`DEFAULT_POLICY`), and the arm's
    `normalizer_choice` records it with each language's reason.

    `sclite_reports` adds results' `sclite` block (per-speaker counts, every confusion pair)
    and, with `out_dir`, NAME.sys/.raw/.pra/.dtl; `alignment` ("earmark", "sclite" or
    "kaldi") chooses how every word figure splits errors, the headline, the error analysis
    and those reports (`earmark.scoring.word_counter`; recorded as `alignment` when not
    earmark's); `id_format` (earmark, rm, spu_id, swb, wsj) reads their speakers by
    earmark's rule or sclite's `-i` rule of that name; `glm`, a
    rules file of alternate spellings and optional words (`earmark.scoring.glm`), is applied
    during alignment, not by rewriting text: the word counts of every view (the headline
    WER) come from the GLM-aware alignment, and so do the sclite reports'. Results record it
    beside the normaliser policy (`glm`: name, SHA-256, version); a protocol, which fixes
    how its published figures are counted, refuses it.

    `cluster="speaker"` resamples each speaker's rows together in the bootstrap;
    `min_per_slice`/`min_speakers` null the figures of thinner language, slice and speaker
    blocks with a reason (`earmark.scoring.options.ScoringOptions`).

    The input is scored `CHUNK_ROWS` rows at a time (`earmark.scoring.scorer.CorpusScorer`),
    one file of references and hypotheses read as it goes: memory grows with the corpus
    only by each row's counts and an 8-byte digest of its id. The outputs do not depend on
    the chunk size.
    """
    rules = _check_figures(figures)
    if out_dir is not None:
        written = (PREDICTIONS, RESULTS, RESULTS_MARKDOWN, ARTEFACTS, GLM_COPY, "predictions.csv")
        files = (_file(inputs.predictions), inputs.refs, figures.glm)
        refuse_own_input(out_dir, files, written, "score")
    # Held from the first read to the last write: one writer per folder.
    folder = nullcontext() if out_dir is None else lock_output_folder(out_dir, "score")
    # The cyclic collector paused from the first read to the last write, not only around
    # reading and `score_rows`: the rows, the error analysis and the per-row records of
    # predictions.jsonl form no reference cycles, and the collector's passes over the
    # 100,000 live rows while those records were built cost ~0.4 s of a ~2.9 s
    # `--bootstrap 0` run. It resumes (and collects anything left) on exit.
    with folder, collector_paused():
        return _score(inputs, figures, rules, None if out_dir is None else Path(out_dir))


def _check_figures(figures: ScoreFigures) -> Glm | None:
    """Refuse settings that cannot go together before anything is read; the GLM rules."""
    if figures.id_format is not None:
        # sclite's rules are read only when one is named (None is earmark's).
        from earmark.formats.trn import checked_id_format

        checked_id_format(figures.id_format)
    if figures.id_format is not None and not figures.sclite_reports:
        raise EarmarkError(
            "--id-format chooses how the sclite reports read speakers from ids",
            field="id_format",
            hint="add --sclite-reports",
        )
    if figures.generator is not None and figures.protocol is not None:
        raise EarmarkError(
            f"protocol {figures.protocol} fixes its own bootstrap generator",
            field="bootstrap_generator",
            hint="drop --bootstrap-generator, or drop --protocol",
        )
    if figures.glm is not None and figures.protocol is not None:
        raise EarmarkError(
            f"--glm changes the counts protocol {figures.protocol} fixes",
            field="glm",
            hint="drop --protocol to score with a GLM (its figures then follow no protocol)",
        )
    if figures.glm is None:
        return None
    from earmark.scoring.glm import read_glm

    return read_glm(figures.glm)


def _score(
    inputs: ScoreInputs, figures: ScoreFigures, rules: Glm | None, out: Path | None
) -> Results:
    """Read, score and (with `out`) write, under the caller's lock: results.json's content,
    typed once (results.md is rendered from the same typed results)."""
    choice = figures.choice()
    stream = _stream(inputs)
    options = ScoringOptions(
        policy=NormalizerPolicy.parse(choice.normalizer),
        aggregate=choice.aggregate,
        bootstrap=BootstrapSettings(
            resamples=choice.resamples,
            seed=choice.seed,
            generator=figures.generator or choice.generator,
        ),
        protocol=choice.protocol,
        cluster=figures.cluster,  # type: ignore[arg-type]  # checked by ScoringOptions
        min_per_slice=figures.min_per_slice,
        min_speakers=figures.min_speakers,
        glm=rules,
        alignment=figures.alignment,
        extra_metrics=figures.extra_metrics,
    )
    # The punctuation and critical-token metrics and the sclite reports read the rows
    # and texts again: only then are they kept; otherwise each chunk's go once its
    # records are written.
    scorer = CorpusScorer(
        options,
        keep=choice.punctuation or figures.critical_tokens or figures.sclite_reports,
        reread=stream.reread,
    )
    chunks = stream.chunks(CHUNK_ROWS)
    if inputs.language is not None:
        language = inputs.language
        chunks = (_with_language(chunk, language) for chunk in chunks)
    spool = None if out is None else _spool_name(out)
    try:
        written = None
        try:
            if spool is None:
                for chunk in chunks:
                    scorer.add(chunk)
            else:
                written = _write_records(spool, scorer, chunks)
        except EarmarkError:
            # The error a whole read of the file meets first wins, with its lines
            # (a repeated id found by the scorer, say), as when it was read up front.
            stream.recheck()
            raise
        scored = scorer.finish()
        given = _file(inputs.predictions)
        name = inputs.arm or (MEMORY_ARM if given is None else Path(given).stem)
        arm = _arm(scored, stream.excluded, figures, choice, options, rules, name, out)
        if out is not None and rules is not None and arm.glm is not None:
            # The rules beside the figures they shaped (byte for byte: the recorded
            # SHA-256 is this file's), so the folder alone re-derives them.
            atomic_write_bytes(out / GLM_COPY, [rules.text.encode("utf-8")])
            arm = replace(arm, glm={**arm.glm, "file": GLM_COPY})
        probes = run_scorer_probes()
        results = build_results(
            {name: arm},
            probes,
            inputs={
                "files": [str(Path(f)) for f in stream.source_files],
                "format": inputs.format or ("auto" if given is not None else MEMORY_FORMAT),
                "formats_read": list(stream.formats),
            },
        )
        if out is not None and spool is not None and written is not None:
            typed = _write_folder(out, results, probes, spool, written, (name, arm))
        else:
            typed = _typed(results, (name, arm))
    finally:
        if spool is not None:
            spool.unlink(missing_ok=True)
    # Freed here, while the collector is still paused: on resuming, its first pass
    # walks every object allocated during the pause that is still alive, and the
    # rows and their scores would be walked once just before they die. `results`
    # holds none of them.
    del scored, scorer, stream, results
    return typed


def _file(predictions: str | os.PathLike[str] | MemoryRows) -> str | os.PathLike[str] | None:
    """The predictions file, or None for rows given in memory."""
    return None if isinstance(predictions, MemoryRows) else predictions


def _stream(inputs: ScoreInputs) -> PairStream:
    """The rows to score: the file(s) read as the chunks are asked for, or the rows
    given in memory (checked as a file's are)."""
    if isinstance(inputs.predictions, MemoryRows):
        if inputs.refs is not None or inputs.arm is not None:
            raise EarmarkError(
                "rows given in memory have no references file or arms",
                field="refs" if inputs.refs is not None else "arm",
            )
        return inputs.predictions.stream()
    return stream_pairs(
        inputs.predictions,
        refs=inputs.refs,
        fmt=inputs.format,
        fields=inputs.fields,
        allow_extra_hypotheses=inputs.exclude_unmatched,
        arm=inputs.arm,
        # The scorer finds repeated ids (an 8-byte digest per id; it reads the file
        # again via stream.reread only if two digests match); the reader's own check,
        # with both lines, runs on failure only.
        check_ids=False,
    )


def default_reason(language: str, normalizer: str) -> str:
    """Why the `auto` policy gave `language` its normaliser, in a few words (the summary
    prints `normaliser: NAME (reason)`)."""
    base = base_language(language)
    if not base or base in NO_SINGLE_LANGUAGE:
        return (
            "default: the rows name no language, so auto's language-neutral one: NFKC, "
            "lower-case, no punctuation; --normalizer none compares raw text, as jiwer does"
        )
    if base in CHARACTER_LANGUAGES and AUTO_BY_LANGUAGE.get(base) == normalizer:
        return f"default: auto's for {CHARACTER_LANGUAGES[base]}, characters first"
    if base in AUTO_BY_LANGUAGE:
        return f"default: auto's for {language}"
    return f"default: auto has none for {language}, so its language-neutral one"


def _normalizer_choice(arm: ArmResult) -> NormalizerChoice:
    """The arm's record of the default policy's choice, a reason per language."""
    reasons = {
        language: default_reason(language, block.normalizer.name)
        for language, block in arm.by_language.items()
    }
    return NormalizerChoice(policy=DEFAULT_POLICY, reasons=reasons)


def _arm(
    scored: ScoreResult,
    excluded: list[dict[str, str]],
    figures: ScoreFigures,
    choice: ScoringChoice,
    options: ScoringOptions,
    rules: Glm | None,
    name: str,
    out: Path | None,
) -> ArmResult:
    """One arm's typed results: the scores, the reader's exclusions, the error analysis
    and the optional punctuation, critical-token and sclite sections."""
    rows = scored.rows
    arm = replace(
        scored.arm,
        coverage=replace(
            scored.arm.coverage,
            # The reader's exclusions, with what each format adds to them.
            excluded=tuple(Exclusion.from_dict(x) for x in excluded),
        ),
        error_analysis=error_analysis_section(scored),
    )
    if figures.default_normalizer:
        arm = replace(arm, normalizer_choice=_normalizer_choice(arm))
    if choice.punctuation or figures.critical_tokens:
        from earmark.metrics.punctuation import check_mark_rule
        from earmark.scoring.extra_metrics import critical_tokens_section, punctuation_section

        if choice.punctuation:
            arm = replace(
                arm,
                punctuation=punctuation_section(
                    rows,
                    bootstrap=options.bootstrap,
                    mark_rule=check_mark_rule(choice.punctuation_marks),
                ),
            )
        if figures.critical_tokens:
            arm = replace(
                arm, critical_tokens=critical_tokens_section(rows, bootstrap=options.bootstrap)
            )
    if figures.sclite_reports:
        from earmark.formats.trn import checked_id_format
        from earmark.scoring.sclite_reports import sclite_reports_section

        arm = replace(
            arm,
            sclite=sclite_reports_section(
                scored,
                name=name,
                alignment=figures.alignment,
                out_dir=out,
                glm=rules,
                id_format=checked_id_format(figures.id_format),
            ),
        )
    return arm


def _typed(results: dict[str, JSONValue], arm: tuple[str, ArmResult]) -> Results:
    """The typed results of `results`, whose one arm is `arm` encoded: the arm as the
    scorer built it, everything else read back. Reading the arm back (~0.15 s for
    10,000 speakers) would give the same record, value for value and type for type
    (tests/scoring/test_score_typed_results.py)."""
    from earmark.results.results_file import Results

    name, typed_arm = arm
    top = Results.from_dict({**results, "arms": {}}, copy=False)
    return replace(top, arms={name: typed_arm})


def _write_folder(
    out: Path,
    results: dict[str, JSONValue],
    probes: list[ProbeResult],
    spool: Path,
    written: PredictionsEntry,
    arm: tuple[str, ArmResult],
) -> Results:
    """The folder's files, predictions.jsonl moved into place just before the results
    that name its hash; the artefact list last. Returns the results typed (`_typed`),
    which results.md is rendered from too; `results` is then the caller's to drop."""
    published = not failed(probes)
    if published:
        results["predictions"] = {
            "file": written["file"],
            "sha256": written["sha256"],
            "bytes": written["bytes"],
            "rows": written["rows"],
        }
    typed = _typed(results, arm)
    markdown = render_results_markdown(typed)
    if published:
        # In place only now, just before the results that name its hash
        # (a kill between the two leaves old results that can tell).
        os.replace(spool, out / PREDICTIONS)
        fsync_folder(out)
    # Refuses (writing nothing) when a probe failed.
    digests = write_results(out, results, probes=probes, markdown=markdown)
    # last, over every file the score wrote; each was hashed as it was written
    write_artefacts(out, known={written["file"]: written["sha256"], **digests})
    return typed


def _with_language(rows: list[ScoringRow], language: str) -> list[ScoringRow]:
    """`--language`: the language of rows that name none."""
    return [r if r.language else replace(r, language=language) for r in rows]


def _spool_name(out: Path) -> Path:
    """Where predictions.jsonl is written while the corpus is scored: a temporary name
    of the form `earmark.outputs` cleans up after a killed writer."""
    return out / f".{PREDICTIONS}.{os.getpid()}.{secrets.token_hex(4)}.tmp"


def _write_records(
    spool: Path, scorer: CorpusScorer, chunks: Iterable[list[ScoringRow]]
) -> PredictionsEntry:
    """Score `chunks`, writing each one's predictions.jsonl records to `spool` as it is
    scored (one line per record, keys sorted, UTF-8 as is, as `write_results` writes
    them) and syncing it; returns results' `predictions` entry for the file once it is
    moved into place. A failed write names predictions.jsonl, as `atomic_write_bytes`
    names its target; the caller removes the spool."""
    digest = hashlib.sha256()
    rows = size = 0
    try:
        fd = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        with open(fd, "wb", closefd=True) as handle:
            for chunk in chunks:
                lines = scorer.add_lines(chunk)
                refuse_long_rows(lines)  # never write a row every reader refuses
                block = b"".join(lines)
                handle.write(block)
                digest.update(block)
                rows += len(chunk)
                size += len(block)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        if exc.filename is None or exc.filename == str(spool):
            raise OSError(exc.errno, exc.strerror, str(spool.parent / PREDICTIONS)) from exc
        raise
    return PredictionsEntry(file=PREDICTIONS, sha256=digest.hexdigest(), bytes=size, rows=rows)
