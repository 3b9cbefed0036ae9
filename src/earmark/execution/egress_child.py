"""The egress audit inside child processes, and the spawn watch shared with the arm.

An arm's guard patches sockets in its own process only; a command engine's program, or
anything that program starts, would otherwise reach the network unseen. While a guard is
active, this file is also the `sitecustomize` of every Python process the arm starts (its
folder is put first on `PYTHONPATH`): such a process says hello, refuses and records
connections with the arm's policy, and watches its own spawns the same way. A spawned
process that never says hello (a shell, a compiled program, Python run with `-I`/`-E`/`-S`)
is recorded as unaudited, so the record can say `audited: false` rather than count 0.

Standard library only, and no `earmark` import: a child may run another interpreter.
Events are JSON lines appended with one `write` each to the file named by
`EARMARK_EGRESS_LOG`; `earmark.execution.egress` reads them back.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

LOG = "EARMARK_EGRESS_LOG"
TOKEN = "EARMARK_EGRESS_TOKEN"
ALLOWED = "EARMARK_EGRESS_ALLOWED"
ALLOW_ALL = "EARMARK_EGRESS_ALLOW_ALL"
RECORDER = "EARMARK_EGRESS_RECORDER"
SITE = "EARMARK_EGRESS_SITE"
#: The argv prefix (a JSON list) that starts a program without a network: such a child
#: gets no proxy variables, since the recorder is out of its reach (its own Python
#: sockets are still refused and recorded).
ISOLATED = "EARMARK_EGRESS_ISOLATED"
#: What a spawned process must inherit for the audit to follow it.
PROPAGATED = (LOG, ALLOWED, ALLOW_ALL, RECORDER, SITE, ISOLATED)
PROXY_VARIABLES = (
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
)


class EgressRefusedInChild(ConnectionRefusedError):
    """Raised in a child process when it tries to reach the network without permission."""


def write_event(path: str, event: Mapping[str, object]) -> None:
    """Append one JSON line in a single `write` (O_APPEND keeps concurrent lines whole)."""
    line = (json.dumps(event, ensure_ascii=True, default=str) + "\n").encode("ascii")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def child_environment(
    base: Mapping[str, str] | None, additions: Mapping[str, str]
) -> tuple[dict[str, str], str]:
    """The environment a spawned process gets: its own (or ours), the audit's variables,
    a fresh token it reports in its hello, and the audit folder first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    env.update(additions)
    token = os.urandom(16).hex()
    env[TOKEN] = token
    site = additions.get(SITE)
    if site:
        parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != site]
        env["PYTHONPATH"] = os.pathsep.join([site, *parts])
    return env, token


def _program(executable: Any, args: Any, shell: bool) -> str:
    if shell:
        return "/bin/sh (shell=True)"
    if executable is not None:
        return os.fsdecode(executable)
    if isinstance(args, (str, bytes, os.PathLike)):
        return os.fsdecode(args)
    try:
        return os.fsdecode(list(args)[0])
    except (IndexError, TypeError):
        return "?"


def _isolated(args: Any, shell: bool, prefix_json: str | None) -> bool:
    """Whether Popen's `args` start a program inside the empty network namespace."""
    if not prefix_json:
        return False
    prefix = [str(p) for p in json.loads(prefix_json)]
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    try:
        argv = [os.fsdecode(a) for a in args]
    except TypeError:
        return False
    if shell:
        import shlex

        return any(a.startswith("exec " + shlex.join(prefix) + " ") for a in argv)
    return argv[: len(prefix)] == prefix


def install_spawn_watch(log: str, additions: Mapping[str, str]) -> Callable[[], None]:
    """Patch the ways Python starts programs so each child gets the audit's environment
    and a `spawn` event (token, pid, program); returns the function that undoes it."""
    import subprocess

    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, replacement: Any) -> None:
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def spawned(
        token: str | None, pid: int | None, program: str, kind: str, isolated: bool = False
    ) -> None:
        event: dict[str, object] = {
            "event": "spawn",
            "token": token,
            "pid": pid,
            "program": program,
            "kind": kind,
            "by": os.getpid(),
        }
        if isolated:
            event["isolated"] = True
        write_event(log, event)

    original_execute = subprocess.Popen._execute_child  # type: ignore[attr-defined]
    signature: list[Any] = []  # computed on first use: `inspect` slows every child's start

    def execute_child(self: Any, *args: Any, **kwargs: Any) -> None:
        if not signature:
            import inspect

            signature.append(inspect.signature(original_execute))
        bound = signature[0].bind(self, *args, **kwargs)
        env, token = child_environment(bound.arguments.get("env"), additions)
        shell = bool(bound.arguments.get("shell"))
        argv = bound.arguments.get("args")
        prefix = additions.get(ISOLATED)
        isolated = _isolated(argv, shell, prefix)
        if isolated:
            for name in (*PROXY_VARIABLES, RECORDER):
                env.pop(name, None)
            if not shell and prefix:  # name the program, not `unshare`
                argv = list(argv)[len(json.loads(prefix)) :]
        bound.arguments["env"] = env
        program = _program(bound.arguments.get("executable"), argv, shell)
        original_execute(*bound.args, **bound.kwargs)
        spawned(token, self.pid, program, "subprocess", isolated)

    patch(subprocess.Popen, "_execute_child", execute_child)

    original_system = os.system

    def system(command: Any) -> int:
        spawned(None, None, "/bin/sh (os.system)", "shell")
        return original_system(command)

    patch(os, "system", system)

    for name in ("posix_spawn", "posix_spawnp"):
        original = getattr(os, name, None)
        if original is None:
            continue

        def posix_spawn(
            path: Any, argv: Any, env: Any, *rest: Any, _original: Any = original, **kw: Any
        ) -> int:
            child_env, token = child_environment(env, additions)
            pid = int(_original(path, argv, child_env, *rest, **kw))
            spawned(token, pid, os.fsdecode(path), "posix_spawn")
            return pid

        patch(os, name, posix_spawn)

    original_execve = os.execve

    def execve(path: Any, args: Any, env: Any) -> None:
        child_env, token = child_environment(env, additions)
        spawned(token, os.getpid(), os.fsdecode(path), "exec")
        try:
            original_execve(path, args, child_env)
        except OSError:
            write_event(log, {"event": "spawn_failed", "token": token})
            raise

    def execv(path: Any, args: Any) -> None:
        execve(path, args, None)

    patch(os, "execve", execve)
    patch(os, "execv", execv)

    def undo() -> None:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)

    return undo


def socket_target(sock: socket.socket, address: Any) -> tuple[Any, Any] | None:
    """`(host, port)` a connect goes to (port None for a bare address), or None for a
    local Unix socket, which never leaves the machine. The arm's guard uses it too."""
    if sock.family == getattr(socket, "AF_UNIX", None):
        return None
    if isinstance(address, tuple) and len(address) >= 2:
        return address[0], address[1]
    return address, None


def install_socket_guard(
    log: str, allowed: frozenset[str], allow_all: bool, recorder: tuple[str, int] | None
) -> None:
    """The arm's policy in this process: allowed destinations pass and are recorded,
    others are recorded and refused; Unix sockets and the proxy recorder pass unrecorded."""

    def check(kind: str, host: Any, port: Any) -> None:
        host_text = str(host).lower() if host is not None else ""
        if recorder is not None and (host_text, port) == recorder:
            return
        ok = allow_all or host_text in allowed
        write_event(
            log,
            {
                "event": "attempt",
                "time": time.time(),
                "kind": kind,
                "host": host_text,
                "port": port,
                "allowed": ok,
                "pid": os.getpid(),
                "program": sys.executable,
            },
        )
        if not ok:
            raise EgressRefusedInChild(
                f"earmark egress guard refused a network {kind} to {host_text}:{port} "
                "from a child process of the arm (pass --allow-network to permit it)"
            )

    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_getaddrinfo = socket.getaddrinfo

    def connect(sock: socket.socket, address: Any) -> None:
        where = socket_target(sock, address)
        if where is not None:
            check("connect", *where)
        return original_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        where = socket_target(sock, address)
        if where is not None:
            check("connect", *where)
        return original_connect_ex(sock, address)

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (None, "", "localhost") and not str(host).startswith("127."):
            check("lookup", host, port)
        return original_getaddrinfo(host, port, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo


def _recorder(value: str | None) -> tuple[str, int] | None:
    if not value:
        return None
    host, _, port = value.rpartition(":")
    return host, int(port)


def _activate() -> None:
    """Run as `sitecustomize`: guard this process, then say hello (only once guarded)."""
    log = os.environ.get(LOG)
    if not log:
        return
    allowed = frozenset(h for h in os.environ.get(ALLOWED, "").split(",") if h)
    install_socket_guard(
        log, allowed, os.environ.get(ALLOW_ALL) == "1", _recorder(os.environ.get(RECORDER))
    )
    inherited = {k: os.environ[k] for k in (*PROPAGATED, *PROXY_VARIABLES) if k in os.environ}
    install_spawn_watch(log, inherited)
    write_event(
        log,
        {
            "event": "hello",
            "token": os.environ.get(TOKEN),
            "pid": os.getpid(),
            "ppid": os.getppid(),
            "program": sys.executable,
        },
    )


def _chain() -> None:
    """Run the `sitecustomize` this one shadows (a distribution's or a virtualenv's)."""
    import importlib.machinery
    import importlib.util

    here = os.environ.get(SITE)
    path = [p for p in sys.path if not here or os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if __name__ == "sitecustomize":
    try:
        _activate()
    except Exception as exc:  # never break the child's start; it stays unaudited
        sys.stderr.write(f"earmark egress audit not installed in this process: {exc}\n")
    _chain()
