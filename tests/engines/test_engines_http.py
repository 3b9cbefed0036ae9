"""The OpenAI-compatible HTTP backend against a scripted loopback server."""

from __future__ import annotations

import io
import json

import pytest
import soundfile

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Engine, Segment
from earmark.errors import EarmarkError
from earmark.testing.loopback import LoopbackServer, Request, Response

VERBOSE = {
    "text": " 你好世界",
    "language": "zh",
    "segments": [
        {"start": 0.0, "end": 0.5, "text": " 你好"},
        {"start": 0.5, "end": 1.0, "text": "世界"},
    ],
}


def ok(payload: dict[str, object] = VERBOSE) -> Response:
    return Response(200, json.dumps(payload).encode())


def engine_for(server: LoopbackServer, settings: str = "", language_policy: str = "") -> object:
    query = "model=whisper-1&retries=2&backoff=0&timeout=5" + settings + language_policy
    engine = build_engine(parse_arm_spec(f"http:{server.url}/v1?{query}"))
    engine.load()
    return engine


def test_success_with_segments_and_multipart_fields(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: ok()) as server:
        engine = engine_for(server)
        assert isinstance(engine, Engine)
        hyps = engine.transcribe(tone_clips, "zh")
    assert [h.text for h in hyps] == ["你好世界", "你好世界"]
    assert hyps[0].segments == (Segment(0.0, 0.5, "你好"), Segment(0.5, 1.0, "世界"))
    assert hyps[0].language_used == "zh" and hyps[0].error is None
    request = server.requests[0]
    assert request.method == "POST" and request.path == "/v1/audio/transcriptions"
    form = request.form()
    assert form["model"] == b"whisper-1"
    assert form["language"] == b"zh"
    assert form["response_format"] == b"verbose_json"
    audio, rate = soundfile.read(io.BytesIO(form["file"]), dtype="int16")
    assert rate == 16000 and audio.shape == (16000,)
    sf_info = soundfile.info(io.BytesIO(form["file"]))
    assert sf_info.subtype == "PCM_16" and sf_info.channels == 1
    assert "authorization" not in request.headers


def test_detect_policy_sends_no_language(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: ok({"text": "hi"})) as server:
        engine = engine_for(server, language_policy="&language_policy=detect")
        [hyp] = engine.transcribe(tone_clips[:1], "zh")  # type: ignore[attr-defined]
    assert "language" not in server.requests[0].form()
    assert hyp.language_used is None and hyp.segments == ()


def test_500_then_success_is_retried(tone_clips: list[Clip]) -> None:
    answers = iter([Response(500, b"busy"), ok()])
    with LoopbackServer(lambda request: next(answers)) as server:
        [hyp] = engine_for(server).transcribe(tone_clips[:1], "zh")  # type: ignore[attr-defined]
    assert hyp.error is None and hyp.text == "你好世界"
    assert hyp.extra["attempts"] == 2 and len(server.requests) == 2


def test_persistent_500_is_a_reason_code_and_the_run_continues(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: Response(503, b"down")) as server:
        hyps = engine_for(server).transcribe(tone_clips, "zh")  # type: ignore[attr-defined]
    assert [h.error for h in hyps] == ["http_error:503", "http_error:503"]
    assert all(h.text == "" and h.extra["attempts"] == 3 for h in hyps)
    assert len(server.requests) == 6  # 1 + retries=2, per clip


def test_client_error_is_not_retried(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: Response(401, b"no")) as server:
        [hyp] = engine_for(server).transcribe(tone_clips[:1], "zh")  # type: ignore[attr-defined]
    assert hyp.error == "http_error:401" and len(server.requests) == 1


def test_verbose_json_rejected_falls_back_to_json(tone_clips: list[Clip]) -> None:
    def handler(request: Request) -> Response:
        if request.form()["response_format"] == b"verbose_json":
            return Response(400, b'{"error": "unsupported response_format"}')
        return ok({"text": "plain"})

    with LoopbackServer(handler) as server:
        hyps = engine_for(server).transcribe(tone_clips, "zh")  # type: ignore[attr-defined]
    assert [h.text for h in hyps] == ["plain", "plain"]
    assert hyps[1].extra["response_format"] == "json"
    assert len(server.requests) == 3  # the fallback sticks for later clips


def test_timeout(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: Response(200, b"{}", delay=2.0)) as server:
        engine = build_engine(parse_arm_spec(f"http:{server.url}/v1?timeout=0.3&retries=0"))
        engine.load()
        [hyp] = engine.transcribe(tone_clips[:1], "zh")
    assert hyp.error == "timeout"
    assert 0.25 < hyp.decode_seconds < 1.5


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"txt": "x"}', b'{"text": 3}'])
def test_malformed_response(tone_clips: list[Clip], body: bytes) -> None:
    with LoopbackServer(lambda request: Response(200, body)) as server:
        [hyp] = engine_for(server).transcribe(tone_clips[:1], "zh")  # type: ignore[attr-defined]
    assert hyp.error == "malformed_response" and hyp.text == ""


def test_connection_error(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: ok()) as server:
        url = server.url
    engine = build_engine(parse_arm_spec(f"http:{url}/v1?retries=1&backoff=0&timeout=2"))
    engine.load()
    [hyp] = engine.transcribe(tone_clips[:1], "zh")
    assert hyp.error == "connection_error" and hyp.extra["attempts"] == 2


def test_api_key_is_sent_as_bearer_and_never_recorded(
    tone_clips: list[Clip], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-0123456789"
    monkeypatch.setenv("EARMARK_TEST_KEY", secret)
    with LoopbackServer(lambda request: ok()) as server:
        engine = build_engine(parse_arm_spec(f"http:{server.url}/v1?api_key_env=EARMARK_TEST_KEY"))
        info = engine.load()
        hyps = engine.transcribe(tone_clips[:1], "zh")
    assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
    recorded = json.dumps([repr(info), [repr(h) for h in hyps], engine.arm.to_dict()])  # type: ignore[attr-defined]
    assert secret not in recorded
    assert info.extra["api_key_env"] == "EARMARK_TEST_KEY"
    assert info.revision is None and "cannot be verified" in info.extra["note"]
    assert info.extra["endpoint"] == f"{server.url}/v1"


def test_missing_key_variable_fails_at_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EARMARK_ABSENT_KEY", raising=False)
    engine = build_engine(
        parse_arm_spec("http:http://127.0.0.1:9/v1?api_key_env=EARMARK_ABSENT_KEY")
    )
    with pytest.raises(EarmarkError, match="EARMARK_ABSENT_KEY is not set"):
        engine.load()


@pytest.mark.parametrize(
    ("url", "message"),
    [("ftp://host/v1", "not an http"), ("http://user:pw@host/v1", "carries credentials")],
)
def test_bad_endpoints(url: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=message):
        build_engine(parse_arm_spec(f"http:{url}"))
