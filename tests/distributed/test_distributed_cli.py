"""`earmark run --executor ray` through the CLI gives the local run's predictions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="needs the ray extra")

from earmark.cli import main  # noqa: E402


def _hyps(out: Path) -> list[tuple[str, int, str | None, str]]:
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    return [(r["id"], r["repeat"], r["hypothesis"], r["status"]) for r in rows]


def test_cli_ray_executor_matches_local(tmp_path: Path, crashy_asr: str, corpus_factory) -> None:
    manifest = corpus_factory(tmp_path / "corpus", 5)
    arm = f"command:{crashy_asr} {{audio}} never?name=fake"
    base = [
        "run",
        "--manifest",
        str(manifest),
        "--arm",
        arm,
        "--normalizer",
        "none",
        "--bootstrap",
        "100",
        "--quiet",
    ]
    assert main([*base, "--out", str(tmp_path / "local")]) == 0
    assert (
        main([*base, "--executor", "ray", "--ray-actors", "2", "--out", str(tmp_path / "ray")]) == 0
    )
    assert _hyps(tmp_path / "ray") == _hyps(tmp_path / "local")
    local = json.loads((tmp_path / "local" / "results.json").read_text())["arms"]["fake"]
    ray = json.loads((tmp_path / "ray" / "results.json").read_text())["arms"]["fake"]
    assert ray["overall"] == local["overall"]
