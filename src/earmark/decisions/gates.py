"""Seed 000's licence, offline-cache and packaging gates, checked from a run's records.

A win is necessary, not sufficient: the weights' licence, an offline cache and a
shippable artefact must clear too. Each gate here reads what the run recorded (model.json,
the corpus sidecar as copied into the run, the egress audit) and returns what is missing,
so `earmark decide` can name it in a `blocked` verdict instead of leaving an unticked box.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from earmark.decisions.formatting import fmt_mib
from earmark.results.codec import JSONValue
from earmark.results.decision import ChecklistGate, RecordGate, ResourceFigures

if TYPE_CHECKING:
    from earmark.decisions.sides import Side

#: An immutable model revision: a git commit (40 hex), or a content digest `sha256:<64 hex>`
#: (`earmark.engines.file_hashes.content_revision`). Branch or tag names can move.
_IMMUTABLE_REVISION = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64}|sha256:[0-9a-f]{64})")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _declared(value: JSONValue) -> bool:
    from earmark.corpus.manifest import _UNDECLARED

    return isinstance(value, str) and value.strip().lower() not in _UNDECLARED


def _is_local(host: str) -> bool:
    """Loopback: a connection that never leaves the machine (a local server, Ray)."""
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0]).is_loopback
    except ValueError:
        return False


def licence_gate(side: Side) -> list[str]:
    """What is missing for the licence gate: the model's licence and where it is stated
    (model.json `licence`, `licence_source`), and the corpus's licence and consent basis
    (the sidecar's, as the run recorded it). An assertion recorded, not a legal review."""
    model = side.run.model(side.arm)
    corpus = side.run.corpus
    missing = []
    if not _declared(model.get("licence")):
        missing.append("model licence not recorded (licence=)")
    if not _declared(model.get("licence_source")):
        missing.append("model licence source not recorded (licence_source=)")
    if not _declared(corpus.get("licence")):
        missing.append("corpus licence not recorded (sidecar licence)")
    if not _declared(corpus.get("consent_basis")):
        missing.append("corpus consent basis not recorded (sidecar consent_basis)")
    return missing


def offline_cache_gate(side: Side) -> list[str]:
    """What is missing for the offline-cache gate, from the arm's egress audit
    (`arms/<arm>/egress.json`, copied to provenance.json): the network was refused, the
    whole process tree was audited, and no connection or name lookup left the machine
    (allowed or refused: a refused one is a download the cache did not cover; an allowed
    one is a hosted model)."""
    if side.run.provenance is None:
        return ["no egress audit: no provenance.json (an `earmark score` output)"]
    arm = ((side.run.provenance.get("arms") or {}).get(side.arm)) or {}
    egress = arm.get("egress")
    if not egress:
        return ["no egress audit recorded for this arm"]
    missing = []
    if str(egress.get("policy") or "").startswith("allow all"):
        missing.append("the network was allowed (--allow-network)")
    if egress.get("audited") is False:
        reason = egress.get("unaudited_reason") or "not every process was audited"
        missing.append(f"egress audit incomplete: {reason}")
    elif egress.get("audited") is not True:
        missing.append("egress audit covered the arm's own process only, not its process tree")
    remote = [
        a for a in egress.get("attempts") or [] if not _is_local(str(a.get("host") or "").lower())
    ]
    if remote:
        shown = ", ".join(
            dict.fromkeys(f"{a.get('kind')} {a.get('host')}:{a.get('port')}" for a in remote)
        )
        missing.append(f"{len(remote)} network attempts off this machine ({shown[:200]})")
    return missing


def packaging_gate(side: Side) -> list[str]:
    """What is missing for the packaging gate: the exact artefact to ship is known and can
    be checked — SHA-256 of every file loaded, an immutable revision that agrees with them
    (a `sha256:` content revision must be the digest of the recorded hashes), the runtime
    and its version, and no engine declaring its hashes incomplete."""
    from earmark.engines.file_hashes import content_revision

    model = side.run.model(side.arm)
    extra = model.get("extra") or {}
    hashes = model.get("file_sha256") or {}
    missing = []
    if not hashes:
        missing.append("model file hashes not recorded")
    elif not all(isinstance(v, str) and _SHA256.fullmatch(v) for v in hashes.values()):
        missing.append("model file hashes are not SHA-256 hex digests")
    revision = model.get("revision")
    if not revision:
        missing.append("model revision not recorded")
    elif not _IMMUTABLE_REVISION.fullmatch(str(revision)):
        missing.append(
            f"model revision {revision!r} is not immutable (a commit hash or sha256: digest)"
        )
    valid_hashes = bool(hashes) and "model file hashes are not SHA-256 hex digests" not in missing
    if valid_hashes:
        recomputed = content_revision(hashes)
        claims = [("revision", revision)] if str(revision).startswith("sha256:") else []
        claims.append(("content_revision", extra.get("content_revision")))
        for name, claimed in claims:
            if claimed and claimed != recomputed:
                missing.append(f"model {name} {claimed} does not match the recorded file hashes")
    if extra.get("verifiable") is False:
        missing.append(
            str(extra.get("unverifiable_reason") or "the engine declares it unverifiable")
        )
    if not model.get("runtime") or not model.get("runtime_version"):
        missing.append("runtime or runtime version not recorded")
    return missing


def record_gates(side: Side) -> tuple[RecordGate, ...]:
    """Seed 000's licence, offline-cache and packaging gates, checked from the records of
    the side to be promoted."""
    checks = (
        ("licence", licence_gate(side)),
        ("offline cache", offline_cache_gate(side)),
        ("packaging", packaging_gate(side)),
    )
    return tuple(
        RecordGate(gate=gate, passed=not missing, missing=tuple(missing))
        for gate, missing in checks
    )


def checklist_gates(challenger: Side, peak_rss: ResourceFigures) -> tuple[ChecklistGate, ...]:
    """The gates no record can settle (the weights' own terms, memory on every hardware
    profile, packaging on every OS, ...): each with what the run did record, for a person
    to confirm before acting on the verdict."""
    model = challenger.run.model(challenger.arm)
    egress = ((challenger.run.provenance or {}).get("arms") or {}).get(challenger.arm, {})
    egress = egress.get("egress") or {}
    return (
        ChecklistGate(
            gate="weight licence",
            known=f"declared {model.get('licence') or 'not recorded'} (source: "
            f"{model.get('licence_source') or 'not recorded'}); an assertion, "
            "not a legal review — check the weights' own terms",
        ),
        ChecklistGate(
            gate="offline provisioning",
            known=f"egress during the run: {_egress_summary(egress)}, "
            f"policy {egress.get('policy') or 'not recorded'} (checked above); confirm the "
            "product installs the weights from a provisioned cache with no download",
        ),
        ChecklistGate(
            gate="memory",
            known=f"challenger peak RSS {fmt_mib(peak_rss.challenger)} vs baseline "
            f"{fmt_mib(peak_rss.baseline)}; confirm on every "
            "supported hardware profile",
        ),
        ChecklistGate(
            gate="packaging on every OS",
            known="optional extra, lazy import, installs on every "
            "claimed OS (Linux, macOS, Windows)",
        ),
        ChecklistGate(gate="timestamps", known="segment/word timestamps meet the product contract"),
        ChecklistGate(
            gate="command safety",
            known="no new startup imports, downloads or egress on the default path",
        ),
        ChecklistGate(
            gate="long-form regressions",
            known="repetition/hallucination on 30-120 min recordings checked",
        ),
    )


def _egress_summary(egress: Mapping[str, JSONValue]) -> str:
    """`N attempts`, or why the count is not the whole story (a process not audited)."""
    if not egress:
        return "not recorded"
    seen = egress.get("attempts")
    attempts = f"{len(seen) if isinstance(seen, list) else 0} attempts seen"
    if egress.get("audited") is False:
        reason = egress.get("unaudited_reason") or "not every process was audited"
        return f"NOT AUDITED ({reason}); {attempts}"
    if "audited" not in egress:
        return attempts + " (the arm's own process only)"
    return attempts
