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
  has no exact one);
- `mimower`: multiple-input multiple-output WER (`mimo_word_error_rate`): each reference
  speaker's utterances may go to any output stream, in their order;
- `tcorcwer`: time-constrained ORC-WER with a collar in seconds (`time_constrained_orc_wer`,
  the same pseudo-word timings as tcpWER).

meeteval is an optional extra (`pip install 'earmark[multi-speaker]'`), imported only here
and only when scoring.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Protocol

from earmark.errors import EarmarkError, MissingExtraError
from earmark.formats.segments import Segment, read_segments, segment_format
from earmark.results.codec import JSONValue
from earmark.scoring.multispeaker_markdown import render_markdown
from earmark.scoring.multispeaker_records import (
    NAMES,
    SPEAKER_COUNTS,
    ExcludedRecording,
    MultiSpeakerCounts,
    MultiSpeakerMetric,
    MultiSpeakerResult,
    RecordingScore,
    SegmentFile,
)
from earmark.stats.settings import DEFAULT_GENERATOR, DEFAULT_SEED, BootstrapSettings

METRICS = ("cpwer", "orcwer", "tcpwer", "dicpwer", "mimower", "tcorcwer")
#: Metrics that compare times, and so need `collar` and segments that carry times.
TIMED_METRICS = frozenset({"tcpwer", "tcorcwer"})
#: Most speakers on either side of one recording for cpWER and tcpWER: meeteval's own
#: limit (its assignment is a square matrix over speakers; more means a mistake in the
#: input, `doc/num_speaker_limits.md`), checked here so the refusal names the recording.
MAX_CP_SPEAKERS = 20
#: Most hypothesis streams (speakers) of one recording for ORC-WER and tcORC-WER, and
#: most speakers on either side for MIMO-WER: meeteval's limit.
MAX_ORC_STREAMS = 10
#: Most bytes ORC-WER's search may need for one recording, by meeteval's own estimate
#: (16 bytes x reference segments x the product of each stream's word count). The
#: search grows with the product, so 6 streams of 200 words is 4e17 bytes; meeteval is
#: meant for 1-2 streams of ~10 minutes (~1e9 bytes). Refused up front, naming it. MIMO-WER
#: is bounded the same way by meeteval's estimate of its search (16 bytes x the product of
#: each reference speaker's utterance count x the product of each stream's word count).
MAX_ORC_BYTES = 8_000_000_000


class ErrorRate(Protocol):
    """What earmark reads of meeteval's per-recording result (its `ErrorRate` classes);
    speaker counts and the assignment are read by name where a metric has them."""

    @property
    def errors(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def insertions(self) -> int: ...
    @property
    def deletions(self) -> int: ...
    @property
    def substitutions(self) -> int: ...


def _meeteval() -> ModuleType:
    """meeteval's `wer.wer` module; a missing extra is one line naming it."""
    try:
        import meeteval.wer.wer as wer
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != "meeteval":
            raise
        raise MissingExtraError("multi-speaker scoring", "multi-speaker", "meeteval") from None
    module: ModuleType = wer
    return module


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
    timed = [NAMES[m] for m in chosen if m in TIMED_METRICS]
    if timed and collar is None:
        raise EarmarkError(
            f"{' and '.join(timed)} need{'s' if len(timed) == 1 else ''} a collar in seconds",
            field="collar",
            hint="pass --collar S (meeteval has no default; its CHiME-7/8 recipes use 5)",
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


def _seglst(segments: Sequence[Segment]) -> object:
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


def _meeteval_score(
    metric: str, reference: object, hypothesis: object, collar: float | None
) -> ErrorRate:
    wer = _meeteval()
    untimed = {
        "cpwer": wer.cp_word_error_rate,
        "orcwer": wer.orc_word_error_rate,
        "dicpwer": wer.greedy_di_cp_word_error_rate,
        "mimower": wer.mimo_word_error_rate,
    }
    timed = {
        "tcpwer": wer.time_constrained_minimum_permutation_word_error_rate,
        "tcorcwer": wer.time_constrained_orc_wer,
    }
    result: ErrorRate
    if metric in timed:
        result = timed[metric](reference, hypothesis, collar=collar)
    else:
        result = untimed[metric](reference, hypothesis)
    return result


def _plain(value: object) -> JSONValue:
    """A JSON-able copy of meeteval's assignment (tuples of ids or None)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)  # an id of another type: shown as meeteval prints it


def _recording_score(recording: str, er: ErrorRate) -> RecordingScore:
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
    assignment = getattr(er, "assignment", None)
    if assignment is not None:
        details["assignment"] = _plain(assignment)
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
    generator: str = DEFAULT_GENERATOR,
) -> MultiSpeakerResult:
    """Score segments of whole recordings with meeteval, per recording and in total.

    `resamples=0` gives no confidence interval. See the module docstring for what is
    added to meeteval's numbers.
    """
    from earmark.stats.bootstrap import bootstrap_cis

    chosen = check_metrics(metrics, collar)
    bootstrap = BootstrapSettings(
        resamples, DEFAULT_SEED if seed is None else seed, level, generator
    )
    version = meeteval_version()
    check_times("reference", reference, chosen)
    check_times("hypothesis", hypothesis, chosen)
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
            generator=bootstrap.generator,
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
        ref, hyp = reference[recording], hypothesis[recording]
        check_search_size(metric, recording, ref, hyp)
        try:
            er = _meeteval_score(metric, _seglst(ref), _seglst(hyp), collar)
        except (RuntimeError, MemoryError, OverflowError, ValueError, RecursionError) as exc:
            raise _refusal(metric, recording, exc) from None
        scores.append(_recording_score(recording, er))
    total = sum((s.counts for s in scores), MultiSpeakerCounts())
    speaker_totals = {
        name: sum(_count(s.details.get(name)) for s in scores)
        for name in SPEAKER_COUNTS
        if any(name in s.details for s in scores)
    }
    return MultiSpeakerMetric(metric, tuple(scores), total, speaker_totals, None)


def check_search_size(
    metric: str, recording: str, reference: Sequence[Segment], hypothesis: Sequence[Segment]
) -> None:
    """Refuse a recording whose assignment search is over its documented bound
    (`MAX_CP_SPEAKERS`, `MAX_ORC_STREAMS`, `MAX_ORC_BYTES`), with one line naming it."""
    name = NAMES[metric]
    hyp_words: dict[str, int] = {}
    for seg in hypothesis:
        hyp_words[seg.speaker] = hyp_words.get(seg.speaker, 0) + len(seg.text.split())
    ref_segments: dict[str, int] = {}
    for seg in reference:
        ref_segments[seg.speaker] = ref_segments.get(seg.speaker, 0) + 1
    if metric in ("cpwer", "tcpwer"):
        n_ref = len(ref_segments)
        if max(n_ref, len(hyp_words)) > MAX_CP_SPEAKERS:
            raise EarmarkError(
                f"recording {recording!r}: {name} assigns speakers one to one, and "
                f"{n_ref} reference / {len(hyp_words)} hypothesis speakers is over the "
                f"limit of {MAX_CP_SPEAKERS} (meeteval's)",
                field="speaker",
                hint="check the speaker labels (is a segment id in the speaker field?)",
            )
    if metric not in ("orcwer", "tcorcwer", "mimower"):
        return
    streams = {k: n for k, n in hyp_words.items() if n}
    if metric == "mimower" and len(ref_segments) > MAX_ORC_STREAMS:
        raise EarmarkError(
            f"recording {recording!r}: {name} with {len(ref_segments)} reference speakers is "
            f"over the limit of {MAX_ORC_STREAMS} (meeteval's)",
            field="speaker",
            hint="MIMO-WER is meant for a few speakers and streams; use cpWER for more",
        )
    if len(streams) > MAX_ORC_STREAMS:
        raise EarmarkError(
            f"recording {recording!r}: {name} with {len(streams)} hypothesis streams is over "
            f"the limit of {MAX_ORC_STREAMS} (meeteval's)",
            field="speaker",
            hint=f"{name} is meant for a few output streams; use cpWER for speakers",
        )
    if metric == "tcorcwer":
        return  # the collar prunes its search: meeteval gives no estimate to bound
    if metric == "mimower":
        units = math.prod(ref_segments.values())
        over = f"{len(ref_segments)} reference speakers of {sorted(ref_segments.values())} segments"
    else:
        units = sum(1 for seg in reference if seg.text.split())
        over = f"{units} reference segments"
    need = 16 * units * math.prod(streams.values())
    if need > MAX_ORC_BYTES:
        raise EarmarkError(
            f"recording {recording!r}: {name}'s search over {over} "
            f"and {len(streams)} streams of {sorted(streams.values())} words would need "
            f"{need:.3g} bytes, over the limit of {MAX_ORC_BYTES:.3g}",
            field="metric",
            hint=f"{name} is meant for 1-2 streams of ~10 minutes: score shorter recordings",
        )


def check_times(side: str, segments: Sequence[Segment], metrics: Sequence[str]) -> None:
    """Refuse, for a time-constrained metric, segments that carry no usable times: a time
    that is not finite, an end before its start, or every segment at 0-0 s (a file
    written without times); meeteval would score such words as if they were timed."""
    timed = [NAMES[m] for m in metrics if m in TIMED_METRICS]
    if not timed or not segments:
        return
    what = " and ".join(timed)
    for seg in segments:
        if not (math.isfinite(seg.start) and math.isfinite(seg.end)) or seg.end < seg.start:
            raise EarmarkError(
                f"{what} needs segment times, and a {side} segment of {seg.recording!r} "
                f"runs from {seg.start} to {seg.end} s",
                field="start",
                hint="times are finite seconds with end >= start",
            )
    if all(seg.start == 0 and seg.end == 0 for seg in segments):
        raise EarmarkError(
            f"{what} needs segment times, and every {side} segment is at 0-0 s "
            "(a file written without times)",
            field="start",
            hint="give segments with their times (stm, ctm-derived segments, SegLST), "
            "or choose a metric that ignores time (cpwer, orcwer, mimower)",
        )


def _refusal(metric: str, recording: str, exc: BaseException) -> EarmarkError:
    """meeteval's refusal of one recording as one line naming it."""
    said = " ".join(str(exc).split()) or type(exc).__name__
    return EarmarkError(
        f"meeteval refused recording {recording!r} for {NAMES[metric]}: {said}",
        field="recording",
    )


def _read(path: Path, fmt: str) -> list[Segment]:
    """`read_segments`, with JSON nested past the parser's depth refused in one line."""
    try:
        return read_segments(path, fmt)
    except RecursionError:
        raise EarmarkError(
            "the segment file nests JSON deeper than its reader allows",
            file=str(path),
            hint="segments are a flat list of objects (or SegLST)",
        ) from None


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
    #: The bootstrap's generator (`earmark.stats.settings.GENERATORS`), recorded.
    generator: str = DEFAULT_GENERATOR

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
            _read(ref_path, ref_fmt),
            _read(hyp_path, hyp_fmt),
            metrics,
            collar=collar,
            normalizer=options.normalizer,
            resamples=options.resamples,
            seed=options.seed,
            allow_extra=options.allow_extra,
            generator=options.generator,
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
