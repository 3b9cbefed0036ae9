"""Run a post-processor over saved transcripts, guard it, and measure what it delivered.

The protocol is seed 001's formatter measurement:

- every transcript goes through the processor `repeats` times (repeat-major passes);
- a guarded processor's candidate is delivered only when the lexical guard accepts it,
  otherwise the source text is delivered, with the reason (`content_changed`,
  `timeout`, ...); an unguarded one (script conversion) is delivered whenever it ran;
- acceptance is reported per output (accepted / total) and per clip (a clip passes only
  when every output of it passed), each with a clip bootstrap CI;
- punctuation F1 (position, position+type) of the raw transcript and of the delivered
  text, and their paired difference: resampling is by clip, and all outputs of a clip
  stay together (24 outputs of 8 clips are 8 observations, not 24);
- content CER (seed 001: NFKC, lower-cased, punctuation and spaces removed) of delivered
  vs raw; under the guard they are equal by construction, which is checked and reported
  loudly (not raised) when it fails;
- determinism: the share of transcripts whose repeats produced identical outputs.

`run_processor` does the calls; `summarise` is a pure function of the records, so the
numbers can be checked by hand on a tiny corpus.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from earmark.metrics.punctuation import (
    EVERY_MARK,
    PunctuationCounts,
    content_characters,
    punctuation_counts,
)
from earmark.postprocess.guard import LexicalGuard
from earmark.postprocess.protocol import Processor
from earmark.postprocess.report import (
    Acceptance,
    CerSummary,
    CerViolation,
    Determinism,
    EvaluationBlock,
    Figure,
    OutputRecord,
    PostprocessSummary,
    PunctuationSide,
    PunctuationSummary,
    SkippedOutput,
    SourceRow,
    Timing,
)
from earmark.scoring.extra_metrics import Statistic, f1_of, nan_ratio, stat_block
from earmark.stats.settings import BootstrapSettings

CER_DEFINITION = (
    "content CER (seed 001): Levenshtein distance between the content characters of the "
    "reference and the text (punctuation and whitespace removed, NFKC, lower-cased), "
    "summed over outputs and divided by the summed reference content characters"
)


def run_processor(
    sources: Sequence[SourceRow],
    processor: Processor,
    *,
    repeats: int,
    guard: LexicalGuard | None,
    progress: Callable[[int, int], None] | None = None,
) -> list[OutputRecord]:
    """Call the processor `repeats` times per transcript (pass after pass) and apply the
    guard. `guard=None` delivers any candidate the processor produced."""
    if repeats < 1:
        from earmark.errors import EarmarkError

        raise EarmarkError(f"must be at least 1, got {repeats}", field="repeats")
    records: list[OutputRecord] = []
    total = repeats * len(sources)
    for repeat in range(repeats):
        for index, row in enumerate(sources):
            records.append(_one(index, row, repeat, processor, guard))
            if progress is not None:
                progress(len(records), total)
    return records


def _one(
    index: int, row: SourceRow, repeat: int, processor: Processor, guard: LexicalGuard | None
) -> OutputRecord:
    if row.hypothesis is None:
        return OutputRecord(
            index, repeat, None, None, False, f"source_missing:{row.status}", None, skipped=True
        )
    output = processor.process(row.hypothesis, row.language)
    detail = dict(output.detail)
    if output.text is None:
        return OutputRecord(
            index, repeat, None, row.hypothesis, False, output.reason, output.seconds, False, detail
        )
    if guard is not None:
        verdict = guard.check(row.hypothesis, output.text)
        if not verdict.accepted:
            detail["guard"] = verdict.detail
            return OutputRecord(
                index,
                repeat,
                output.text,
                row.hypothesis,
                False,
                verdict.reason,
                output.seconds,
                False,
                detail,
            )
    return OutputRecord(
        index, repeat, output.text, output.text, True, None, output.seconds, False, detail
    )


# --- summary ----------------------------------------------------------------------------


def _estimate(
    boot: BootstrapSettings,
    columns: Sequence[Sequence[float]],
    statistic: Statistic,
    clusters: Sequence[str],
    null_reason: str,
) -> Figure:
    """The statistic on all outputs with its clip bootstrap CI; None with `null_reason`
    when it is undefined.

    Every call on the same columns, clusters and seed resamples the same clips, so the
    raw, delivered and difference intervals below share their replicates.
    """
    if not clusters:
        return Figure(None, None, "no outputs")
    with np.errstate(divide="ignore", invalid="ignore"):
        full = [np.asarray(c, dtype=np.float64).sum() for c in columns]
        value = float(statistic(*full))
    block = stat_block(
        value if np.isfinite(value) else None, null_reason, columns, statistic, clusters, boot
    )
    return Figure.from_block(block)


def _acceptance(
    sources: Sequence[SourceRow], records: Sequence[OutputRecord], boot: BootstrapSettings
) -> Acceptance:
    done = [r for r in records if not r.skipped]
    clusters = [sources[r.source].cluster_key for r in done]
    accepted = [int(r.accepted) for r in done]
    per_output = _estimate(
        boot, (accepted, [1] * len(done)), nan_ratio, clusters, "no processed outputs"
    )
    by_clip: dict[str, bool] = {}
    for r, key in zip(done, clusters, strict=True):
        by_clip[key] = by_clip.get(key, True) and r.accepted
    passed = [int(v) for v in by_clip.values()]
    per_clip = _estimate(
        boot, (passed, [1] * len(passed)), nan_ratio, list(by_clip), "no processed clips"
    )
    per_repeat: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for r in done:
        per_repeat[r.repeat][0] += int(r.accepted)
        per_repeat[r.repeat][1] += 1
    unchanged = sum(r.accepted and r.candidate == sources[r.source].hypothesis for r in done)
    reasons = Counter("null" if r.reason is None else r.reason for r in done if not r.accepted)
    return Acceptance(
        accepted=sum(accepted),
        total=len(done),
        per_output=per_output,
        clips_passed=sum(passed),
        clips_total=len(passed),
        per_clip=per_clip,
        per_repeat=tuple((k, v[0], v[1]) for k, v in sorted(per_repeat.items())),
        changed_and_delivered=sum(accepted) - unchanged,
        accepted_unchanged=unchanged,
        source_retained=len(done) - sum(accepted),
        reasons=dict(sorted(reasons.items())),
    )


def _punctuation(
    sources: Sequence[SourceRow], records: Sequence[OutputRecord], boot: BootstrapSettings
) -> PunctuationSummary:
    memo: dict[tuple[str, str], PunctuationCounts] = {}  # repeats share most pairs

    def counts(reference: str, text: str | None) -> PunctuationCounts:
        pair = (reference, text or "")
        if pair not in memo:
            # seed 001's formatter study counts every mark (its scorer removes all of P*)
            memo[pair] = punctuation_counts(*pair, mark_rule=EVERY_MARK)
        return memo[pair]

    raw = [counts(sources[r.source].reference, sources[r.source].hypothesis) for r in records]
    delivered = [counts(sources[r.source].reference, r.delivered) for r in records]
    clusters = [sources[r.source].cluster_key for r in records]
    # One column set for every statistic, so all share the same resampled clips.
    columns = (
        [c.position_matches for c in raw],
        [c.type_matches for c in raw],
        [c.ref_marks for c in raw],
        [c.hyp_marks for c in raw],
        [c.position_matches for c in delivered],
        [c.type_matches for c in delivered],
        [c.hyp_marks for c in delivered],
    )
    no_marks = "no punctuation marks in the references or the texts"

    def f1(side: str, kind: str) -> Figure:
        def statistic(rp: Any, rt: Any, ref: Any, rh: Any, dp: Any, dt: Any, dh: Any) -> Any:
            raw_f1 = f1_of(rp if kind == "position" else rt, ref, rh)
            delivered_f1 = f1_of(dp if kind == "position" else dt, ref, dh)
            if side == "raw":
                return raw_f1
            if side == "delivered":
                return delivered_f1
            return delivered_f1 - raw_f1

        return _estimate(boot, columns, statistic, clusters, no_marks)

    def side(name: str, counts: Sequence[PunctuationCounts]) -> PunctuationSide:
        total = sum(counts, PunctuationCounts())
        return PunctuationSide(
            ref_marks=total.ref_marks,
            hyp_marks=total.hyp_marks,
            position_matches=total.position_matches,
            type_matches=total.type_matches,
            position_precision=total.position_precision(),
            position_recall=total.position_recall(),
            type_precision=total.type_precision(),
            type_recall=total.type_recall(),
            position_f1=f1(name, "position"),
            type_f1=f1(name, "type"),
        )

    return PunctuationSummary(
        raw=side("raw", raw),
        delivered=side("delivered", delivered),
        position_f1_difference=f1("difference", "position"),
        type_f1_difference=f1("difference", "type"),
        n_outputs=len(records),
        n_clusters=len(set(clusters)),
    )


def _cer(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    boot: BootstrapSettings,
    expect_equal: bool,
) -> CerSummary:
    from rapidfuzz.distance import Levenshtein

    ref_chars: list[int] = []
    raw_errors: list[int] = []
    delivered_errors: list[int] = []
    violations: list[CerViolation] = []
    for r in records:
        source = sources[r.source]
        reference = content_characters(source.reference)
        raw_content = content_characters(source.hypothesis or "")
        delivered_content = content_characters(r.delivered or "")
        ref_chars.append(len(reference))
        raw_errors.append(Levenshtein.distance(reference, raw_content))
        delivered_errors.append(Levenshtein.distance(reference, delivered_content))
        if expect_equal and delivered_content != raw_content:
            violations.append(CerViolation(source.id, r.repeat, r.accepted))
    clusters = [sources[r.source].cluster_key for r in records]
    columns = (raw_errors, delivered_errors, ref_chars)
    empty = "no reference content characters"
    return CerSummary(
        definition=CER_DEFINITION,
        ref_chars=sum(ref_chars),
        raw_errors=sum(raw_errors),
        raw=_estimate(boot, columns, lambda a, b, n: nan_ratio(a, n), clusters, empty),
        delivered_errors=sum(delivered_errors),
        delivered=_estimate(boot, columns, lambda a, b, n: nan_ratio(b, n), clusters, empty),
        difference=_estimate(
            boot, columns, lambda a, b, n: nan_ratio(b, n) - nan_ratio(a, n), clusters, empty
        ),
        equal=sum(raw_errors) == sum(delivered_errors) and not violations,
        expected_equal=expect_equal,
        violations=tuple(violations),
    )


def _determinism(records: Sequence[OutputRecord], repeats: int) -> Determinism:
    if repeats < 2:
        return Determinism(None, None)
    outputs: dict[int, set[tuple[str | None, str | None]]] = defaultdict(set)
    delivered: dict[int, set[str | None]] = defaultdict(set)
    for r in records:
        if r.skipped:
            continue
        outputs[r.source].add((r.candidate, r.reason if r.candidate is None else None))
        delivered[r.source].add(r.delivered)
    return Determinism(
        identical=sum(len(v) == 1 for v in outputs.values()),
        total=len(outputs),
        identical_delivered=sum(len(v) == 1 for v in delivered.values()),
    )


def _timing(records: Sequence[OutputRecord]) -> Timing:
    seconds = [r.seconds for r in records if r.seconds is not None]
    if not seconds:
        return Timing(calls=0)
    return Timing(
        calls=len(seconds),
        median=statistics.median(seconds),
        p95=float(np.quantile(seconds, 0.95)),
        max=max(seconds),
        total=sum(seconds),
        first_call=seconds[0],
    )


def _block(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    boot: BootstrapSettings,
    repeats: int,
    expect_equal: bool,
) -> EvaluationBlock:
    used = {r.source for r in records}
    changed = sum(not r.skipped and r.delivered != sources[r.source].hypothesis for r in records)
    return EvaluationBlock(
        n_transcripts=len(used),
        n_clusters=len({sources[i].cluster_key for i in used}),
        n_outputs=len(records),
        n_skipped=sum(r.skipped for r in records),
        delivered_changed=changed,
        acceptance=_acceptance(sources, records, boot),
        punctuation=_punctuation(sources, records, boot),
        cer=_cer(sources, records, boot, expect_equal),
        determinism=_determinism(records, repeats),
    )


#: 10,000 resamples, the default seed, 95%: the settings of `earmark postprocess`.
_DEFAULT_BOOTSTRAP = BootstrapSettings()


def summarise(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    *,
    repeats: int,
    guard: LexicalGuard | None,
    bootstrap: BootstrapSettings = _DEFAULT_BOOTSTRAP,
) -> PostprocessSummary:
    """Acceptance, punctuation F1 raw vs delivered, CER check, determinism and timing,
    overall and per language. Pure: a function of the records alone."""
    expect_equal = guard is not None and not guard.changes_content
    by_language: dict[str, list[OutputRecord]] = defaultdict(list)
    for r in records:
        by_language[sources[r.source].language or "und"].append(r)
    overall = _block(sources, records, bootstrap, repeats, expect_equal)
    warnings: list[str] = []
    if overall.cer.invariant_holds is False:
        warnings.append(
            f"CER INVARIANT VIOLATED: {len(overall.cer.violations)} guarded output(s) "
            "delivered content that differs from the source; this is a bug in the guard or "
            "the evaluation, and the delivered figures must not be trusted"
        )
    return PostprocessSummary(
        repeats=repeats,
        guarded=guard is not None,
        bootstrap=bootstrap,
        overall=overall,
        by_language={
            lang: _block(sources, recs, bootstrap, repeats, expect_equal)
            for lang, recs in sorted(by_language.items())
        },
        timing=_timing(records),
        skipped=tuple(
            SkippedOutput(sources[r.source].id, r.repeat, r.reason) for r in records if r.skipped
        ),
        warnings=tuple(warnings),
    )
