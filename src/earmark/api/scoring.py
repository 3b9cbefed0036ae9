"""`earmark.score_file` and `earmark.score_rows`: `earmark score` as a call, of a file or of
rows in memory, returning the typed results."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from earmark.api.values import PathArg, check_choice, check_count, check_out
from earmark.errors import EarmarkError
from earmark.stats.settings import GENERATORS

if TYPE_CHECKING:
    from earmark.file_scoring import ScoreFigures
    from earmark.results import Results

#: `--format`'s choices (`earmark.formats` reads them).
FORMATS = ("jsonl", "csv", "tsv", "kaldi", "lines", "trn", "stm", "ctm")
#: `--metrics`' choices: `earmark.scoring.metric.EXTRA_METRICS`, spelled here so parsing
#: flags stays light (a test pins the two equal).
EXTRA_METRICS = ("wip",)


def score_file(
    predictions: PathArg,
    *,
    out: PathArg | None = None,
    refs: PathArg | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    aggregate: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    bootstrap_generator: str | None = None,
    format: str | None = None,
    id_field: str = "id",
    reference_field: str = "reference",
    hypothesis_field: str = "hypothesis",
    language_field: str = "language",
    cluster_field: str = "clip",
    language: str | None = None,
    arm: str | None = None,
    exclude_unmatched: bool = False,
    punctuation: bool = False,
    punctuation_marks: str | None = None,
    critical_tokens: bool = False,
    metrics: Sequence[str] = (),
    sclite_reports: bool = False,
    alignment: str = "earmark",
    id_format: str | None = None,
    glm: PathArg | None = None,
    csv: bool = False,
    cluster: str | None = None,
    min_per_slice: int | None = None,
    min_speakers: int | None = None,
) -> Results:
    """`earmark score PREDICTIONS ...`: score a file of saved hypotheses.

    Returns the typed results (`.arm().view(language, view).wer` is an `Estimate`),
    built in memory. With `out`, the folder gets what the command writes there
    (results.json, byte for byte `to_json()` of what is returned, predictions.jsonl,
    results.md and, with `csv`, predictions.csv); without it nothing is written.
    Without `normalizer` or `protocol`, the `auto` policy chooses one per language and
    the arm's `normalizer_choice` says why (`earmark.file_scoring.default_reason`).
    `metrics` names optional figures beside MER and WIL ("wip", as `--metrics wip`);
    `alignment` ("earmark", "sclite", "kaldi") splits every word figure's errors;
    `bootstrap_generator` names the intervals' generator, recorded in results (None: the
    default, or a protocol's; "numpy-pcg64" redraws results that name none;
    `earmark.stats.settings.GENERATORS`, docs/statistics.md);
    `id_format` reads the sclite reports' speakers by earmark's rule (the default) or
    sclite's `-i` rule of that name (`--id-format`).
    """
    from dataclasses import replace

    from earmark.collector import collector_paused

    # The scorer's ~90 modules (numpy's too) build objects in no reference cycle; with
    # the collector on, its passes over them cost a one-pair score ~25 ms of start-up.
    with collector_paused():
        from earmark.file_scoring import ScoreInputs, score_predictions
        from earmark.formats.fields import FieldNames

    check_choice("format", format, FORMATS)
    check_choice("alignment", alignment, ("earmark", "sclite", "kaldi"))
    check_choice("id_format", id_format, ("earmark", "rm", "spu_id", "swb", "wsj"))
    if csv and out is None:
        raise EarmarkError("--csv writes beside predictions.jsonl", field="csv", hint="give out")
    figures = _figures(
        out=out,
        normalizer=normalizer,
        protocol=protocol,
        aggregate=aggregate,
        bootstrap=bootstrap,
        seed=seed,
        bootstrap_generator=bootstrap_generator,
        punctuation=punctuation,
        punctuation_marks=punctuation_marks,
        critical_tokens=critical_tokens,
        metrics=metrics,
        cluster=cluster,
        min_per_slice=min_per_slice,
        min_speakers=min_speakers,
    )
    figures = replace(
        figures, sclite_reports=sclite_reports, alignment=alignment, id_format=id_format, glm=glm
    )
    inputs = ScoreInputs(
        predictions,
        refs=refs,
        format=format,
        fields=FieldNames(
            id=id_field,
            reference=reference_field,
            hypothesis=hypothesis_field,
            language=language_field,
            cluster=cluster_field,
        ),
        language=language,
        arm=arm,
        exclude_unmatched=exclude_unmatched,
    )
    results = score_predictions(inputs, figures, out_dir=out)
    if csv and out is not None:
        write_csv(out, command="score")
    return results


def score_rows(
    rows: Sequence[Mapping[str, object]] | None = None,
    *,
    references: Sequence[str] | str | None = None,
    hypotheses: Sequence[str | None] | str | None = None,
    ids: Sequence[str] | None = None,
    languages: Sequence[str | None] | str | None = None,
    out: PathArg | None = None,
    normalizer: str | None = None,
    protocol: str | None = None,
    aggregate: str | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    bootstrap_generator: str | None = None,
    punctuation: bool = False,
    punctuation_marks: str | None = None,
    critical_tokens: bool = False,
    metrics: Sequence[str] = (),
    cluster: str | None = None,
    min_per_slice: int | None = None,
    min_speakers: int | None = None,
) -> Results:
    """`earmark score` of prediction rows held in memory: the same typed results (and,
    with `out`, the same folder) as the rows written to a JSONL file and scored with the
    same keywords, which `score_file` takes.

    Give `rows` (one mapping per row: `id`, `reference`, `hypothesis`, optional
    `language`), or `references` and `hypotheses` (lists of strings; `ids` default to
    "1", "2", ...; `languages` is one tag for all rows or one per row). A hypothesis of
    None is missing: all deletions, listed. What a file reader refuses is refused with
    the row's index (`ids[2]`, `rows[2].hypothesis`): a non-string, a lone surrogate, a
    repeated or blank id; so is a NUL character (`earmark.formats.memory`). The arm is
    named `rows`.

    >>> r = score_rows(references=["the cat sat", "hello world"],
    ...                hypotheses=["the cat sad", "hello word"], bootstrap=0)
    >>> r.arm().view("und").wer.value  # 2 substitutions of 5 words
    0.4
    >>> r.arm().normalizer_choice.policy
    'auto'
    """
    from earmark.file_scoring import ScoreInputs, score_predictions
    from earmark.formats.memory import MemoryRows

    figures = _figures(
        out=out,
        normalizer=normalizer,
        protocol=protocol,
        aggregate=aggregate,
        bootstrap=bootstrap,
        seed=seed,
        bootstrap_generator=bootstrap_generator,
        punctuation=punctuation,
        punctuation_marks=punctuation_marks,
        critical_tokens=critical_tokens,
        metrics=metrics,
        cluster=cluster,
        min_per_slice=min_per_slice,
        min_speakers=min_speakers,
    )
    given = MemoryRows(
        rows=rows, references=references, hypotheses=hypotheses, ids=ids, languages=languages
    )
    return score_predictions(ScoreInputs(given), figures, out_dir=out)


def _figures(
    *,
    out: PathArg | None,
    normalizer: str | None,
    protocol: str | None,
    aggregate: str | None,
    bootstrap: int | None,
    seed: int | None,
    bootstrap_generator: str | None,
    punctuation: bool,
    punctuation_marks: str | None,
    critical_tokens: bool,
    metrics: Sequence[str],
    cluster: str | None,
    min_per_slice: int | None,
    min_speakers: int | None,
) -> ScoreFigures:
    """The checked figures' keywords `score_file` and `score_rows` share, as the option
    object (the sclite reports and GLM rules are a file's alone)."""
    from earmark.file_scoring import ScoreFigures

    check_out(out)
    check_count("bootstrap", bootstrap, 0)
    check_count("min_per_slice", min_per_slice, 1)
    check_count("min_speakers", min_speakers, 1)
    check_choice("aggregate", aggregate, ("micro", "macro"))
    check_choice("cluster", cluster, ("clip", "speaker"))
    check_choice("bootstrap_generator", bootstrap_generator, GENERATORS)
    check_choice("punctuation_marks", punctuation_marks, ("word-internal", "every-mark"))
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    for name in metrics:
        check_choice("metrics", name, EXTRA_METRICS)
    return ScoreFigures(
        normalizer=normalizer,
        protocol=protocol,
        aggregate=aggregate,
        resamples=bootstrap,
        seed=seed,
        generator=bootstrap_generator,
        punctuation=punctuation,
        punctuation_marks=punctuation_marks,
        critical_tokens=critical_tokens,
        extra_metrics=metrics,
        cluster=cluster or "clip",
        min_per_slice=min_per_slice,
        min_speakers=min_speakers,
    )


def write_csv(out: PathArg, *, command: str) -> Path:
    """predictions.csv beside the folder's predictions.jsonl (`--csv`)."""
    from earmark.render.predictions_csv import write_predictions_csv
    from earmark.rundir.layout import PREDICTIONS

    return write_predictions_csv(Path(os.fspath(out)) / PREDICTIONS, command=command)
