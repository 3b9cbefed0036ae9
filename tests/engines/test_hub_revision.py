"""Hub model names resolve to a recorded commit when the user authorises download.

Offline, against a fake hub: a stdlib HTTP server on 127.0.0.1 answering the endpoints
huggingface_hub's own code calls (`/api/models/{repo}/revision/{ref}` for the commit a
ref points to, `/api/models/{repo}/tree/{commit}` for the file listing,
`/{repo}/resolve/{commit}/{file}` with X-Repo-Commit, ETag and Content-Length), with
`HF_ENDPOINT` pointed at it and `HF_HUB_CACHE` in tmp. The real download code runs end
to end and a real engine (transformers CTC on a tiny random-weight model) loads from the
snapshot, in a child process so the hub library reads that environment at import.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from earmark.engines.file_hashes import hash_folder
from earmark.engines.model_source import (
    moving_hub_ref,
    pin_hub_revision,
    resolve_source,
)
from earmark.engines.registry import validate_arm
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import parse_arm_spec
from earmark.errors import EarmarkError
from earmark.execution.plan import freeze_plan, load_plan
from earmark.rundir.plan_file import check_frozen, file_sha256

pytest.importorskip(
    "huggingface_hub", reason="huggingface_hub is not installed (earmark[transformers])"
)

REPO = "earmark-test/tiny-ctc"
COMMIT_A = "a" * 8 + "0123456789abcdef0123456789abcdef"
COMMIT_B = "b" * 8 + "0123456789abcdef0123456789abcdef"


@dataclass
class FakeHub:
    """Two commits of one repository, branch `main` and tag `v1`, and a request log."""

    commits: dict[str, dict[str, bytes]]
    refs: dict[str, str]
    log: list[str] = field(default_factory=list)
    url: str = ""

    def commit_of(self, ref: str) -> str | None:
        ref = unquote(ref)
        return ref if ref in self.commits else self.refs.get(ref)


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, data: object) -> None:
            self._send(200, json.dumps(data).encode(), {"Content-Type": "application/json"})

        def _missing(self, what: str) -> None:
            # The hub's error header, so huggingface_hub raises its own typed error.
            self._send(404, json.dumps({"error": what}).encode(), {"X-Error-Code": what})

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            hub.log.append(f"{self.command} {path}")
            prefix = f"/api/models/{REPO}/"
            if path.startswith(prefix + "revision/"):
                commit = hub.commit_of(path[len(prefix + "revision/") :])
                if commit is None:
                    return self._missing("RevisionNotFound")
                files = hub.commits[commit]
                return self._json(
                    {"id": REPO, "sha": commit, "siblings": [{"rfilename": f} for f in files]}
                )
            if path.startswith(prefix + "tree/"):
                commit = hub.commit_of(path[len(prefix + "tree/") :].split("/")[0])
                if commit is None:
                    return self._missing("RevisionNotFound")
                return self._json(
                    [
                        {
                            "type": "file",
                            "path": name,
                            "size": len(data),
                            "oid": hashlib.sha1(data).hexdigest(),
                        }
                        for name, data in sorted(hub.commits[commit].items())
                    ]
                )
            resolve = f"/{REPO}/resolve/"
            if path.startswith(resolve):
                ref, _, name = path[len(resolve) :].partition("/")
                commit = hub.commit_of(ref)
                if commit is None:
                    return self._missing("RevisionNotFound")
                data = hub.commits[commit].get(unquote(name))
                if data is None:
                    return self._missing("EntryNotFound")
                return self._send(
                    200,
                    data,
                    {
                        "X-Repo-Commit": commit,
                        "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                        "Content-Type": "application/octet-stream",
                    },
                )
            return self._missing("RepoNotFound")

    return Handler


@pytest.fixture(scope="module")
def tiny_ctc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch", reason="torch is not installed (earmark[transformers])")
    pytest.importorskip("transformers", reason="transformers is not installed")
    from earmark.testing.tiny_torch_models import build_tiny_ctc

    return build_tiny_ctc(tmp_path_factory.mktemp("tiny-ctc"))


@pytest.fixture
def hub(tiny_ctc: Path) -> Iterator[FakeHub]:
    files = {p.name: p.read_bytes() for p in sorted(tiny_ctc.iterdir()) if p.is_file()}
    # Commit B: the same model, one file changed (what a push to main looks like).
    pushed = {**files, "README.md": b"pushed after the plan was frozen\n"}
    fake = FakeHub({COMMIT_A: files, COMMIT_B: pushed}, {"main": COMMIT_A, "v1": COMMIT_A})
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


LOADS = r"""
import json, sys
import numpy as np
from earmark.engines.base import Clip
from earmark.engines.registry import build_engine
from earmark.engines.spec import parse_arm_spec

t = np.arange(16000, dtype=np.float32) / 16000
clip = Clip("one", (0.3 * np.sin(2 * np.pi * 220 * t) * np.cos(7 * t)).astype(np.float32), 16000)
out = []
for spec in sys.argv[1:]:
    engine = build_engine(parse_arm_spec(spec))
    info = engine.load()
    (hyp,) = engine.transcribe([clip], None)
    out.append({"artifact_id": info.artifact_id, "revision": info.revision,
                "files": info.file_sha256, "text": hyp.text, "error": hyp.error})
    engine.close()
print(json.dumps(out))
"""


def load_in_child(hub: FakeHub, cache: Path, *specs: str) -> list[dict[str, object]]:
    env = {
        **os.environ,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_CACHE": str(cache),
        "HF_HUB_DISABLE_XET": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_PROXY": "127.0.0.1",
    }
    env.pop("HF_HUB_OFFLINE", None)
    done = subprocess.run(
        [sys.executable, "-c", LOADS, *specs],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: list[dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_branch_and_tag_resolve_to_the_commit_which_is_downloaded_and_recorded(
    hub: FakeHub, tiny_ctc: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "hf-cache"
    default, tag, local = load_in_child(
        hub,
        cache,
        f"transformers-ctc:{REPO}?download=true",  # no revision: the hub's main
        f"transformers-ctc:{REPO}?download=true&revision=v1",
        f"transformers-ctc:{tiny_ctc}",
    )
    expected, _ = hash_folder(tiny_ctc)
    for loaded in (default, tag):
        assert loaded["revision"] == COMMIT_A  # the commit, read from the snapshot folder
        assert loaded["files"] == expected  # the bytes served at that commit, hashed
        assert loaded["text"] == local["text"] and loaded["error"] is None
    # Both the ref asked for and the commit loaded are recorded.
    assert default["artifact_id"] == f"{REPO}@main"
    assert tag["artifact_id"] == f"{REPO}@v1"
    assert (cache / "models--earmark-test--tiny-ctc" / "snapshots" / COMMIT_A).is_dir()
    assert f"GET /api/models/{REPO}/revision/main" in hub.log
    assert f"GET /api/models/{REPO}/revision/v1" in hub.log
    # Files are fetched at the commit, never at the moving ref.
    fetched = [line for line in hub.log if "/resolve/" in line]
    assert fetched and all(f"/resolve/{COMMIT_A}/" in line for line in fetched)


def test_a_recorded_commit_is_used_even_after_the_branch_moved(
    hub: FakeHub, tiny_ctc: Path, tmp_path: Path
) -> None:
    hub.refs["main"] = COMMIT_B  # someone pushed to main after the plan was frozen
    pinned, moving = load_in_child(
        hub,
        tmp_path / "hf-cache",
        f"transformers-ctc:{REPO}?download=true&revision=main&resolved_revision={COMMIT_A}",
        f"transformers-ctc:{REPO}?download=true&revision=main",
    )
    assert pinned["revision"] == COMMIT_A
    assert pinned["artifact_id"] == f"{REPO}@{COMMIT_A}"
    assert "README.md" not in pinned["files"]
    assert moving["revision"] == COMMIT_B and "README.md" in moving["files"]
    # The pinned arm asked the hub nothing about main: exactly one resolution, the other's.
    assert hub.log.count(f"GET /api/models/{REPO}/revision/main") == 1


def test_without_download_nothing_reaches_the_network(hub: FakeHub) -> None:
    for spec in (f"transformers-ctc:{REPO}", f"transformers-ctc:{REPO}?revision=main"):
        with pytest.raises(EarmarkError, match="model not found") as caught:
            validate_arm(parse_arm_spec(spec))
        assert caught.value.hint is not None and "download=true" in caught.value.hint
    assert hub.log == []


def test_authorised_arms_validate_offline_and_say_what_they_will_resolve(hub: FakeHub) -> None:
    arm = parse_arm_spec(f"transformers-ctc:{REPO}?download=true&revision=main")
    validate_arm(arm)
    source = resolve_source(arm, SettingsReader(arm))
    assert (source.kind, source.revision, source.requested_revision) == ("hub", None, "main")
    assert moving_hub_ref(arm) == "main"
    pinned = parse_arm_spec(f"transformers-ctc:{REPO}?download=true&revision={COMMIT_B}")
    assert moving_hub_ref(pinned) is None
    assert resolve_source(pinned, SettingsReader(pinned)).revision == COMMIT_B
    assert hub.log == []  # validation and the pins above asked the hub nothing
    with pytest.raises(EarmarkError, match="not a commit hash"):
        validate_arm(parse_arm_spec(f"transformers-ctc:{REPO}?download=true&resolved_revision=v1"))
    with pytest.raises(EarmarkError, match="disagrees"):
        validate_arm(
            parse_arm_spec(
                f"transformers-ctc:{REPO}?download=true&revision={COMMIT_A}"
                f"&resolved_revision={COMMIT_B}"
            )
        )


def write_plan(folder: Path, settings: str) -> Path:
    plan = folder / "plan.toml"
    plan.write_text(
        'manifest = "manifest.jsonl"\n\n[[arms]]\nbackend = "transformers-ctc"\n'
        f'model = "{REPO}"\nsettings = {{ {settings} }}\n',
        "utf-8",
    )
    return plan


def test_plan_freeze_refuses_a_moving_ref_and_names_the_commit(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)  # HfApi() reads it when made
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    plan = write_plan(tmp_path, 'download = true, revision = "main"')
    with pytest.raises(EarmarkError, match="moving ref") as caught:
        freeze_plan(plan)
    assert COMMIT_A in str(caught.value)
    assert (
        caught.value.hint == f'add resolved_revision = "{COMMIT_A}" to the arm\'s settings '
        "and freeze again"
    )
    assert not Path(f"{plan}.sha256").exists()
    # Recorded as the hint says, the plan freezes without asking the hub again, and its
    # arm loads that commit whatever main points to later.
    before = len(hub.log)
    plan = write_plan(
        tmp_path, f'download = true, revision = "main", resolved_revision = "{COMMIT_A}"'
    )
    frozen = freeze_plan(plan)
    assert len(hub.log) == before
    assert check_frozen(plan, frozen.sha256) == frozen.sha256
    (arm,) = load_plan(plan, resolve_data=False).arms
    source = resolve_source(arm, SettingsReader(arm))
    assert (source.revision, source.requested_revision) == (COMMIT_A, "main")
    assert dict(arm.settings)["revision"] == "main"  # both recorded in the plan


def test_a_frozen_plan_with_a_moving_ref_is_refused_at_run_time(
    hub: FakeHub, tmp_path: Path
) -> None:
    # A plan hashed by hand (never frozen by earmark) with revision=main: the run's
    # --expect-sha256 check refuses it before anything reaches the network.
    plan = write_plan(tmp_path, 'download = true, revision = "main"')
    with pytest.raises(EarmarkError, match="moving ref") as caught:
        check_frozen(plan, file_sha256(plan))
    assert caught.value.hint is not None and "resolved_revision" in caught.value.hint
    assert hub.log == []


def test_pin_hub_revision_records_the_commit(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    arm = parse_arm_spec(f"transformers-ctc:{REPO}?download=true&revision=v1&name=x")
    pinned = pin_hub_revision(arm)
    assert dict(pinned.settings)["resolved_revision"] == COMMIT_A
    assert pinned.name == "x" and moving_hub_ref(pinned) is None
    assert pin_hub_revision(pinned) == pinned  # nothing left to resolve: no request
    assert hub.log == [f"GET /api/models/{REPO}/revision/v1"]
    with pytest.raises(EarmarkError, match="cannot resolve revision 'gone'"):
        pin_hub_revision(parse_arm_spec(f"transformers-ctc:{REPO}?download=true&revision=gone"))


def _run_cli(hub: FakeHub, cache: Path, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    from earmark.corpus.demo import demo_manifest_path

    env = {
        **os.environ,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_CACHE": str(cache),
        "HF_HUB_DISABLE_XET": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_PROXY": "127.0.0.1",
    }
    env.pop("HF_HUB_OFFLINE", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "earmark",
            "run",
            "--manifest",
            str(demo_manifest_path()),
            "--first",
            "2",
            "--arm",
            f"transformers-ctc:{REPO}?download=true",
            "--bootstrap",
            "0",
            "--quiet",
            "--out",
            str(out),
            *flags,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_run_records_the_commit_and_its_resume_never_resolves_the_branch_again(
    hub: FakeHub, tmp_path: Path
) -> None:
    cache, out = tmp_path / "hf-cache", tmp_path / "run"
    refused = _run_cli(hub, cache, out)  # download=true, but the run forbids the network
    assert refused.returncode == 2 and "does not allow the network" in refused.stderr
    assert hub.log == []

    first = _run_cli(hub, cache, out, "--allow-network")
    assert first.returncode == 0, first.stderr[-3000:]
    plan = json.loads((out / "plan.json").read_text())
    (arm,) = plan["plan"]["arms"]
    assert arm["settings"]["resolved_revision"] == COMMIT_A  # recorded before any row
    assert hub.log.count(f"GET /api/models/{REPO}/revision/main") == 1

    hub.refs["main"] = COMMIT_B  # a push to main between the run and its resume
    hub.log.clear()
    resumed = _run_cli(hub, cache, out, "--allow-network")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads((out / "plan.json").read_text())["sha256"] == plan["sha256"]
    assert not any("/revision/" in line for line in hub.log)  # the recorded commit was reused
    provenance = json.loads((out / "provenance.json").read_text())
    (record,) = provenance["arms"].values()
    assert record["model"]["revision"] == COMMIT_A
