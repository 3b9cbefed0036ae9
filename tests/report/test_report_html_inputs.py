"""The typed inputs of report.html agree with the dictionary readers they replaced.

results.md formats figures with `markdown.fmt_rate` from results.json's dictionaries; the
page formats the same figures from `earmark.results` objects (`html_inputs.rate`). The
two must print the same digits for every metric of every scope, or the page and the file
would disagree.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from earmark.render.html import render_html_report
from earmark.render.html_inputs import ReportInputs, primary_metric, rate, sdi
from earmark.render.run_directory import load_run, primary_metric_name
from earmark.results import MetricResult
from earmark.results.display import fmt_rate

DATA = Path(__file__).parent / "data"
RUNS = [DATA / "example-run", DATA / "html-golden" / "rich", DATA / "html-golden" / "score"]


def _metric(**fields: Any) -> MetricResult:
    counts = {"substitutions": 3, "deletions": 1, "insertions": 2, "hits": 6}
    base = {**counts, "ref_units": 10, "hyp_units": 11, "aggregate": "micro", "n_scored": 4}
    return MetricResult.from_dict({**base, **fields})


def test_rate_by_hand() -> None:
    assert rate(_metric(value=0.132, ci95=[0.091, 0.175])) == "13.20% [9.10, 17.50]"
    assert rate(_metric(value=0.5, ci95=None)) == "50.00%"
    assert rate(_metric(value=None, ci95=None, null_reason="no rows")) == "null (no rows)"
    assert rate(_metric(value=None, ci95=None)) == "null (not computable)"
    assert rate(None) == "—"
    assert sdi(_metric(value=0.6, ci95=None)) == "3/1/2 of 10" and sdi(None) == "—"


def _scopes(block: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield block
    for key in ("by_slice", "by_speaker"):
        for group in (block.get(key) or {}).values():
            yield from _scopes(group)


@pytest.mark.parametrize("run_dir", RUNS, ids=lambda p: p.name)
def test_typed_figures_print_as_results_md_prints_them(run_dir: Path) -> None:
    """Every metric of every view of every scope: same text from the typed object as from
    the dictionary; the primary metric is chosen the same way."""
    run = load_run(run_dir)
    page = ReportInputs.of(run)
    checked = 0
    for arm_name, arm in run.results["arms"].items():
        typed_arm = page.results.arm(arm_name)
        pairs = [(arm["overall"], typed_arm.overall)] if arm.get("overall") else []
        pairs += [(b, typed_arm.language(lang)) for lang, b in arm["by_language"].items()]
        for block, typed_block in pairs:
            assert typed_block is not None
            dict_scopes = list(_scopes(block))
            typed_scopes = [typed_block]
            for scope in typed_scopes:  # the same walk over the typed tree
                for groups in (scope.by_slice, scope.by_speaker):
                    typed_scopes += list((groups or {}).values())
            assert len(dict_scopes) == len(typed_scopes)
            for d, t in zip(dict_scopes, typed_scopes, strict=True):
                assert primary_metric(t) == primary_metric_name(d)
                for view_name, metrics in d["views"].items():
                    for name, metric in metrics.items():
                        assert rate(t.views[view_name].metrics[name]) == fmt_rate(metric)
                        checked += 1
    assert checked > 20


def test_model_comes_from_provenance_when_results_lack_it(tmp_path: Path) -> None:
    """A run whose results.json carries no model record shows provenance.json's: the
    models table is the same either way."""
    folder = tmp_path / "rich"
    shutil.copytree(DATA / "html-golden" / "rich", folder)
    before = render_html_report(load_run(folder))
    path = folder / "results.json"
    results = json.loads(path.read_text("utf-8"))
    for arm in results["arms"].values():
        del arm["model"]
    path.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", "utf-8")
    page = ReportInputs.of(load_run(folder))
    assert page.results.arm("int8").model is None
    assert page.model("int8").compute_type == "int8"
    after = render_html_report(load_run(folder))

    def models(html: str) -> str:
        return html.split("<h3>Models</h3>")[1].split("<h3>Corpus</h3>")[0]

    assert models(after) == models(before)
    assert "ISA AVX2; SGEMM DNNL; GEMM_S8 DNNL; pinned: CT2_FORCE_CPU_ISA=AVX2" in models(after)
