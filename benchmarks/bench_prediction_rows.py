"""Typed prediction rows: what reading one costs, and what the HTML report costs on a big run.

`PredictionRow.from_dict` on the checked path (a JSON path per value; the code before the
fast path also deep-copied every open-ended value, so it was slower still) against the fast
path it now takes first, and `from_line` (parse + type). Then `earmark report` on the
example run with its rows repeated to N (ids made unique): the worst-utterances section
(which reads every row, as dicts) and the whole page.

    python benchmarks/bench_prediction_rows.py [N]   # default 31,000 rows
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from earmark.render.html import write_html_report
from earmark.render.html_examples import render_worst
from earmark.render.html_inputs import ReportInputs
from earmark.render.run_directory import load_run
from earmark.results import PredictionRow

EXAMPLE = Path(__file__).resolve().parent.parent / "tests" / "report" / "data" / "example-run"


def best(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _drain(read, items) -> None:
    for item in items:
        read(item)


def big_run(folder: Path, n: int) -> Path:
    """The example run with its rows repeated to `n` (figures are the example's: the page
    does not recompute them)."""
    shutil.copytree(EXAMPLE, folder)
    rows = [json.loads(x) for x in (EXAMPLE / "predictions.jsonl").read_text("utf-8").splitlines()]
    out = []
    for i in range(n):
        row = dict(rows[i % len(rows)])
        row["id"] = f"{row['id']}-{i // len(rows)}"
        out.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    (folder / "predictions.jsonl").write_text("\n".join(out) + "\n", "utf-8")
    results = json.loads((folder / "results.json").read_text("utf-8"))
    results.pop("predictions", None)  # the hash names the example's file, not this one
    (folder / "results.json").write_text(json.dumps(results, ensure_ascii=False), "utf-8")
    return folder


def main(n: int) -> None:
    lines = (EXAMPLE / "predictions.jsonl").read_text("utf-8").splitlines() * 100
    datas = [json.loads(line) for line in lines]

    # One row at a time, as read_predictions yields them.
    checked = best(lambda: _drain(lambda d: PredictionRow._from_dict_checked(d, ""), datas))
    fast = best(lambda: _drain(PredictionRow.from_dict, datas))
    line = best(lambda: _drain(PredictionRow.from_line, lines))
    kept = best(lambda: [PredictionRow.from_dict(d) for d in datas])
    per = 1e3 / len(datas)
    print(f"from_dict checked path: {checked * per:.4f} ms/row")
    print(f"from_dict fast path:    {fast * per:.4f} ms/row ({checked / fast:.1f}x)")
    print(f"from_line (parse+type): {line * per:.4f} ms/row")
    print(f"from_dict, all {len(datas)} rows kept in a list: {kept * per:.4f} ms/row (GC)")
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = big_run(Path(tmp) / "big", n)
        page = ReportInputs.of(load_run(run_dir))
        worst = best(lambda: render_worst(ReportInputs(page.run, page.results), 5), repeat=3)
        whole = best(lambda: write_html_report(run_dir, out=Path(tmp) / "r.html"), repeat=3)
        print(f"{n} rows: worst utterances {worst:.3f} s; whole page {whole:.3f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 31_000)
