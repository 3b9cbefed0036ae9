"""The HTTP backend against hostile servers (issue 16, items 1, 2 and 4), all on loopback.

A redirect must not carry the API key to another origin (by default no redirect is
followed); an endpoint named `localhost` works under the egress guard, which still
refuses every other port; a dripping or oversized answer is cut by a total deadline and
a byte limit, without being held in memory.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest
from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Hypothesis
from earmark.errors import EarmarkError
from earmark.execution.egress import EgressGuard, EgressRefused
from earmark.testing.loopback import LoopbackServer, Request, Response

SECRET = "sk-hostile-test-0123456789"
OK = Response(200, json.dumps({"text": "hello world"}).encode())


@pytest.fixture()
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("EARMARK_HOSTILE_KEY", SECRET)
    return "EARMARK_HOSTILE_KEY"


def transcribe(
    url: str, clip: Clip, settings: str = "", timeout: float = 5
) -> tuple[Hypothesis, dict[str, object]]:
    spec = f"http:{url}?retries=0&backoff=0&timeout={timeout:g}{settings}"
    engine = build_engine(parse_arm_spec(spec))
    info = engine.load()
    [hyp] = engine.transcribe([clip], "en")
    engine.close()
    return hyp, info.extra


def redirect(status: int, location: str) -> Response:
    return Response(status, b"", headers=(("Location", location),))


# -- 1. redirects --------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("policy", ["", "&follow_redirects=same-origin"])
def test_redirect_to_another_port_gets_no_request_and_no_key(
    tone_clips: list[Clip], key: str, status: int, policy: str
) -> None:
    """The issue's case: 127.0.0.1:A redirects to 127.0.0.1:B. B must hear nothing (before,
    a 302 was followed with `Authorization: Bearer <key>`), whatever the policy."""
    with LoopbackServer(lambda request: OK) as other:
        target = f"{other.url}/v1/audio/transcriptions"
        with LoopbackServer(lambda request: redirect(status, target)) as endpoint:
            hyp, _ = transcribe(f"{endpoint.url}/v1", tone_clips[0], f"&api_key_env={key}{policy}")
    assert other.requests == []
    assert hyp.error == f"http_redirect:{status}" and hyp.text == ""
    assert hyp.extra["location"] == target
    assert "another origin" in hyp.extra["detail"]
    assert len(endpoint.requests) == 1
    assert endpoint.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_cross_scheme_and_cross_host_are_other_origins(tone_clips: list[Clip], key: str) -> None:
    """Same host and port but https, or `localhost` for `127.0.0.1`: not the same origin."""
    with LoopbackServer(lambda request: OK) as endpoint:
        port = endpoint.url.rsplit(":", 1)[1]
        for location in (f"https://127.0.0.1:{port}/v2", f"http://localhost:{port}/v2"):
            endpoint.handler = lambda request, loc=location: (
                redirect(307, loc) if request.path.startswith("/v1") else OK
            )
            hyp, _ = transcribe(
                f"{endpoint.url}/v1",
                tone_clips[0],
                f"&api_key_env={key}&follow_redirects=same-origin",
            )
            assert hyp.error == "http_redirect:307"
    assert [r.path for r in endpoint.requests] == ["/v1/audio/transcriptions"] * 2


def test_location_is_recorded_without_credentials_query_or_fragment(
    tone_clips: list[Clip], key: str
) -> None:
    location = "http://user:hunter2@127.0.0.1:9/steal?token=abc123#frag"
    with LoopbackServer(lambda request: redirect(302, location)) as endpoint:
        hyp, _ = transcribe(f"{endpoint.url}/v1", tone_clips[0], f"&api_key_env={key}")
    assert hyp.extra["location"] == "http://127.0.0.1:9/steal"
    recorded = json.dumps(hyp.extra)
    for secret in ("hunter2", "user", "abc123", SECRET):
        assert secret not in recorded


def _moved(status: int) -> LoopbackServer:
    """/v1/... answers `status` with a relative Location /v2/...; /v2/... transcribes."""

    def handler(request: Request) -> Response:
        if request.path.startswith("/v1/"):
            return redirect(status, "/v2/audio/transcriptions")
        return OK

    return LoopbackServer(handler)


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_same_origin_redirect_is_followed_only_when_allowed(
    tone_clips: list[Clip], key: str, status: int
) -> None:
    with _moved(status) as endpoint:
        hyp, _ = transcribe(f"{endpoint.url}/v1", tone_clips[0], f"&api_key_env={key}")
        assert hyp.error == f"http_redirect:{status}"
        assert hyp.extra["location"] == f"{endpoint.url}/v2/audio/transcriptions"
        assert "same-origin" in hyp.extra["detail"]
        assert len(endpoint.requests) == 1

        hyp, extra = transcribe(
            f"{endpoint.url}/v1", tone_clips[0], f"&api_key_env={key}&follow_redirects=same-origin"
        )
    assert hyp.error is None and hyp.text == "hello world"
    assert extra["follow_redirects"] == "same-origin"
    first, second = endpoint.requests[1:]
    assert [first.path, second.path] == ["/v1/audio/transcriptions", "/v2/audio/transcriptions"]
    # The same POST again, key included: the origin is the endpoint's.
    assert second.method == "POST" and second.body == first.body
    assert second.headers["authorization"] == f"Bearer {SECRET}"


def test_same_origin_303_is_not_followed(tone_clips: list[Clip]) -> None:
    """303 asks for a GET of something else; re-sending the audio there would be a guess."""
    with _moved(303) as endpoint:
        hyp, _ = transcribe(f"{endpoint.url}/v1", tone_clips[0], "&follow_redirects=same-origin")
    assert hyp.error == "http_redirect:303" and "303" in hyp.extra["detail"]
    assert len(endpoint.requests) == 1


def test_redirect_loop_stops_after_five_hops(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: redirect(307, request.path)) as endpoint:
        hyp, _ = transcribe(f"{endpoint.url}/v1", tone_clips[0], "&follow_redirects=same-origin")
    assert hyp.error == "http_redirect:307" and "more than 5" in hyp.extra["detail"]
    assert len(endpoint.requests) == 6  # the request and five followed redirects


# -- 2. an endpoint named by hostname under the egress guard --------------------------


def test_localhost_endpoint_works_under_the_guard_and_other_ports_are_refused(
    tone_clips: list[Clip],
) -> None:
    with LoopbackServer(lambda request: OK) as endpoint, LoopbackServer(lambda r: OK) as other:
        port = int(endpoint.url.rsplit(":", 1)[1])
        other_port = int(other.url.rsplit(":", 1)[1])
        url = f"http://localhost:{port}/v1"
        guard = EgressGuard.for_hosts([url])
        with guard:
            hyp, extra = transcribe(url, tone_clips[0])
            with pytest.raises(EgressRefused):
                socket.create_connection(("127.0.0.1", other_port), timeout=2)
    assert hyp.error is None and hyp.text == "hello world"
    assert len(endpoint.requests) == 1 and other.requests == []
    assert extra["resolved_addresses"] and "127.0.0.1" in extra["resolved_addresses"]
    record = guard.record()
    assert "127.0.0.1" in record["resolved"]["localhost"]
    assert f"127.0.0.1:{port}" in record["policy"] and "localhost" not in record["policy"]
    allowed = [a for a in record["attempts"] if a["allowed"]]
    refused = [a for a in record["attempts"] if not a["allowed"]]
    assert allowed and {a["port"] for a in allowed if a["kind"] == "connect"} == {port}
    assert record["refused"] == 1 and refused[0]["port"] == other_port


def test_a_bare_hostname_is_resolved_once_and_its_addresses_allowed(
    tone_clips: list[Clip],
) -> None:
    """`for_hosts(["localhost"])`, what the run gives an HTTP arm: before, the guard
    allowed the name but checked the address, and every clip was `connection_error`."""
    with LoopbackServer(lambda request: OK) as endpoint:
        url = endpoint.url.replace("127.0.0.1", "localhost")
        with EgressGuard.for_hosts(["localhost"]) as guard:
            hyp, _ = transcribe(f"{url}/v1", tone_clips[0])
    assert hyp.error is None and hyp.text == "hello world"
    assert guard.record()["refused"] == 0
    assert "127.0.0.1" in guard.record()["resolved"]["localhost"]


def test_an_endpoint_that_does_not_resolve_fails_at_load() -> None:
    engine = build_engine(parse_arm_spec("http:http://no-such-host.invalid:8080/v1"))
    with pytest.raises(EarmarkError, match="does not resolve"):
        engine.load()
    assert EgressGuard.for_hosts(["http://no-such-host.invalid:8080/v1"]).record()["policy"] == (
        "refuse all except: nothing"
    )


def _corpus(root: Path) -> Path:
    (root / "audio").mkdir(parents=True)
    t = np.arange(3200) / 16000
    sf.write(root / "audio" / "a.wav", (0.3 * np.sin(2 * np.pi * 440 * t)), 16000)
    manifest = root / "manifest.jsonl"
    meta = CorpusMeta(
        dataset="tones",
        licence="CC0-1.0",
        consent_basis="synthetic",
        redistribute_audio=True,
        redistribute_transcripts=True,
    )
    write_manifest(
        manifest, [Utterance(id="a", audio="audio/a.wav", text="hello world", language="en")], meta
    )
    return manifest


def test_earmark_run_against_a_localhost_endpoint(tmp_path: Path) -> None:
    """The issue's command end to end, the guard on (no --allow-network)."""
    manifest = _corpus(tmp_path / "corpus")
    out = tmp_path / "run"
    with LoopbackServer(lambda request: OK) as endpoint:
        url = endpoint.url.replace("127.0.0.1", "localhost")
        rc = main(
            [
                "run",
                "--manifest",
                str(manifest),
                "--arm",
                f"http:{url}/v1?retries=0&name=api",
                "--normalizer",
                "none",
                "--bootstrap",
                "20",
                "--out",
                str(out),
                "--quiet",
            ]
        )
    assert rc == 0 and len(endpoint.requests) == 1
    [row] = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert row["status"] == "ok" and row["hypothesis"] == "hello world"
    egress = json.loads((out / "arms" / "api" / "egress.json").read_text("utf-8"))
    assert egress["refused"] == 0 and "127.0.0.1" in egress["resolved"]["localhost"]


# -- 4. bounded responses --------------------------------------------------------------


def test_a_dripping_body_is_cut_at_the_request_deadline(tone_clips: list[Clip]) -> None:
    """A byte every 0.1 s never trips the 5 s per-read timeout; the 0.5 s deadline cuts it."""
    drip = Response(200, stream=lambda: iter([b" "] * 200), length=200, pace=0.1)
    with LoopbackServer(lambda request: drip) as server:
        started = time.monotonic()
        hyp, extra = transcribe(f"{server.url}/v1", tone_clips[0], "&request_timeout=0.5")
        elapsed = time.monotonic() - started
    assert hyp.error == "http_timeout" and hyp.text == ""
    assert "request_timeout=0.5s" in hyp.extra["detail"]
    assert 0.45 < hyp.decode_seconds < 2.0 and elapsed < 3.0
    assert 0 < server.streamed < 50
    assert extra["request_timeout"] == 0.5 and extra["timeout"] == 5.0


def _dripping_status_line(stop: threading.Event) -> tuple[socket.socket, int]:
    """A raw server on 127.0.0.1 that sends its status line a byte every 0.1 s."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}":
                if stop.wait(0.1):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


def test_a_dripping_status_line_is_cut_at_the_request_deadline(tone_clips: list[Clip]) -> None:
    stop = threading.Event()
    listener, port = _dripping_status_line(stop)
    try:
        hyp, _ = transcribe(f"http://127.0.0.1:{port}/v1", tone_clips[0], "&request_timeout=0.5")
    finally:
        stop.set()
        listener.close()
    assert hyp.error == "http_timeout"
    assert 0.45 < hyp.decode_seconds < 2.0


def test_a_silent_server_is_still_the_per_read_timeout(tone_clips: list[Clip]) -> None:
    """No byte within `timeout` (0.3 s) while the deadline (5 s) is far: `timeout`."""
    with LoopbackServer(lambda request: Response(200, b"{}", delay=2.0)) as server:
        hyp, _ = transcribe(f"{server.url}/v1", tone_clips[0], "&request_timeout=5", timeout=0.3)
    assert hyp.error == "timeout"
    assert 0.25 < hyp.decode_seconds < 1.5


def _endless(piece: bytes, count: int) -> Iterator[bytes]:
    for _ in range(count):
        yield piece


def test_an_oversized_body_without_length_is_refused_while_reading(
    tone_clips: list[Clip],
) -> None:
    """256 MiB offered, no Content-Length: reading stops just past 100,000 bytes; the
    server could only hand over what the socket buffers took, and memory stays small."""
    piece = b"x" * 65536
    huge = Response(200, stream=lambda: _endless(piece, 4096))
    with LoopbackServer(lambda request: huge) as server:
        tracemalloc.start()
        try:
            hyp, _ = transcribe(f"{server.url}/v1", tone_clips[0], "&max_response_bytes=100000")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert hyp.error == "http_response_too_large" and hyp.text == ""
    assert "max_response_bytes=100000" in hyp.extra["detail"]
    assert server.streamed < 64 * 1024 * 1024
    assert peak < 8 * 1024 * 1024


def test_a_declared_oversized_length_is_refused_before_reading(tone_clips: list[Clip]) -> None:
    huge = Response(200, stream=lambda: _endless(b"x" * 65536, 4096), length=4096 * 65536)
    with LoopbackServer(lambda request: huge) as server:
        hyp, _ = transcribe(f"{server.url}/v1", tone_clips[0])
    assert hyp.error == "http_response_too_large"
    assert hyp.extra["detail"] == (
        f"Content-Length {4096 * 65536} exceeds max_response_bytes={16 * 1024 * 1024}"
    )


@pytest.mark.parametrize("chunked_length", [None, "declared"])
def test_the_limit_is_inclusive(tone_clips: list[Clip], chunked_length: str | None) -> None:
    """A body of exactly `max_response_bytes` is read; one byte more is refused."""
    body = json.dumps({"text": "edge"}).encode()  # 16 bytes
    assert len(body) == 16

    def answer(request: Request) -> Response:
        length = len(body) if chunked_length else None
        return Response(200, stream=lambda: iter([body[:5], body[5:]]), length=length)

    with LoopbackServer(answer) as server:
        exact, _ = transcribe(f"{server.url}/v1", tone_clips[0], "&max_response_bytes=16")
        under, _ = transcribe(f"{server.url}/v1", tone_clips[0], "&max_response_bytes=15")
    assert exact.error is None and exact.text == "edge"
    assert under.error == "http_response_too_large"


def test_defaults_are_recorded_and_bad_settings_refused(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: OK) as server:
        engine = build_engine(parse_arm_spec(f"http:{server.url}/v1"))
        extra = engine.load().extra
    assert extra["max_response_bytes"] == 16 * 1024 * 1024
    assert extra["request_timeout"] == 60.0 and extra["follow_redirects"] == "none"
    for setting, message in [
        ("follow_redirects=always", "not one of none, same-origin"),
        ("max_response_bytes=0", "below the minimum 1"),
        ("request_timeout=0", "below the minimum"),
    ]:
        with pytest.raises(EarmarkError, match=message):
            build_engine(parse_arm_spec(f"http:http://127.0.0.1:9/v1?{setting}"))


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "RecursionError"),
        (b'{"text": "x", "n": ' + b"9" * 5000 + b"}", "ValueError"),
    ],
)
def test_a_body_json_cannot_parse_is_malformed_not_a_crash(
    tone_clips: list[Clip], body: bytes, detail: str
) -> None:
    """Nesting deeper than the parser's recursion, or a 5000-digit number: before, these
    escaped `json.loads` as RecursionError/ValueError and failed the whole arm."""
    with LoopbackServer(lambda request: Response(200, body)) as server:
        hyp, _ = transcribe(f"{server.url}/v1", tone_clips[0])
    assert hyp.error == "malformed_response" and hyp.text == ""
    assert hyp.extra["detail"].startswith(detail)
