"""An HTTP formatter's weights (issue 23): where the server reports the model's digest
(Ollama's `GET /api/tags`), postprocess.json records it beside the served model name and
fingerprint; where it does not, the digest is null with the reason, never guessed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import earmark.postprocess.openai_chat as openai_chat
from earmark.postprocess.api import PostprocessOptions, postprocess_transcripts
from earmark.testing.loopback import LoopbackServer, Request, Response

DIGEST = "a" * 56 + "0123beef"
ROWS = [
    {"arm": "asr", "repeat": 0, "status": "ok", "id": "c1", "language": "zh",
     "reference": "你好，世界。", "hypothesis": "你好世界"},
]  # fmt: skip


def _tags(*models: dict[str, Any]) -> Response:
    return Response(200, json.dumps({"models": list(models)}).encode("utf-8"))


def _server(tags: Response):  # type: ignore[no-untyped-def]
    def handler(request: Request) -> Response:
        if request.path == "/api/tags":
            return tags
        text = json.loads(request.body)["messages"][0]["content"].rsplit("\n", 1)[-1]
        body = {
            "model": "gemma-test",
            "system_fingerprint": "fp_a",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text + "。"}}],
        }
        return Response(200, json.dumps(body, ensure_ascii=False).encode("utf-8"))

    return LoopbackServer(handler)


def _served(tmp_path: Path, tags: Response, model: str = "gemma-test") -> tuple[dict, list]:
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS)
    (run / "predictions.jsonl").write_text(lines, "utf-8")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Punctuate ({language}):\n{text}", "utf-8")
    with _server(tags) as server:
        spec = f"openai-chat:{server.url}/v1?model={model}&prompt_file={prompt}"
        options = PostprocessOptions(run, spec, repeats=1, resamples=0)
        document = postprocess_transcripts(options).to_json()
    return document["served_model"], server.requests


def test_ollamas_digest_is_recorded_beside_the_name_and_fingerprint(tmp_path: Path) -> None:
    tags = _tags(
        {"name": "other:latest", "model": "other:latest", "digest": "b" * 64},
        {"name": "gemma-test:latest", "model": "gemma-test:latest", "digest": DIGEST},
    )
    served, requests = _served(tmp_path, tags)
    assert served["model_digest"] == DIGEST
    assert served["model_digest_source"].endswith("/api/tags")
    assert served["model_digest_null_reason"] is None
    assert served["reported_models"] == {"gemma-test": 1}
    assert served["system_fingerprints"] == {"fp_a": 1}
    # Asked once, after the last call: the digest of what served them.
    assert [(r.method, r.path) for r in requests] == [
        ("POST", "/v1/chat/completions"),
        ("GET", "/api/tags"),
    ]


def test_a_prefixed_digest_and_an_explicit_tag(tmp_path: Path) -> None:
    tags = _tags({"name": "gemma-test:12b", "digest": f"sha256:{DIGEST}"})
    served, _ = _served(tmp_path, tags, model="gemma-test:12b")
    assert served["model_digest"] == DIGEST


@pytest.mark.parametrize(
    ("tags", "reason"),
    [
        (Response(404, b"not found"), "the server has no model list here (http_error:404)"),
        (Response(200, b"<html>"), "the model list is not JSON"),
        (Response(200, b"[" * 100_000), "the model list is not JSON"),
        (Response(200, b'{"object": "list", "data": []}'), "lists no models"),
        (_tags({"name": "llama3:latest", "digest": DIGEST}), "lists no model named 'gemma-test'"),
        (
            _tags(
                {"name": "gemma-test", "digest": DIGEST},
                {"model": "gemma-test", "digest": "c" * 64},
            ),
            "twice with different digests",
        ),
        (_tags({"name": "gemma-test", "digest": "latest"}), "not a SHA-256 hex digest"),
        (_tags({"name": "gemma-test", "digest": DIGEST + "\x00"}), "not a SHA-256 hex digest"),
        (_tags({"name": "gemma-test", "digest": 7}), "not a SHA-256 hex digest"),
        (_tags({"name": "gemma-test"}), "not a SHA-256 hex digest"),
    ],
    ids=["404", "html", "deep", "openai-list", "absent", "twice", "word", "nul", "number", "none"],
)
def test_no_digest_is_null_with_its_reason(tmp_path: Path, tags: Response, reason: str) -> None:
    served, _ = _served(tmp_path, tags)
    assert served["model_digest"] is None
    assert reason in served["model_digest_null_reason"]


def test_a_huge_model_list_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_chat, "MAX_TAGS_BYTES", 1000)
    tags = _tags(*({"name": f"m{k}", "digest": DIGEST} for k in range(100)))
    served, _ = _served(tmp_path, tags)
    assert served["model_digest"] is None
    assert served["model_digest_null_reason"] == "the model list is over 1000 bytes"


def test_an_unreachable_model_list_is_null(tmp_path: Path) -> None:
    processor = openai_chat.ChatProcessor(
        endpoint="http://127.0.0.1:9/v1",
        model="gemma-test",
        temperature=0.0,
        prompt_template="{text}",
        prompt_file=None,
        api_key_env=None,
        api_key=None,
        timeout=2.0,
        retries=0,
        seed=None,
        max_tokens=None,
    )
    digest = processor.model_digest()
    assert digest.digest is None and digest.source == "http://127.0.0.1:9/api/tags"
    assert "could not be read" in (digest.null_reason or "")
