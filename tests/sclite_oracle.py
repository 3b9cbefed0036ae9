"""NIST sclite (`sctk sclite`) as the oracle: run it on trn files and read its summary table.

Kept beside `cli_process` in the tests folder (on `sys.path`), so every test that checks
earmark against sclite reads sclite's output the same way."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SCTK = shutil.which("sctk")


def sclite_rsum(folder: Path, ref: str = "ref.trn", hyp: str = "hyp.trn") -> dict[str, list[int]]:
    """speaker (and `Sum`) -> [# Snt, # Wrd, C, S, D, I] from `sctk sclite -D -o rsum` on the
    trn files in `folder`, speakers by `-i rm`; sclite's rounded Mean/S.D./Median rows are
    left out."""
    assert SCTK is not None
    out = subprocess.run(
        [SCTK, "sclite", "-r", ref, "trn", "-h", hyp, "trn", "-i", "rm", "-D"]
        + ["-o", "rsum", "stdout"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    table: dict[str, list[int]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        try:
            values = [int(float(v)) for v in " ".join(cells[1:3]).split()[:6]]
        except ValueError:
            continue
        if len(values) == 6 and cells[0] not in ("SPKR", "Mean", "S.D.", "Median"):
            table[cells[0]] = values
    return table
