"""The egress audit covers the arm's process tree (issue 11 item 7): a command engine's
child that makes HTTP requests is counted, and a process the audit cannot follow makes the
record say `audited: false` instead of 0 attempts. Loopback server only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.execution.egress import EgressGuard, _proxy_target, merge_tree_summaries
from earmark.testing.loopback import LoopbackServer, Request, Response

#: Two requests through urllib (honours proxy variables) and two through http.client
#: (does not): four HTTP requests, as in the issue.
FOUR_REQUESTS = textwrap.dedent(
    """
    import http.client, sys, urllib.request
    url = sys.argv[1]
    for i in range(2):
        try:
            urllib.request.urlopen(f"{url}/u{i}", timeout=5).read()
        except Exception as exc:
            print("refused", type(exc).__name__, file=sys.stderr)
    host, port = url.split("//")[1].split(":")
    for i in range(2):
        try:
            c = http.client.HTTPConnection(host, int(port), timeout=5)
            c.request("GET", f"/h{i}")
            c.getresponse().read()
        except Exception as exc:
            print("refused", type(exc).__name__, file=sys.stderr)
    print("alpha beta gamma")
    """
)


def _ok(_: Request) -> Response:
    return Response(200, b"{}")


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(body, "utf-8")
    return path


def test_a_python_childs_four_requests_are_counted_and_refused(tmp_path: Path) -> None:
    child = _script(tmp_path, "child.py", FOUR_REQUESTS)
    with LoopbackServer(_ok) as server:
        with EgressGuard.for_hosts([]) as guard:
            done = subprocess.run(
                [sys.executable, str(child), server.url], capture_output=True, text=True
            )
        assert server.requests == []  # nothing got through
    assert done.stdout.strip() == "alpha beta gamma"
    record = guard.record()
    port = int(server.url.rsplit(":", 1)[1])
    assert [(a["host"], a["port"], a["allowed"]) for a in record["attempts"]] == [
        ("127.0.0.1", port, False)
    ] * 4
    assert sorted(a["kind"] for a in record["attempts"]) == ["connect", "connect", "proxy", "proxy"]
    assert record["refused"] == 4
    assert record["audited"] is True
    assert record["processes"] == {"started": 1, "python_audited": 1, "unaudited": 0}


def test_with_allow_network_the_childs_requests_pass_and_are_recorded(tmp_path: Path) -> None:
    child = _script(tmp_path, "child.py", FOUR_REQUESTS)
    with LoopbackServer(_ok) as server:
        with EgressGuard.for_hosts([], allow_all=True) as guard:
            subprocess.run(
                [sys.executable, str(child), server.url], check=True, capture_output=True
            )
        assert sorted(r.path for r in server.requests) == ["/h0", "/h1", "/u0", "/u1"]
    record = guard.record()
    assert len(record["attempts"]) == 4 and record["refused"] == 0
    assert all(a["allowed"] for a in record["attempts"]) and record["audited"] is True


def test_grandchildren_are_followed_and_a_non_python_one_is_not_audited(tmp_path: Path) -> None:
    grandchild = _script(tmp_path, "grandchild.py", FOUR_REQUESTS)
    child = _script(
        tmp_path,
        "child.py",
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, {str(grandchild)!r}, sys.argv[1]], check=True)\n",
    )
    with LoopbackServer(_ok) as server:
        with EgressGuard.for_hosts([]) as guard:
            subprocess.run(
                [sys.executable, str(child), server.url], check=True, capture_output=True
            )
        assert server.requests == []
    record = guard.record()
    assert record["refused"] == 4 and record["audited"] is True
    assert record["processes"]["python_audited"] == 2

    shell_child = _script(
        tmp_path, "shell_child.py", "import subprocess\nsubprocess.run(['sh', '-c', 'true'])\n"
    )
    with EgressGuard.for_hosts([]) as guard:
        subprocess.run([sys.executable, str(shell_child)], check=True)
    record = guard.record()
    assert record["audited"] is False
    assert [u["program"] for u in record["unaudited"]] == ["sh"]
    assert record["unaudited_reason"].startswith("1 started process(es) could not be audited (sh)")


@pytest.mark.parametrize(
    "argv",
    [["sh", "-c", "true"], [sys.executable, "-I", "-c", "pass"], [sys.executable, "-S", "-c", "0"]],
)
def test_a_child_the_audit_cannot_follow_is_not_audited(argv: list[str]) -> None:
    with EgressGuard.for_hosts([]) as guard:
        subprocess.run(argv, check=True)
    record = guard.record()
    assert record["audited"] is False and record["processes"]["unaudited"] == 1
    assert "attempts" in record and "unaudited_reason" in record


def test_os_system_is_a_shell_and_not_audited() -> None:
    with EgressGuard.for_hosts([]) as guard:
        assert os.system("true") == 0
    record = guard.record()
    assert record["audited"] is False
    assert record["unaudited"][0]["reason"] == "a shell started with os.system"


def test_the_sitecustomize_it_shadows_still_runs(tmp_path: Path, monkeypatch) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    marker = tmp_path / "marker"
    (theirs / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    monkeypatch.setenv("PYTHONPATH", str(theirs))
    with EgressGuard.for_hosts([]) as guard:
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert marker.read_text() == "ran"
    assert guard.record()["audited"] is True
    assert os.environ["PYTHONPATH"] == str(theirs)  # restored after the guard


def test_outside_a_guard_children_are_not_touched(tmp_path: Path) -> None:
    child = _script(tmp_path, "child.py", FOUR_REQUESTS)
    with LoopbackServer(_ok) as server:
        subprocess.run([sys.executable, str(child), server.url], check=True, capture_output=True)
        assert len(server.requests) == 4


def test_proxy_request_lines() -> None:
    assert _proxy_target("CONNECT example.org:443 HTTP/1.1") == ("example.org", 443)
    assert _proxy_target("GET http://Example.org:8080/x HTTP/1.1") == ("example.org", 8080)
    assert _proxy_target("GET http://example.org/x HTTP/1.1") == ("example.org", 80)
    assert _proxy_target("CONNECT [::1]:8443 HTTP/1.1") == ("::1", 8443)
    assert _proxy_target("") == ("", None)


def test_earmark_run_records_a_command_childs_requests(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case end to end: the command's program makes 4 HTTP requests per clip;
    before, egress.json recorded 0 attempts."""
    manifest = corpus_factory(tmp_path / "corpus", 2)
    child = _script(tmp_path, "asr.py", FOUR_REQUESTS.replace("sys.argv[1]", "sys.argv[2]"))
    out = tmp_path / "run"
    with LoopbackServer(_ok) as server:
        arm = f"command:{sys.executable} {child} {{audio}} {server.url}?name=chatty"
        rc = main(
            [
                "run",
                "--manifest",
                str(manifest),
                "--arm",
                arm,
                "--normalizer",
                "none",
                "--bootstrap",
                "20",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        assert server.requests == []
    assert rc == 0
    egress = json.loads((out / "arms" / "chatty" / "egress.json").read_text("utf-8"))
    assert len(egress["attempts"]) == 8 and egress["refused"] == 8  # 4 per clip × 2 clips
    assert egress["audited"] is True
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    assert prov["arms"]["chatty"]["egress"]["refused"] == 8


def test_earmark_run_with_a_shell_command_is_not_audited(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    out = tmp_path / "run"
    rc = main(
        [
            "run",
            "--manifest",
            str(manifest),
            "--arm",
            "command:echo alpha beta {audio} | cut -d' ' -f1-2?shell=true&name=sh",
            "--normalizer",
            "none",
            "--bootstrap",
            "20",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    egress = json.loads((out / "arms" / "sh" / "egress.json").read_text("utf-8"))
    assert egress["audited"] is False
    assert "/bin/sh (shell=True)" in egress["unaudited_reason"]


def test_merging_actor_summaries() -> None:
    ok = {"audited": True, "processes": {"started": 2, "python_audited": 2, "unaudited": 0}}
    bad = {
        "audited": False,
        "processes": {"started": 1, "python_audited": 0, "unaudited": 1},
        "unaudited_reason": "1 started process(es) could not be audited (sh)",
        "unaudited": [{"program": "sh"}],
    }
    assert merge_tree_summaries([ok, ok]) == {
        "audited": True,
        "scope": "every actor process and every process they started",
        "processes": {"started": 4, "python_audited": 4, "unaudited": 0},
    }
    merged = merge_tree_summaries([ok, bad, bad])
    assert merged["audited"] is False
    assert merged["processes"] == {"started": 4, "python_audited": 2, "unaudited": 2}
    assert merged["unaudited_reason"] == "1 started process(es) could not be audited (sh)"
    assert merged["unaudited"] == [{"program": "sh"}] * 2
    silent = merge_tree_summaries([ok, None])
    assert silent["audited"] is False
    assert silent["unaudited_reason"] == "a process sent no process-tree summary"
