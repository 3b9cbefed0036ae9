"""Pre-registration of a post-processing study (issue 15, seed 001).

- `earmark plan freeze` before any data exists: no manifest, sidecar or audio root;
- a `[postprocess]` table freezes processor, prompt (hashed at freeze), model, temperature,
  repeats; `earmark postprocess --plan P --expect-sha256 H` refuses a changed plan or
  prompt and settings that disagree with the plan;
- the served model's identity (the server's `model` and `system_fingerprint`) is recorded
  per call and as distinct values; a command formatter's files are hashed.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.execution.plan import freeze_plan, load_plan
from earmark.postprocess.api import PostprocessOptions, postprocess_transcripts
from earmark.postprocess.plan import record_prompt_sha256
from earmark.postprocess.processors import build_processor
from earmark.testing.loopback import LoopbackServer, Request, Response


def postprocess_run(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The evaluation as postprocess.json writes it."""
    return postprocess_transcripts(PostprocessOptions(*args, **kwargs)).to_json()


RUN_PLAN = """\
manifest = "not-acquired-yet/manifest.jsonl"
normalizer = "none"
bootstrap = 200
seed = 7

[selection]
languages = ["zh"]
first = 8

[[arms]]
backend = "command"
model = "asr {audio}"
name = "asr"
"""

PROMPT = "Punctuate this ({language}); keep every character:\n{text}"


def postprocess_table(url: str, *, extra: str = "") -> str:
    return (
        "\n[postprocess]\n"
        f'processor = "openai-chat:{url}/v1?model=gemma-test&temperature=0"\n'
        'prompt_file = "prompt.txt"\n'
        'model = "gemma-test"\n'
        "temperature = 0\n"
        "repeats = 2\n" + extra
    )


ROWS = [
    {"id": "c1", "reference": "你好，世界。", "hypothesis": "你好世界", "language": "zh"},
    {"id": "c2", "reference": "他来了。", "hypothesis": "他来了", "language": "zh"},
]


@pytest.fixture()
def predictions(tmp_path: Path) -> Path:
    path = tmp_path / "asr" / "predictions.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), "utf-8")
    return path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- freeze before data -------------------------------------------------------------------


def test_freeze_needs_no_manifest_sidecar_or_audio(tmp_path: Path) -> None:
    """Before: load_plan read the manifest's sidecar to find the audio root, so a plan
    could not be frozen until the data was there."""
    plan = tmp_path / "plan.toml"
    plan.write_text(RUN_PLAN, "utf-8")
    assert not (tmp_path / "not-acquired-yet").exists()
    frozen = freeze_plan(plan)
    assert frozen.sha256 == sha256(plan.read_bytes())
    assert frozen.record.read_text("utf-8") == f"{frozen.sha256}  plan.toml\n"
    assert frozen.prompt_sha256_added is None
    # The run, later, still reads the data: checked when it is used, and the error names
    # the missing manifest, not the plan.
    with pytest.raises(EarmarkError, match="manifest not found") as caught:
        load_plan(plan)
    assert caught.value.file is not None
    assert caught.value.file.endswith("not-acquired-yet/manifest.jsonl")


def test_plan_show_works_before_data_and_shows_the_postprocess_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(RUN_PLAN + '\n[postprocess]\nprocessor = "opencc:s2t"\n', "utf-8")
    capsys.readouterr()
    assert main(["plan", "show", str(plan)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["file_sha256"] == sha256(plan.read_bytes())
    assert shown["audio_root_resolved"] is False
    assert shown["plan"]["audio_root"] == str((tmp_path / "not-acquired-yet").resolve())
    assert shown["postprocess"]["processor"] == "opencc:s2t"
    assert shown["postprocess"]["repeats"] == 3


def test_freeze_still_checks_the_structure(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(RUN_PLAN.replace("first = 8", "firsst = 8"), "utf-8")
    with pytest.raises(EarmarkError, match="unknown selection key"):
        freeze_plan(plan)
    plan.write_text(RUN_PLAN + '\n[postprocess]\nprocessor = "gpt:x"\n', "utf-8")
    with pytest.raises(EarmarkError, match="unknown processor kind") as caught:
        freeze_plan(plan)
    assert caught.value.field == "postprocess.processor"
    assert not (tmp_path / "plan.toml.sha256").exists()


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ('model = "other"\n', "postprocess.model", "differs from the processor spec's model"),
        ("temperature = 0.7\n", "postprocess.temperature", "differs from the processor spec"),
        ("repeats = 0\n", "postprocess.repeats", "integer >= 1"),
        ('prompt_sha256 = "abc"\n', "postprocess.prompt_sha256", "not a SHA-256"),
        ("colour = 1\n", "postprocess.colour", "unknown key"),
    ],
)
def test_a_postprocess_table_that_contradicts_itself_is_refused(
    tmp_path: Path, extra: str, field: str, message: str
) -> None:
    table = (
        '\n[postprocess]\nprocessor = "openai-chat:http://127.0.0.1:9/v1?model=m"\n'
        'model = "m"\n' + extra
    )
    plan = tmp_path / "plan.toml"
    plan.write_text(table.replace('model = "m"\nmodel', "model"), "utf-8")
    with pytest.raises(EarmarkError, match=message) as caught:
        freeze_plan(plan)
    assert caught.value.field == field and caught.value.file == str(plan)


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils is the oracle")
def test_freeze_hashes_the_prompt_into_the_plan(tmp_path: Path) -> None:
    (tmp_path / "prompt.txt").write_text(PROMPT, "utf-8")
    plan = tmp_path / "plan.toml"
    plan.write_text(RUN_PLAN + postprocess_table("http://127.0.0.1:9"), "utf-8")
    capsys_free = main(["plan", "freeze", str(plan)])
    assert capsys_free == 0
    prompt_digest = sha256(PROMPT.encode("utf-8"))
    text = plan.read_text("utf-8")
    assert f'[postprocess]\nprompt_sha256 = "{prompt_digest}"' in text
    plan_digest = sha256(plan.read_bytes())  # the plan's hash now covers the prompt
    record = (tmp_path / "plan.toml.sha256").read_text("utf-8")
    assert record == f"{plan_digest}  plan.toml\n{prompt_digest}  prompt.txt\n"
    done = subprocess.run(
        ["sha256sum", "--strict", "-c", "plan.toml.sha256"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Freezing again changes nothing: the hash is in the plan now.
    assert freeze_plan(plan).sha256 == plan_digest and plan.read_text("utf-8") == text


def test_freeze_refuses_a_prompt_neither_written_nor_hashed(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(postprocess_table("http://127.0.0.1:9"), "utf-8")
    with pytest.raises(EarmarkError, match="does not exist yet"):
        freeze_plan(plan)
    given = sha256(PROMPT.encode("utf-8"))
    plan.write_text(
        postprocess_table("http://127.0.0.1:9", extra=f'prompt_sha256 = "{given}"\n'), "utf-8"
    )
    assert freeze_plan(plan).prompt_sha256_added is None  # given: frozen without the file
    (tmp_path / "prompt.txt").write_text(PROMPT + " ", "utf-8")
    with pytest.raises(EarmarkError, match="is not the plan's prompt_sha256"):
        freeze_plan(plan)


def test_the_hash_goes_under_the_header_whatever_the_line_ends() -> None:
    text = 'a = 1\r\n[postprocess]  # the formatter\r\nprocessor = "x"\r\n'
    out = record_prompt_sha256(text, "f" * 64, "p.txt")
    assert out.splitlines(keepends=True)[2].startswith('prompt_sha256 = "' + "f" * 64)
    assert out.endswith('processor = "x"\r\n') and "\r\n\n" not in out
    with pytest.raises(EarmarkError, match="cannot find a \\[postprocess\\] header"):
        record_prompt_sha256('postprocess = { processor = "x" }\n', "f" * 64, "p.txt")


# --- postprocess --plan ---------------------------------------------------------------------


def chat_server_reply(request: Request, model: str, fingerprint: str | None) -> Response:
    text = json.loads(request.body)["messages"][0]["content"].split(":\n", 1)[1]
    body: dict = {
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text + "。"}}],
    }
    if fingerprint is not None:
        body["system_fingerprint"] = fingerprint
    return Response(200, json.dumps(body, ensure_ascii=False).encode("utf-8"))


def frozen_study(tmp_path: Path, url: str) -> tuple[Path, str]:
    (tmp_path / "prompt.txt").write_text(PROMPT, "utf-8")
    plan = tmp_path / "plan.toml"
    plan.write_text("bootstrap = 200\nseed = 7\n" + postprocess_table(url), "utf-8")
    return plan, freeze_plan(plan).sha256


def test_postprocess_runs_the_frozen_plan_and_records_it(
    tmp_path: Path, predictions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LoopbackServer(lambda r: chat_server_reply(r, "gemma-test", "fp_1")) as server:
        plan, digest = frozen_study(tmp_path, server.url)
        out = tmp_path / "pp"
        args = ["postprocess", "--run", str(predictions.parent), "--plan", str(plan)]
        assert main([*args, "--expect-sha256", digest, "--out", str(out), "--quiet"]) == 0
    # 2 rows x the plan's 2 repeats, then one model-list request for the weights' digest.
    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/v1/chat/completions")
    ] * 4 + [("GET", "/api/tags")]
    prompt = json.loads(server.requests[0].body)["messages"][0]["content"]
    assert prompt == PROMPT.replace("{language}", "zh").replace("{text}", "你好世界")
    document = json.loads((out / "postprocess.json").read_text("utf-8"))
    record = document["plan"]
    assert record["sha256"] == digest and record["frozen"] is True
    assert record["postprocess"]["repeats"] == 2 and record["postprocess"]["model"] == "gemma-test"
    assert record["prompt"]["status"] == "checked"
    assert record["prompt"]["sha256"] == sha256(PROMPT.encode("utf-8"))
    assert document["processor"]["prompt_sha256"] == record["prompt"]["sha256"]
    assert document["summary"]["repeats"] == 2
    assert document["summary"]["bootstrap"]["resamples"] == 200
    assert document["summary"]["bootstrap"]["seed"] == 7
    assert (out / "artefacts.sha256").is_file()
    markdown = (out / "postprocess.md").read_text("utf-8")
    assert f"sha256 `{digest[:12]}…` (frozen, hash checked); prompt checked." in markdown
    assert "Served model (as the server reported it): `gemma-test` ×4; " in markdown
    assert "system fingerprint `fp_1` ×4." in markdown


def test_postprocess_refuses_a_changed_plan_or_prompt(
    tmp_path: Path, predictions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LoopbackServer(lambda r: chat_server_reply(r, "gemma-test", None)) as server:
        plan, digest = frozen_study(tmp_path, server.url)
        base = ["postprocess", "--run", str(predictions.parent), "--plan", str(plan)]
        base += ["--out", str(tmp_path / "pp"), "--quiet"]
        plan.write_text(plan.read_text("utf-8").replace("repeats = 2", "repeats = 3"), "utf-8")
        capsys.readouterr()
        assert main([*base, "--expect-sha256", digest]) == 2
        assert "plan changed since it was frozen" in capsys.readouterr().err
        plan.write_text(plan.read_text("utf-8").replace("repeats = 3", "repeats = 2"), "utf-8")
        assert sha256(plan.read_bytes()) == digest
        (tmp_path / "prompt.txt").write_text(PROMPT + "\nBe brief.", "utf-8")
        assert main([*base, "--expect-sha256", digest]) == 2
        assert "prompt changed since the plan was frozen" in capsys.readouterr().err
    assert server.requests == []  # refused before any call
    assert not (tmp_path / "pp").exists()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--repeats", "3"], "--repeats 3 differs from the frozen plan's 2"),
        (["--seed", "8"], "--seed 8 differs from the frozen plan's 7"),
        (["--processor", "opencc:s2t"], "--processor 'opencc:s2t' differs"),
        (["--guard-marks", "、"], "--guard-marks '、' differs"),
    ],
)
def test_options_that_disagree_with_the_plan_are_refused(
    tmp_path: Path,
    predictions: Path,
    capsys: pytest.CaptureFixture[str],
    option: list[str],
    message: str,
) -> None:
    plan, digest = frozen_study(tmp_path, "http://127.0.0.1:9")
    args = ["postprocess", "--run", str(predictions.parent), "--plan", str(plan), *option]
    assert main([*args, "--expect-sha256", digest, "--out", str(tmp_path / "pp")]) == 2
    assert message in capsys.readouterr().err


def test_expect_sha256_needs_a_plan(predictions: Path) -> None:
    with pytest.raises(EarmarkError, match="needs --plan"):
        postprocess_run(predictions, "opencc:s2t", expect_sha256="0" * 64)


def test_a_plan_naming_no_prompt_file_freezes_the_built_in_prompt(
    tmp_path: Path, predictions: Path
) -> None:
    from earmark.postprocess.openai_chat import DEFAULT_PROMPT

    plan = tmp_path / "plan.toml"
    table = postprocess_table("http://127.0.0.1:9").replace('prompt_file = "prompt.txt"\n', "")
    plan.write_text(table + f'prompt_sha256 = "{"0" * 64}"\n', "utf-8")
    digest = freeze_plan(plan).sha256
    with pytest.raises(EarmarkError, match="not the frozen"):
        postprocess_run(predictions, plan=plan, expect_sha256=digest)
    built_in = sha256(DEFAULT_PROMPT.encode("utf-8"))
    plan.write_text(table + f'prompt_sha256 = "{built_in}"\n', "utf-8")
    with LoopbackServer(lambda r: chat_server_reply(r, "gemma-test", None)) as server:
        plan.write_text(plan.read_text("utf-8").replace("http://127.0.0.1:9", server.url), "utf-8")
        document = postprocess_run(predictions, plan=plan, expect_sha256=freeze_plan(plan).sha256)
    assert document["plan"]["prompt"]["status"] == "checked"


# --- model identity -------------------------------------------------------------------------


def test_the_served_model_and_fingerprint_are_recorded_per_call_and_as_a_set(
    tmp_path: Path, predictions: Path
) -> None:
    answers = iter(
        [("gemma-test", "fp_a"), ("gemma-test", "fp_a"), ("gemma-test:v2", "fp_b"), ("x", None)]
    )

    def handler(request: Request) -> Response:
        model, fingerprint = next(answers)
        return chat_server_reply(request, model, fingerprint)

    (tmp_path / "prompt.txt").write_text(PROMPT, "utf-8")
    spec_prompt = tmp_path / "prompt.txt"
    with LoopbackServer(handler) as server:
        spec = f"openai-chat:{server.url}/v1?model=gemma-test&prompt_file={spec_prompt}"
        document = postprocess_run(predictions, spec, repeats=2, resamples=0)
    details = [r["detail"] for r in document["records"]]
    assert [d.get("reported_model") for d in details] == [
        "gemma-test",
        "gemma-test",
        "gemma-test:v2",
        "x",
    ]
    assert [d.get("system_fingerprint") for d in details] == ["fp_a", "fp_a", "fp_b", None]
    served = document["served_model"]
    assert served["requested_model"] == "gemma-test"
    assert served["reported_models"] == {"gemma-test": 2, "gemma-test:v2": 1, "x": 1}
    assert served["system_fingerprints"] == {"fp_a": 2, "fp_b": 1}
    assert served["calls_reporting_model"] == 4 and served["consistent"] is False
    assert any("more than one model" in w for w in document["summary"]["warnings"])


def test_one_served_model_is_consistent_and_raises_no_warning(predictions: Path) -> None:
    with LoopbackServer(lambda r: chat_server_reply(r, "gemma-test", "fp_a")) as server:
        spec = f"openai-chat:{server.url}/v1?model=gemma-test"
        prompt = Path(predictions.parent / "p.txt")
        prompt.write_text(PROMPT, "utf-8")
        document = postprocess_run(
            predictions, f"{spec}&prompt_file={prompt}", repeats=1, resamples=0
        )
    assert document["served_model"]["reported_models"] == {"gemma-test": 2}
    assert document["served_model"]["system_fingerprints"] == {"fp_a": 2}
    assert document["served_model"]["consistent"] is True
    assert not any("more than one model" in w for w in document["summary"]["warnings"])


FORMATTER = "import sys\nsys.stdout.write(sys.stdin.read().strip() + '。')\n"


def test_a_command_formatter_hashes_its_program_named_files_and_weights(tmp_path: Path) -> None:
    script = tmp_path / "formatter.py"
    script.write_text(FORMATTER, "utf-8")
    config = tmp_path / "profile.json"
    config.write_text('{"profile": "shipped"}', "utf-8")
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "model.gguf").write_bytes(b"\x00weights")
    python = Path(sys.executable).resolve()
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} --profile={config}"
    record = build_processor(f"command:{command}?model={weights}").describe()
    assert record["file_sha256"] == {
        python.as_posix(): sha256(python.read_bytes()),
        script.resolve().as_posix(): sha256(FORMATTER.encode("utf-8")),
        config.resolve().as_posix(): sha256(b'{"profile": "shipped"}'),
        (weights.resolve() / "model.gguf").as_posix(): sha256(b"\x00weights"),
    }
    assert record["model"] == weights.resolve().as_posix()
    assert record["revision"].startswith("sha256:")
    # The weights changing changes the recorded revision.
    (weights / "model.gguf").write_bytes(b"\x00weights2")
    again = build_processor(f"command:{command}?model={weights}").describe()
    assert again["revision"] != record["revision"]
    with pytest.raises(EarmarkError, match="not found"):
        build_processor(f"command:{command}?model={tmp_path / 'missing.gguf'}")
