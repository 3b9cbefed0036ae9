"""The measurements behind docs/dependencies.md: for each hand-written part, what the
well-kept library would cost or gain here (import time, speed, output). A few seconds.

    PYTHONPATH=src python benchmarks/measure_dependencies.py

Libraries that are not installed are reported as such, never guessed.
"""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def import_ms(module: str, runs: int = 5) -> str:
    """Best of `runs` fresh interpreters: wall time of `import module`, less a bare start."""
    if importlib.util.find_spec(module.split(".")[0]) is None:
        return "not installed"

    def best(code: str) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())
            times.append(time.perf_counter() - start)
        return min(times)

    return f"{1000 * (best(f'import {module}') - best('pass')):.0f} ms"


def best_of(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    print("## import time (fresh interpreter, best of 5, minus a bare start)")
    for module in (
        "earmark.render.html",
        "jinja2",
        "markupsafe",
        "earmark.stats.paired_tests",
        "scipy.stats",
        "urllib.request",
        "httpx",
        "earmark.engines.cpu_runtime",
        "cpuinfo",
        "tqdm",
        "earmark.formats.ctm",
        "meeteval.io",
        "matplotlib.pyplot",
    ):
        print(f"{module}: {import_ms(module)}")

    print("\n## escaping 200,000 transcript cells")
    from earmark.render.html_page import esc

    cells = [f'row {i}: <b>"the cat" & the mat</b> 你好' for i in range(200_000)]
    ours = best_of(lambda: [esc(c) for c in cells])
    print(f"earmark html_page.esc: {1000 * ours:.0f} ms")
    if importlib.util.find_spec("markupsafe"):
        from markupsafe import escape

        theirs = best_of(lambda: [str(escape(c)) for c in cells])

        def spelled(text: str) -> str:  # the two spell `'` and `"` as different entities
            return text.replace("&#x27;", "&#39;").replace("&quot;", "&#34;")

        same = all(str(escape(c)) == spelled(esc(c)) for c in cells[:1000])
        differs = sum(str(escape(c)) != esc(c) for c in cells[:1000])
        print(
            f"markupsafe.escape: {1000 * theirs:.0f} ms (same text up to entity spelling: "
            f"{same}; byte-different cells: {differs} of 1000)"
        )

    print("\n## the example report, assembled (no I/O)")
    from earmark.render.html import render_html_report
    from earmark.render.run_directory import load_run

    with tempfile.TemporaryDirectory() as tmp:
        import shutil

        run_dir = Path(tmp) / "run"
        shutil.copytree(ROOT / "tests/report/data/example-run", run_dir)
        run = load_run(run_dir)
        page = render_html_report(run)
        took = best_of(lambda: render_html_report(run))
        print(f"render_html_report: {1000 * took:.1f} ms, {len(page.encode()) // 1024} KiB")
    from earmark.render.plots import Bar, bar_chart

    svg = bar_chart([Bar(f"arm-{i} · en", 0.1 + i / 100, 0.08, 0.12) for i in range(6)], title="t")
    print(f"bar chart of 6 bars: {len(svg.encode())} bytes of inline SVG")

    print("\n## CPU flags")
    from earmark.engines.cpu_runtime import cpu_flags

    took = best_of(cpu_flags)
    print(f"earmark cpu_flags(): {1000 * took:.2f} ms, {len(cpu_flags() or [])} flags")
    if importlib.util.find_spec("cpuinfo"):
        import cpuinfo

        start = time.perf_counter()
        info = cpuinfo.get_cpu_info()
        took = time.perf_counter() - start
        theirs = set(info.get("flags", []))
        ours_set = set(cpu_flags() or [])
        print(
            f"py-cpuinfo get_cpu_info(): {1000 * took:.0f} ms, {len(theirs)} flags, "
            f"same set: {theirs == ours_set} (only ours: {len(ours_set - theirs)}, "
            f"only theirs: {len(theirs - ours_set)})"
        )

    print("\n## progress in a log (not a terminal), 200 clips")
    from earmark.execution.progress import ClipProgress

    ticks = iter(range(10_000))
    out = io.StringIO()
    with ClipProgress("arm", 200, False, stream=out, clock=lambda: next(ticks)) as advance:
        for _ in range(200):
            advance()
    print(
        f"earmark ClipProgress: {len(out.getvalue().splitlines())} lines, "
        f"{len(out.getvalue())} bytes, carriage returns: {out.getvalue().count(chr(13))}"
    )
    if importlib.util.find_spec("tqdm"):
        from tqdm import tqdm

        out = io.StringIO()
        for _ in tqdm(range(200), file=out, mininterval=0, miniters=1):
            pass
        text = out.getvalue()
        print(
            f"tqdm to a file: {len(text.splitlines())} lines, {len(text)} bytes, "
            f"carriage returns: {text.count(chr(13))}"
        )

    print("\n## CTM / STM, 100,000 words")
    with tempfile.TemporaryDirectory() as tmp:
        ctm = Path(tmp) / "h.ctm"
        stm = Path(tmp) / "r.stm"
        ctm.write_text(
            "".join(
                f"rec{i // 100} A {i % 100 * 0.5:.2f} 0.40 word{i} 0.9\n" for i in range(100_000)
            ),
            "utf-8",
        )
        stm.write_text(
            "".join(
                f"rec{i // 10} A spk{i % 3} {i % 10 * 5.0:.2f} {i % 10 * 5.0 + 5:.2f} "
                + " ".join(f"w{j}" for j in range(10))
                + "\n"
                for i in range(10_000)
            ),
            "utf-8",
        )
        from earmark.formats.ctm import read_ctm
        from earmark.formats.stm import read_stm

        print(f"earmark read_ctm: {1000 * best_of(lambda: read_ctm(ctm), 3):.0f} ms")
        print(f"earmark read_stm: {1000 * best_of(lambda: read_stm(stm), 3):.0f} ms")
        if importlib.util.find_spec("meeteval"):
            from meeteval.io import CTM, STM

            print(f"meeteval CTM.load: {1000 * best_of(lambda: CTM.load(ctm), 3):.0f} ms")
            print(f"meeteval STM.load: {1000 * best_of(lambda: STM.load(stm), 3):.0f} ms")
            bad = Path(tmp) / "bad.ctm"
            bad.write_text("rec A 0.0 0.4 ok 0.9\nrec A zero 0.4 bad 0.9\n", "utf-8")
            for name, fn in (
                ("earmark", lambda: read_ctm(bad)),
                ("meeteval", lambda: CTM.load(bad)),
            ):
                try:
                    fn()
                    print(f"{name} on a bad line: accepted")
                except Exception as exc:  # noqa: BLE001 - the message is what is measured
                    print(
                        f"{name} on a bad line: {type(exc).__name__}: {str(exc).splitlines()[0][:140]}"
                    )


if __name__ == "__main__":
    main()
