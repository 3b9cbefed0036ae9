"""Programs an arm starts run without a network, where the platform allows it.

The egress audit sees Python's sockets, but a `command` or `stdio` program can open its own
(`curl --noproxy '*'`, bash's `/dev/tcp`). On Linux such a program is started inside a
new, empty network namespace (`unshare --net` as root, `unshare --user --map-root-user
--net` otherwise): it has no interface but a loopback that is down, so nothing it sends
leaves it. Where that is impossible the reason is kept, said on the terminal and recorded
in `egress.json`, and `run --require-offline` refuses such arms before anything runs.

While a run refuses the network, the arm's egress guard turns `children_offline` on; the
command and stdio engines pass every program they start through `child_command`.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from earmark.results.codec import JSONObject

_REASON_CHARS = 300
#: Backends that start programs of their own, whose sockets the audit cannot patch.
PROGRAM_BACKENDS = frozenset({"command", "stdio"})


@dataclass(frozen=True)
class Isolation:
    """What this machine can do: the argv prefix that starts a program without a
    network, or why there is none."""

    prefix: tuple[str, ...] = ()
    reason: str | None = None

    def __post_init__(self) -> None:
        # The reason quotes a program's stderr: one bounded line of text, no controls or
        # lone surrogates, so every record and report can carry it as it is.
        if self.reason is not None:
            text = self.reason.encode("utf-8", "replace").decode("utf-8")
            text = "".join(" " if ch < " " or ch == "\x7f" else ch for ch in text)
            object.__setattr__(self, "reason", " ".join(text.split())[:_REASON_CHARS])

    @property
    def available(self) -> bool:
        return bool(self.prefix)

    @property
    def method(self) -> str | None:
        return shlex.join(self.prefix[:-1]) if self.prefix else None


_PREFIXES = (
    ("--net", "--"),
    ("--user", "--map-root-user", "--net", "--"),
)


@functools.lru_cache(maxsize=1)
def isolation() -> Isolation:
    """Probe once per process: the first `unshare` form that starts `true` without a
    network (a plain network namespace needs root; otherwise a user namespace too)."""
    if not sys.platform.startswith("linux"):
        return Isolation(reason=f"network namespaces are Linux only (this is {sys.platform})")
    program = shutil.which("unshare")
    if program is None:
        return Isolation(reason="`unshare` (util-linux) is not installed")
    true = shutil.which("true") or "/bin/true"
    forms = _PREFIXES if os.geteuid() == 0 else _PREFIXES[1:]
    failures = []
    for form in forms:
        prefix = (program, *form)
        try:
            done = subprocess.run(
                [*prefix, true], capture_output=True, timeout=10, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            failures.append(f"{shlex.join(prefix[:-1])}: {exc}")
            continue
        if done.returncode == 0:
            return Isolation(prefix=prefix)
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        failures.append(f"{shlex.join(prefix[:-1])}: {detail[-1] if detail else done.returncode}")
    return Isolation(reason="cannot create a network namespace (" + "; ".join(failures) + ")")


class _Switch:
    """Whether programs started now must be isolated, and how many were started."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.isolated = 0
        self.unisolated = 0


_SWITCH = _Switch()


@contextmanager
def children_offline(required: bool) -> Iterator[None]:
    """Within: programs started through `child_command` get no network when `required`
    (and the platform allows it)."""
    if not required:
        yield
        return
    with _SWITCH.lock:
        _SWITCH.depth += 1
    try:
        yield
    finally:
        with _SWITCH.lock:
            _SWITCH.depth -= 1


def child_command(command: Sequence[str] | str, shell: bool) -> list[str] | str:
    """`command` as Popen should start it: inside an empty network namespace while
    `children_offline` is on and the platform allows it, else unchanged. A shell command
    stays a shell command whose only act is to start the isolated shell."""
    plain: list[str] | str = command if isinstance(command, str) else list(command)
    with _SWITCH.lock:
        if not _SWITCH.depth:
            return plain
        found = isolation()
        if not found.available:
            _SWITCH.unisolated += 1
            return plain
        _SWITCH.isolated += 1
    if shell:
        text = command if isinstance(command, str) else shlex.join(command)
        return "exec " + shlex.join([*found.prefix, "/bin/sh", "-c", text])
    return [*found.prefix, *plain]


def started() -> tuple[int, int]:
    """Programs started through `child_command` so far in this process: (without a
    network, with one although refused); a guard records the difference over its life."""
    with _SWITCH.lock:
        return _SWITCH.isolated, _SWITCH.unisolated


def network_record(isolated: int, unisolated: int) -> JSONObject | None:
    """egress.json's `network`: whether the programs an arm started while the network
    was refused ran without one; None when it started none."""
    if not isolated and not unisolated:
        return None
    found = isolation()
    if unisolated:
        return {
            "programs_isolated": False,
            "programs_started": isolated + unisolated,
            "reason": f"programs ran with the network reachable: {found.reason}",
        }
    return {
        "programs_isolated": True,
        "programs_started": isolated,
        "method": found.method,
        "scope": "every program the arm started ran in a network namespace of its own "
        "with no interface up (loopback included)",
    }


def unisolated_reason(backend: str) -> str | None:
    """Why `backend`'s programs would reach the network here, or None (it starts none,
    or they can be isolated)."""
    if backend not in PROGRAM_BACKENDS:
        return None
    found = isolation()
    return None if found.available else found.reason


def load_note() -> JSONObject | None:
    """For an engine's model record at load (inside the arm's guard): whether the
    programs it starts get a network in this run; None when the run allows the network
    or no guard is active."""
    with _SWITCH.lock:
        if not _SWITCH.depth:
            return None
    found = isolation()
    if found.available:
        return {"programs_isolated": True, "method": found.method}
    return {"programs_isolated": False, "reason": found.reason}
