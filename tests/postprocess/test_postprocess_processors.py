"""Processors against a loopback formatter server, a real command and real OpenCC."""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from earmark.errors import EarmarkError
from earmark.postprocess.evaluate import run_processor, summarise
from earmark.postprocess.guard import LexicalGuard
from earmark.postprocess.processors import build_processor
from earmark.postprocess.report import SourceRow
from earmark.stats.settings import BootstrapSettings
from earmark.testing.loopback import LoopbackServer, Request, Response


def summarise_json(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The summary as postprocess.json writes it."""
    return summarise(*args, **kwargs).to_json()


def chat_reply(content: object, model: str = "gemma-test") -> Response:
    body = {
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }
    return Response(200, json.dumps(body, ensure_ascii=False).encode("utf-8"))


def prompt_of(request: Request) -> str:
    return json.loads(request.body)["messages"][0]["content"]


@pytest.fixture()
def prompt_file(tmp_path: Path) -> Path:
    path = tmp_path / "prompt.txt"
    path.write_text("[{language}] {text}", "utf-8")
    return path


def chat_spec(url: str, prompt: Path, extra: str = "") -> str:
    return f"openai-chat:{url}/v1?model=gemma-test&temperature=0&prompt_file={prompt}{extra}"


def test_accepting_formatter_over_http(prompt_file: Path) -> None:
    def handler(request: Request) -> Response:
        text = prompt_of(request).split("] ", 1)[1]
        return chat_reply(text + "。")

    with LoopbackServer(handler) as server:
        processor = build_processor(chat_spec(server.url, prompt_file, "&seed=3&max_tokens=64"))
        sources = [SourceRow("a", "你好世界。", "你好世界", "zh")]
        records = run_processor(sources, processor, repeats=2, guard=LexicalGuard())
    assert [(r.accepted, r.delivered) for r in records] == [(True, "你好世界。")] * 2
    assert records[0].detail["reported_model"] == "gemma-test"
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    body = json.loads(request.body)
    assert body["model"] == "gemma-test" and body["temperature"] == 0.0
    assert body["seed"] == 3 and body["max_tokens"] == 64 and body["stream"] is False
    assert prompt_of(request) == "[zh] 你好世界"
    record = processor.describe()
    assert record["prompt_template"] == "[{language}] {text}"
    assert record["prompt_sha256"] == hashlib.sha256(b"[{language}] {text}").hexdigest()
    assert record["model"] == "gemma-test" and record["temperature"] == 0.0


def test_rejecting_formatter_falls_back_to_the_source(prompt_file: Path) -> None:
    with LoopbackServer(lambda r: chat_reply("你号世界。")) as server:
        processor = build_processor(chat_spec(server.url, prompt_file))
        sources = [SourceRow("a", "你好世界。", "你好世界", "zh")]
        records = run_processor(sources, processor, repeats=1, guard=LexicalGuard())
    (record,) = records
    assert (record.accepted, record.reason) == (False, "content_changed")
    assert (record.candidate, record.delivered) == ("你号世界。", "你好世界")


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (Response(200, b"{not json"), "malformed_response"),
        (Response(200, b'{"choices": []}'), "malformed_response"),
        (Response(200, b'{"choices": [{"message": {"content": 5}}]}'), "malformed_response"),
        (Response(500, b'{"error": "boom"}'), "http_error:500"),
        (Response(404, b"{}"), "http_error:404"),
        (Response(200, b"{}", delay=1.5), "timeout"),
    ],
)
def test_failures_become_reason_codes(prompt_file: Path, response: Response, reason: str) -> None:
    with LoopbackServer(lambda r: response) as server:
        processor = build_processor(chat_spec(server.url, prompt_file, "&timeout=0.3"))
        output = processor.process("你好", "zh")
    assert (output.text, output.reason) == (None, reason)


def test_connection_refused_and_retry(prompt_file: Path) -> None:
    with LoopbackServer(lambda r: chat_reply("x")) as server:
        url = server.url
    processor = build_processor(chat_spec(url, prompt_file, "&retries=1&timeout=2"))
    output = processor.process("你好", "zh")
    assert (output.text, output.reason, output.detail["attempts"]) == (None, "connection_error", 2)


def test_server_error_is_retried_then_succeeds(prompt_file: Path) -> None:
    answers = [Response(503, b"{}"), chat_reply("你好。")]
    with LoopbackServer(lambda r: answers.pop(0)) as server:
        processor = build_processor(chat_spec(server.url, prompt_file, "&retries=2"))
        output = processor.process("你好", "zh")
    assert (output.text, output.detail["attempts"]) == ("你好。", 2)


def test_api_key_goes_to_the_header_and_never_to_the_record(
    prompt_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EARMARK_TEST_KEY", "sk-secret-123")
    with LoopbackServer(lambda r: chat_reply("ok")) as server:
        processor = build_processor(
            chat_spec(server.url, prompt_file, "&api_key_env=EARMARK_TEST_KEY")
        )
        processor.process("ok", "en")
    assert server.requests[0].headers["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret-123" not in json.dumps(processor.describe())
    assert "sk-secret-123" not in repr(processor)
    monkeypatch.delenv("EARMARK_TEST_KEY")
    with pytest.raises(EarmarkError, match="EARMARK_TEST_KEY is not set"):
        build_processor(chat_spec(server.url, prompt_file, "&api_key_env=EARMARK_TEST_KEY"))


def test_default_prompt_is_recorded() -> None:
    processor = build_processor("openai-chat:http://127.0.0.1:9/v1?model=m")
    record = processor.describe()
    assert "{text}" in record["prompt_template"] and len(record["prompt_sha256"]) == 64
    assert record["temperature"] == 0.0 and record["prompt_file"] is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openai-chat:http://127.0.0.1:9/v1", "'model': is required"),
        ("openai-chat:ftp://host/v1?model=m", "not an http"),
        ("openai-chat:http://127.0.0.1:9/v1?model=m&colour=red", "unknown setting"),
        ("openai-chat:http://127.0.0.1:9/v1?model=m&temperature=-1", "below the minimum"),
        ("openai-chat:http://127.0.0.1:9/v1?model=m&prompt_file=/nonexistent/p.txt", "cannot read"),
        ("formatter:x", "unknown processor kind"),
        ("command:definitely-not-a-program-xyz", "not found"),
        ("command:cat {audio}", "unknown placeholder"),
        ("opencc:s2x", "unknown OpenCC configuration"),
    ],
)
def test_bad_specs_fail_before_any_call(spec: str, message: str) -> None:
    with pytest.raises(EarmarkError, match=message):
        build_processor(spec)


def test_prompt_without_text_placeholder_is_refused(tmp_path: Path) -> None:
    prompt = tmp_path / "p.txt"
    prompt.write_text("format this", "utf-8")
    with pytest.raises(EarmarkError, match=r"no \{text\} placeholder"):
        build_processor(f"openai-chat:http://127.0.0.1:9/v1?model=m&prompt_file={prompt}")


# --- command processor ------------------------------------------------------------------

FORMATTER = """
import sys, time
text = sys.stdin.read()
mode = sys.argv[1]
if mode == "punctuate":
    print(text + ("。" if sys.argv[2] == "zh" else "."))
elif mode == "fail":
    print("broken", file=sys.stderr); sys.exit(3)
elif mode == "sleep":
    time.sleep(5)
"""


@pytest.fixture()
def formatter_command(tmp_path: Path) -> str:
    script = tmp_path / "formatter.py"
    script.write_text(FORMATTER, "utf-8")
    return f"command:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_command_processor_reads_stdin_and_fills_language(formatter_command: str) -> None:
    processor = build_processor(f"{formatter_command} punctuate {{language}}")
    assert processor.process("你好世界", "zh").text == "你好世界。"
    assert processor.process("hello", "en").text == "hello."
    record = processor.describe()
    assert record["kind"] == "command" and len(record["executable_sha256"]) == 64
    ((script, digest),) = record["argument_files_sha256"].items()
    assert script.endswith("formatter.py")
    assert digest == hashlib.sha256(FORMATTER.encode("utf-8")).hexdigest()


def test_command_failures_are_reason_codes(formatter_command: str) -> None:
    failed = build_processor(f"{formatter_command} fail").process("x", "zh")
    assert (failed.text, failed.reason) == (None, "command_failed:3")
    assert "broken" in failed.detail["stderr_tail"]
    slow = build_processor(f"{formatter_command} sleep?timeout=0.3").process("x", "zh")
    assert (slow.text, slow.reason) == (None, "timeout")
    assert slow.seconds < 3


# --- OpenCC script conversion -----------------------------------------------------------


def test_opencc_conversion_records_whether_it_changed_anything() -> None:
    from earmark.text.script import opencc_version

    processor = build_processor("opencc:s2t")
    assert processor.guarded is False
    assert processor.describe()["opencc_version"] == opencc_version()
    changed = processor.process("软件开发", "zh")
    assert (changed.text, changed.detail["changed"]) == ("軟件開發", True)
    same = processor.process("hello 你好", "zh")
    assert (same.text, same.detail["changed"]) == ("hello 你好", False)
    assert build_processor("opencc:s2twp").process("软件", "zh").text == "軟體"


def test_opencc_evaluation_is_unguarded_and_judged_by_cer() -> None:
    sources = [
        SourceRow("t1", "軟件開發。", "软件开发", "zh-TW"),
        SourceRow("t2", "hello", "hello", "zh-TW"),
    ]
    records = run_processor(sources, build_processor("opencc:s2t"), repeats=1, guard=None)
    summary = summarise_json(
        sources, records, repeats=1, guard=None, bootstrap=BootstrapSettings(resamples=0)
    )
    overall = summary["overall"]
    assert overall["acceptance"]["per_output"]["accepted"] == 2
    assert overall["delivered_changed"] == 1
    assert (overall["cer"]["raw"]["errors"], overall["cer"]["delivered"]["errors"]) == (3, 0)


def test_missing_opencc_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import earmark.text.script as script

    monkeypatch.setattr(script, "_converter", lambda config: None)
    with pytest.raises(EarmarkError, match="OpenCC script conversion .* unavailable") as info:
        build_processor("opencc:s2t")
    assert "pip install opencc" in str(info.value)
