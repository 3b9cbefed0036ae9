"""Egress audit: during a run, outbound connections are refused and recorded.

Seed 000 asks for "logs/egress audit": inference after setup must be local. While a
guard is active, every `socket.connect`/`connect_ex` and name lookup in this process is
checked; allowed destinations (the endpoint of an HTTP arm, or everything under
`--allow-network`) go through and are recorded, anything else raises
`EgressRefused` and is recorded. Unix-domain sockets are local IPC and always pass.
Connects are checked by address, so an allowed name is resolved once when the guard is
made and its addresses are allowed (and recorded); an endpoint URL allows exactly those
addresses on its port.

The audit covers the arm's process tree, not just its process (`ProcessTreeAudit`):
every Python process the arm starts runs `earmark.execution.egress_child` as its
`sitecustomize` and applies the same policy, HTTP clients that honour proxy variables are
sent to a local recorder that refuses and records, and a started program that cannot be
followed is named in the record, which then says `audited: false`, never just 0 attempts.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import socketserver
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from earmark.engines import offline
from earmark.execution import egress_child
from earmark.results.codec import JSONObject, JSONValue

#: One JSON record of the audit: an attempt, a spawn, or a whole summary.
Event = dict[str, JSONValue]


class EgressRefused(ConnectionRefusedError):
    """Raised inside the run when code tries to reach the network without permission."""


@dataclass
class EgressGuard:
    """Context manager that patches socket connect and lookups for its lifetime."""

    allowed_hosts: frozenset[str] = frozenset()
    allow_all: bool = False
    attempts: list[Event] = field(default_factory=list)
    #: Follow the processes the arm starts (see `ProcessTreeAudit`).
    process_tree: bool = True
    #: (address, port) pairs an endpoint URL allows: its host resolved once, its port only.
    allowed_endpoints: frozenset[tuple[str, int]] = frozenset()
    #: Each name the guard resolved → the addresses it allows for it (recorded).
    resolved: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.tree: ProcessTreeAudit | None = None
        #: Programs started through `offline.child_command` while active: (isolated, not).
        self.programs = (0, 0)
        self._started_before = (0, 0)
        # Looking an endpoint's name up again is harmless: only its addresses connect.
        self._lookups = (
            self.allowed_hosts | set(self.resolved) | {a for a, _ in self.allowed_endpoints}
        )

    @classmethod
    def for_hosts(cls, hosts: Iterable[str], allow_all: bool = False) -> EgressGuard:
        """Entries are host names or addresses (any port) or endpoint URLs (exactly the
        addresses the URL's host resolves to now, on the URL's port).

        Names are resolved here, once, outside the guard: connects are checked by
        address, so allowing only a name let nothing through (`http://localhost:8080`
        failed every clip), and resolving again at connect time would follow the name
        wherever it pointed next."""
        names: set[str] = set()
        endpoints: set[tuple[str, int]] = set()
        resolved: dict[str, list[str]] = {}
        for entry in hosts:
            if not entry:
                continue
            if "://" in entry:
                host, port = _endpoint(entry)
                addresses = _resolve(host, port, resolved) if not allow_all else [host]
                endpoints.update((address, port) for address in addresses)
            else:
                names.add(entry.lower())
                if not allow_all:
                    names.update(_resolve(entry.lower(), None, resolved))
        return cls(
            allowed_hosts=frozenset(names),
            allow_all=allow_all,
            allowed_endpoints=frozenset(endpoints),
            resolved=resolved,
        )

    def _allows(self, kind: str, host: str, port: Any) -> bool:
        if self.allow_all or host in self.allowed_hosts:
            return True
        if kind == "lookup":
            return host in self._lookups
        try:
            return (host, int(port)) in self.allowed_endpoints
        except (TypeError, ValueError):
            return False

    def _check(self, kind: str, host: Any, port: Any) -> None:
        host_text = str(host).lower() if host is not None else ""
        allowed = self._allows(kind, host_text, port)
        port = _json_port(port)
        with self._lock:
            self.attempts.append(
                {
                    "time": time.time(),
                    "kind": kind,
                    "host": host_text,
                    "port": port,
                    "allowed": allowed,
                }
            )
        if not allowed:
            raise EgressRefused(
                f"earmark egress guard refused a network {kind} to {host_text}:{port} "
                "(pass --allow-network to permit it; it is recorded in provenance)"
            )

    def __enter__(self) -> EgressGuard:
        guard = self
        original_connect = socket.socket.connect
        original_connect_ex = socket.socket.connect_ex
        original_getaddrinfo = socket.getaddrinfo

        def connect(sock: socket.socket, address: Any) -> None:
            target = egress_child.socket_target(sock, address)
            if target is not None:
                guard._check("connect", *target)
            return original_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            target = egress_child.socket_target(sock, address)
            if target is not None:
                guard._check("connect", *target)
            return original_connect_ex(sock, address)

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if host not in (None, "", "localhost") and not str(host).startswith("127."):
                guard._check("lookup", host, port)
            return original_getaddrinfo(host, port, *args, **kwargs)

        self._saved = (original_connect, original_connect_ex, original_getaddrinfo)
        socket.socket.connect = connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
        socket.getaddrinfo = getaddrinfo
        self._offline = offline.children_offline(not self.allow_all)
        self._offline.__enter__()
        self._started_before = offline.started()
        if self.process_tree:
            if self.tree is None:
                # The descendants' policy has no ports: they get the endpoint's addresses.
                hosts = self.allowed_hosts | {a for a, _ in self.allowed_endpoints}
                self.tree = ProcessTreeAudit(hosts | set(self.resolved), self.allow_all)
            self.tree.start()
        return self

    def __exit__(self, *exc: object) -> None:
        connect, connect_ex, getaddrinfo = self._saved
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = getaddrinfo
        now, before = offline.started(), self._started_before
        self.programs = (
            self.programs[0] + now[0] - before[0],
            self.programs[1] + now[1] - before[1],
        )
        self._offline.__exit__(None, None, None)
        if self.tree is not None:
            self.tree.stop()
            with self._lock:
                self.attempts.extend(self.tree.take_attempts())

    def record(self) -> Event:
        """Policy, every attempt (this process's and its descendants'), and whether the
        whole process tree was audited; when not, which processes escaped and why."""
        allowed = sorted(self.allowed_hosts) + sorted(
            f"[{a}]:{p}" if ":" in a else f"{a}:{p}" for a, p in self.allowed_endpoints
        )
        attempts: list[JSONValue] = [*self.attempts]
        record: Event = {
            "policy": "allow all (--allow-network)"
            if self.allow_all
            else "refuse all except: " + (", ".join(allowed) or "nothing"),
            "attempts": attempts,
            "refused": sum(1 for a in self.attempts if not a["allowed"]),
        }
        if self.resolved:
            resolved: dict[str, JSONValue] = {
                name: [*v] for name, v in sorted(self.resolved.items())
            }
            record["resolved"] = resolved
        network = offline.network_record(*self.programs)
        if network is not None:
            record["network"] = dict(network)
        if self.tree is not None:
            record.update(self.tree.summary())
        elif not self.process_tree:
            record["scope"] = "this process only"
        return record


def _endpoint(url: str) -> tuple[str, int]:
    """`http://LocalHost:8080/v1` → ("localhost", 8080); the scheme's port when none."""
    parts = urlsplit(url)
    default = 443 if parts.scheme.lower() == "https" else 80
    return (parts.hostname or "").lower(), parts.port or default


def _resolve(host: str, port: int | None, resolved: dict[str, list[str]]) -> list[str]:
    """The addresses `host` names now (itself for an address); recorded under the name.
    A name that does not resolve allows nothing, and the record shows it empty."""
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        infos = []
    addresses = list(dict.fromkeys(str(info[4][0]).lower() for info in infos))
    resolved[host] = addresses
    return addresses


def merge_tree_summaries(summaries: Iterable[JSONObject | None]) -> Event:
    """One arm's process-tree summary from several processes' (Ray actors'): audited
    only if every one was; a process that sent none makes the whole arm unaudited."""
    counts = {"started": 0, "python_audited": 0, "unaudited": 0}
    audited = True
    reasons: list[str] = []
    unaudited: list[JSONValue] = []
    for summary in summaries:
        if not summary:
            audited = False
            reasons.append("a process sent no process-tree summary")
            continue
        processes = summary.get("processes")
        for key in counts:
            counts[key] += _count(processes.get(key) if isinstance(processes, dict) else 0)
        if summary.get("audited") is False:
            audited = False
            reasons.append(str(summary.get("unaudited_reason") or "not audited"))
            escaped = summary.get("unaudited")
            unaudited.extend(escaped if isinstance(escaped, list) else [])
    merged: Event = {
        "audited": audited,
        "scope": "every actor process and every process they started",
        "processes": dict[str, JSONValue](counts),
    }
    if not audited:
        merged["unaudited_reason"] = "; ".join(dict.fromkeys(reasons))
        merged["unaudited"] = unaudited[:UNAUDITED_SHOWN]
    return merged


def _count(value: JSONValue) -> int:
    """A count from a JSON record (0 for anything that is not a whole number)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return 0
    try:
        return int(value)
    except ValueError:
        return 0


def _json_port(port: object) -> JSONValue:
    """A socket address's port as the record keeps it (an int as given, else its text)."""
    if port is None or isinstance(port, (int, str)):
        return port
    return str(port)


#: Events that escape a process tree audit (the parent names them in the record).
UNAUDITED_SHOWN = 20


class ProcessTreeAudit:
    """Follows the processes an arm starts while its guard is active.

    The arm's own spawns are watched (each child gets the audit's environment and a
    token); Python descendants load `egress_child` as `sitecustomize`, apply the policy,
    log attempts and say hello with their token; proxy-honouring HTTP clients are sent
    to a recorder on 127.0.0.1 that refuses and logs. A spawned process with no hello
    carrying its token is unaudited: it could have connected without being seen.
    """

    def __init__(self, allowed_hosts: frozenset[str], allow_all: bool) -> None:
        self.allowed_hosts = allowed_hosts
        self.allow_all = allow_all
        self._folder: Path | None = None
        self._offset = 0
        self._attempts: list[Event] = []
        self.spawns: list[Event] = []
        self.hellos: set[tuple[str | None, int]] = set()
        self.failed_tokens: set[str] = set()
        self._recorder: _ProxyRecorder | None = None
        self._undo: Callable[[], None] | None = None
        self._saved_env: dict[str, str | None] = {}

    @property
    def log(self) -> str:
        assert self._folder is not None
        return str(self._folder / "events.jsonl")

    def start(self) -> None:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="earmark-egress-"))
            weakref.finalize(self, shutil.rmtree, self._folder, ignore_errors=True)
            source = Path(egress_child.__file__).read_text("utf-8")
            (self._folder / "sitecustomize.py").write_text(source, "utf-8")
            Path(self.log).touch()
        site = str(self._folder)
        base = {
            egress_child.LOG: self.log,
            egress_child.SITE: site,
            egress_child.ALLOWED: ",".join(sorted(self.allowed_hosts)),
            egress_child.ALLOW_ALL: "1" if self.allow_all else "0",
        }
        if not self.allow_all:
            # Probed before the watch: its own `unshare` must not count as a spawn.
            found = offline.isolation()
            if found.available:
                base[egress_child.ISOLATED] = json.dumps(list(found.prefix))
        additions = dict(base)
        if not self.allow_all:
            self._recorder = _ProxyRecorder(self.log)
            address = self._recorder.start()
            additions[egress_child.RECORDER] = address
            for name in egress_child.PROXY_VARIABLES:
                lower = name.lower()
                if lower == "no_proxy":
                    additions[name] = ",".join(sorted(self.allowed_hosts))
                else:
                    additions[name] = f"http://{address}"
        # In this process's environment too (not the proxies: they would reroute the
        # arm's own clients), so programs started by paths the watch does not patch
        # still carry the audit into their Python descendants.
        previous = os.environ.get("PYTHONPATH")
        env = {**base, "PYTHONPATH": os.pathsep.join(p for p in (site, previous) if p)}
        self._saved_env = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        self._undo = egress_child.install_spawn_watch(self.log, additions)

    def stop(self) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved_env = {}
        if self._recorder is not None:
            self._recorder.stop()
            self._recorder = None
        self._harvest()

    def _harvest(self) -> None:
        try:
            with open(self.log, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            return
        complete = data[: data.rfind(b"\n") + 1]
        self._offset += len(complete)
        for line in complete.decode("utf-8", "replace").split("\n"):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            kind = event.pop("event", None)
            if kind == "attempt":
                self._attempts.append({**event, "process": "descendant"})
            elif kind == "hello":
                token = event.get("token")
                self.hellos.add(
                    (str(token) if token is not None else None, _count(event.get("pid")))
                )
            elif kind == "spawn":
                self.spawns.append(event)
            elif kind == "spawn_failed":
                self.failed_tokens.add(str(event.get("token")))

    def take_attempts(self) -> list[Event]:
        taken, self._attempts = self._attempts, []
        return taken

    def unaudited(self) -> list[Event]:
        """Spawned processes that never said hello with their token."""
        out: list[Event] = []
        for spawn in self.spawns:
            token = spawn.get("token")
            if isinstance(token, str) and token in self.failed_tokens:
                continue
            if isinstance(token, str) and (token, _count(spawn.get("pid"))) in self.hellos:
                continue
            reason = (
                "a shell started with os.system"
                if spawn.get("kind") == "shell"
                else "not a Python process that loaded the audit (a shell, a compiled "
                "program, or Python run with -I/-E/-S)"
            )
            if spawn.get("isolated") is True:
                reason += "; it ran without a network, so nothing it sent left it"
            out.append({**spawn, "reason": reason})
        return out

    def summary(self) -> Event:
        escaped = self.unaudited()
        started = [s for s in self.spawns if s.get("token") not in self.failed_tokens]
        escaped_shown: list[JSONValue] = [*escaped[:UNAUDITED_SHOWN]]
        summary: Event = {
            "audited": not escaped,
            "scope": "this process and every process it started",
            "processes": {
                "started": len(started),
                "python_audited": len(self.hellos),
                "unaudited": len(escaped),
            },
        }
        if escaped:
            programs = sorted({str(s.get("program")) for s in escaped})
            summary["unaudited_reason"] = (
                f"{len(escaped)} started process(es) could not be audited "
                f"({', '.join(programs[:5])}): their own connections are not seen; only "
                "HTTP clients that honour proxy variables reach the recorder"
                if not self.allow_all
                else f"{len(escaped)} started process(es) could not be audited "
                f"({', '.join(programs[:5])}): their connections are not seen"
            )
            summary["unaudited"] = escaped_shown
        return summary


class _ProxyRecorder:
    """An HTTP proxy on 127.0.0.1 that forwards nothing: it logs the destination of
    each request (`CONNECT host:port` or an absolute URL) as a refused attempt and
    answers 403."""

    def __init__(self, log: str) -> None:
        self.log = log
        self._server: socketserver.ThreadingTCPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        log = self.log

        class Handler(socketserver.StreamRequestHandler):
            timeout = 5

            def handle(self) -> None:
                try:
                    line = self.rfile.readline(8192).decode("latin-1").strip()
                except OSError:
                    return
                host, port = _proxy_target(line)
                egress_child.write_event(
                    log,
                    {
                        "event": "attempt",
                        "time": time.time(),
                        "kind": "proxy",
                        "host": host,
                        "port": port,
                        "allowed": False,
                        "pid": None,
                        "program": None,
                        "request": line[:200],
                    },
                )
                body = b"earmark egress guard: network access refused during the run\n"
                try:
                    self.wfile.write(
                        b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                        + body
                    )
                except OSError:
                    pass

        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        host, port = server.server_address[:2]
        return f"{host!s}:{port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def _proxy_target(request_line: str) -> tuple[str, int | None]:
    """`CONNECT h:443 HTTP/1.1` → (h, 443); `GET http://h:8080/x HTTP/1.1` → (h, 8080)."""
    from urllib.parse import urlsplit

    parts = request_line.split()
    if len(parts) < 2:
        return "", None
    method, target = parts[0].upper(), parts[1]
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        return host.strip("[]").lower(), int(port) if port.isdigit() else None
    url = urlsplit(target)
    default = 443 if url.scheme == "https" else 80
    return (url.hostname or "").lower(), url.port or default
