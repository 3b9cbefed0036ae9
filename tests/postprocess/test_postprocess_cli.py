"""`earmark postprocess` end to end: run dir in, postprocess.json + scoreable rows out."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from earmark.cli import main
from earmark.postprocess.api import PostprocessOptions, postprocess_transcripts


def postprocess_run(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The evaluation as postprocess.json writes it."""
    return postprocess_transcripts(PostprocessOptions(*args, **kwargs)).to_json()


ROWS = [
    {
        "id": "c1",
        "reference": "今天很好，我们走吧。",
        "hypothesis": "今天很好我们走吧",
        "language": "zh",
        "slices": ["zh"],
    },
    {
        "id": "c2",
        "reference": "你好，世界。",
        "hypothesis": "你号世界",
        "language": "zh",
        "slices": ["zh"],
    },
    {
        "id": "c3",
        "reference": "他来了。",
        "hypothesis": "他来了",
        "language": "zh",
        "slices": ["zh"],
    },
    {
        "id": "c4",
        "reference": "好的。",
        "hypothesis": None,
        "language": "zh",
        "status": "missing_hypothesis",
    },
]

# Puts "，" after the 4th character of long texts and "。" at the end; turns 他 into 她.
FORMATTER = """
import sys
text = sys.stdin.read().strip()
if len(text) > 6:
    text = text[:4] + "，" + text[4:]
print(text.replace("他", "她") + "。")
"""


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    lines = []
    for arm in ("asr-a", "asr-b"):
        for row in ROWS:
            lines.append(
                json.dumps({"arm": arm, "repeat": 0, "status": "ok", **row}, ensure_ascii=False)
            )
    (run / "predictions.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return run


@pytest.fixture()
def processor(tmp_path: Path) -> str:
    script = tmp_path / "fmt.py"
    script.write_text(FORMATTER, "utf-8")
    return f"command:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_cli_writes_files_and_mirrors_the_api(
    run_dir: Path, processor: str, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    argv = [
        "postprocess",
        "--run",
        str(run_dir),
        "--arm",
        "asr-a",
        "--processor",
        processor,
        "--repeats",
        "2",
        "--bootstrap",
        "300",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert "accepted 4/6 outputs, 2/3 clips" in capsys.readouterr().out
    document = json.loads((out / "postprocess.json").read_text("utf-8"))
    assert document["schema"] == "earmark.postprocess/1"
    assert document["source"]["arm"] == "asr-a" and document["source"]["n_rows"] == 4
    assert document["processor"]["kind"] == "command"
    assert len(document["records"]) == 8  # 4 transcripts x 2 repeats, the skipped ones too
    assert all(p["passed"] for p in document["punctuation_probes"])
    summary = document["summary"]
    assert summary["overall"]["cer"]["invariant"]["holds"]
    assert [s["id"] for s in summary["skipped"]] == ["c4", "c4"]
    assert "Post-processor evaluation" in (out / "postprocess.md").read_text("utf-8")

    api = postprocess_run(run_dir, processor, repeats=2, arm="asr-a", resamples=300)
    assert api["summary"]["overall"] == summary["overall"]

    delivered = [
        json.loads(line) for line in (out / "predictions.jsonl").read_text("utf-8").splitlines()
    ]
    assert [d["id"] for d in delivered[:4]] == ["c1#0", "c2#0", "c3#0", "c4#0"]
    assert delivered[0]["hypothesis"] == "今天很好，我们走吧。" and delivered[0]["clip"] == "c1"
    assert delivered[2]["hypothesis"] == "他来了" and delivered[2]["reason"] == "content_changed"
    assert delivered[3]["hypothesis"] is None

    scored = tmp_path / "scored"
    assert (
        main(
            [
                "score",
                str(out / "predictions.jsonl"),
                "--normalizer",
                "zh-eval-v1",
                "--bootstrap",
                "0",
                "--out",
                str(scored),
                "--quiet",
            ]
        )
        == 0
    )
    results = json.loads((scored / "results.json").read_text("utf-8"))
    (arm,) = results["arms"].values()
    assert arm["overall"]["n_utterances"] == 8 and arm["overall"]["n_clusters"] == 4


def test_several_arms_need_arm(run_dir: Path, processor: str, tmp_path: Path, capsys) -> None:
    assert (
        main(
            [
                "postprocess",
                "--run",
                str(run_dir),
                "--processor",
                processor,
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "choose one with --arm" in capsys.readouterr().err


def test_guard_options_reach_the_guard(tmp_path: Path, capsys) -> None:
    source = tmp_path / "predictions.jsonl"
    source.write_text(
        json.dumps(
            {
                "id": "1779",
                "reference": "雷杰普·塔伊普",
                "hypothesis": "雷杰普、塔伊普",
                "language": "zh",
            },
            ensure_ascii=False,
        )
        + "\n",
        "utf-8",
    )
    script = tmp_path / "dot.py"
    script.write_text("import sys; print(sys.stdin.read().replace('、', '·'))", "utf-8")
    spec = f"command:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    base = [
        "postprocess",
        "--run",
        str(source),
        "--processor",
        spec,
        "--repeats",
        "1",
        "--bootstrap",
        "0",
        "--quiet",
    ]
    assert main([*base, "--guard-marks", "、·", "--out", str(tmp_path / "strict")]) == 0
    strict = json.loads((tmp_path / "strict" / "postprocess.json").read_text("utf-8"))
    assert strict["records"][0]["reason"] == "content_changed"
    assert (
        main(
            [
                *base,
                "--guard-marks",
                "、·",
                "--allow-substitution",
                "、=·",
                "--out",
                str(tmp_path / "ok"),
            ]
        )
        == 0
    )
    rescued = json.loads((tmp_path / "ok" / "postprocess.json").read_text("utf-8"))
    assert rescued["records"][0]["accepted"] and rescued["guard"]["substitutions"] == ["、=·"]


def test_bad_substitution_is_a_user_error(
    run_dir: Path, processor: str, tmp_path: Path, capsys
) -> None:
    code = main(
        [
            "postprocess",
            "--run",
            str(run_dir),
            "--arm",
            "asr-a",
            "--processor",
            processor,
            "--allow-substitution",
            "nope",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code == 2 and "A=B" in capsys.readouterr().err


def test_a_failed_punctuation_probe_stops_the_results(
    run_dir: Path, processor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Issue 23: with the mark mapping broken, no figure is written as if valid (exit 2,
    one line), and the processor is never called."""
    import earmark.metrics.punctuation as punctuation

    calls = tmp_path / "calls"
    counting = tmp_path / "counting.py"
    counting.write_text(f"open({str(calls)!r}, 'a').write('x')\n" + FORMATTER, "utf-8")
    monkeypatch.setattr(punctuation, "ASCII_TO_FULLWIDTH", {",": "。", ".": "，"})
    out = tmp_path / "pp"
    spec = f"command:{shlex.quote(sys.executable)} {shlex.quote(str(counting))}"
    code = main(["postprocess", "--run", str(run_dir), "--processor", spec, "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) <= 2  # the error and its hint
    assert "punctuation self-probes failed (wrong_type, ascii_fullwidth" in err
    assert not out.exists() or not any(out.iterdir())
    assert not calls.exists()


def test_a_failed_punctuation_probe_stops_score_punctuation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    import earmark.metrics.punctuation as punctuation

    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS[:3]), "utf-8")
    monkeypatch.setattr(punctuation, "ASCII_TO_FULLWIDTH", {",": "。", ".": "，"})
    out = tmp_path / "scored"
    args = ["score", str(source), "--normalizer", "zh-eval-v1", "--punctuation"]
    assert main([*args, "--bootstrap", "0", "--out", str(out), "--quiet"]) == 2
    assert "punctuation self-probes failed" in capsys.readouterr().err
    assert not (out / "results.json").exists() and not (out / "results.md").exists()
