"""The plan's threads, code path and per-clip seeds: what every arm process is given."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus.demo import demo_manifest_path
from earmark.engines.spec import parse_arm_spec
from earmark.errors import EarmarkError
from earmark.execution.arm_environment import arm_environment, clip_seed, with_plan_threads
from earmark.execution.plan import RunPlan, load_plan


def _plan(**kw: object) -> RunPlan:
    return RunPlan(manifest="m.jsonl", audio_root=".", arms=(parse_arm_spec("command:x"),), **kw)


def test_clip_seed_is_the_documented_hash_and_ignores_the_arm() -> None:
    expected = int.from_bytes(hashlib.sha256(b"20260926\x00en-01\x000").digest()[:4], "big")
    assert clip_seed(20260926, "en-01", 0) == expected
    assert clip_seed(20260926, "en-01", 1) != expected  # a repeat draws its own stream
    assert clip_seed(7, "en-01", 0) != expected
    assert 0 <= expected < 2**32


def test_plan_threads_fill_the_backend_setting_unless_the_arm_sets_its_own() -> None:
    fw = parse_arm_spec("faster-whisper:bundled:tiny.en?name=t")
    assert with_plan_threads(fw, 3).settings_dict["cpu_threads"] == "3"
    own = parse_arm_spec("faster-whisper:bundled:tiny.en?cpu_threads=2&name=t")
    assert with_plan_threads(own, 3).settings_dict["cpu_threads"] == "2"
    cpp = parse_arm_spec("whisper-cpp:/m/ggml.bin?name=w")
    assert with_plan_threads(cpp, 4).settings_dict["threads"] == "4"
    http = parse_arm_spec("http:http://127.0.0.1:1/v1?name=h")
    assert with_plan_threads(http, 4) == http  # no thread setting to fill
    # The thread count is part of the cache key: rows decoded with other threads are redone.
    assert with_plan_threads(fw, 3).canonical() != with_plan_threads(fw, 1).canonical()


def test_arm_environment_pins_threads_and_the_code_path() -> None:
    env = arm_environment(_plan(threads=2))
    assert env == {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}
    pinned = arm_environment(_plan(cpu_isa="avx2"))
    assert pinned["CT2_FORCE_CPU_ISA"] == "AVX2" and pinned["CT2_USE_MKL"] == "0"
    assert pinned["ONEDNN_MAX_CPU_ISA"] == "AVX2" and pinned["OPENBLAS_CORETYPE"] == "Haswell"


def test_plan_hash_changes_with_threads_and_isa_but_defaults_keep_old_hashes() -> None:
    base = _plan()
    assert "threads" not in base.to_dict() and "cpu_isa" not in base.to_dict()
    assert _plan(threads=2).sha256() != base.sha256()
    assert _plan(cpu_isa="AVX2").sha256() != base.sha256()
    with pytest.raises(EarmarkError, match="threads"):
        _plan(threads=0)
    with pytest.raises(EarmarkError, match="cpu_isa"):
        _plan(cpu_isa="SSE9")


def test_plan_file_reads_threads_and_isa(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'manifest = "{demo_manifest_path().as_posix()}"\nthreads = 2\ncpu_isa = "AVX2"\n'
        '[[arms]]\nbackend = "command"\nmodel = "x"\n'
    )
    loaded = load_plan(plan)
    assert (loaded.threads, loaded.cpu_isa) == (2, "AVX2")


def test_run_refuses_threads_flag_beside_a_plan(tmp_path: Path, capsys) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'manifest = "{demo_manifest_path().as_posix()}"\n'
        '[[arms]]\nbackend = "command"\nmodel = "x"\n'
    )
    code = main(["run", "--plan", str(plan), "--threads", "2", "--out", str(tmp_path / "o")])
    assert code == 2
    assert "go in the plan file" in capsys.readouterr().err
