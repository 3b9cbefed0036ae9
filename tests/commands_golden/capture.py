"""Run every earmark command a user runs on the bundled runs and collect what it writes.

The spine refactor (issue 22) moved who builds each result; these captures were taken
at the commit before it (c80343e) and must stay byte-identical. Each case runs the real
CLI in a fresh process (`python -m earmark`), at 80 and 120 columns where it prints a
table, and collects stdout, stderr, the exit code and every file it wrote. The clock and
the temporary folder are the only things that vary: `created` stamps, dates in file
names and the folder's path are replaced by fixed text.

`python tests/commands_golden/capture.py --write` rewrites the goldens (review the diff).
Renewed since, each for a change made on purpose and reviewed line by line: the leaderboard
(system type, declared model, mean over corpora, RTFx columns) and the precomputed arms'
`verifiable: false`; the HTML report's column order and pinned first column; a resumed
arm's resource rule (`definitions.resumed`); `score --sclite-reports` printing the speaker
rule it used and results.md's sclite section (issue 23); a one-language summary and
results.md showing its figures once, as `overall` (`overall (en)` for a named language), not
again under the language (issue 26: `run` stdout, `score-trn` stdout and results.md); the
HTML report fitting 1280 px (issue 26: the model hashes in a table of their own, a revision
abbreviated with its title, figure cells that break between figure and CI, the paired
tests' p-values in one cell); the default bootstrap generator becoming `numpy-pcg64-poisson`
(issue 25: every CI, paired interval and `share_*` figure, results.md's CI line, and the
`generator` every bootstrap record, gap.json and decision record now names; no point
value, verdict or rule outcome changed). Every other byte is still c80343e's.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from earmark.engines.cpu_runtime import PIN_VARIABLES
from earmark.execution.provenance import THREAD_VARIABLES

TESTS = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLE_RUN = TESTS / "compare" / "data" / "example-run"
REPORT_RUN = TESTS / "report" / "data" / "example-run"

ROWS = [
    ("en-1", "en", "The cat sat on the mat, on 3 May 2024.", "the bat sat on a mat on 3 may 2024"),
    ("en-2", "en", "Call 555-0100 now!", "call 555 0100 now"),
    ("en-3", "en", "Hello there, how are you?", ""),
    (
        "ga-1",
        "ga",
        "Tá an t-athair ag obair i nGaillimh inniu.",
        "ta an tathair ag obair in gaillimh",
    ),
    ("ga-2", "ga", "Dia duit, a chara.", "dia duit a chara"),
    ("zh-1", "zh", "今天天气很好。", "今天天氣很好"),
    ("zh-2", "zh", "我们在北京开会，好吗？", "我们在北京开会好吗"),
]
CHALLENGER = {"en-1": "the cat sat on the mat on 3 may 2024", "ga-1": "tá an t-athair ag obair"}

TRN_REF = "the cat sat on the mat (spk1-001)\nhello world again (spk1-002)\nok then (spk2-001)\n"
TRN_HYP = "the cat sat on mat (spk1-001)\nhello word again now (spk1-002)\nokay then (spk2-001)\n"

STAMP = re.compile(r'"created": "[^"]*"')
DATE = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?)?")
HASH = re.compile(r"\b[0-9a-f]{64}\b")
#: Keys whose values are measured, not computed (time, memory), or read off the host
#: (`os_release`: the kernel of the machine the capture ran on, which CI hosts do not
#: share): masked in a `run`'s files.
MEASURED = re.compile(
    r"(seconds|rss|bytes|rtf|latency|cpu|wall|per_second|per_s|clips_per|throughput|"
    r"resources|_s$|load|os_release)",
    re.IGNORECASE,
)
#: Files whose content is a process id or hashes of files holding a clock.
SKIPPED = (".earmark.lock",)


def _write_rows(path: Path, hyps: dict[str, str] | None = None) -> None:
    lines = []
    for ident, language, ref, hyp in ROWS:
        hyp = (hyps or {}).get(ident, hyp)
        record = {"id": ident, "language": language, "reference": ref, "hypothesis": hyp}
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", "utf-8")


def _cases(work: Path) -> list[tuple[str, list[str], int | None]]:
    """(name, argv after `earmark`, terminal width or None)."""
    run_a = work / "run-a"
    shutil.copytree(EXAMPLE_RUN, run_a)
    run_r = work / "run-r"
    shutil.copytree(REPORT_RUN, run_r)
    _write_rows(work / "rows.jsonl")
    _write_rows(work / "rows-b.jsonl", CHALLENGER)
    (work / "ref.trn").write_text(TRN_REF, "utf-8")
    (work / "hyp.trn").write_text(TRN_HYP, "utf-8")
    manifest = TESTS.parent / "src" / "earmark" / "demo_corpus" / "manifest.jsonl"
    rows = [json.loads(line) for line in manifest.read_text("utf-8").splitlines()]
    (work / "exact.jsonl").write_text(
        "".join(json.dumps({"id": r["id"], "hypothesis": r["text"]}) + "\n" for r in rows), "utf-8"
    )
    (work / "cut.jsonl").write_text(
        "".join(
            json.dumps({"id": r["id"], "hypothesis": r["text"] if i % 3 else r["text"][:-4]}) + "\n"
            for i, r in enumerate(rows)
        ),
        "utf-8",
    )
    run = ["run", "--manifest", str(manifest), "--first", "8", "--bootstrap", "100"]
    run += [
        "--arm",
        "precomputed:exact.jsonl?name=exact",
        "--arm",
        "precomputed:cut.jsonl?name=cut",
    ]
    score = ["score", "rows.jsonl", "--normalizer", "auto", "--bootstrap", "200", "--seed", "7"]
    cases: list[tuple[str, list[str], int | None]] = []
    for width in (80, 120):
        cases += [
            (
                f"score-{width}",
                [*score, "--out", f"score-{width}", "--show-alignments", "2"],
                width,
            ),
            (f"verify-run-{width}", ["verify", "run-a"], width),
        ]
    cases += [
        ("run", [*run, "--isolation", "inline", "--out", "run-p"], 100),
        (
            "score-b",
            [
                "score",
                "rows-b.jsonl",
                "--normalizer",
                "auto",
                "--bootstrap",
                "200",
                "--seed",
                "7",
                "--out",
                "score-b",
                "--quiet",
            ],
            None,
        ),
        ("score-crude", [*score, "--normalizer", "crude-v1", "--out", "score-crude", "--csv"], 100),
        (
            "score-trn",
            [
                "score",
                "hyp.trn",
                "--refs",
                "ref.trn",
                "--format",
                "trn",
                "--normalizer",
                "none",
                "--bootstrap",
                "100",
                "--sclite-reports",
                "--out",
                "score-trn",
            ],
            100,
        ),
        (
            "compare-run",
            [
                "compare",
                "run-a",
                "--normalizer",
                "auto",
                "--bootstrap",
                "200",
                "--out",
                "compare-run",
            ],
            100,
        ),
        (
            "compare-files",
            [
                "compare",
                "score-80",
                "score-b",
                "--normalizer",
                "auto",
                "--bootstrap",
                "200",
                "--out",
                "compare-files",
            ],
            100,
        ),
        ("report-run", ["report", "run-r", "--out", "report-run.html"], 100),
        ("report-score", ["report", "score-80", "--out", "report-score.html"], 100),
        ("leaderboard", ["leaderboard", "run-a", "run-r", "score-80", "--out", "leaderboard"], 100),
        (
            "decide",
            ["decide", "--baseline", "score-80", "--challenger", "score-b", "--out", "decide"],
            100,
        ),
        ("verify-score", ["verify", "score-80", "--json", "verify-score.json"], 100),
    ]
    return cases


COMMIT = re.compile(r'"earmark_git_(commit|dirty)": ("[0-9a-f]{40}(\+dirty)?"|true|false|null)')
MAIN = re.compile(r'"[^"]*/src/earmark/__main__\.py"')


@functools.cache
def _checkout_roots() -> tuple[str, ...]:
    """This checkout's folder, and the one the checked-in example runs recorded (their
    results.json names the demo manifest by the absolute path of the checkout that made
    them): both read `REPO`, so the captures hold in any clone."""
    roots = {str(TESTS.parent)}
    for run in (EXAMPLE_RUN, REPORT_RUN):
        corpus = json.loads((run / "results.json").read_text("utf-8")).get("corpus") or {}
        manifest = str(corpus.get("manifest") or "")
        if "/src/earmark/" in manifest:
            roots.add(manifest.split("/src/earmark/")[0])
    return tuple(sorted(roots, key=len, reverse=True))


def _clean(text: str, work: Path) -> str:
    text = text.replace(str(work), "WORK")
    for root in _checkout_roots():
        text = text.replace(root, "REPO")
    text = COMMIT.sub(r'"earmark_git_\1": "COMMIT"', text)
    text = MAIN.sub('"EARMARK_MAIN"', text)
    text = STAMP.sub('"created": "CREATED"', text)
    return DATE.sub("DATE", text)


def _masked(value: object) -> object:
    if isinstance(value, dict):
        return {k: "MEASURED" if MEASURED.search(k) else _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _measured_out(name: str, text: str) -> str | None:
    """A `run`'s file with its measured figures masked; None for a file that is all
    measurement (results.md's speed lines, the progress lines)."""
    if name.endswith(".json"):
        return json.dumps(_masked(json.loads(text)), ensure_ascii=False, indent=1)
    if name.endswith(".jsonl"):
        rows = [_masked(json.loads(line)) for line in text.splitlines() if line]
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if name.endswith("stdout"):
        return "".join(
            line + "\n" for line in text.splitlines() if "clips/s" not in line and "RTF" not in line
        )
    return None


def capture(work: Path, python_path: str | None = None) -> dict[str, str]:
    """Every case's output, by `case/file` name, cleaned of clock and folder."""
    # The host's own thread and code-path settings (a machine image may set
    # OPENBLAS_CORETYPE) would be recorded in provenance.json: the goldens hold the
    # command's own, as on a host that sets none.
    ambient = set(THREAD_VARIABLES) | set(PIN_VARIABLES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EARMARK_") and k not in ambient}
    if python_path is not None:
        env["PYTHONPATH"] = python_path
    env["PYTHONHASHSEED"] = "0"
    found: dict[str, str] = {}
    for name, argv, width in _cases(work):
        before = {p for p in work.rglob("*") if p.is_file()}
        case_env = dict(env, COLUMNS=str(width or 100), TERM="dumb")
        done = subprocess.run(
            [sys.executable, "-m", "earmark", *argv],
            cwd=work,
            env=case_env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        outputs = {"exit": str(done.returncode), "stdout": done.stdout, "stderr": done.stderr}
        for path in sorted({p for p in work.rglob("*") if p.is_file()} - before):
            if path.name not in SKIPPED:
                rel = str(path.relative_to(work))
                outputs[f"files/{rel}"] = path.read_text("utf-8", "replace")
        for key, text in outputs.items():
            text = _clean(text, work)
            if key.endswith("artefacts.sha256") or name == "run":
                text = HASH.sub("HASH", text)
            if name == "run":
                masked = _measured_out(key, text)
                if masked is None:
                    continue
                text = masked
            found[f"{name}/{_clean(key, work)}"] = text
    return found


def write_goldens(found: dict[str, str]) -> None:
    shutil.rmtree(GOLDEN, ignore_errors=True)
    for key, text in found.items():
        path = GOLDEN / (key.replace("/files/", "/files/") + ".golden")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")


def read_goldens() -> dict[str, str]:
    return {
        str(p.relative_to(GOLDEN)).removesuffix(".golden"): p.read_text("utf-8")
        for p in sorted(GOLDEN.rglob("*.golden"))
    }


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = capture(Path(tmp), os.environ.get("PYTHONPATH"))
    if "--write" in sys.argv:
        write_goldens(result)
        print(f"wrote {len(result)} goldens to {GOLDEN}")
    else:
        print(json.dumps(result, ensure_ascii=False, indent=1))
