"""`earmark verify RUN_DIR`: recompute every figure of a run from its own files.

A results.json is only as trustworthy as the chain behind it. Verify re-derives it:

- **figures**: each arm's rows are rebuilt from `predictions.jsonl` (raw reference and
  hypothesis), re-normalised with the recorded normaliser policy, recounted,
  re-aggregated and re-bootstrapped with the recorded seed and resample count through the
  same `score_rows` the run used; every value and CI must reproduce *exactly*;
- **per-row counts**: the counts stored in each predictions row must equal the recount;
- **manifest**: the recorded SHA-256 against `earmark.corpus.manifest.manifest_sha256` of the file;
- **models**: each `arms/<name>/model.json` `file_sha256` against the files, found from
  the model path the record names (a local folder, `local:` artifact, or a bundled model);
- **plan**: `plan.json`'s SHA-256 against the recorded plan re-hashed
  (`RunPlan.sha256()`), and the same hash in results.json and provenance.json;
- **probes**: the scorer's known-good/known-bad probes pass on this installation;
- **artefacts**: every output against `artefacts.sha256` (`earmark.artefacts`): a changed
  or missing file, or an output the listing does not name, is a mismatch naming the path.

Before any check, a folder whose records cannot be the ones its figures came from is
refused (an `EarmarkError`, exit 2): results.json missing or empty, a predictions.jsonl
whose SHA-256 is not the one results.json names, an empty or unreadable provenance.json
or plan.json.

Each check is `ok`, `mismatch` or `unavailable` (with the reason). Any mismatch makes the
command exit 1. `earmark score` output directories verify too (they have no manifest,
plan or models: those checks are unavailable).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from earmark.errors import EarmarkError
from earmark.rundir.json_records import read_json_record
from earmark.rundir.layout import ARM_MODEL, PLAN, PREDICTIONS, PROVENANCE, arm_folder
from earmark.rundir.predictions import read_prediction_objects
from earmark.rundir.results_file import check_predictions_file, load_results

if TYPE_CHECKING:
    from earmark.formats.rows import ScoringRow
    from earmark.results import JSONValue
    from earmark.scoring.glm import Glm
    from earmark.scoring.options import ScoringOptions

Status = Literal["ok", "mismatch", "unavailable"]
#: Summary keys `score_rows` produces, compared one by one.
SCORED_KEYS = (
    "normalizer_policy",
    "aggregate",
    "bootstrap",
    "conventions",
    "coverage",
    "overall",
    "overall_null_reason",
    "by_language",
)
MAX_DIFFERENCES = 8


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str = ""

    def to_dict(self) -> dict[str, JSONValue]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


@dataclass
class VerifyReport:
    run_dir: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(c.status == "mismatch" for c in self.checks)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "schema": "earmark.verify/1",
            "run_dir": self.run_dir,
            "ok": self.ok,
            "checks": [c.to_dict() for c in self.checks],
        }


def differences(recorded: object, recomputed: object, path: str = "") -> list[str]:
    """Paths where two JSON values differ (floats exactly: a CI must reproduce bit for bit)."""
    if isinstance(recorded, dict) and isinstance(recomputed, dict):
        out: list[str] = []
        for key in sorted(set(recorded) | set(recomputed), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in recorded:
                out.append(f"{sub}: missing in results.json")
            elif key not in recomputed:
                out.append(f"{sub}: not recomputed (unexpected key)")
            else:
                out.extend(differences(recorded[key], recomputed[key], sub))
        return out
    if isinstance(recorded, list) and isinstance(recomputed, list):
        if len(recorded) != len(recomputed):
            return [f"{path}: {len(recorded)} items recorded, {len(recomputed)} recomputed"]
        out = []
        for i, (a, b) in enumerate(zip(recorded, recomputed, strict=True)):
            out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    if isinstance(recorded, float) and isinstance(recomputed, float):
        if recorded == recomputed or (math.isnan(recorded) and math.isnan(recomputed)):
            return []
    elif recorded == recomputed and type(recorded) is type(recomputed):
        return []
    elif isinstance(recorded, int | float) and isinstance(recomputed, int | float):
        if not isinstance(recorded, bool) and recorded == recomputed:
            return []
    return [f"{path}: recorded {recorded!r}, recomputed {recomputed!r}"]


def _summarise(diffs: list[str]) -> str:
    shown = "; ".join(diffs[:MAX_DIFFERENCES])
    more = f" (+{len(diffs) - MAX_DIFFERENCES} more)" if len(diffs) > MAX_DIFFERENCES else ""
    return f"{len(diffs)} difference(s): {shown}{more}"


def _read_rows(path: Path) -> list[dict[str, Any]]:
    """Every row, strictly: verify re-scores all of them, so a torn line is an error."""
    if not path.is_file():
        raise EarmarkError(f"no {PREDICTIONS}", file=str(path.parent))
    return read_prediction_objects(path)


def _scoring_rows(rows: list[dict[str, Any]], repeats: int) -> list[ScoringRow]:
    """The rows exactly as the runner (arm rows) or `earmark score` built them."""
    from earmark.formats.rows import ScoringRow

    out = []
    for row in rows:
        run_row = "arm" in row
        ident = str(row["id"])
        if run_row:
            repeat = int(row.get("repeat", 0))
            scoring_id = ident if repeats == 1 else f"{ident}#{repeat}"
            cluster = None if repeats == 1 else ident
        else:
            scoring_id, cluster = ident, row.get("cluster")
        out.append(
            ScoringRow(
                id=scoring_id,
                reference=row["reference"],
                hypothesis=row.get("hypothesis"),
                language=row.get("language"),
                slices=tuple(row.get("slices") or ()),
                status=row.get("status", "ok"),
                cluster=cluster,
                duration=row.get("audio_seconds"),
                extra=_row_extra(row),
            )
        )
    return out


def _row_extra(row: Mapping[str, object]) -> dict[str, JSONValue]:
    """The reader's fields a row's counts depend on: its speaker and reference markup."""
    keys = ("speaker", "reference_markup")
    return {k: v for k in keys if isinstance(v := row.get(k), str)}


def _verify_arm(
    name: str,
    recorded: dict[str, Any],
    rows: list[dict[str, Any]],
    repeats: int,
    folder: Path | None = None,
) -> list[Check]:
    """An arm's figures, its rows' stored counts and its row-derived run figures, each
    recomputed from its rows with the options it records."""
    from earmark.scoring.scorer import score_rows

    if not rows:
        return [Check(f"arm {name}: figures", "mismatch", "no rows in predictions.jsonl")]
    glm = _recorded_glm(name, recorded, folder)
    if isinstance(glm, Check):
        return [glm]
    options = _recorded_options(name, recorded, glm)
    if isinstance(options, Check):
        return [options]
    scored = score_rows(_scoring_rows(rows, repeats), options)
    summary = scored.to_dict()
    recorded_scored = {k: recorded.get(k) for k in SCORED_KEYS if k in recorded or k in summary}
    recorded_cov = dict(recorded_scored.get("coverage") or {})
    recorded_cov.pop("excluded", None)  # hypotheses without a reference never reach the rows
    recorded_scored["coverage"] = recorded_cov
    recomputed = {k: summary.get(k) for k in recorded_scored}
    recomputed["bootstrap"] = _unnamed_generator(
        recorded.get("bootstrap"), summary.get("bootstrap")
    )
    diffs = differences(recorded_scored, recomputed)
    checks = [
        Check(
            f"arm {name}: figures",
            "mismatch" if diffs else "ok",
            _summarise(diffs)
            if diffs
            else f"{len(rows)} rows re-normalised, recounted, re-bootstrapped "
            f"(B = {options.bootstrap.resamples}, seed {options.bootstrap.seed}): every value "
            "and CI reproduces",
        )
    ]
    row_diffs: list[str] = []
    for row, record in zip(rows, scored.records, strict=True):
        label = f"{row['id']}" + (f"#{row['repeat']}" if row.get("repeat") else "")
        for key in ("views", "normalizer"):
            if key in row or key in record:
                row_diffs.extend(
                    f"row {label}: {d}" for d in differences(row.get(key), record.get(key), key)
                )
    checks.append(
        Check(
            f"arm {name}: per-row counts",
            "mismatch" if row_diffs else "ok",
            _summarise(row_diffs) if row_diffs else f"{len(rows)} rows' stored counts reproduce",
        )
    )
    checks.extend(_run_figures(name, recorded, rows))
    return checks


def _unnamed_generator(recorded: object, recomputed: JSONValue) -> JSONValue:
    """The recomputed `bootstrap` record as results wrote it before they named their
    generator: without `generator` when the recorded one has none (it was then
    `UNNAMED_GENERATOR`, which `_recorded_options` redrew with)."""
    if isinstance(recorded, dict) and "generator" not in recorded and isinstance(recomputed, dict):
        return {k: v for k, v in recomputed.items() if k != "generator"}
    return recomputed


def _recorded_glm(name: str, recorded: dict[str, Any], folder: Path | None) -> Glm | Check | None:
    """The GLM rules an arm was scored with, from the copy its folder keeps (`score
    --glm` writes rules.glm), or the check that says why they cannot be used."""
    if not recorded.get("glm"):
        return None
    from earmark.scoring.glm import read_glm

    kept = recorded["glm"].get("file")
    copy = folder / str(kept) if folder is not None and kept else None
    if copy is None or not copy.is_file():
        return Check(
            f"arm {name}: figures", "unavailable", "scored with GLM rules the folder does not keep"
        )
    glm = read_glm(copy)
    if glm.sha256 != recorded["glm"].get("sha256"):
        return Check(
            f"arm {name}: figures",
            "mismatch",
            f"{copy}: sha256 {glm.sha256} != recorded {recorded['glm'].get('sha256')}",
        )
    return glm


def _recorded_options(
    name: str, recorded: dict[str, Any], glm: Glm | None
) -> ScoringOptions | Check:
    """The scoring options an arm records (policy, aggregation, bootstrap, protocol,
    minimums), or the check that says they are not all there."""
    from earmark.scoring.options import ScoringOptions
    from earmark.scoring.policy import NormalizerPolicy
    from earmark.scoring.protocols import get_protocol
    from earmark.stats.settings import (
        DEFAULT_LEVEL,
        GENERATORS,
        UNNAMED_GENERATOR,
        BootstrapSettings,
    )

    policy_d = recorded.get("normalizer_policy") or {}
    boot = recorded.get("bootstrap") or {}
    # Results that name no generator (every one written before issue 25) were drawn with
    # UNNAMED_GENERATOR, and so is every figure of a protocol (whose own generator, e.g.
    # "python-random", comes with the protocol below), whatever the default is today.
    generator = boot.get("generator")
    if generator not in GENERATORS or recorded.get("protocol"):
        generator = UNNAMED_GENERATOR
    try:
        return ScoringOptions(
            policy=NormalizerPolicy(
                default=policy_d["default"], by_language=dict(policy_d.get("by_language") or {})
            ),
            aggregate=recorded["aggregate"],
            bootstrap=BootstrapSettings(
                resamples=int(boot["resamples"]),
                seed=int(boot["seed"]),
                level=float(boot.get("level", DEFAULT_LEVEL)),
                generator=generator,
            ),
            protocol=get_protocol(recorded["protocol"]["name"])
            if recorded.get("protocol")
            else None,
            cluster=boot.get("cluster", "clip"),
            min_per_slice=(recorded.get("minimums") or {}).get("min_per_slice"),
            min_speakers=(recorded.get("minimums") or {}).get("min_speakers"),
            glm=glm,
            alignment=(recorded.get("alignment") or {}).get("name", "earmark"),
        )
    except (KeyError, TypeError, ValueError, EarmarkError) as exc:
        return Check(f"arm {name}: figures", "unavailable", f"scoring options not recorded: {exc}")


def _run_figures(name: str, recorded: dict[str, Any], rows: list[dict[str, Any]]) -> list[Check]:
    """A run's figures derived from its rows: language mismatches, per-language latency."""
    from earmark.execution.resources import latency_by_language

    extra_diffs: list[str] = []
    if "language_mismatches" in recorded:
        count = sum(bool(r.get("language_mismatch")) for r in rows)
        extra_diffs += differences(recorded["language_mismatches"], count, "language_mismatches")
    if "resources_by_language" in recorded:
        extra_diffs += differences(
            recorded["resources_by_language"], latency_by_language(rows), "resources_by_language"
        )
    if "language_mismatches" not in recorded and "resources_by_language" not in recorded:
        return []
    return [
        Check(
            f"arm {name}: row-derived run figures",
            "mismatch" if extra_diffs else "ok",
            _summarise(extra_diffs)
            if extra_diffs
            else "language mismatches and per-language latency reproduce",
        )
    ]


def _check_manifest(results: dict[str, Any], provenance: dict[str, Any] | None) -> Check:
    from earmark.corpus.manifest import manifest_sha256

    corpus = results.get("corpus")
    if not isinstance(corpus, dict) or not corpus.get("manifest_sha256"):
        return Check("manifest sha256", "unavailable", "no corpus recorded (earmark score output)")
    recorded = corpus["manifest_sha256"]
    prov = ((provenance or {}).get("corpus") or {}).get("manifest_sha256")
    if prov is not None and prov != recorded:
        return Check(
            "manifest sha256", "mismatch", f"results.json {recorded} != provenance.json {prov}"
        )
    path = Path(str(corpus.get("manifest", "")))
    if not path.is_file():
        return Check("manifest sha256", "unavailable", f"manifest not found at {path}")
    try:
        actual = manifest_sha256(path)
    except EarmarkError as exc:
        return Check("manifest sha256", "mismatch", f"manifest no longer reads: {exc}")
    if actual != recorded:
        return Check("manifest sha256", "mismatch", f"{path}: {actual} != recorded {recorded}")
    return Check("manifest sha256", "ok", f"{path}: {actual}")


def _check_plan(run: Path, results: dict[str, Any], provenance: dict[str, Any] | None) -> Check:
    from earmark.execution.plan import plan_from_dict

    path = run / PLAN
    if not path.is_file():
        return Check("plan sha256", "unavailable", "no plan.json (earmark score output)")
    try:
        data = json.loads(path.read_text("utf-8"))
        recomputed = plan_from_dict(data["plan"]).sha256()
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, EarmarkError) as exc:
        return Check("plan sha256", "mismatch", f"plan.json does not load as a plan: {exc}")
    problems = []
    if data.get("sha256") != recomputed:
        problems.append(f"plan.json sha256 {data.get('sha256')} != recomputed {recomputed}")
    plan_in_results = results.get("plan")
    if isinstance(plan_in_results, dict):
        if plan_in_results.get("sha256") != recomputed:
            problems.append(f"results.json plan.sha256 {plan_in_results.get('sha256')}")
        body = {k: v for k, v in plan_in_results.items() if k != "sha256"}
        problems += [f"results.json plan.{d}" for d in differences(body, data["plan"])]
    if provenance is not None and provenance.get("plan_sha256") not in (None, recomputed):
        problems.append(f"provenance.json plan_sha256 {provenance.get('plan_sha256')}")
    if problems:
        return Check("plan sha256", "mismatch", _summarise(problems))
    return Check("plan sha256", "ok", recomputed)


def _model_folder(model: dict[str, Any], spec: dict[str, Any] | None) -> Path | None:
    """The folder the recorded model files live in, if this machine still has it."""
    extra_value = model.get("extra")
    extra: dict[str, Any] = extra_value if isinstance(extra_value, dict) else {}
    for source in (model, extra):
        for key in ("path", "model_path", "folder", "local_path"):
            value = source.get(key)
            if isinstance(value, str) and Path(value).expanduser().is_dir():
                return Path(value).expanduser()
    artifact = str(model.get("artifact_id") or "")
    if artifact.startswith("local:") and Path(artifact[6:]).is_dir():
        return Path(artifact[6:])
    reference = extra.get("model_reference") or (spec or {}).get("model")
    if isinstance(reference, str):
        if Path(reference).expanduser().is_dir():
            return Path(reference).expanduser()
        if reference.startswith("bundled:"):
            import importlib.util

            from earmark.engines.faster_whisper import BUNDLED

            entry = BUNDLED.get(reference.split(":", 1)[1])
            if entry is not None:
                found = importlib.util.find_spec(entry[0])
                if found is not None and found.submodule_search_locations:
                    folder = Path(next(iter(found.submodule_search_locations))) / entry[1]
                    if folder.is_dir():
                        return folder
    return None


def _check_models(run: Path, results: dict[str, Any]) -> list[Check]:
    from earmark.artefacts import sha256_file

    checks = []
    for name, arm in results.get("arms", {}).items():
        label = f"arm {name}: model file hashes"
        path = arm_folder(run, name) / ARM_MODEL
        if not path.is_file():
            checks.append(Check(label, "unavailable", "no arms/<name>/model.json (not a run)"))
            continue
        try:
            model = json.loads(path.read_text("utf-8"))
        except json.JSONDecodeError as exc:
            checks.append(Check(label, "mismatch", f"model.json is not JSON: {exc.msg}"))
            continue
        recorded_model = arm.get("model")
        if isinstance(recorded_model, dict) and recorded_model.get("file_sha256") != model.get(
            "file_sha256"
        ):
            checks.append(Check(label, "mismatch", "results.json and model.json disagree"))
            continue
        hashes = model.get("file_sha256") or {}
        if not hashes:
            checks.append(Check(label, "unavailable", "no file_sha256 recorded"))
            continue
        folder = _model_folder(model, arm.get("spec"))
        if folder is None:
            checks.append(Check(label, "unavailable", "model files not found on this machine"))
            continue
        bad, missing = [], []
        for rel, digest in sorted(hashes.items()):
            file = folder / rel
            if not file.is_file():
                missing.append(rel)
            elif sha256_file(file) != digest:
                bad.append(rel)
        if bad:
            checks.append(Check(label, "mismatch", f"{folder}: changed: {', '.join(bad)}"))
        elif missing:
            checks.append(Check(label, "unavailable", f"{folder}: missing {', '.join(missing)}"))
        else:
            checks.append(Check(label, "ok", f"{len(hashes)} files in {folder} match"))
    return checks


def _check_probes(results: dict[str, Any]) -> Check:
    from earmark.scoring.probes import failed, run_scorer_probes

    bad_now = failed(run_scorer_probes())
    bad_then = [p.get("name") for p in results.get("probes", []) if not p.get("passed")]
    if bad_now or bad_then:
        names = [p.name for p in bad_now] + [str(n) for n in bad_then]
        return Check("scorer probes", "mismatch", "failed: " + "; ".join(names))
    return Check("scorer probes", "ok", "known-good/known-bad probes pass (recorded and now)")


def verify_run(run_dir: str | os.PathLike[str]) -> VerifyReport:
    """Every check on one run (or score) directory."""
    run = Path(run_dir)
    results = load_results(run)
    check_predictions_file(run, results)
    provenance = read_json_record(run / PROVENANCE)
    read_json_record(run / PLAN)  # refused here when empty; checked in full below
    rows = _read_rows(run / PREDICTIONS)
    report = VerifyReport(str(run))
    arms = results.get("arms") or {}
    plan = results.get("plan") if isinstance(results.get("plan"), dict) else None
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        name = row.get("arm")
        if name is None and len(arms) == 1:
            name = next(iter(arms))
        by_arm.setdefault(str(name), []).append(row)
    for name, recorded in arms.items():
        arm_rows = by_arm.get(name, [])
        repeats = (
            int(plan["repeats"])
            if plan and "repeats" in plan
            else (max((int(r.get("repeat", 0)) for r in arm_rows), default=0) + 1)
        )
        report.checks.extend(_verify_arm(name, recorded, arm_rows, repeats, Path(run_dir)))
    stray = sorted(set(by_arm) - set(arms))
    if stray:
        report.checks.append(
            Check("predictions arms", "mismatch", f"rows of arms not in results.json: {stray}")
        )
    report.checks.append(_check_manifest(results, provenance))
    report.checks.append(_check_plan(run, results, provenance))
    report.checks.extend(_check_models(run, results))
    report.checks.append(_check_probes(results))
    report.checks.append(_check_artefacts(run))
    return report


def _check_artefacts(run: Path) -> Check:
    """The folder against its `artefacts.sha256`: a changed, missing or unlisted output
    is a mismatch naming the path; a folder written before listings existed has none,
    but one whose marker names a command that writes a listing must have it (deleting
    it must not switch the check off)."""
    from earmark.artefacts import LISTED_BY, LISTING, check_artefacts
    from earmark.outputs import FOLDER_MARKER, marked_maker

    try:
        checked = check_artefacts(run)
        maker = marked_maker(run)
    except EarmarkError as exc:
        return Check(LISTING, "mismatch", str(exc))
    if checked is None and maker in LISTED_BY:
        return Check(
            LISTING,
            "mismatch",
            f"no {LISTING}, but {FOLDER_MARKER} says `earmark {maker}` made this folder and "
            "it always writes one last: the folder is unfinished or the listing was deleted",
        )
    if checked is None:
        return Check(
            LISTING, "unavailable", f"no {LISTING} (a folder written before earmark wrote one)"
        )
    return Check(LISTING, "ok" if checked.ok else "mismatch", checked.describe())
