"""The provenance section's model hashes (issue 26: abbreviated revision, a table of
file hashes) with hostile values: markup stays text, every value is shown whole and
escaped, and a huge or odd file list cannot break the page."""

from __future__ import annotations

import json
from pathlib import Path

from report_builders import ArmData, make_run, zh_rows

from earmark.render.html import write_html_report
from earmark.render.html_provenance import _abbreviated

XSS = '"><script>window.__x=1</script><img src=x onerror=alert(1)>'


def _page(tmp_path: Path, revision: str, files: dict[str, str]) -> str:
    run = make_run(tmp_path / "run", {"a": ArmData(zh_rows([1]))})
    path = run / "results.json"
    results = json.loads(path.read_text("utf-8"))
    results["arms"]["a"]["model"]["revision"] = revision
    results["arms"]["a"]["model"]["file_sha256"] = files
    path.write_text(json.dumps(results, ensure_ascii=False), "utf-8")
    return write_html_report(run).read_text("utf-8")


def test_the_revision_is_abbreviated_with_the_whole_of_it_in_its_title() -> None:
    revision = "sha256:" + "ab" * 32
    assert _abbreviated(revision) == (f'<code title="{revision}">sha256:abababababab…</code>')
    assert _abbreviated("v1.2") == "<code>v1.2</code>"  # short: shown as is
    assert _abbreviated(None) == "—"
    assert _abbreviated("0123456789abcdef" * 4) == (
        f'<code title="{"0123456789abcdef" * 4}">0123456789ab…</code>'
    )


def test_hostile_revision_and_file_names_stay_text(tmp_path: Path) -> None:
    revision = XSS + "sha256:" + "c" * 64
    files = {
        XSS: "d" * 64,
        "../../etc/passwd": "e" * 64,
        "nul\x00name": "f" * 64,
        "a\u2028b": "0" * 64,
    }
    html = _page(tmp_path, revision, files)
    assert "<script>window.__x" not in html and "<img src=x" not in html
    escaped = (
        "&quot;&gt;&lt;script&gt;window.__x=1&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
    )
    # In the title attribute and in the hash table, whole and escaped.
    assert f'<code title="{escaped}sha256:{"c" * 64}">' in html
    assert f"<td>a</td><td>revision</td><td><code>{escaped}sha256:{'c' * 64}</code></td>" in html
    assert f"<td>a</td><td>{escaped}</td><td><code>{'d' * 64}</code></td>" in html
    assert "<td>../../etc/passwd</td>" in html


def test_a_thousand_model_files_are_all_listed(tmp_path: Path) -> None:
    files = {f"shard-{i:05d}.bin": f"{i:064x}" for i in range(1000)}
    html = _page(tmp_path, "sha256:" + "1" * 64, files)
    assert html.count("<td>a</td><td>shard-") == 1000
    assert f"<code>{999:064x}</code>" in html
