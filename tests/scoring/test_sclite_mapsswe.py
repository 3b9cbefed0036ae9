"""Issue 23: `compare --mapsswe sclite` finds the MAPSSWE segments and Z that `sctk
sc_stats -t mapsswe` finds on the same two systems (sclite's alignment, sclite's
segmentation); earmark's default segments its own alignment and can differ."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.comparison.paired import evaluation_letters
from earmark.errors import EarmarkError
from earmark.file_comparison import compare

SCTK = shutil.which("sctk")
needs_sctk = pytest.mark.skipif(
    SCTK is None, reason="sctk is not installed (apt-get install -y sctk): no sc_stats oracle"
)


def systems(seed: int, n: int = 60) -> dict[str, list[str]]:
    """A reference and two systems over a small vocabulary (equal-cost splits abound)."""
    rng = random.Random(seed)
    vocab = "a b c the cat on".split()
    out: dict[str, list[str]] = {"R": [], "A": [], "B": []}
    for k in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 10))]
        ident = f"s{k % 4}-u{k}"
        out["R"].append(f"{' '.join(ref)} ({ident})")
        for name, rate in (("A", 0.15), ("B", 0.3)):
            hyp = []
            for w in ref:
                u = rng.random()
                if u < rate / 2:
                    continue
                hyp.append(rng.choice(vocab) if u < rate else w)
                if rng.random() < rate / 3:
                    hyp.append(rng.choice(vocab))
            if k % 9 == 4:  # a one-word shift: ties between the alignments
                hyp = hyp[1:] + [rng.choice(vocab)]
            out[name].append(f"{' '.join(hyp)} ({ident})")
    return out


def sc_stats(folder: Path) -> tuple[int, float, float, float]:
    """(# segs, mean, std dev, Z) of `sc_stats -t mapsswe` on sclite's sgml of A and B."""
    assert SCTK is not None
    subprocess.run(
        [SCTK, "sclite", "-r", "R.trn", "trn", "-h", "A.trn", "trn", "-h", "B.trn", "trn",
         "-i", "rm", "-o", "sgml", "-O", str(folder)],
        cwd=folder, check=True, capture_output=True,
    )  # fmt: skip
    sgml = "".join((folder / f"{n}.trn.sgml").read_text("utf-8") for n in ("A", "B"))
    report = subprocess.run(
        [SCTK, "sc_stats", "-p", "-t", "mapsswe", "-v", "-n", "-"],
        input=sgml, cwd=folder, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    m = re.search(
        r"\(# segs: (\d+)\).*\(mean: (-?[\d.]+)\) \(std dev: ([\d.]+)\) \(Z Stat: (-?[\d.]+)\)",
        report,
    )
    assert m is not None, report
    return int(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4))


def earmark_mapsswe(folder: Path, alignment: str) -> dict:
    for name in ("A", "B"):
        if not (folder / f"score-{name}").exists():
            assert (
                main(
                    ["score", str(folder / f"{name}.trn"), "--refs", str(folder / "R.trn")]
                    + ["--normalizer", "none", "--bootstrap", "0", "--quiet"]
                    + ["--out", str(folder / f"score-{name}")]
                )
                == 0
            )
    result = compare(
        [str(folder / "score-A"), str(folder / "score-B")],
        normalizer="none",
        resamples=0,
        out_dir=folder / f"compare-{alignment}",
        jobs=1,
        mapsswe=alignment,
    )
    assert result is not None
    data = json.loads((folder / f"compare-{alignment}" / "compare.json").read_text("utf-8"))
    (overall,) = [p for p in data["pairs"] if p["language"] is None and p["metric"] == "wer"]
    return overall["tests"]["mapsswe"]


@needs_sctk
def test_mapsswe_sclite_equals_sc_stats(tmp_path: Path) -> None:
    parted = 0
    for seed in range(6):
        folder = tmp_path / str(seed)
        folder.mkdir()
        for name, lines in systems(seed).items():
            (folder / f"{name}.trn").write_text("\n".join(lines) + "\n", "utf-8")
        segs, mean, sd, z = sc_stats(folder)
        ours = earmark_mapsswe(folder, "sclite")
        assert ours["alignment"].startswith("sclite")
        assert ours["n_segments"] == segs, seed
        assert ours["mean_difference"] == pytest.approx(mean, abs=5e-4)
        assert ours["std_dev"] == pytest.approx(sd, abs=5e-4)
        assert ours["z"] == pytest.approx(z, abs=5e-4)
        default = earmark_mapsswe(folder, "earmark")
        parted += (default["n_segments"], round(default["z"], 3)) != (segs, z)
    assert parted > 0  # the option matters: earmark's own alignment segments differently


def test_sclite_letters_and_refusals(tmp_path: Path) -> None:
    assert evaluation_letters("a b", "b c", "word", "sclite") == "DCI"
    assert evaluation_letters("a b", "b c", "word") == "SS"
    assert evaluation_letters("a b", "a b", "word", "sclite") == "CC"
    with pytest.raises(EarmarkError, match="unknown MAPSSWE alignment"):
        compare(["x"], normalizer="none", mapsswe="kaldi")
