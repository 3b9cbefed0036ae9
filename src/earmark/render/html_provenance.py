"""The provenance section (models, corpus, host and software, deviations) and the
scorer self-check: what a reader needs to verify or reproduce the figures."""

from __future__ import annotations

import json
from typing import Any

from earmark.render.html_inputs import ReportInputs
from earmark.render.html_page import Markup, esc, html_table, section
from earmark.results import ModelInfo
from earmark.results.display import fmt_mib


def render_provenance(page: ReportInputs) -> str:
    run, results = page.run, page.results
    ok, missing = run.verifiable()
    badge = (
        '<span class="badge ok">verifiable</span>'
        if ok
        else '<span class="badge bad">unverifiable</span>'
    )
    body: list[str] = [
        f"<p>{badge}" + (f" — missing: {esc('; '.join(missing))}" if missing else "") + "</p>"
    ]
    model_rows: list[list[object]] = []
    hash_rows: list[list[object]] = []
    for arm_name in results.arm_names:
        model = page.model(arm_name)
        hashes = model.file_sha256 or {}
        model_rows.append(
            [
                arm_name,
                model.artifact_id or "—",
                _abbreviated(model.revision),
                f"{model.runtime or '—'} {model.runtime_version or ''}".strip(),
                model.compute_type or "—",
                _determinism_cell(model),
                _cpu_path_cell(model),
                f"{model.licence or '—'} (source: {model.licence_source or '—'})",
            ]
        )
        if model.revision:
            hash_rows.append([arm_name, "revision", _code(model.revision)])
        hash_rows += [[arm_name, name, _code(digest)] for name, digest in hashes.items()]
    body.append("<h3>Models</h3>")
    body.append(
        html_table(
            [
                "arm",
                "artifact",
                "revision",
                "runtime",
                "compute type",
                "deterministic",
                "CPU code path",
                "declared licence",
            ],
            model_rows,
        )
    )
    # The full revision and file hashes in a table of their own, so the models table fits
    # a 1280 px page and every hash is still shown whole (a hash broken across lines, or
    # only in a tooltip, cannot be compared by eye or copied).
    if hash_rows:
        body.append("<h3>Model files (SHA-256)</h3>")
        body.append(html_table(["arm", "file", "SHA-256"], hash_rows))
    corpus = run.corpus
    sel = corpus.get("selection") or {}
    corpus_rows = [
        ["dataset", corpus.get("dataset", "—")],
        ["manifest SHA-256", Markup(f"<code>{esc(corpus.get('manifest_sha256') or '—')}</code>")],
        ["manifest", corpus.get("manifest", "—")],
        ["licence (declared)", corpus.get("licence", "—")],
        ["consent basis", corpus.get("consent_basis", "—")],
        [
            "selection",
            f"{sel.get('rule', '—')}; kept {sel.get('kept_rows', '—')} of "
            f"{sel.get('input_rows', '—')} rows",
        ],
        [
            "public",
            "no — aggregate figures only"
            if results.public is False
            else ("yes" if results.public else "not recorded"),
        ],
    ]
    if not corpus and results.inputs:
        corpus_rows.append(["inputs", json.dumps(dict(results.inputs), ensure_ascii=False)])
    body.append("<h3>Corpus</h3>")
    body.append(html_table(["field", "value"], corpus_rows))
    host = run.host
    prov = run.provenance or {}
    software = prov.get("software") or {}
    host_rows = [
        ["OS", f"{host.get('os', '—')} {host.get('os_release', '')}".strip()],
        ["architecture", host.get("arch", "—")],
        ["CPU", host.get("cpu_model", "—")],
        [
            "cores (available / total)",
            f"{host.get('cores_available', '—')} / {host.get('cpu_count', '—')}",
        ],
        ["memory", fmt_mib(host.get("memory_bytes"))],
        ["CPU governor", host.get("cpu_governor") or "—"],
        ["CPU flags (numeric)", " ".join(host.get("cpu_flags") or []) or "—"],
        [
            "earmark",
            f"{software.get('earmark_version', results.earmark_version)}"
            f" (commit {software.get('earmark_git_commit') or '—'})",
        ],
        ["Python", software.get("python", "—")],
        ["plan SHA-256", Markup(f"<code>{esc(prov.get('plan_sha256') or '—')}</code>")],
    ]
    body.append("<h3>Host and software</h3>")
    body.append(html_table(["field", "value"], host_rows))
    packages = software.get("packages") or {}
    if packages:
        body.append(
            "<details><summary>package versions</summary>"
            + html_table(["package", "version"], sorted(packages.items()))
            + "</details>"
        )
    deviations = prov.get("deviations") or []
    if deviations:
        body.append("<h3>Deviations recorded by the run</h3>")
        body.append(
            "<ul>"
            + "".join(
                f"<li>{esc(json.dumps(d, ensure_ascii=False, sort_keys=True))}</li>"
                for d in deviations[:100]
            )
            + "</ul>"
        )
    return section("provenance", "Provenance", body)


def render_probes(page: ReportInputs) -> str:
    probes = page.results.probes
    passed = sum(p.passed for p in probes)
    body: list[str] = [
        f"<p>{passed}/{len(probes)} known-good/known-bad scorer probes passed.</p>",
        "<details><summary>probes</summary><ul>"
        + "".join(f"<li>{'✓' if p.passed else '✗'} {esc(p.name)}</li>" for p in probes)
        + "</ul></details>",
    ]
    return section("probes", "Scorer self-check", body)


def _code(value: str) -> Markup:
    return Markup(f"<code>{esc(value)}</code>")


def _abbreviated(revision: str | None) -> Markup | str:
    """A revision cut to its first 12 hex digits, whole in its title (and, whole, in the
    model files table under it)."""
    if not revision:
        return "—"
    scheme, _, digest = revision.rpartition(":")
    if len(digest) <= 16:
        return _code(revision)
    shown = f"{scheme}:{digest[:12]}…" if scheme else f"{digest[:12]}…"
    return Markup(f'<code title="{esc(revision)}">{esc(shown)}</code>')


def _determinism_cell(model: ModelInfo) -> Markup:
    """Yes/no with the engine's reason; an engine that does not say counts as no."""
    note = model.determinism_note or "the engine does not declare it"
    if model.deterministic:
        return Markup(f'<span class="badge ok">yes</span> {esc(note)}')
    return Markup(
        f'<span class="badge bad">no</span> {esc(note)}; churn against this arm includes '
        "sampling noise"
    )


def _cpu_path_cell(model: ModelInfo) -> str:
    """The ISA and GEMM backends the runtime reported (CTranslate2), and what was pinned."""
    cpu: Any = (model.engine_extra or {}).get("cpu_runtime") or {}
    if not cpu:
        return "—"
    parts = [f"ISA {cpu.get('isa') or '?'}"]
    if cpu.get("sgemm_backend"):
        parts.append(f"SGEMM {cpu['sgemm_backend']}")
    if cpu.get("gemm_s8_backend"):
        parts.append(f"GEMM_S8 {cpu['gemm_s8_backend']}")
    pinned = cpu.get("pinned") or {}
    parts.append("pinned: " + (", ".join(f"{k}={v}" for k, v in pinned.items()) or "no"))
    return "; ".join(parts)
