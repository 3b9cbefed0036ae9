"""A scripted HTTP server on 127.0.0.1 (port 0) in a thread, for testing HTTP backends.

Each request is recorded and answered by a handler function, so a test can script
"500 then success", "sleep past the timeout" or "malformed JSON" in a few lines,
without a network. Hostile answers too: a redirect (`headers`), a body produced piece by
piece (`stream`) and dripped (`pace`), or one far larger than anything should read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def form(self) -> dict[str, bytes]:
        """The multipart/form-data fields (name → raw bytes)."""
        content_type = self.headers.get("content-type", "")
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + self.body
        )
        fields: dict[str, bytes] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
        return fields


@dataclass(frozen=True)
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    #: Seconds to wait before answering (to provoke client timeouts).
    delay: float = 0.0
    #: Extra headers (e.g. `{"Location": ...}` for a redirect).
    headers: tuple[tuple[str, str], ...] = ()
    #: A body sent piece by piece instead of `body`, with Content-Length `length` (None:
    #: none, the body ends when the connection closes). Stops when the client goes away.
    stream: Callable[[], Iterable[bytes]] | None = None
    length: int | None = None
    #: Seconds between the pieces of `stream` (a server dripping its answer).
    pace: float = 0.0


Handler = Callable[[Request], Response]


@dataclass
class LoopbackServer:
    """`with LoopbackServer(handler) as server:` then use `server.url`; `requests` records all."""

    handler: Handler
    requests: list[Request] = field(default_factory=list)
    #: Bytes of `stream` bodies actually written (so a test can see where a client stopped).
    streamed: int = 0

    def __post_init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> LoopbackServer:
        owner = self

        class _Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                owner.requests.append(request)
                response = owner.handler(request)
                if response.delay and owner._closing.wait(response.delay):
                    return
                if response.stream is not None:
                    self._stream(response)
                    return
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.content_type)
                    self.send_header("Content-Length", str(len(response.body)))
                    for name, value in response.headers:
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(response.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _stream(self, response: Response) -> None:
                assert response.stream is not None
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.content_type)
                    if response.length is not None:
                        self.send_header("Content-Length", str(response.length))
                    for name, value in response.headers:
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.flush()
                    for piece in response.stream():
                        if response.pace and owner._closing.wait(response.pace):
                            return
                        self.wfile.write(piece)
                        self.wfile.flush()
                        owner.streamed += len(piece)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = _serve  # noqa: N815
            do_POST = _serve  # noqa: N815

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
