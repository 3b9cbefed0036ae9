"""Reading the transcripts to post-process, and writing what the evaluation delivered.

Input: an earmark run directory or an `earmark score` output directory (or its
`predictions.jsonl` directly): rows with `id`, `reference`, `hypothesis`, `language`, and
optionally `arm`, `repeat`, `slices`, `status`, `cluster`/`clip`.

Output, in DIR2: `postprocess.json` (schema `earmark.postprocess/1`: the processor
record, the guard, every output record and the summary), `postprocess.md`, and a
delivered `predictions.jsonl` that `earmark score` reads (`clip` keeps a clip's repeats
together in its bootstrap), and last `artefacts.sha256` (`earmark.artefacts`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from earmark.artefacts import write_artefacts
from earmark.errors import EarmarkError
from earmark.outputs import atomic_write_text, claim_output_folder
from earmark.postprocess.report import OutputRecord, PostprocessReport, SourceInfo, SourceRow
from earmark.results.codec import JSONValue
from earmark.rundir.layout import POSTPROCESS, POSTPROCESS_MARKDOWN, PREDICTIONS
from earmark.rundir.predictions import parse_prediction_objects, predictions_file


def predictions_path(path: str | os.PathLike[str]) -> Path:
    return predictions_file(
        path, hint="--run takes an earmark run directory or an `earmark score` output directory"
    )


def _string(record: Mapping[str, object], name: str, path: Path, line: int) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise EarmarkError("missing or not a string", file=str(path), line=line, field=name)
    return value


def read_sources(
    path: str | os.PathLike[str], *, arm: str | None = None
) -> tuple[list[SourceRow], SourceInfo]:
    """The transcripts of one arm, in file order, and a record of where they came from."""
    file = predictions_path(path)
    raw = file.read_bytes()
    records = parse_prediction_objects(raw, str(file))
    arms = sorted({str(r["arm"]) for _, r in records if r.get("arm") is not None})
    if arm is None and len(arms) > 1:
        raise EarmarkError(
            f"the run has {len(arms)} arms; choose one with --arm",
            file=str(file),
            hint=f"arms: {', '.join(arms)}",
        )
    if arm is not None and arm not in arms:
        raise EarmarkError(
            f"no arm {arm!r} in this run", file=str(file), hint=f"arms: {', '.join(arms) or '-'}"
        )
    chosen = arm if arm is not None else (arms[0] if arms else None)
    sources: list[SourceRow] = []
    seen: dict[tuple[str, int, str], int] = {}
    for number, record in records:
        if chosen is not None and record.get("arm") != chosen:
            continue
        ident = _string(record, "id", file, number)
        hypothesis = record.get("hypothesis")
        if hypothesis is not None and not isinstance(hypothesis, str):
            raise EarmarkError("not a string", file=str(file), line=number, field="hypothesis")
        slices = record.get("slices") or []
        if not isinstance(slices, list) or not all(isinstance(s, str) for s in slices):
            raise EarmarkError(
                "expected a list of strings", file=str(file), line=number, field="slices"
            )
        cluster = record.get("cluster") or record.get("clip")
        repeat = int(record.get("repeat") or 0)
        key = (ident, repeat, str(cluster))
        if key in seen:
            raise EarmarkError(
                f"duplicate row for id {ident!r} repeat {repeat} (first on line {seen[key]})",
                file=str(file),
                line=number,
                field="id",
            )
        seen[key] = number
        status = record.get("status") or ("ok" if hypothesis is not None else "missing_hypothesis")
        sources.append(
            SourceRow(
                id=ident,
                reference=_string(record, "reference", file, number),
                hypothesis=hypothesis,
                language=record.get("language") or None,
                slices=tuple(slices),
                status=str(status),
                cluster=str(cluster) if cluster else None,
                source_repeat=repeat,
            )
        )
    if not sources:
        raise EarmarkError("no rows to post-process", file=str(file))
    info = SourceInfo(
        path=str(Path(path)),
        predictions=str(file),
        predictions_sha256=hashlib.sha256(raw).hexdigest(),
        arm=chosen,
        n_rows=len(sources),
    )
    return sources, info


def delivered_rows(
    sources: Sequence[SourceRow],
    records: Sequence[OutputRecord],
    *,
    repeats: int,
    processor_kind: str,
    source_arm: str | None,
) -> list[dict[str, JSONValue]]:
    """One scoreable row per output: `hypothesis` is the delivered text, `clip` the
    bootstrap cluster, and ids stay unique (`ID#repeat`, or `ID#asr.repeat`)."""
    several_asr = any(s.source_repeat for s in sources)
    rows: list[dict[str, JSONValue]] = []
    for r in records:
        source = sources[r.source]
        ident = source.id
        if several_asr:
            ident = f"{ident}#{source.source_repeat}.{r.repeat}"
        elif repeats > 1:
            ident = f"{ident}#{r.repeat}"
        rows.append(
            {
                "id": ident,
                "clip": source.cluster_key,
                "source_id": source.id,
                "source_repeat": source.source_repeat,
                "repeat": r.repeat,
                "reference": source.reference,
                "hypothesis": r.delivered,
                "language": source.language,
                "slices": list(source.slices),
                "status": source.status if r.skipped else "ok",
                "source_hypothesis": source.hypothesis,
                "candidate": r.candidate,
                "accepted": r.accepted,
                "reason": r.reason,
                "processor": processor_kind,
                **({"source_arm": source_arm} if source_arm else {}),
            }
        )
    return rows


def write_outputs(
    out_dir: str | os.PathLike[str],
    report: PostprocessReport,
    delivered: Sequence[dict[str, JSONValue]],
    markdown: str,
) -> Path:
    """postprocess.json (encoded here, once), the delivered rows, postprocess.md, and
    last the folder's checksums."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    claim_output_folder(out, "postprocess")
    text = json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n"
    rows = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in delivered)
    known = {
        POSTPROCESS: atomic_write_text(out / POSTPROCESS, text),
        PREDICTIONS: atomic_write_text(out / PREDICTIONS, rows),
        POSTPROCESS_MARKDOWN: atomic_write_text(out / POSTPROCESS_MARKDOWN, markdown),
    }
    write_artefacts(out, known=known)  # last: sha256sum -c checks the folder without earmark
    return out
