"""Multi-speaker and time-constrained WER of whole recordings, computed by meeteval.

earmark does not re-implement these metrics: each recording's reference and hypothesis
segments go to meeteval's own per-recording function (the same ones its `*_multifile`
functions apply), and earmark adds what meeteval leaves to the user:

- every reference recording is accounted for: one with no hypothesis segment at all is
  scored as all deletions and listed (meeteval refuses the whole set instead);
- a hypothesis recording without a reference is an error, or listed and skipped with
  `allow_extra=True`;
- one named normaliser is applied to both sides (word units only: meeteval aligns words);
- counts travel, the rate is computed from the summed counts, and its percentile
  bootstrap resamples *recordings* (the clusters), with the generator of `earmark score`.

Metrics (meeteval's function in brackets):

- `cpwer`: concatenated minimum-permutation WER (`cp_word_error_rate`);
- `orcwer`: optimal reference combination WER (`orc_word_error_rate`);
- `tcpwer`: time-constrained cpWER with a collar in seconds
  (`time_constrained_minimum_permutation_word_error_rate`, meeteval's default pseudo-word
  timings: `character_based` for references, `character_based_points` for hypotheses);
- `dicpwer`: diarization-invariant cpWER, greedy (`greedy_di_cp_word_error_rate`; meeteval
  has no exact one).

meeteval is an optional extra (`pip install 'earmark[multi-speaker]'`), imported only here
and only when scoring.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError, MissingExtraError
from earmark.formats.segments import Segment, read_segments, segment_format
from earmark.results.codec import JSONValue
from earmark.scoring.multispeaker_markdown import render_markdown
from earmark.scoring.multispeaker_records import (
    SPEAKER_COUNTS,
    ExcludedRecording,
    MultiSpeakerCounts,
    MultiSpeakerMetric,
    MultiSpeakerResult,
    RecordingScore,
    SegmentFile,
)
from earmark.stats.settings import DEFAULT_SEED, BootstrapSettings

METRICS = ("cpwer", "orcwer", "tcpwer", "dicpwer")
#: Metrics that compare times, and so need `collar`.
TIMED_METRICS = frozenset({"tcpwer"})


def _meeteval() -> Any:
    """meeteval's `wer.wer` module; a missing extra is one line naming it."""
    try:
        import meeteval.wer.wer as wer
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != "meeteval":
            raise
        raise MissingExtraError("multi-speaker scoring", "multi-speaker", "meeteval") from None
    return wer


def meeteval_version() -> str:
    from importlib.metadata import version

    _meeteval()
    return version("meeteval")


def check_metrics(metrics: Sequence[str], collar: float | None) -> tuple[str, ...]:
    """The metrics, de-duplicated in order; unknown names and a missing collar refused."""
    chosen = tuple(dict.fromkeys(metrics))
    if not chosen:
        raise EarmarkError("no metric chosen", field="metric", hint=f"one of {', '.join(METRICS)}")
    for m in chosen:
        if m not in METRICS:
            raise EarmarkError(
                f"unknown multi-speaker metric {m!r}",
                field="metric",
                hint=f"one of {', '.join(METRICS)}",
            )
    if collar is not None and (collar < 0 or collar != collar):
        raise EarmarkError(f"collar must be >= 0 seconds, got {collar}", field="collar")
    if TIMED_METRICS & set(chosen) and collar is None:
        raise EarmarkError(
            "tcpWER needs a collar in seconds",
            field="collar",
            hint="pass --collar S (meeteval's CHiME-7/8 recipes use 5)",
        )
    return chosen


def _normalize(segments: Iterable[Segment], normalizer: str) -> list[Segment]:
    """The normaliser's headline view of each segment's text, the same rule on both sides."""
    if normalizer == "none":
        return list(segments)
    from earmark.text.registry import get_normalizer

    norm = get_normalizer(normalizer)
    if "word" not in norm.units:
        raise EarmarkError(
            f"normaliser {normalizer!r} does not score words; meeteval aligns words",
            field="normalizer",
            hint="choose a word normaliser (e.g. en-v1, crude-v1) or none",
        )
    out = []
    for seg in segments:
        view = norm.normalize_pair(seg.text, seg.text)[norm.primary_view]
        if view.reference is None:
            raise EarmarkError(
                f"normaliser {normalizer!r} has no {norm.primary_view!r} view of a segment "
                f"of {seg.recording!r} ({view.null_reason})",
                field="normalizer",
            )
        out.append(dataclasses.replace(seg, text=view.reference))
    return out


def _seglst(segments: Sequence[Segment]) -> Any:
    from meeteval.io import SegLST

    return SegLST(
        [
            {
                "session_id": s.recording,
                "speaker": s.speaker,
                "start_time": s.start,
                "end_time": s.end,
                "words": s.text,
            }
            for s in segments
        ]
    )


def _meeteval_score(metric: str, reference: Any, hypothesis: Any, collar: float | None) -> Any:
    wer = _meeteval()
    if metric == "cpwer":
        return wer.cp_word_error_rate(reference, hypothesis)
    if metric == "orcwer":
        return wer.orc_word_error_rate(reference, hypothesis)
    if metric == "dicpwer":
        return wer.greedy_di_cp_word_error_rate(reference, hypothesis)
    return wer.time_constrained_minimum_permutation_word_error_rate(
        reference, hypothesis, collar=collar
    )


def _plain(value: Any) -> JSONValue:
    """A JSON-able copy of meeteval's assignment (tuples of ids or None)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    plain: JSONValue = value
    return plain


def _recording_score(recording: str, er: Any) -> RecordingScore:
    counts = MultiSpeakerCounts(
        errors=int(er.errors),
        length=int(er.length),
        insertions=int(er.insertions),
        deletions=int(er.deletions),
        substitutions=int(er.substitutions),
    )
    details: dict[str, JSONValue] = {}
    for name in SPEAKER_COUNTS:
        if getattr(er, name, None) is not None:
            details[name] = int(getattr(er, name))
    if getattr(er, "assignment", None) is not None:
        details["assignment"] = _plain(er.assignment)
    return RecordingScore(recording, counts, details)


def _all_deleted(metric: str, recording: str, reference: Sequence[Segment]) -> RecordingScore:
    """Every reference word deleted; for cpWER and tcpWER every speaker missed, as meeteval
    counts a recording with an empty hypothesis."""
    words = sum(len(s.text.split()) for s in reference)
    details: dict[str, JSONValue] = {}
    if metric in ("cpwer", "tcpwer"):
        speakers = len({s.speaker for s in reference})
        details = {"missed_speaker": speakers, "falarm_speaker": 0, "scored_speaker": speakers}
    return RecordingScore(
        recording,
        MultiSpeakerCounts(errors=words, length=words, deletions=words),
        details,
        missing_hypothesis=True,
    )


def score_segments(
    reference: Sequence[Segment],
    hypothesis: Sequence[Segment],
    metrics: Sequence[str] = ("cpwer",),
    *,
    collar: float | None = None,
    normalizer: str = "none",
    resamples: int = 10_000,
    seed: int | None = None,
    level: float = 0.95,
    allow_extra: bool = False,
    inputs: Mapping[str, SegmentFile] | None = None,
) -> MultiSpeakerResult:
    """Score segments of whole recordings with meeteval, per recording and in total.

    `resamples=0` gives no confidence interval. See the module docstring for what is
    added to meeteval's numbers.
    """
    from earmark.stats.bootstrap import bootstrap_cis

    chosen = check_metrics(metrics, collar)
    bootstrap = BootstrapSettings(resamples, DEFAULT_SEED if seed is None else seed, level)
    version = meeteval_version()
    ref = _normalize(reference, normalizer)
    hyp = _normalize(hypothesis, normalizer)
    by_recording: dict[str, list[Segment]] = {}
    for s in ref:
        by_recording.setdefault(s.recording, []).append(s)
    if not by_recording:
        raise EarmarkError("the references hold no segments", hint="nothing to score")
    hyp_by_recording: dict[str, list[Segment]] = {}
    for s in hyp:
        hyp_by_recording.setdefault(s.recording, []).append(s)
    excluded: list[ExcludedRecording] = []
    for recording in hyp_by_recording:
        if recording not in by_recording:
            if not allow_extra:
                raise EarmarkError(
                    f"hypothesis recording {recording!r} has no reference",
                    field="recording",
                    hint="fix the recording ids, or pass --exclude-unmatched to list and skip them",
                )
            excluded.append(ExcludedRecording(recording, "no_reference"))
    recordings = tuple(sorted(by_recording))
    missing = tuple(r for r in recordings if r not in hyp_by_recording)
    results = {
        metric: _score_metric(metric, recordings, by_recording, hyp_by_recording, collar)
        for metric in chosen
    }
    if bootstrap.resamples > 0:
        cis = bootstrap_cis(
            {
                m: (
                    [s.counts.errors for s in r.recordings],
                    [s.counts.length for s in r.recordings],
                )
                for m, r in results.items()
            },
            resamples=bootstrap.resamples,
            seed=bootstrap.seed,
            level=bootstrap.level,
        )
        results = {m: dataclasses.replace(r, ci=cis[m]) for m, r in results.items()}
    return MultiSpeakerResult(
        metrics=results,
        normalizer=normalizer,
        collar=collar,
        bootstrap=bootstrap,
        recordings=recordings,
        missing_hypotheses=missing,
        excluded=tuple(excluded),
        inputs=inputs or {},
        meeteval_version=version,
    )


def _score_metric(
    metric: str,
    recordings: Sequence[str],
    reference: Mapping[str, Sequence[Segment]],
    hypothesis: Mapping[str, Sequence[Segment]],
    collar: float | None,
) -> MultiSpeakerMetric:
    """One metric over every reference recording (one with no hypothesis: all deleted),
    its summed counts and speaker counts; the interval is drawn later, for all metrics
    from one set of resamples."""
    scores = []
    for recording in recordings:
        if recording not in hypothesis:
            scores.append(_all_deleted(metric, recording, reference[recording]))
            continue
        er = _meeteval_score(
            metric, _seglst(reference[recording]), _seglst(hypothesis[recording]), collar
        )
        scores.append(_recording_score(recording, er))
    total = sum((s.counts for s in scores), MultiSpeakerCounts())
    speaker_totals = {
        name: sum(_count(s.details.get(name)) for s in scores)
        for name in SPEAKER_COUNTS
        if any(name in s.details for s in scores)
    }
    return MultiSpeakerMetric(metric, tuple(scores), total, speaker_totals, None)


def _file_record(path: Path, fmt: str) -> SegmentFile:
    return SegmentFile(str(path), fmt, hashlib.sha256(path.read_bytes()).hexdigest())


def _count(value: JSONValue) -> int:
    """A speaker count of one recording; 0 where meeteval gave none."""
    return value if isinstance(value, int) else 0


@dataclass(frozen=True)
class MultiSpeakerOptions:
    """What `earmark multispeaker` scores: two segment files (JSON, SegLST or stm; `fmt`
    forces one), the metrics, the collar (tcpWER), the normaliser, the bootstrap over
    recordings, whether stray hypothesis recordings are skipped, and where to write
    (None: write nothing)."""

    references: str | os.PathLike[str]
    hypotheses: str | os.PathLike[str]
    metrics: tuple[str, ...] = ("cpwer",)
    fmt: str | None = None
    collar: float | None = None
    normalizer: str = "none"
    resamples: int = 10_000
    seed: int | None = None
    allow_extra: bool = False
    out: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        # A list given from Python is kept as a tuple: the options stay frozen.
        object.__setattr__(self, "metrics", tuple(self.metrics))


def score_multispeaker(options: MultiSpeakerOptions) -> MultiSpeakerResult:
    """Read two segment files, score them, and with `options.out` write multispeaker.json
    and multispeaker.md there (atomically, holding the folder's lock).

    What `earmark multispeaker` does; the CLI is a thin mirror of it.
    """
    metrics, collar, fmt = options.metrics, options.collar, options.fmt
    check_metrics(metrics, collar)
    _meeteval()  # a missing extra is refused before any file is read or folder made
    ref_path, hyp_path = Path(options.references), Path(options.hypotheses)
    ref_fmt, hyp_fmt = segment_format(ref_path, fmt), segment_format(hyp_path, fmt)

    def score() -> MultiSpeakerResult:
        return score_segments(
            read_segments(ref_path, ref_fmt),
            read_segments(hyp_path, hyp_fmt),
            metrics,
            collar=collar,
            normalizer=options.normalizer,
            resamples=options.resamples,
            seed=options.seed,
            allow_extra=options.allow_extra,
            inputs={
                "references": _file_record(ref_path, ref_fmt),
                "hypotheses": _file_record(hyp_path, hyp_fmt),
            },
        )

    if options.out is None:
        return score()
    from earmark.outputs import lock_output_folder, refuse_own_input

    written = ("multispeaker.json", "multispeaker.md")
    refuse_own_input(options.out, (ref_path, hyp_path), written, "multispeaker")
    with lock_output_folder(options.out, "multispeaker") as folder:
        result = score()
        write_multispeaker(folder, result)
    return result


def write_multispeaker(folder: str | os.PathLike[str], result: MultiSpeakerResult) -> None:
    """multispeaker.json and multispeaker.md into an existing `folder`, each atomically
    (the caller holds the folder's lock, as `score_multispeaker` does)."""
    from earmark.outputs import atomic_write_json, atomic_write_text

    atomic_write_json(Path(folder) / "multispeaker.json", result.to_json())
    atomic_write_text(Path(folder) / "multispeaker.md", render_markdown(result))
