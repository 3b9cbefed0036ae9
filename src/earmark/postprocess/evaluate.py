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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from earmark.formats.rows import ClusterKeyed
from earmark.metrics.punctuation import (
    EVERY_MARK,
    PunctuationCounts,
    content_characters,
    punctuation_counts,
)
from earmark.postprocess.guard import LexicalGuard
from earmark.postprocess.processors import Processor
from earmark.scoring.extra_metrics import f1_of, nan_ratio, stat_block
from earmark.stats.settings import BootstrapSettings

CER_DEFINITION = (
    "content CER (seed 001): Levenshtein distance between the content characters of the "
    "reference and the text (punctuation and whitespace removed, NFKC, lower-cased), "
    "summed over outputs and divided by the summed reference content characters"
)
ONE_REPEAT = "one repeat per transcript: determinism is not measured"


@dataclass(frozen=True)
class SourceRow(ClusterKeyed):
    """One saved transcript to post-process. `hypothesis=None` means the recogniser gave
    none (its `status` says why): it is not sent to the processor and stays missing."""

    id: str
    reference: str
    hypothesis: str | None
    language: str | None = None
    slices: tuple[str, ...] = ()
    status: str = "ok"
    cluster: str | None = None
    #: The recogniser's repeat index when the run transcribed each clip several times.
    source_repeat: int = 0


@dataclass(frozen=True)
class OutputRecord:
    """One processor call on one transcript (or the record of why none was made)."""

    source: int
    repeat: int
    candidate: str | None
    delivered: str | None
    accepted: bool
    reason: str | None
    seconds: float | None
    skipped: bool = False
    detail: dict[str, Any] = field(default_factory=dict)


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
    statistic: Callable[..., Any],
    clusters: Sequence[str],
    null_reason: str,
) -> dict[str, Any]:
    """{value, ci95}; None with `null_reason` when the statistic is undefined.

    Every call on the same columns, clusters and seed resamples the same clips, so the
    raw, delivered and difference intervals below share their replicates.
    """
    if not clusters:
        return {"value": None, "ci95": None, "null_reason": "no outputs"}
    with np.errstate(divide="ignore", invalid="ignore"):
        full = [np.asarray(c, dtype=np.float64).sum() for c in columns]
        value = float(statistic(*full))
    return stat_block(
        value if np.isfinite(value) else None, null_reason, columns, statistic, clusters, boot
    )


def _acceptance(
    sources: Sequence[SourceRow], records: Sequence[OutputRecord], boot: BootstrapSettings
) -> dict[str, Any]:
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
    return {
        "per_output": {"accepted": sum(accepted), "total": len(done), **per_output},
        "per_clip": {
            "passed": sum(passed),
            "total": len(passed),
            "rule": "a clip passes only when every output of it was accepted",
            **per_clip,
        },
        "per_repeat": [
            {"repeat": k, "accepted": v[0], "total": v[1]} for k, v in sorted(per_repeat.items())
        ],
        "outcomes": {
            "changed_and_delivered": sum(accepted) - unchanged,
            "accepted_unchanged": unchanged,
            "source_retained": len(done) - sum(accepted),
        },
        "reasons": dict(sorted(Counter(r.reason for r in done if not r.accepted).items())),
    }


def _punctuation(
    sources: Sequence[SourceRow], records: Sequence[OutputRecord], boot: BootstrapSettings
) -> dict[str, Any]:
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

    def f1(side: str, kind: str) -> Callable[..., Any]:
        def statistic(rp: Any, rt: Any, ref: Any, rh: Any, dp: Any, dt: Any, dh: Any) -> Any:
            raw_f1 = f1_of(rp if kind == "position" else rt, ref, rh)
            delivered_f1 = f1_of(dp if kind == "position" else dt, ref, dh)
            if side == "raw":
                return raw_f1
            if side == "delivered":
                return delivered_f1
            return delivered_f1 - raw_f1

        return statistic

    def side(name: str, counts: Sequence[PunctuationCounts]) -> dict[str, Any]:
        total = sum(counts, PunctuationCounts())
        return {
            "ref_marks": total.ref_marks,
            "hyp_marks": total.hyp_marks,
            "position_matches": total.position_matches,
            "type_matches": total.type_matches,
            "position_precision": total.position_precision(),
            "position_recall": total.position_recall(),
            "type_precision": total.type_precision(),
            "type_recall": total.type_recall(),
            "position_f1": _estimate(boot, columns, f1(name, "position"), clusters, no_marks),
            "type_f1": _estimate(boot, columns, f1(name, "type"), clusters, no_marks),
        }

    return {
        "raw": side("raw", raw),
        "delivered": side("delivered", delivered),
        "difference": {
            "definition": "delivered F1 - raw F1, same resampled clips in every replicate",
            "position_f1": _estimate(
                boot, columns, f1("difference", "position"), clusters, no_marks
            ),
            "type_f1": _estimate(boot, columns, f1("difference", "type"), clusters, no_marks),
        },
        "n_outputs": len(records),
        "n_clusters": len(set(clusters)),
    }


def _cer(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    boot: BootstrapSettings,
    expect_equal: bool,
) -> dict[str, Any]:
    from rapidfuzz.distance import Levenshtein

    ref_chars: list[int] = []
    raw_errors: list[int] = []
    delivered_errors: list[int] = []
    violations: list[dict[str, Any]] = []
    for r in records:
        source = sources[r.source]
        reference = content_characters(source.reference)
        raw_content = content_characters(source.hypothesis or "")
        delivered_content = content_characters(r.delivered or "")
        ref_chars.append(len(reference))
        raw_errors.append(Levenshtein.distance(reference, raw_content))
        delivered_errors.append(Levenshtein.distance(reference, delivered_content))
        if expect_equal and delivered_content != raw_content:
            violations.append({"id": source.id, "repeat": r.repeat, "accepted": r.accepted})
    clusters = [sources[r.source].cluster_key for r in records]
    columns = (raw_errors, delivered_errors, ref_chars)
    empty = "no reference content characters"
    equal = sum(raw_errors) == sum(delivered_errors) and not violations
    out: dict[str, Any] = {
        "definition": CER_DEFINITION,
        "ref_chars": sum(ref_chars),
        "raw": {
            "errors": sum(raw_errors),
            **_estimate(boot, columns, lambda a, b, n: nan_ratio(a, n), clusters, empty),
        },
        "delivered": {
            "errors": sum(delivered_errors),
            **_estimate(boot, columns, lambda a, b, n: nan_ratio(b, n), clusters, empty),
        },
        "difference": _estimate(
            boot, columns, lambda a, b, n: nan_ratio(b, n) - nan_ratio(a, n), clusters, empty
        ),
        "equal": equal,
        "expected_equal": expect_equal,
    }
    if expect_equal:
        out["invariant"] = {
            "rule": "under the lexical guard, delivered content equals the source content, "
            "so delivered CER equals raw CER by construction (not an accuracy gain)",
            "holds": not violations,
            "violations": violations,
        }
    return out


def _determinism(
    sources: Sequence[SourceRow], records: Sequence[OutputRecord], repeats: int
) -> dict[str, Any]:
    if repeats < 2:
        return {"value": None, "null_reason": ONE_REPEAT, "identical": None, "total": None}
    outputs: dict[int, set[tuple[str | None, str | None]]] = defaultdict(set)
    delivered: dict[int, set[str | None]] = defaultdict(set)
    for r in records:
        if r.skipped:
            continue
        outputs[r.source].add((r.candidate, r.reason if r.candidate is None else None))
        delivered[r.source].add(r.delivered)
    total = len(outputs)
    identical = sum(len(v) == 1 for v in outputs.values())
    identical_delivered = sum(len(v) == 1 for v in delivered.values())
    return {
        "rule": "a transcript is deterministic when all its repeats gave the same candidate "
        "(or the same failure reason)",
        "identical": identical,
        "total": total,
        "value": identical / total if total else None,
        "identical_delivered": identical_delivered,
        "delivered_value": identical_delivered / total if total else None,
        **({} if total else {"null_reason": "no processed transcripts"}),
    }


def _timing(records: Sequence[OutputRecord]) -> dict[str, Any]:
    seconds = [r.seconds for r in records if r.seconds is not None]
    if not seconds:
        return {"calls": 0, "median": None, "p95": None, "max": None, "total": None}
    return {
        "calls": len(seconds),
        "median": statistics.median(seconds),
        "p95": float(np.quantile(seconds, 0.95)),
        "max": max(seconds),
        "total": sum(seconds),
        "first_call": seconds[0],
        "note": "first-call (model load) time is included, not removed",
    }


def _block(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    boot: BootstrapSettings,
    repeats: int,
    expect_equal: bool,
) -> dict[str, Any]:
    used = {r.source for r in records}
    changed = sum(not r.skipped and r.delivered != sources[r.source].hypothesis for r in records)
    return {
        "n_transcripts": len(used),
        "n_clusters": len({sources[i].cluster_key for i in used}),
        "n_outputs": len(records),
        "n_skipped": sum(r.skipped for r in records),
        "delivered_changed": changed,
        "acceptance": _acceptance(sources, records, boot),
        "punctuation": _punctuation(sources, records, boot),
        "cer": _cer(sources, records, boot, expect_equal),
        "determinism": _determinism(sources, records, repeats),
    }


#: 10,000 resamples, the default seed, 95%: the settings of `earmark postprocess`.
_DEFAULT_BOOTSTRAP = BootstrapSettings()


def summarise(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    *,
    repeats: int,
    guard: LexicalGuard | None,
    bootstrap: BootstrapSettings = _DEFAULT_BOOTSTRAP,
) -> dict[str, Any]:
    """Acceptance, punctuation F1 raw vs delivered, CER check, determinism and timing,
    overall and per language. Pure: a function of the records alone."""
    expect_equal = guard is not None and not guard.changes_content
    by_language: dict[str, list[OutputRecord]] = defaultdict(list)
    for r in records:
        by_language[sources[r.source].language or "und"].append(r)
    overall = _block(sources, records, bootstrap, repeats, expect_equal)
    warnings: list[str] = []
    invariant = overall["cer"].get("invariant")
    if invariant is not None and not invariant["holds"]:
        warnings.append(
            f"CER INVARIANT VIOLATED: {len(invariant['violations'])} guarded output(s) "
            "delivered content that differs from the source; this is a bug in the guard or "
            "the evaluation, and the delivered figures must not be trusted"
        )
    skipped = [
        {"id": sources[r.source].id, "repeat": r.repeat, "reason": r.reason}
        for r in records
        if r.skipped
    ]
    return {
        "repeats": repeats,
        "guarded": guard is not None,
        "bootstrap": {
            **bootstrap.to_dict(),
            "method": "percentile",
            "unit": "clip: every output of a clip (all repeats) is resampled together",
        },
        "overall": overall,
        "by_language": {
            lang: _block(sources, recs, bootstrap, repeats, expect_equal)
            for lang, recs in sorted(by_language.items())
        },
        "timing": _timing(records),
        "skipped": skipped,
        "warnings": warnings,
    }


def record_dicts(
    sources: Sequence[SourceRow], records: Sequence[OutputRecord]
) -> list[dict[str, Any]]:
    """Per-output records for postprocess.json (every repeat, nothing dropped)."""
    out = []
    for r in records:
        source = sources[r.source]
        out.append(
            {
                "id": source.id,
                "cluster": source.cluster_key,
                "source_repeat": source.source_repeat,
                "repeat": r.repeat,
                "language": source.language,
                "status": source.status,
                "source": source.hypothesis,
                "candidate": r.candidate,
                "delivered": r.delivered,
                "accepted": r.accepted,
                "reason": r.reason,
                "changed": (not r.skipped) and r.delivered != source.hypothesis,
                "seconds": r.seconds,
                "skipped": r.skipped,
                **({"detail": r.detail} if r.detail else {}),
            }
        )
    return out
