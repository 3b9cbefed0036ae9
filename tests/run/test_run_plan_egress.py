"""Frozen plans and the egress guard."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.errors import EarmarkError
from earmark.execution.egress import EgressGuard, EgressRefused
from earmark.execution.plan import freeze_plan, load_plan
from earmark.rundir.plan_file import check_frozen

PLAN = """
manifest = "corpus/manifest.jsonl"
normalizer = "none"
bootstrap = 100

[selection]
first = 2

[[arms]]
backend = "command"
model = "{cmd} {{audio}}"
name = "fake"
"""


def test_freeze_then_changed_plan_is_refused(
    tmp_path: Path, fake_asr: str, corpus_factory, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus_factory(tmp_path / "corpus", 3)
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.format(cmd=fake_asr), "utf-8")
    assert main(["plan", "freeze", str(plan)]) == 0
    digest = (tmp_path / "plan.toml.sha256").read_text().split()[0]
    out = tmp_path / "run"
    assert (
        main(["run", "--plan", str(plan), "--expect-sha256", digest, "--out", str(out), "--quiet"])
        == 0
    )
    import json

    results = json.loads((out / "results.json").read_text())
    assert results["arms"]["fake"]["coverage"]["references"] == 2  # selection applied
    assert json.loads((out / "provenance.json").read_text())["plan_file_sha256"] == digest
    plan.write_text(PLAN.format(cmd=fake_asr).replace("first = 2", "first = 3"), "utf-8")
    assert (
        main(
            [
                "run",
                "--plan",
                str(plan),
                "--expect-sha256",
                digest,
                "--out",
                str(tmp_path / "run2"),
                "--quiet",
            ]
        )
        == 2
    )
    assert "plan changed since it was frozen" in capsys.readouterr().err
    with pytest.raises(EarmarkError):
        check_frozen(plan, digest)


def test_plan_errors_name_the_key(tmp_path: Path) -> None:
    plan = tmp_path / "p.toml"
    plan.write_text(
        'manifest = "m.jsonl"\nbogus = 1\n[[arms]]\nbackend="command"\nmodel="x {audio}"\n'
    )
    with pytest.raises(EarmarkError, match="bogus"):
        load_plan(plan)
    plan.write_text('manifest = "m.jsonl"\n')
    with pytest.raises(EarmarkError, match="arms"):
        freeze_plan(plan)


def _listener() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def accept() -> None:
        try:
            server.accept()
        except OSError:  # closed by the test before anyone connected
            pass

    threading.Thread(target=accept, daemon=True).start()
    return server, server.getsockname()[1]


def test_egress_guard_refuses_and_records() -> None:
    server, port = _listener()
    try:
        with EgressGuard.for_hosts([]) as guard:
            with pytest.raises(EgressRefused):
                socket.create_connection(("127.0.0.1", port), timeout=2)
        record = guard.record()
        assert record["refused"] == 1 and record["attempts"][0]["port"] == port
        # Outside the guard the same connection works again.
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        server.close()


def test_egress_guard_allows_named_host() -> None:
    server, port = _listener()
    try:
        with EgressGuard.for_hosts(["127.0.0.1"]) as guard:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        assert guard.record()["refused"] == 0
        assert guard.record()["attempts"][0]["allowed"] is True
    finally:
        server.close()
