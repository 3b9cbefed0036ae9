"""The end of `earmark run`: the store's rows scored into a typed `Results`, then every file.

The arms' figures, the run's diagnostics, the corpus and provenance records are built
in memory; JSON is encoded once, where the run directory is written (`earmark.rundir`),
and `artefacts.sha256` is written last so that it lists every file as finished.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from earmark import __version__
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.selection import SelectionRecord
from earmark.results.codec import JSONObject, JSONValue
from earmark.results.results_file import (
    RESULTS_SCHEMA,
    PredictionsRef,
    Probe,
    ProvenanceRef,
    Results,
)
from earmark.rundir.layout import PREDICTIONS, PROVENANCE
from earmark.rundir.predictions import RunRow

if TYPE_CHECKING:
    from earmark.execution.arm_result import ScoredArm
    from earmark.execution.options import RunOptions
    from earmark.execution.plan import RunPlan

#: Rows a run lists by id among those its selection left out; beyond it, counts only.
EXCLUSIONS_LISTED = 1000


@dataclass(frozen=True)
class RunCorpus:
    """The corpus a run decoded: its selected utterances, the selection's record, the
    sidecar's declarations and the manifest's SHA-256."""

    utterances: list[Utterance]
    selection: SelectionRecord
    meta: CorpusMeta
    manifest_sha256: str


def finish_run(
    plan: RunPlan,
    out: Path,
    corpus: RunCorpus,
    arm_exit: Mapping[str, int],
    options: RunOptions,
    torn_bytes: int = 0,
) -> Results:
    """Score the store's rows (one per arm × utterance × repeat) and write every file."""
    from earmark.artefacts import write_artefacts
    from earmark.execution.arm_result import score_arm
    from earmark.execution.store import PredictionStore
    from earmark.outputs import atomic_write_json
    from earmark.render.markdown import render_results_markdown
    from earmark.rundir.results_file import write_results
    from earmark.scoring.probes import run_scorer_probes

    latest = PredictionStore(out / PREDICTIONS).latest()
    arms: dict[str, ScoredArm] = {}
    for arm in plan.arms:
        arms[arm.name] = score_arm(
            plan,
            arm,
            corpus.utterances,
            latest,
            out=out,
            exit_code=arm_exit.get(arm.name, 0),
            redistribute_transcripts=corpus.meta.redistribute_transcripts,
        )
    corpus_record = corpus_json(plan, corpus)
    provenance = provenance_json(plan, corpus, corpus_record, arms, options, torn_bytes)
    verifiable = provenance["verifiable"]
    probes = run_scorer_probes()
    results = Results(
        schema=RESULTS_SCHEMA,
        earmark_version=__version__,
        created=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        arms={name: scored.result for name, scored in arms.items()},
        probes=tuple(Probe.from_dict(p.to_dict()) for p in probes),
        diagnostics=run_diagnostics({n: s.rows for n, s in arms.items()}, plan.normalizer),
        corpus=corpus_record,
        plan={"sha256": plan.sha256(), **plan.to_dict()},
        provenance=ProvenanceRef(
            file=PROVENANCE, verifiable=verifiable["ok"], missing=tuple(verifiable["missing"])
        ),
        public=_is_public(corpus.meta),
        failures=tuple(
            {"arm": name, **scored.result.failure}
            for name, scored in arms.items()
            if scored.result.failure is not None
        ),
    )
    known = {PROVENANCE: atomic_write_json(out / PROVENANCE, provenance)}
    document = results.to_dict()
    known |= write_results(
        out,
        document,
        cast(
            "Iterator[dict[str, Any]]",
            (record for scored in arms.values() for record in scored.records),
        ),
        probes=probes,
        markdown=render_results_markdown(results.to_dict(), title="earmark run"),
    )
    # last: the listing names every file as finished (those written here, by their digests)
    write_artefacts(out, known=known)
    written = document.get("predictions")
    if isinstance(written, dict):
        results = replace(results, predictions=PredictionsRef.from_dict(written))
    return results


def _is_public(meta: CorpusMeta) -> bool:
    from earmark.corpus.manifest import is_public

    return is_public(meta)


def corpus_json(plan: RunPlan, corpus: RunCorpus) -> dict[str, JSONValue]:
    """results.json's and provenance.json's `corpus`: what was read, under which terms."""
    meta = corpus.meta
    return {
        "manifest": plan.manifest,
        "manifest_sha256": corpus.manifest_sha256,
        "audio_root": plan.audio_root,
        "dataset": meta.dataset,
        "licence": meta.licence,
        "licence_is_assertion": True,
        "consent_basis": meta.consent_basis,
        "redistribute_audio": meta.redistribute_audio,
        "redistribute_transcripts": meta.redistribute_transcripts,
        "selection": bounded_selection(corpus.selection),
    }


def provenance_json(
    plan: RunPlan,
    corpus: RunCorpus,
    corpus_record: JSONObject,
    arms: Mapping[str, ScoredArm],
    options: RunOptions,
    torn_bytes: int,
) -> dict[str, Any]:
    """provenance.json: who ran what, where, and every deviation from a clean run."""
    from earmark.corpus.manifest import read_manifest
    from earmark.corpus.selection import split_leakage
    from earmark.execution.provenance import host_profile, software_profile
    from earmark.rundir.provenance import is_verifiable

    deviations = [deviation for scored in arms.values() for deviation in scored.deviations]
    leakage = split_leakage(read_manifest(plan.manifest), corpus.utterances)
    shared = leakage.get("shared")
    if leakage.get("leaked") and isinstance(shared, list):
        deviations.append(
            {
                "kind": "speaker_leakage",
                "speakers": len(shared),
                "detail": "selected rows share speakers with another split",
            }
        )
    provenance: dict[str, Any] = {
        "host": host_profile(),
        "software": software_profile(),
        "command_line": options.command_line,
        "plan_sha256": plan.sha256(),
        "plan_file": options.plan_file,
        "plan_file_sha256": options.plan_file_sha256,
        "corpus": corpus_record,
        "normalizer_policy": plan.scoring_options().policy.to_dict(),
        "seeds": {"bootstrap": plan.seed},
        "arms": {
            name: {
                "spec": arm.to_dict(),
                "model": _encoded(arms[arm.name].records_of_arm.model),
                "egress": arms[arm.name].records_of_arm.egress,
            }
            for name, arm in ((a.name, a) for a in plan.arms)
        },
        "deviations": deviations,
        "store_repair": {"torn_bytes_truncated": torn_bytes},
        "speaker_leakage": leakage,
    }
    verifiable, missing = is_verifiable(provenance)
    provenance["verifiable"] = {"ok": verifiable, "missing": missing}
    return provenance


def _encoded(record: Any) -> JSONValue:
    return None if record is None else record.to_dict()


def bounded_selection(selection: SelectionRecord) -> dict[str, JSONValue]:
    """The selection record as results.json and provenance.json carry it, bounded.

    `run --first 10` on a million-row manifest would otherwise list 999,990 rows never
    run, twice (83 MB each). The counts per reason stay complete; the ids are listed in
    full up to `EXCLUSIONS_LISTED`, else the first that many with the total beside them.
    The rule, its parameters and the manifest's hash redraw the full list exactly."""
    total = len(selection.exclusions)
    if total <= EXCLUSIONS_LISTED:
        return selection.to_dict()
    record = replace(selection, exclusions=selection.exclusions[:EXCLUSIONS_LISTED]).to_dict()
    record["excluded_counts"] = dict(selection.excluded_counts())
    record["exclusions_total"] = total
    record["exclusions_truncated"] = True
    return record


def run_diagnostics(
    arm_rows: Mapping[str, Sequence[RunRow]], normalizer: str
) -> dict[str, JSONValue]:
    """Harness-artefact diagnostics of every arm (insertion-driven failure, truncation,
    script mismatch, empty outputs, normaliser-induced ranking flips), computed by the
    same code as `earmark compare` so a run and a comparison flag the same things."""
    from earmark.comparison.api import compare_arms
    from earmark.comparison.loading import ArmData
    from earmark.comparison.options import CompareOptions
    from earmark.stats.settings import BootstrapSettings

    arms: dict[str, ArmData] = {}
    for name, rows in arm_rows.items():
        data = ArmData(name=name, source=PREDICTIONS)
        for line, row in enumerate(rows, start=1):
            data.add(cast("Mapping[str, JSONValue]", row), PREDICTIONS, line)
        arms[name] = data
    compared = compare_arms(
        arms,
        CompareOptions(normalizer=normalizer, bootstrap=BootstrapSettings(resamples=0)),
        jobs=1,
    )
    return dict(compared.diagnostics or {})
