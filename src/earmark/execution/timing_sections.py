"""An arm's long-recording and timestamp figures, from the store's rows and the manifest's
reference timings (`custom.segments`, `custom.words`).

Both pair each manifest recording with its row per repeat; a repeat's row is its own
recording (`id#repeat`), and a row decoded to silence has empty timings, not none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from earmark.corpus.model import Utterance
from earmark.results.codec import JSONObject
from earmark.rundir.predictions import RunRow

if TYPE_CHECKING:
    from earmark.execution.plan import RunPlan
    from earmark.scoring.options import ScoringOptions


def _rows_by_key(rows: Sequence[RunRow]) -> dict[tuple[str, int], RunRow]:
    return {(r["id"], r.get("repeat", 0)): r for r in rows}


def _recording_id(utt: Utterance, repeat: int, plan: RunPlan) -> str:
    return utt.id if plan.repeats == 1 else f"{utt.id}#{repeat}"


def long_form(
    utterances: Sequence[Utterance],
    rows: Sequence[RunRow],
    plan: RunPlan,
    scoring: ScoringOptions,
) -> JSONObject | None:
    """Seed 000's long-recording figures (CER by interval, omissions, repeats) when the
    manifest rows carry reference segments (`custom.segments`); None otherwise."""
    if not any(u.custom.get("segments") for u in utterances):
        return None
    from earmark.scoring.long_form_section import long_form_section

    recordings = []
    rows_by_key = _rows_by_key(rows)
    for utt in utterances:
        for repeat in range(plan.repeats):
            row = rows_by_key.get((utt.id, repeat), RunRow())
            hyp_segments = row.get("segments")
            if hyp_segments is None and row.get("status") == "ok" and not row.get("hypothesis"):
                hyp_segments = []  # decoded, but said nothing: every interval is omitted
            recordings.append(
                {
                    "id": _recording_id(utt, repeat, plan),
                    "cluster": utt.id,  # repeats of one recording are one bootstrap cluster
                    "language": utt.language,
                    "reference_segments": utt.custom.get("segments"),
                    "hypothesis_segments": hyp_segments if row.get("status") == "ok" else None,
                }
            )
    return long_form_section(
        recordings,
        scoring.policy,
        resamples=plan.bootstrap,
        seed=plan.seed,
        level=scoring.bootstrap.level,
        generator=scoring.bootstrap.generator,
    )


def timestamps(
    utterances: Sequence[Utterance],
    rows: Sequence[RunRow],
    plan: RunPlan,
    scoring: ScoringOptions,
) -> JSONObject | None:
    """Word and segment boundary offsets when manifest rows carry reference timings
    (`custom.segments`, `custom.words`) and predictions carry the system's; None otherwise."""
    if not any(u.custom.get("segments") or u.custom.get("words") for u in utterances):
        return None
    from earmark.scoring.timestamps_section import timestamps_section

    recordings = []
    rows_by_key = _rows_by_key(rows)
    for utt in utterances:
        if not (utt.custom.get("segments") or utt.custom.get("words")):
            continue
        for repeat in range(plan.repeats):
            row = rows_by_key.get((utt.id, repeat), RunRow())
            ok = row.get("status") == "ok"
            silent = ok and not row.get("hypothesis")  # decoded, said nothing: all unpaired
            recordings.append(
                {
                    "id": _recording_id(utt, repeat, plan),
                    "language": utt.language,
                    "reference_segments": utt.custom.get("segments"),
                    "reference_words": utt.custom.get("words"),
                    "hypothesis_segments": row.get("segments", [] if silent else None)
                    if ok
                    else None,
                    "hypothesis_words": row.get("words", [] if silent else None) if ok else None,
                }
            )
    return timestamps_section(recordings, scoring.policy)
