"""The transformers backends on a real CUDA device, through `earmark run` as a user runs it.

CI has no GPU, so this file skips there with its reason; it runs where `torch` sees a CUDA
device (the project's occasional GPU check). What it pins: every clip of the bundled demo
corpus is decoded on the GPU (read back from the loaded parameters, not copied from the
request), the record names the GPU, CUDA and the TF32 state, batching on the GPU loses or
duplicates no clip, and two GPU runs of the same plan give byte-identical hypotheses. How
far GPU text agrees with CPU text is measured and written out, not asserted: TF32 and
kernel choice legitimately move near-ties.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
pytest.importorskip("transformers", reason="transformers is not installed")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device (torch.cuda.is_available() is False)", allow_module_level=True)

from earmark.corpus.demo import demo_manifest_path  # noqa: E402

DEMO_CLIPS = 31


def _run(out: Path, arm: str, *flags: str) -> dict[str, dict[str, object]]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "earmark",
            "run",
            "--manifest",
            str(demo_manifest_path()),
            "--arm",
            arm,
            "--bootstrap",
            "0",
            "--quiet",
            "--out",
            str(out),
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    return {str(row["id"]): row for row in rows}


def _model(out: Path) -> dict[str, object]:
    provenance = json.loads((out / "provenance.json").read_text())
    (arm,) = provenance["arms"].values()
    return arm["model"]


@pytest.mark.parametrize("backend", ["transformers-ctc", "transformers-seq2seq"])
def test_cuda_decodes_every_clip_on_the_gpu_and_repeats_exactly(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    fixture = "tiny_ctc" if backend == "transformers-ctc" else "tiny_whisper_hf"
    folder: Path = request.getfixturevalue(fixture)
    arm = f"{backend}:{folder}" + ("?max_new_tokens=8" if backend.endswith("seq2seq") else "")
    gpu = _run(tmp_path / "gpu", arm, "--device", "cuda", "--batch-size", "1")
    again = _run(tmp_path / "gpu-again", arm, "--device", "cuda", "--batch-size", "1")
    batched = _run(tmp_path / "gpu-batched", arm, "--device", "cuda", "--batch-size", "4")
    cpu = _run(tmp_path / "cpu", arm, "--device", "cpu", "--batch-size", "1")

    for rows in (gpu, again, batched, cpu):
        assert len(rows) == DEMO_CLIPS and all(r["status"] == "ok" for r in rows.values())
    extra = _model(tmp_path / "gpu")["extra"]
    assert isinstance(extra, dict)
    assert extra["device"] == "cuda" and str(extra["device_loaded"]).startswith("cuda")
    assert extra["cuda_device_name"] == torch.cuda.get_device_name(0)
    assert extra["cuda_runtime_version"] == torch.version.cuda
    assert _model(tmp_path / "cpu")["extra"]["device_loaded"] == "cpu"  # type: ignore[index]
    assert {k: r["hypothesis"] for k, r in gpu.items()} == {
        k: r["hypothesis"] for k, r in again.items()
    }

    agreement = {
        "backend": backend,
        "gpu": extra["cuda_device_name"],
        "tf32_matmul": extra["tf32_matmul"],
        "tf32_cudnn": extra["tf32_cudnn"],
        "gpu_equals_cpu": sum(gpu[k]["hypothesis"] == cpu[k]["hypothesis"] for k in gpu),
        "batched_equals_unbatched": sum(
            gpu[k]["hypothesis"] == batched[k]["hypothesis"] for k in gpu
        ),
        "clips": DEMO_CLIPS,
    }
    report = os.environ.get("EARMARK_CUDA_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(agreement) + "\n")
