"""Azure's short-audio speech-to-text REST API against a loopback server answering as the
service documents it (RecognitionStatus, DisplayText, Offset/Duration in 100 ns ticks,
NBest with Lexical/ITN/Display under format=detailed)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import soundfile

from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.base import Clip, Segment
from earmark.errors import EarmarkError
from earmark.execution.arm_loop import http_hosts
from earmark.testing.loopback import LoopbackServer, Request, Response

KEY = "azure-test-key-0123"
DETAILED = {
    "RecognitionStatus": "Success",
    "Offset": 1_200_000,
    "Duration": 8_500_000,
    "DisplayText": "Tá sé 5 a chlog.",
    "NBest": [
        {
            "Confidence": 0.91,
            "Lexical": "tá sé cúig a chlog",
            "ITN": "tá sé 5 a chlog",
            "MaskedITN": "tá sé 5 a chlog",
            "Display": "Tá sé 5 a chlog.",
        }
    ],
}


def answer(payload: dict[str, object]) -> Response:
    return Response(200, json.dumps(payload, ensure_ascii=False).encode())


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_SPEECH_KEY", KEY)


def engine_for(server: LoopbackServer, settings: str = "") -> object:
    spec = f"azure-speech:{server.url}?backoff=0&timeout=5{settings}"
    engine = build_engine(parse_arm_spec(spec))
    engine.load()
    return engine


def test_a_clip_is_posted_as_wav_with_the_locale_and_the_key(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: answer(DETAILED)) as server:
        engine = engine_for(server, "&locale=ga-IE")
        [hyp] = engine.transcribe(tone_clips[:1], "ga")  # type: ignore[attr-defined]
    request: Request = server.requests[0]
    parts = urlsplit(request.path)
    assert request.method == "POST"
    assert parts.path == "/speech/recognition/conversation/cognitiveservices/v1"
    assert parse_qs(parts.query) == {
        "language": ["ga-IE"], "format": ["detailed"], "profanity": ["raw"]
    }  # fmt: skip
    assert request.headers["ocp-apim-subscription-key"] == KEY
    assert request.headers["content-type"].startswith("audio/wav")
    audio, rate = soundfile.read(io.BytesIO(request.body), dtype="int16")
    assert rate == 16000 and audio.shape == (16000,)
    assert hyp.error is None and hyp.text == "Tá sé 5 a chlog."
    assert hyp.segments == (Segment(0.12, 0.97, "Tá sé 5 a chlog."),)
    assert hyp.extra["recognition_status"] == "Success" and hyp.extra["confidence"] == 0.91
    assert (hyp.language_requested, hyp.language_used) == ("ga", "ga-IE")  # the locale sent


@pytest.mark.parametrize(
    ("form", "text"), [("display", "Tá sé 5 a chlog."), ("lexical", "tá sé cúig a chlog"),
                       ("itn", "tá sé 5 a chlog")],
)  # fmt: skip
def test_the_text_form_is_chosen_and_recorded(tone_clips: list[Clip], form: str, text: str) -> None:
    with LoopbackServer(lambda request: answer(DETAILED)) as server:
        engine = engine_for(server, f"&locale=ga-IE&text={form}")
        [hyp] = engine.transcribe(tone_clips[:1], "ga")  # type: ignore[attr-defined]
    assert hyp.text == text and hyp.extra["text_field"] == form


def test_no_speech_is_an_empty_transcript_and_other_statuses_fail(
    tone_clips: list[Clip],
) -> None:
    statuses = iter(["NoMatch", "InitialSilenceTimeout", "BabbleTimeout"])

    def handler(request: Request) -> Response:
        return answer({"RecognitionStatus": next(statuses), "Offset": 0, "Duration": 0})

    clips = [*tone_clips, tone_clips[0]][:3]
    with LoopbackServer(handler) as server:
        engine = engine_for(server, "&retries=0")
        hyps = engine.transcribe(clips, "ga-IE")  # type: ignore[attr-defined]
    assert [(h.text, h.error) for h in hyps] == [
        ("", None), ("", None), ("", "azure_status:BabbleTimeout")
    ]  # fmt: skip
    assert [h.extra.get("recognition_status") for h in hyps[:2]] == [
        "NoMatch", "InitialSilenceTimeout"
    ]  # fmt: skip
    # The row's own tag carried the region, so no locale= was needed.
    assert parse_qs(urlsplit(server.requests[0].path).query)["language"] == ["ga-IE"]


def test_without_a_locale_the_clip_fails_and_nothing_is_sent(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: answer(DETAILED)) as server:
        engine = engine_for(server)
        [hyp] = engine.transcribe(tone_clips[:1], "ga")  # type: ignore[attr-defined]
    assert hyp.error == "locale_needed" and "locale=" in hyp.extra["detail"]
    assert server.requests == []


def test_a_simple_answer_and_a_malformed_one(tone_clips: list[Clip]) -> None:
    answers = iter([
        {"RecognitionStatus": "Success", "DisplayText": "Dia duit.", "Offset": 0,
         "Duration": 10_000_000},
        {"Status": "odd"},
    ])  # fmt: skip
    with LoopbackServer(lambda request: answer(next(answers))) as server:
        engine = engine_for(server, "&locale=ga-IE&retries=0")
        hyps = engine.transcribe(tone_clips[:2], "ga")  # type: ignore[attr-defined]
    assert (hyps[0].text, hyps[0].segments) == ("Dia duit.", (Segment(0.0, 1.0, "Dia duit."),))
    assert hyps[1].error == "malformed_response"


def test_the_record_names_the_key_variable_never_the_key(tone_clips: list[Clip]) -> None:
    with LoopbackServer(lambda request: answer(DETAILED)) as server:
        engine = build_engine(parse_arm_spec(f"azure-speech:{server.url}?locale=ga-IE"))
        info = engine.load()
        hyps = engine.transcribe(tone_clips[:1], "ga")
    recorded = json.dumps([repr(info), [repr(h) for h in hyps], engine.arm.to_dict()])  # type: ignore[attr-defined]
    assert KEY not in recorded
    assert info.backend == "azure-speech" and info.revision is None
    assert info.extra["api_key_env"] == "AZURE_SPEECH_KEY"
    assert (info.extra["locale"], info.extra["text"], info.extra["profanity"]) == (
        "ga-IE", "display", "raw"
    )  # fmt: skip
    assert http_hosts(engine.arm) == [server.url]  # type: ignore[attr-defined]


def test_settings_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EarmarkError, match="language_policy"):
        build_engine(parse_arm_spec("azure-speech:https://x.example?language_policy=detect"))
    with pytest.raises(EarmarkError, match="text"):
        build_engine(parse_arm_spec("azure-speech:https://x.example?text=bold"))
    # OpenAI's form fields mean nothing to Azure: refused, not silently ignored.
    for setting in ("model=whisper-1", "temperature=0", "response_format=json"):
        with pytest.raises(EarmarkError, match=setting.split("=")[0]):
            build_engine(parse_arm_spec(f"azure-speech:https://x.example?{setting}"))
    monkeypatch.delenv("AZURE_SPEECH_KEY")
    engine = build_engine(parse_arm_spec("azure-speech:http://127.0.0.1:9?locale=ga-IE"))
    with pytest.raises(EarmarkError, match="AZURE_SPEECH_KEY is not set"):
        engine.load()


def test_earmark_run_scores_an_azure_arm(tmp_path: Path, tone_clips: list[Clip]) -> None:
    """End to end: the egress guard lets exactly the endpoint through, and the rows and
    results carry the transcript, the status and the record."""
    from clip_corpus import write_clip_corpus
    from earmark.cli import main

    manifest = write_clip_corpus(tmp_path / "corpus", tone_clips, "tá sé cúig a chlog", "ga")
    out = tmp_path / "run"
    with LoopbackServer(lambda request: answer(DETAILED)) as server:
        arm = f"azure-speech:{server.url}?locale=ga-IE&text=lexical&name=azure"
        args = ["run", "--manifest", str(manifest), "--arm", arm, "--normalizer", "ga-v1",
                "--bootstrap", "0", "--out", str(out), "--quiet"]  # fmt: skip
        assert main(args) == 0
    assert len(server.requests) == len(tone_clips)
    predictions = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert {p["hypothesis"] for p in predictions} == {"tá sé cúig a chlog"}
    results = json.loads((out / "results.json").read_text("utf-8"))
    assert results["arms"]["azure"]["overall"]["views"]["raw"]["wer"]["value"] == 0.0
    model = json.loads((out / "provenance.json").read_text("utf-8"))["arms"]["azure"]["model"]
    assert model["backend"] == "azure-speech" and model["extra"]["text"] == "lexical"
