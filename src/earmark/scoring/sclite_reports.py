"""sclite-style reports of a scored corpus: `.sys`/`.raw` by speaker, `.pra`, `.dtl`.

The counts come from the same normalised texts as results.json (each row's primary
view), aligned word by word with earmark's alignment (`metrics.alignment`: fewest edits,
rapidfuzz's tie rule), with sclite's weighted one (`metrics.sclite_alignment`: sub 4,
ins/del 3) or with Kaldi's (`metrics.kaldi_alignment`: `compute-wer`'s tie rule). The
choice is recorded; with `alignment="sclite"` the S/D/I split of every utterance is the
one `sctk sclite` prints, so the `.sys` table can be checked line by line against
sclite's, and with `"kaldi"` the one `compute-wer` prints. The headline word counts of
results.json and the error analysis come from the same alignment
(`scoring.word_counter`), so the block's total and the primary view's word S/D/I agree
whatever alignment is chosen. Between alignments the totals of errors differ only where
sclite's weights prefer a path with more edits (rare: see `metrics.sclite_alignment`;
Kaldi's total is always the edit distance, earmark's too).

The tables are `scoring.sclite_tables`, their text `scoring.sclite_text`: every figure
of `.sys`, `.raw` and `.dtl` is printed as sclite prints it (`sclite_figure`: half away
from zero; a percentage is part / whole * 100; the S.D. is held in a C float), checked
cell by cell against `sctk sclite` in tests/scoring.

Alternates and optional words (a `--glm` rules file, or sclite markup in trn
references) are honoured here, in this block's alignment (`metrics.slot_alignment`),
always at sclite's weights (an optional word's deletion costs 2 only against those),
as `sctk sclite -D` scores them. The block then records `glm` (name, SHA-256,
version) and `reference_markup` (how many rows carried markup).

Speaker of a row: the `speaker` an stm segment or trn id gave it (`row.extra`), else
the part of the id before its first `-`, else the whole id (earmark's rule, the default).
With `id_format` (`--id-format rm|spu_id|swb|wsj`; `earmark` names the default) the
speaker of every row that is not an stm segment is read from its id by sclite's rule of
that name
(`formats.trn.sclite_speaker`), and an id sclite finds no speaker in is counted under the
previous row's speaker, as sclite does. sclite takes that order from the hypothesis
file, earmark from the reference file: the two agree when both list the utterances in
one order (the usual case).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from earmark.errors import EarmarkError
from earmark.formats.sclite_markup import markup_slots, plain_text
from earmark.formats.trn import IdFormat, sclite_speaker, speaker_rule, trn_speaker
from earmark.metrics.slot_alignment import Slot, align_slots
from earmark.results.codec import JSONValue
from earmark.scoring.glm import Glm
from earmark.scoring.sclite_tables import (
    EditTables,
    UtteranceAlignment,
    speaker_lines,
    total_line,
)
from earmark.scoring.sclite_text import write_sclite_reports
from earmark.scoring.word_counter import (
    ALIGNMENT_RULES,
    AlignmentName,
    align_words,
    checked_alignment,
)

if TYPE_CHECKING:
    from earmark.scoring.scorer import ScoreResult


def reference_slots(
    ref_tokens: Sequence[str], extra: dict[str, JSONValue], glm: Glm | None, row_id: str
) -> list[Slot] | None:
    """The slots a reference aligns as, or None when it has no markup and no GLM applies.

    Markup is read from the raw trn text, so the normalised reference must still be its
    plain text (true with `--normalizer none`); otherwise the slots would not line up
    with the tokens, and that is refused rather than guessed."""
    markup = extra.get("reference_markup")
    if markup is None:
        return None if glm is None else [glm.slot(t) for t in ref_tokens]
    slots = markup_slots(str(markup))
    if plain_text(slots).split() != list(ref_tokens):
        raise EarmarkError(
            f"reference {row_id!r} has sclite markup but its normalised text differs",
            field="normalizer",
            hint="score trn references with markup using --normalizer none",
        )
    return slots if glm is None else [glm.widen(slot) for slot in slots]


def speaker_of(row_id: str, extra: dict[str, JSONValue] | None) -> str:
    """The speaker a row is reported under (see the module docstring)."""
    if extra and isinstance(extra.get("speaker"), str) and extra["speaker"]:
        return str(extra["speaker"])
    return trn_speaker(row_id)


def sclite_speakers(
    ids: Iterable[str], extras: Mapping[str, Mapping[str, JSONValue]], id_format: IdFormat
) -> dict[str, str]:
    """Each row's speaker under sclite's `-i ID_FORMAT`, in row order (see the module
    docstring); stm segments keep the speaker their line names."""
    out: dict[str, str] = {}
    previous = ""
    for row_id in ids:
        extra = extras.get(row_id) or {}
        speaker: str | None
        if "file" in extra and isinstance(extra.get("speaker"), str):
            speaker = str(extra["speaker"])
        else:
            speaker = sclite_speaker(row_id, id_format)
        previous = out[row_id] = previous if speaker is None else speaker
    return out


def sclite_section(
    alignments: Sequence[UtteranceAlignment],
    alignment: AlignmentName,
    *,
    not_aligned: Sequence[dict[str, str]] = (),
    id_format: IdFormat | None = None,
) -> dict[str, JSONValue]:
    """results.json's `sclite` block: per-speaker and total counts, the full edit tables."""
    lines = speaker_lines(alignments)
    return {
        "alignment": alignment,
        "alignment_rule": ALIGNMENT_RULES[alignment],
        **({} if id_format is None else {"id_format": id_format}),
        "speaker_rule": speaker_rule(id_format),
        "speakers": [x.to_dict() for x in lines],
        "total": total_line(lines).to_dict(),
        **EditTables.of(alignments).to_dict(),
        "not_aligned": cast("JSONValue", list(not_aligned)),
    }


def utterance_alignments(
    records: Iterable[Mapping[str, JSONValue]],
    primary_views: Mapping[str, tuple[str, str]],
    alignment: AlignmentName,
    extras: dict[str, dict[str, JSONValue]],
    glm: Glm | None = None,
    speakers: Mapping[str, str] | None = None,
) -> tuple[list[UtteranceAlignment], list[dict[str, str]]]:
    """Align each scored record's primary view; rows without one are listed, not dropped.

    `primary_views` maps a normaliser name to (primary view, first unit); `extras` maps
    a row id to its reader's `extra` (speaker, file, channel, label); `speakers`, when
    given (`sclite_speakers`), a row id to its speaker.
    """
    out: list[UtteranceAlignment] = []
    missing: list[dict[str, str]] = []
    for record in records:
        row_id = str(record["id"])
        view, unit = primary_views[str(record["normalizer"])]
        views = record["views"]
        texts = views.get(view, {}) if isinstance(views, dict) else {}
        if not isinstance(texts, dict) or "reference" not in texts:
            reason = texts.get("null_reason", "no view") if isinstance(texts, dict) else "no view"
            missing.append({"id": row_id, "reason": str(reason)})
            continue
        ref, hyp = str(texts["reference"]), str(texts["hypothesis"])
        ref_tokens = ref.split() if unit == "word" else list(ref)
        hyp_tokens = hyp.split() if unit == "word" else list(hyp)
        extra = extras.get(row_id) or {}
        slots = reference_slots(ref_tokens, extra, glm, row_id)
        if slots is None:
            done = align_words(ref_tokens, hyp_tokens, alignment)
        else:  # sclite's weights whatever `alignment` says: see the module docstring
            done = align_slots(slots, hyp_tokens)
        ops, counts = done.ops, done.counts
        info = tuple((key, str(extra[key])) for key in ("label", "file", "channel") if key in extra)
        speaker = speakers[row_id] if speakers else speaker_of(row_id, extra)
        out.append(UtteranceAlignment(row_id, speaker, ops, counts, info))
    return out, missing


def sclite_reports_section(
    scored: ScoreResult,
    *,
    name: str,
    alignment: str,
    out_dir: str | os.PathLike[str] | None,
    glm: Glm | None = None,
    id_format: IdFormat | None = None,
) -> dict[str, JSONValue]:
    """An arm's `sclite` block from the scored corpus (its rows, groups and records) and,
    with `out_dir`, the report files it names; `id_format` reads speakers by sclite's
    `-i` rule of that name."""
    chosen = checked_alignment(alignment)
    primary = {
        gname: (g.normalizer.primary_view, g.normalizer.units[0])
        for gname, g in scored.groups.items()
    }
    extras = {r.id: r.extra for r in scored.rows if r.extra}
    speakers = (
        None
        if id_format is None
        else sclite_speakers((r.id for r in scored.rows), extras, id_format)
    )
    alignments, missing = utterance_alignments(
        scored.iter_records(), primary, chosen, extras, glm, speakers
    )
    section = sclite_section(alignments, chosen, not_aligned=missing, id_format=id_format)
    if glm is not None:
        section["glm"] = dict(glm.component)
    marked = sum(1 for e in extras.values() if "reference_markup" in e)
    if marked:
        section["reference_markup"] = marked
    outside = sum(int(cast("int", e.get("ctm_words_outside", 0))) for e in extras.values())
    if outside:
        section["ctm_words_outside_segments"] = outside
    if out_dir is not None:
        section["files"] = cast("JSONValue", write_sclite_reports(out_dir, name, alignments))
    return section


__all__ = [
    "sclite_reports_section",
    "sclite_section",
    "utterance_alignments",
]
