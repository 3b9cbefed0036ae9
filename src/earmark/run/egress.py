"""Egress audit: during a run, outbound connections are refused and recorded.

Seed 000 asks for "logs/egress audit": inference after setup must be local. While a
guard is active, every `socket.connect`/`connect_ex` and name lookup in this process is
checked; allowed destinations (the host of an HTTP arm, or everything under
`--allow-network`) go through and are recorded, anything else raises
`EgressRefused` and is recorded. Unix-domain sockets are local IPC and always pass.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


class EgressRefused(ConnectionRefusedError):
    """Raised inside the run when code tries to reach the network without permission."""


@dataclass
class EgressGuard:
    """Context manager that patches socket connect and lookups for its lifetime."""

    allowed_hosts: frozenset[str] = frozenset()
    allow_all: bool = False
    attempts: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._saved: dict[str, Any] = {}

    @classmethod
    def for_hosts(cls, hosts: Iterable[str], allow_all: bool = False) -> EgressGuard:
        return cls(allowed_hosts=frozenset(h.lower() for h in hosts if h), allow_all=allow_all)

    def _check(self, kind: str, host: Any, port: Any) -> None:
        host_text = str(host).lower() if host is not None else ""
        allowed = self.allow_all or host_text in self.allowed_hosts
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

        def _address(sock: socket.socket, address: Any) -> tuple[Any, Any] | None:
            if sock.family == getattr(socket, "AF_UNIX", None):
                return None
            if isinstance(address, tuple) and len(address) >= 2:
                return address[0], address[1]
            return address, None

        def connect(sock: socket.socket, address: Any) -> None:
            target = _address(sock, address)
            if target is not None:
                guard._check("connect", *target)
            return original_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            target = _address(sock, address)
            if target is not None:
                guard._check("connect", *target)
            return original_connect_ex(sock, address)

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if host not in (None, "", "localhost") and not str(host).startswith("127."):
                guard._check("lookup", host, port)
            return original_getaddrinfo(host, port, *args, **kwargs)

        self._saved = {
            "connect": original_connect,
            "connect_ex": original_connect_ex,
            "getaddrinfo": original_getaddrinfo,
        }
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = getaddrinfo
        return self

    def __exit__(self, *exc: object) -> None:
        socket.socket.connect = self._saved["connect"]  # type: ignore[method-assign]
        socket.socket.connect_ex = self._saved["connect_ex"]  # type: ignore[method-assign]
        socket.getaddrinfo = self._saved["getaddrinfo"]

    def record(self) -> dict[str, Any]:
        return {
            "policy": "allow all (--allow-network)"
            if self.allow_all
            else "refuse all except: " + (", ".join(sorted(self.allowed_hosts)) or "nothing"),
            "attempts": list(self.attempts),
            "refused": sum(1 for a in self.attempts if not a["allowed"]),
        }
