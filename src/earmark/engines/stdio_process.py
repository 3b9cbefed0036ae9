"""The stdio backend's wire: a running program, its pipes, and the JSON lines it may say.

`StdioProcess` owns one program (a reader thread per output, so a full stderr pipe never
blocks it and a read can time out); the `check_*`/`read_*` functions turn its lines into
checked values or a `ProtocolError`, which `earmark.engines.stdio` makes a reason code.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Sequence

from earmark.engines import offline
from earmark.engines.base import Segment
from earmark.records import surrogate_paths
from earmark.results.codec import JSONValue

#: The newest protocol version this module speaks (the hello's `protocol`).
PROTOCOL = 2
#: The versions it reads: 1, and 2 (version 1 plus the hello's `weight_types` and
#: `weight_type`, docs/stdio_protocol.md); a version-1 program keeps working unchanged.
PROTOCOLS = (1, 2)
#: A weight type's name, as a hello declares it and a command line receives it: no
#: spaces, slashes or quotes, so substituting it into an argument cannot escape it.
WEIGHT_TYPE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
#: The most weight types one hello may declare.
MAX_WEIGHT_TYPES = 64
#: One JSON object on the wire, as `json.loads` gives it.
Message = dict[str, JSONValue]
_STDERR_KEPT = 8192
_NOISE_KEPT = 5
#: The longest line read from a program's stdout (the HTTP backend's answer bound): a
#: program that loops without a newline is cut here, never held whole.
MAX_LINE_BYTES = 16 * 1024 * 1024


class ProtocolError(Exception):
    """The program said something the protocol does not allow (stream out of step)."""


class LineTooLong(ProtocolError):
    """A line over `MAX_LINE_BYTES`: its bytes were skipped to its newline, not kept."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a line of more than {MAX_LINE_BYTES} bytes ({size} skipped)")
        self.size = size


class ProgramExited(Exception):
    """The program closed its stdout or could not be written to: it has gone."""


class StdioProcess:
    """One running program: its pipes, a thread per output (so a full stderr pipe never
    blocks it and a read can time out), and the last bytes of its stderr."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            offline.child_command(argv, shell=False),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            # Its own group, so a timeout kills whatever it started too.
            start_new_session=os.name == "posix",
        )
        self._lines: queue.Queue[bytes | int | None] = queue.Queue()
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self.noise: collections.deque[str] = collections.deque(maxlen=_NOISE_KEPT)
        self.noise_lines = 0
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            for line in iter(lambda: stream.readline(MAX_LINE_BYTES + 1), b""):
                if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
                    self._lines.put(line)
                    continue
                size = len(line)  # too long: skip to its newline, hand on its size
                while not line.endswith(b"\n"):
                    line = stream.readline(1 << 20)
                    if not line:
                        break
                    size += len(line)
                self._lines.put(size)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        try:
            for chunk in iter(lambda: stream.read(4096), b""):
                with self._stderr_lock:
                    self._stderr += chunk
                    del self._stderr[:-_STDERR_KEPT]
        except (OSError, ValueError):
            pass

    def stderr_tail(self, chars: int = 500) -> str:
        with self._stderr_lock:
            return bytes(self._stderr).decode("utf-8", "replace")[-chars:]

    def send(self, message: Message) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            stdin.write(data)
            stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError) as exc:
            raise ProgramExited(f"cannot write to the program: {exc}") from None

    def receive(self, timeout: float) -> Message:
        """The next JSON object on stdout; lines that are not JSON objects (a library's
        banner) are skipped and kept in `noise`. Raises `TimeoutError` past `timeout`,
        `ProgramExited` at end of stream, `ProtocolError` for a broken object (`LineTooLong`
        for a line over `MAX_LINE_BYTES`)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                raise TimeoutError from None
            if line is None:
                self._lines.put(None)  # later reads see the end too
                raise ProgramExited("the program closed its output")
            if isinstance(line, int):
                raise LineTooLong(line)
            text = line.decode("utf-8", "replace").strip()
            if not text.startswith("{"):
                if text:
                    self.noise_lines += 1
                    self.noise.append(text[:200])
                continue
            try:
                message = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ProtocolError(f"a line that is not JSON: {exc}: {text[:200]!r}") from None
            except (ValueError, RecursionError) as exc:  # a 5000-digit number, deep nesting
                raise ProtocolError(f"a line json cannot parse ({type(exc).__name__})") from None
            if not isinstance(message, dict):
                raise ProtocolError(f"a JSON line that is not an object: {text[:200]!r}")
            return message

    def exit_code(self, wait: float = 1.0) -> int | None:
        try:
            return self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """SIGKILL the program's whole group, then reap it."""
        if self.process.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.process.pid, signal.SIGKILL)
                else:  # pragma: no cover - non-POSIX
                    self.process.kill()
            except ProcessLookupError:
                pass
        self._finish()

    def stop(self, grace: float) -> None:
        """Ask it to shut down, close its stdin, wait `grace` seconds, then kill."""
        try:
            self.send({"type": "shutdown"})
        except ProgramExited:
            pass
        try:
            assert self.process.stdin is not None
            self.process.stdin.close()
        except OSError:
            pass
        if self.exit_code(grace) is None:
            self.kill()
        self._finish()

    def _finish(self) -> None:
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL not honoured
            pass
        for thread in self._threads:
            thread.join(timeout=2)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def check_hello(message: Message) -> Message:
    """The hello's fields, checked: `type`, `protocol` (a version earmark reads), `name`,
    and in version 2 the weight types it declares."""
    if message.get("type") != "hello":
        raise ProtocolError(f"the first JSON line is not a hello: {json.dumps(message)[:200]}")
    protocol = message.get("protocol")
    if isinstance(protocol, bool) or protocol not in PROTOCOLS:
        raise ProtocolError(
            f"the program speaks protocol {protocol!r}; earmark speaks "
            + " and ".join(map(str, PROTOCOLS))
        )
    if not isinstance(message.get("name"), str) or not message["name"]:
        raise ProtocolError("the hello has no name")
    # The hello goes into the arm's model.json: text that is not Unicode cannot be written.
    broken = next(surrogate_paths(message), None)
    if broken is not None:
        raise ProtocolError(f"the hello's {broken} is not Unicode text (a lone surrogate)")
    deterministic = message.get("deterministic")
    if deterministic is not None and not isinstance(deterministic, bool):
        raise ProtocolError("the hello's deterministic is not true or false")
    _check_weight_fields(message)
    return message


def _check_weight_fields(hello: Message) -> None:
    """`weight_types` (a list of names) and `weight_type` (one of them), protocol 2 only."""
    fields = [k for k in ("weight_types", "weight_type") if k in hello]
    if fields and hello.get("protocol") == 1:
        raise ProtocolError(f"the hello's {fields[0]} came with protocol 2; it says protocol 1")
    declared = hello.get("weight_types")
    if "weight_types" in hello:
        if not isinstance(declared, list) or not declared or len(declared) > MAX_WEIGHT_TYPES:
            raise ProtocolError(
                f"the hello's weight_types is not a list of 1 to {MAX_WEIGHT_TYPES} names"
            )
        for name in declared:
            if not isinstance(name, str) or not WEIGHT_TYPE_NAME.fullmatch(name):
                raise ProtocolError(f"the hello's weight_types holds {json.dumps(name)[:80]}")
    loaded = hello.get("weight_type")
    if "weight_type" in hello and not (
        isinstance(loaded, str) and WEIGHT_TYPE_NAME.fullmatch(loaded)
    ):
        raise ProtocolError(f"the hello's weight_type is {json.dumps(loaded)[:80]}")


def hello_weight_types(hello: Message) -> tuple[str, ...]:
    """The weight types a (checked) hello declares; () when it declares none."""
    declared = hello.get("weight_types")
    return tuple(str(w) for w in declared) if isinstance(declared, list) else ()


def hello_streams(hello: Message) -> bool:
    """Whether the hello declares `capabilities.streaming: true`."""
    capabilities = hello.get("capabilities")
    return isinstance(capabilities, dict) and capabilities.get("streaming") is True


def read_partial(message: Message) -> tuple[str, float, bool]:
    """(text, audio seconds fed, input finished) of a `partial` line."""
    text = message.get("partial")
    audio = message.get("audio_seconds")
    finished = message.get("input_finished", False)
    if not isinstance(text, str):
        raise ProtocolError("a partial line whose partial is not a string")
    if isinstance(audio, bool) or not isinstance(audio, (int, float)) or audio < 0:
        raise ProtocolError("a partial line without a non-negative audio_seconds")
    if not isinstance(finished, bool):
        raise ProtocolError("a partial line whose input_finished is not true or false")
    return text, float(audio), finished


def read_segments(value: JSONValue) -> tuple[Segment, ...]:
    """An answer's `segments` (absent: none); each a `{start, end, text}` object."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ProtocolError("segments is not a list")
    segments = []
    for item in value:
        try:
            if not isinstance(item, dict):
                raise TypeError
            start, end = _seconds(item["start"]), _seconds(item["end"])
            segments.append(Segment(start, end, str(item["text"])))
        except (TypeError, KeyError, ValueError):
            raise ProtocolError(f"a segment is not {{start, end, text}}: {item!r}") from None
    return tuple(segments)


def _seconds(value: JSONValue) -> float:
    """`float(value)` for what JSON can hold; TypeError for null, a list or an object."""
    if isinstance(value, (bool, int, float, str)):
        return float(value)
    raise TypeError
