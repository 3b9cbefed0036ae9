"""Programs a run starts get no network unless `--allow-network` (issue 24 item 6).

Before, a `command` program using bash's `/dev/tcp` (or any socket the Python audit does
not patch) uploaded a clip and the run exited 0. Here each program tries both bash's
`/dev/tcp` and `python -I` (which loads no audit) against a loopback HTTP server: without
`--allow-network` the server receives nothing and every clip still gets its text; with
it, both connect. Where the platform cannot isolate a program, the run says so on the
terminal and in egress.json, and `--require-offline` refuses the arm before anything runs.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.engines import offline
from earmark.testing import stdio_echo_asr
from earmark.testing.loopback import LoopbackServer, Request, Response

ISOLATION = offline.isolation()
needs_namespaces = pytest.mark.skipif(
    not ISOLATION.available,
    reason=f"no network namespace on this machine: {ISOLATION.reason}",
)

#: `upload.sh PORT AUDIO` or `upload.sh PORT --exec PROGRAM...`: tries `/dev/tcp` and a
#: raw socket from `python -I`, quietly, then prints three words or becomes PROGRAM.
UPLOADER = textwrap.dedent(
    f"""\
    #!/bin/bash
    port=$1; shift
    ( exec 3<>/dev/tcp/127.0.0.1/$port &&
      printf 'POST /devtcp HTTP/1.0\\r\\nContent-Length: 4\\r\\n\\r\\nclip' >&3 &&
      cat <&3 >/dev/null ) 2>/dev/null
    {sys.executable} -I -c '
    import socket, sys
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
        s.sendall(b"POST /socket HTTP/1.0\\r\\nContent-Length: 4\\r\\n\\r\\nclip")
        s.recv(100)
    except OSError:
        pass
    ' "$port"
    if [ "$1" = --exec ]; then shift; exec "$@"; fi
    echo alpha beta gamma
    """
)


def _ok(_: Request) -> Response:
    return Response(200, b"{}")


def _uploader(tmp_path: Path) -> Path:
    path = tmp_path / "upload.sh"
    path.write_text(UPLOADER, "utf-8")
    path.chmod(0o755)
    return path


def _run(manifest: Path, out: Path, arm: str, *extra: str) -> int:
    return main(
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
            *extra,
        ]
    )


def _rows(out: Path) -> list[tuple[str, str, str]]:
    lines = (out / "predictions.jsonl").read_text("utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    return [(r["id"], r["status"], r["hypothesis"]) for r in rows]


def _egress(out: Path, arm: str) -> dict[str, object]:
    record = json.loads((out / "arms" / arm / "egress.json").read_text("utf-8"))
    assert isinstance(record, dict)
    return record


@needs_namespaces
def test_a_command_program_reaches_nothing_without_allow_network(
    tmp_path: Path, corpus_factory
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    script = _uploader(tmp_path)
    out = tmp_path / "run"
    with LoopbackServer(_ok) as server:
        port = server.url.rsplit(":", 1)[1]
        assert _run(manifest, out, f"command:{script} {port} {{audio}}?name=up") == 0
        assert server.requests == []
    assert _rows(out) == [
        ("c000", "ok", "alpha beta gamma"),
        ("c001", "ok", "alpha beta gamma"),
    ]
    egress = _egress(out, "up")
    # The audit cannot follow bash (or `python -I`): not audited, but contained.
    assert egress["audited"] is False
    escaped = egress["unaudited"]
    assert isinstance(escaped, list) and [e["program"] for e in escaped] == [str(script)] * 2
    assert all(e["isolated"] is True for e in escaped)
    assert all(
        e["reason"].endswith("it ran without a network, so nothing it sent left it")
        for e in escaped
    )
    network = egress["network"]
    assert network == {
        "programs_isolated": True,
        "programs_started": 2,
        "method": ISOLATION.method,
        "scope": "every program the arm started ran in a network namespace of its own "
        "with no interface up (loopback included)",
    }
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    assert prov["arms"]["up"]["egress"]["network"] == network
    model = json.loads((out / "arms" / "up" / "model.json").read_text("utf-8"))
    assert model["extra"]["network"] == {"programs_isolated": True, "method": ISOLATION.method}
    assert "Network:" not in (out / "results.md").read_text("utf-8")


@needs_namespaces
def test_a_shell_command_is_isolated_too(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    script = _uploader(tmp_path)
    out = tmp_path / "run"
    with LoopbackServer(_ok) as server:
        port = server.url.rsplit(":", 1)[1]
        arm = f"command:{script} {port} {{audio}} | tr a-z A-Z?shell=true&name=sh"
        assert _run(manifest, out, arm) == 0
        assert server.requests == []
    assert _rows(out) == [("c000", "ok", "ALPHA BETA GAMMA")]
    assert _egress(out, "sh")["network"]["programs_isolated"] is True  # type: ignore[index]


@needs_namespaces
def test_with_allow_network_the_same_program_connects(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    script = _uploader(tmp_path)
    out = tmp_path / "run"
    with LoopbackServer(_ok) as server:
        port = server.url.rsplit(":", 1)[1]
        arm = f"command:{script} {port} {{audio}}?name=up"
        assert _run(manifest, out, arm, "--allow-network") == 0
        paths = sorted(r.path for r in server.requests)
    assert paths == ["/devtcp", "/devtcp", "/socket", "/socket"]
    assert all(r.body == b"clip" for r in server.requests)
    assert "network" not in _egress(out, "up")


@needs_namespaces
def test_a_stdio_program_reaches_nothing_and_still_answers(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 2)
    script = _uploader(tmp_path)
    out = tmp_path / "run"
    program = f"{script} PORT --exec {sys.executable} {stdio_echo_asr.__file__}"
    with LoopbackServer(_ok) as server:
        port = server.url.rsplit(":", 1)[1]
        assert _run(manifest, out, "stdio:" + program.replace("PORT", port) + "?name=io") == 0
        assert server.requests == []
    rows = _rows(out)
    assert [(i, s) for i, s, _ in rows] == [("c000", "ok"), ("c001", "ok")]
    assert all(len(text.split()) == 3 for _, _, text in rows)
    network = _egress(out, "io")["network"]
    assert network["programs_isolated"] is True  # type: ignore[index]
    assert network["programs_started"] == 1  # type: ignore[index]


def _no_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    reason = "`unshare` (util-linux) is not installed"
    monkeypatch.setattr(offline, "isolation", lambda: offline.Isolation(reason=reason))


def test_where_programs_cannot_be_isolated_the_run_says_so(
    tmp_path: Path, corpus_factory, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _no_namespaces(monkeypatch)
    manifest = corpus_factory(tmp_path / "corpus", 1)
    out = tmp_path / "run"
    rc = _run(manifest, out, "command:echo alpha {audio}?name=plain", "--isolation", "inline")
    assert rc == 0
    err = capsys.readouterr().err
    assert err == (
        "earmark: warning: arm 'plain' (command) starts programs that cannot be run without a "
        "network here (`unshare` (util-linux) is not installed): their connections are "
        "neither refused nor seen (--require-offline refuses such arms)\n"
    )
    assert _egress(out, "plain")["network"] == {
        "programs_isolated": False,
        "programs_started": 1,
        "reason": "programs ran with the network reachable: `unshare` (util-linux) is not "
        "installed",
    }
    model = json.loads((out / "arms" / "plain" / "model.json").read_text("utf-8"))
    assert model["extra"]["network"] == {
        "programs_isolated": False,
        "reason": "`unshare` (util-linux) is not installed",
    }
    md = (out / "results.md").read_text("utf-8")
    assert (
        "- Network: **not enforced** — the programs this arm started could reach the network "
        "(\\`unshare\\` (util-linux) is not installed); their connections were neither "
        "refused nor seen (see egress.json)\n"
    ) in md


def test_require_offline_refuses_such_an_arm_before_anything_runs(
    tmp_path: Path, corpus_factory, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _no_namespaces(monkeypatch)
    manifest = corpus_factory(tmp_path / "corpus", 1)
    out = tmp_path / "run"
    assert _run(manifest, out, "command:echo a {audio}?name=plain", "--require-offline") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--require-offline: arm 'plain' (command) starts programs" in err
    assert not out.exists()


def test_require_offline_contradicts_allow_network(
    tmp_path: Path, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    out = tmp_path / "run"
    rc = _run(manifest, out, "command:echo a {audio}", "--require-offline", "--allow-network")
    assert rc == 2
    assert "--require-offline contradicts --allow-network" in capsys.readouterr().err
    assert not out.exists()


@needs_namespaces
def test_require_offline_runs_where_programs_are_isolated(tmp_path: Path, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 1)
    out = tmp_path / "run"
    assert _run(manifest, out, "command:echo alpha {audio}?name=e", "--require-offline") == 0
    assert _rows(out)[0][1] == "ok"


def test_an_in_process_backend_is_neither_warned_about_nor_refused() -> None:
    assert offline.unisolated_reason("faster-whisper") is None
    assert offline.network_record(0, 0) is None


def test_child_command_leaves_programs_alone_outside_a_refusing_guard() -> None:
    assert offline.child_command(["asr", "x.wav"], shell=False) == ["asr", "x.wav"]
    with offline.children_offline(False):
        assert offline.child_command("asr x.wav | cat", shell=True) == "asr x.wav | cat"


@needs_namespaces
def test_child_command_wraps_argv_and_shell_text() -> None:
    prefix = list(ISOLATION.prefix)
    with offline.children_offline(True):
        assert offline.child_command(["asr", "a b.wav"], shell=False) == [
            *prefix,
            "asr",
            "a b.wav",
        ]
        wrapped = offline.child_command("asr 'a b.wav' | cat", shell=True)
    assert wrapped == "exec " + " ".join(prefix) + " /bin/sh -c 'asr '\"'\"'a b.wav'\"'\"' | cat'"


def test_a_hostile_reason_renders_as_text(
    tmp_path: Path, corpus_factory, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The reason comes from `unshare`'s stderr: it reaches results.md only escaped."""
    reason = "<script>alert(1)</script>\n# heading [x](javascript:alert(2)) \ud800 \x00"
    monkeypatch.setattr(offline, "isolation", lambda: offline.Isolation(reason=reason))
    manifest = corpus_factory(tmp_path / "corpus", 1)
    out = tmp_path / "run"
    rc = _run(manifest, out, "command:echo alpha {audio}?name=h", "--isolation", "inline")
    assert rc == 0
    capsys.readouterr()
    md = (out / "results.md").read_text("utf-8")
    line = next(x for x in md.splitlines() if x.startswith("- Network:"))
    assert line == (
        "- Network: **not enforced** — the programs this arm started could reach the network "
        "(&lt;script&gt;alert(1)&lt;/script&gt; # heading [x\\](javascript:alert(2)) ?); "
        "their connections were neither refused nor seen (see egress.json)"
    )
    markdown_it = pytest.importorskip(
        "markdown_it", reason="markdown-it-py comes with the test extra (pip install -e .[test])"
    )
    html = markdown_it.MarkdownIt().render(md)
    assert "<script" not in html and "<a " not in html and "<h1>heading" not in html
    egress = _egress(out, "h")["network"]
    assert (
        egress["reason"]
        == (  # type: ignore[index]
            "programs ran with the network reachable: <script>alert(1)</script> # heading "
            "[x](javascript:alert(2)) ? "
        ).rstrip()
    )


@pytest.mark.skipif(
    not (os.environ.get("CI") and sys.platform.startswith("linux") and os.geteuid() == 0),
    reason="only where CI runs as root on Linux, where the namespace tests must not skip",
)
def test_ci_can_isolate_programs() -> None:
    assert ISOLATION.available, ISOLATION.reason
