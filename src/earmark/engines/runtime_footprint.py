"""How much disk an arm's installed runtime takes: the closure of Python distributions
its backend needs, the bytes each occupies, and the licence each declares.

The model's own files are sized by the engines that hash them (`ModelInfo.size_bytes`);
shipping an engine also ships its runtime (CTranslate2, onnxruntime, PyAV, torch…), which
is often larger than the model. The closure starts from the requirements of the
backend's earmark extra (or a plug-in's distribution) and follows each distribution's
`Requires-Dist` recursively, with environment markers evaluated for this interpreter and
for the extras actually requested, so `extra == "dev"` tools are not counted.

Sizes are the files each distribution's RECORD lists, stat-ed on disk, counted when they
lie inside the folder the distribution is installed into (site-packages). Not counted:
files a RECORD lists outside that folder (console scripts in `bin/`, data in `share/`;
they are launchers and documents, not what the engine imports), files listed but no
longer on disk, and bytecode compiled after installation (not in RECORD). A distribution
without a RECORD (some system packages) is listed with `bytes: null` and a note, and the
total says it is a lower bound. Requirements that are not installed are noted, not
fatal: the footprint describes what this process could load, never refuses a run.

Each distribution carries the licence its metadata declares (`declared_licence`), with the
field it came from; a distribution that declares none has `licence: null` and the reason.
"""

from __future__ import annotations

import copy
import functools
import importlib.metadata as metadata
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from earmark.results.codec import JSONValue

#: What `method` says in the record: how the bytes were counted, in one line.
METHOD = (
    "closure of Requires-Dist from the backend's extra (markers evaluated, extras "
    "followed); bytes = sizes of RECORD-listed files inside site-packages, stat-ed on disk"
)

#: Names earmark's own extras give in `Requires-Dist` (PEP 503 normalised).
_EARMARK = "earmark"


def canonical_name(name: str) -> str:
    """PEP 503 normalisation: `Huggingface_Hub` and `huggingface-hub` are one project."""
    return re.sub(r"[-_.]+", "-", name).lower()


#: The longest `License` metadata value taken as a licence name; longer is a licence's
#: full text (many packages paste it there), which names no licence by itself.
MAX_LICENCE_NAME = 100
_UNDECLARED_LICENCE = frozenset({"", "unknown", "none", "n/a", "na", "null", "unspecified"})


@dataclass(frozen=True)
class DeclaredLicence:
    """A distribution's licence as its metadata declares it, and which field said so;
    `licence` None with `null_reason` when it declares none (never guessed)."""

    licence: str | None
    source: str | None
    null_reason: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "licence": self.licence,
            "licence_source": self.source,
            "licence_null_reason": self.null_reason,
        }


def declared_licence(meta: Mapping[str, object] | None) -> DeclaredLicence:
    """`License-Expression` (PEP 639), else a short `License` value, else the `License ::`
    classifiers (several are listed as they are, `; `-separated: AND or OR is not said)."""
    if meta is None:
        return DeclaredLicence(None, None, "the distribution has no metadata")
    get_all = getattr(meta, "get_all", None)

    def values(key: str) -> list[str]:
        found = get_all(key) if callable(get_all) else [meta.get(key)]
        return [v.strip() for v in found or () if isinstance(v, str)]

    for expression in values("License-Expression"):
        if expression.lower() not in _UNDECLARED_LICENCE:
            return DeclaredLicence(expression, "package metadata License-Expression")
    long_text = False
    for text in values("License"):
        if text.lower() in _UNDECLARED_LICENCE:
            continue
        if len(text) <= MAX_LICENCE_NAME and "\n" not in text:
            return DeclaredLicence(text, "package metadata License")
        long_text = True
    classifiers = [
        c.split("::")[-1].strip()
        for c in values("Classifier")
        if c.startswith("License ::") and c.count("::") >= 2
    ]
    if len(classifiers) == 1:
        return DeclaredLicence(classifiers[0], "package metadata classifiers")
    if classifiers:  # listed side by side: whether AND or OR is not declared
        return DeclaredLicence(
            "; ".join(classifiers),
            "package metadata classifiers (several, their relation not declared)",
        )
    reason = (
        "the License field holds a licence text, not a name, and no licence classifier"
        if long_text
        else "no License-Expression, License or licence classifier in the package metadata"
    )
    return DeclaredLicence(None, None, reason)


@dataclass(frozen=True)
class DistributionSize:
    """One installed distribution in the closure; `bytes` is None without a RECORD."""

    version: str
    bytes: int | None
    licence: DeclaredLicence | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        licence = {} if self.licence is None else self.licence.to_dict()
        return {"version": self.version, "bytes": self.bytes, **licence}


@dataclass(frozen=True)
class RuntimeFootprint:
    """The closure, by canonical name, with the total of the sizes known."""

    distributions: Mapping[str, DistributionSize]
    #: Why something was not counted (not installed, no RECORD, unparseable requirement).
    notes: tuple[str, ...] = ()
    method: str = METHOD
    roots: tuple[str, ...] = field(default=())

    @property
    def total_bytes(self) -> int:
        return sum(d.bytes for d in self.distributions.values() if d.bytes is not None)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "roots": list(self.roots),
            "distributions": {
                name: self.distributions[name].to_dict() for name in sorted(self.distributions)
            },
            "total_bytes": self.total_bytes,
            "method": self.method,
            "notes": list(self.notes),
        }


def _index(path: list[str] | None) -> dict[str, metadata.Distribution]:
    """Installed distributions by canonical name; the first on the path wins, as for import."""
    found: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions(path=path) if path is not None else metadata.distributions():
        name = dist.metadata["Name"] if dist.metadata is not None else None
        if name:
            found.setdefault(canonical_name(name), dist)
    return found


def distribution_bytes(dist: metadata.Distribution) -> int | None:
    """Bytes of the RECORD-listed files inside the distribution's install folder that
    exist on disk; None when the distribution has no RECORD."""
    files = dist.files
    if files is None:
        return None
    # Both sides lexically normalised (not resolved): a symlinked site-packages still
    # contains its own files, and `..` entries are judged by where they point.
    prefix = os.path.join(os.path.abspath(str(dist.locate_file(""))), "")
    total = 0
    for entry in files:
        located = os.path.abspath(str(dist.locate_file(entry)))
        if not located.startswith(prefix):
            continue  # a console script in bin/, data in share/: outside site-packages
        try:
            total += os.stat(located).st_size
        except OSError:
            continue  # listed but removed (e.g. bytecode cleaned): occupies nothing
    return total


def footprint(
    requirements: Iterable[str],
    *,
    path: list[str] | None = None,
    roots: Iterable[str] = (),
) -> RuntimeFootprint:
    """The closure of `requirements` (PEP 508 strings) over the installed distributions
    (`path`: where to look, default `sys.path`) and each one's size on disk."""
    from packaging.requirements import InvalidRequirement, Requirement

    index = _index(path)
    notes: list[str] = []
    sizes: dict[str, DistributionSize] = {}
    #: Extras already expanded per distribution ("" is the distribution itself).
    expanded: dict[str, set[str]] = {}
    todo: list[tuple[str, frozenset[str]]] = []

    def want(text: str, active_extras: frozenset[str], owner: str) -> None:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            notes.append(f"{owner}: unparseable requirement {text!r} skipped")
            return
        if req.marker is not None:
            scopes = active_extras or frozenset({""})
            if not any(req.marker.evaluate({"extra": extra}) for extra in scopes):
                return
        todo.append((canonical_name(req.name), frozenset(req.extras)))

    for text in requirements:
        want(text, frozenset(), "root")
    while todo:
        name, extras = todo.pop()
        dist = index.get(name)
        if dist is None:
            note = f"{name}: required but not installed, not counted"
            if note not in notes:
                notes.append(note)
            continue
        done = expanded.setdefault(name, set())
        new = ({""} | {canonical_name(e) for e in extras}) - done
        if not new:
            continue
        if name not in sizes:
            size = distribution_bytes(dist)
            if size is None:
                notes.append(f"{name}: no RECORD file, size unknown (total is a lower bound)")
            sizes[name] = DistributionSize(
                version=dist.version,
                bytes=size,
                licence=declared_licence(dist.metadata),  # type: ignore[arg-type]
            )
        done.update(new)
        for text in dist.requires or ():
            want(text, frozenset(new), name)
    return RuntimeFootprint(distributions=sizes, notes=tuple(notes), roots=tuple(roots))


def backend_requirements(backend: str) -> tuple[list[str], list[str]]:
    """The requirement strings a backend's runtime starts from, and the notes on how they
    were found: a built-in backend's earmark extra, or a plug-in's own distribution."""
    from earmark.engines.registry import backend_info

    info = backend_info(backend)
    if info.plugin is not None:
        return [info.plugin.split(" ")[0]], []
    if info.extra is None:
        return [], ["built in: no runtime beyond earmark's own dependencies"]
    try:
        declared = metadata.requires(_EARMARK) or []
    except metadata.PackageNotFoundError:
        return [], ["earmark's distribution metadata not found: closure unknown"]
    from packaging.requirements import InvalidRequirement, Requirement

    chosen = []
    for text in declared:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        # Only what the extra adds: earmark's base dependencies serve every arm.
        marker = req.marker
        if marker is not None and marker.evaluate({"extra": info.extra}):
            if not marker.evaluate({"extra": ""}):
                req.marker = None  # true for this extra: the closure starts unconditionally
                chosen.append(str(req))
    return chosen, []


def backend_footprint(backend: str) -> dict[str, JSONValue]:
    """The record for `model.json` `extra.runtime_footprint`, computed once per process
    and backend (the installed set does not change under a running arm). A failure is
    recorded as `error`: provenance is never a reason for an arm to fail."""
    return copy.deepcopy(_backend_footprint(backend))


@functools.cache
def _backend_footprint(backend: str) -> dict[str, JSONValue]:
    try:
        requirements, notes = backend_requirements(backend)
        found = footprint(requirements, roots=[_root_name(r) for r in requirements])
    except Exception as exc:  # a record, not a gate
        return {"error": f"{type(exc).__name__}: {exc}"[:300], "method": METHOD}
    record = found.to_dict()
    record["notes"] = [*notes, *found.notes]
    return record


def _root_name(text: str) -> str:
    return canonical_name(re.split(r"[\s;\[<>=!~(]", text.strip(), maxsplit=1)[0])
