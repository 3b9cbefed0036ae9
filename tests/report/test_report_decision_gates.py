"""`decide`'s record gates, decoding-settings check and pre-registered error-rate ceilings
(issue 15, decision protocol bullets 1-3), on hand-built runs whose records are edited to
hold exactly the licence, egress, hashes, settings and plan each case needs."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from report_builders import ArmData, make_run, zh_rows

from earmark.cli import main
from earmark.decisions.decide import DecideOptions, decide_runs
from earmark.decisions.gates import offline_cache_gate, packaging_gate
from earmark.decisions.settings import compare_settings
from earmark.decisions.sides import Side
from earmark.decisions.thresholds import DecisionRules
from earmark.engines.file_hashes import content_revision
from earmark.errors import EarmarkError
from earmark.execution.plan import RunPlan, check_ceilings, load_plan
from earmark.render.run_directory import load_run

DAY = date(2026, 11, 30)
BASE = [2] * 40  # 80 errors on 440 characters: CER 18.18%
WIN = [1] * 20 + [2] * 20  # 60 errors: CER 13.64%, 25% lower, paired CI below 0
HASHES = {"model.bin": "3" * 64, "tokenizer.json": "4" * 64}
OFFLINE = {
    "policy": "refuse all except: nothing",
    "attempts": [],
    "refused": 0,
    "audited": True,
    "scope": "this process and every process it started",
    "processes": {"started": 0, "python_audited": 0, "unaudited": 0},
}


def edit_run(
    run: Path,
    arm: str,
    *,
    model: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    spec: dict[str, Any] | None = None,
    resources: dict[str, Any] | None = None,
    egress: Any = "keep",
    corpus: dict[str, Any] | None = None,
    plan: dict[str, Any] | None = None,
) -> None:
    """Change one arm's records in results.json and provenance.json the way a run would
    have written them."""
    results = json.loads((run / "results.json").read_text("utf-8"))
    prov = json.loads((run / "provenance.json").read_text("utf-8"))
    summary = results["arms"][arm]
    for target in (summary["model"], prov["arms"][arm]["model"]):
        target.update(model or {})
        target["extra"] = {**target.get("extra", {}), **(extra or {})}
    if spec:
        summary["spec"] = {**summary["spec"], **spec}
        prov["arms"][arm]["spec"] = summary["spec"]
    summary["resources"].update(resources or {})
    if egress != "keep":
        prov["arms"][arm]["egress"] = egress
    if corpus:
        results["corpus"].update(corpus)
        prov["corpus"].update(corpus)
    if plan is not None:
        results["plan"] = plan
    (run / "results.json").write_text(json.dumps(results, ensure_ascii=False), "utf-8")
    (run / "provenance.json").write_text(json.dumps(prov, ensure_ascii=False), "utf-8")


def gated_run(tmp_path: Path, challenger: list[int] = WIN, **kw: Any) -> Path:
    """Baseline (CER 18.18%) and challenger arms whose records pass every record gate:
    licence and source, corpus licence and consent, an audited offline egress record, file
    hashes with their content revision and a runtime version."""
    run = make_run(
        tmp_path / "run",
        {"base": ArmData(zh_rows(BASE)), "chal": ArmData(zh_rows(challenger))},
        **kw,
    )
    for arm in ("base", "chal"):
        edit_run(
            run,
            arm,
            model={"file_sha256": HASHES, "revision": content_revision(HASHES)},
            extra={"content_revision": content_revision(HASHES)},
            egress=OFFLINE,
        )
    return run


def write_decision(
    baseline: str,
    challenger: str,
    out: Path,
    rules: DecisionRules | None = None,
    on: date = DAY,
) -> tuple[dict[str, Any], Path | None, Path | None]:
    """The record as its JSON reads (a dict), and the two files written."""
    options = DecideOptions(baseline, challenger, rules or DecisionRules(), out=out, on=on)
    outcome = decide_runs(options)
    return outcome.decision.to_dict(), outcome.markdown_path, outcome.json_path


def decide(run: Path, out: Path, rules: DecisionRules | None = None) -> dict[str, Any]:
    record, _, _ = write_decision(f"{run}:base", f"{run}:chal", out, rules=rules, on=DAY)
    return record


def gate(record: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [g for g in record["record_gates"] if g["gate"] == name]
    return found


# ------------------------------------------------------------------ record gates


def test_a_win_with_every_record_gate_passing_promotes(tmp_path: Path) -> None:
    record = decide(gated_run(tmp_path), tmp_path / "out")
    assert record["verdict"] == "promote"
    assert [(g["gate"], g["passed"], g["missing"]) for g in record["record_gates"]] == [
        ("licence", True, []),
        ("offline cache", True, []),
        ("packaging", True, []),
    ]
    assert "licence, offline cache and packaging gates pass" in record["reasons"][0]


@pytest.mark.parametrize(
    ("edit", "missing"),
    [
        ({"model": {"licence": "unknown"}}, "model licence not recorded (licence=)"),
        ({"model": {"licence": None}}, "model licence not recorded (licence=)"),
        (
            {"model": {"licence_source": ""}},
            "model licence source not recorded (licence_source=)",
        ),
        ({"corpus": {"licence": "n/a"}}, "corpus licence not recorded (sidecar licence)"),
        (
            {"corpus": {"consent_basis": None}},
            "corpus consent basis not recorded (sidecar consent_basis)",
        ),
    ],
)
def test_a_win_without_a_recorded_licence_is_blocked(
    tmp_path: Path, edit: dict[str, Any], missing: str
) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "chal", **edit)
    record = decide(run, tmp_path / "out")
    assert record["verdict"] == "blocked"
    assert gate(record, "licence") == {"gate": "licence", "passed": False, "missing": [missing]}
    assert record["reasons"][0].endswith(
        f"but blocked until the record gates pass — licence: {missing}"
    )


def test_only_the_challengers_licence_matters(tmp_path: Path) -> None:
    # The baseline is what ships today; the gate guards what would be promoted.
    run = gated_run(tmp_path)
    edit_run(run, "base", model={"licence": "unknown"})
    assert decide(run, tmp_path / "out")["verdict"] == "promote"


@pytest.mark.parametrize(
    ("egress", "missing"),
    [
        (None, ["no egress audit recorded for this arm"]),
        (
            {**OFFLINE, "policy": "allow all (--allow-network)"},
            ["the network was allowed (--allow-network)"],
        ),
        (
            {**OFFLINE, "audited": False, "unaudited_reason": "a spawned program was not followed"},
            ["egress audit incomplete: a spawned program was not followed"],
        ),
        (
            {k: v for k, v in OFFLINE.items() if k != "audited"},
            ["egress audit covered the arm's own process only, not its process tree"],
        ),
        (
            {
                **OFFLINE,
                "attempts": [
                    {"kind": "lookup", "host": "huggingface.co", "port": 443, "allowed": False},
                    {"kind": "connect", "host": "203.0.113.7", "port": 443, "allowed": True},
                    {"kind": "connect", "host": "203.0.113.7", "port": 443, "allowed": True},
                ],
            },
            [
                "3 network attempts off this machine (lookup huggingface.co:443, "
                "connect 203.0.113.7:443)"
            ],
        ),
    ],
)
def test_offline_cache_gate_reads_the_egress_audit(
    tmp_path: Path, egress: Any, missing: list[str]
) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "chal", egress=egress)
    record = decide(run, tmp_path / "out")
    assert record["verdict"] == "blocked"
    assert gate(record, "offline cache")["missing"] == missing


def test_loopback_connections_never_leave_the_machine(tmp_path: Path) -> None:
    run = gated_run(tmp_path)
    local = [
        {"kind": "connect", "host": host, "port": 6379, "allowed": True}
        for host in ("127.0.0.1", "::1", "localhost", "127.8.9.10")
    ]
    edit_run(run, "chal", egress={**OFFLINE, "attempts": local})
    side = Side(load_run(run), "chal")
    assert offline_cache_gate(side) == []
    edit_run(
        run, "chal", egress={**OFFLINE, "attempts": [*local, {**local[0], "host": "10.0.0.2"}]}
    )
    assert offline_cache_gate(Side(load_run(run), "chal")) == [
        "1 network attempts off this machine (connect 10.0.0.2:6379)"
    ]


def test_a_score_output_has_no_egress_audit(tmp_path: Path) -> None:
    run = make_run(tmp_path / "s", {"only": ArmData(zh_rows([1]))}, write_provenance=False)
    assert offline_cache_gate(Side(load_run(run), "only")) == [
        "no egress audit: no provenance.json (an `earmark score` output)"
    ]


@pytest.mark.parametrize(
    ("model", "extra", "missing"),
    [
        (
            {"revision": "main"},
            {},
            ["model revision 'main' is not immutable (a commit hash or sha256: digest)"],
        ),
        ({"revision": "a" * 40}, {}, []),  # a hub commit: immutable, no digest to recompute
        (
            {"revision": "sha256:" + "9" * 64},
            {},
            [f"model revision sha256:{'9' * 64} does not match the recorded file hashes"],
        ),
        (
            {"revision": "a" * 40},
            {"content_revision": "sha256:" + "8" * 64},
            [f"model content_revision sha256:{'8' * 64} does not match the recorded file hashes"],
        ),
        (
            {"file_sha256": {"model.bin": "not-a-hash"}, "revision": "a" * 40},
            {"content_revision": None},
            ["model file hashes are not SHA-256 hex digests"],
        ),
        ({"runtime_version": None}, {}, ["runtime or runtime version not recorded"]),
        (
            {},
            {
                "verifiable": False,
                "unverifiable_reason": "command without model=: weights unhashed",
            },
            ["command without model=: weights unhashed"],
        ),
    ],
)
def test_packaging_gate_checks_hashes_against_the_revision(
    tmp_path: Path, model: dict[str, Any], extra: dict[str, Any], missing: list[str]
) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "chal", model=model, extra=extra)
    assert packaging_gate(Side(load_run(run), "chal")) == missing


def test_packaging_gate_blocks_a_win_with_a_branch_revision(tmp_path: Path) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "chal", model={"revision": "main"}, extra={"content_revision": None})
    record = decide(run, tmp_path / "out")
    assert record["verdict"] == "blocked"
    assert "packaging: model revision 'main' is not immutable" in record["reasons"][0]


def test_gates_do_not_soften_a_reject_or_a_stay(tmp_path: Path) -> None:
    worse = gated_run(tmp_path / "w", challenger=[3] * 40)
    edit_run(worse, "chal", model={"licence": None}, egress=None)
    record = decide(worse, tmp_path / "out")
    assert record["verdict"] == "reject"
    assert not gate(record, "licence")["passed"] and not gate(record, "offline cache")["passed"]
    same = gated_run(tmp_path / "s", challenger=BASE)
    edit_run(same, "chal", model={"licence": None})
    assert decide(same, tmp_path / "out")["verdict"] == "stay"


def test_blocked_record_markdown_and_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "chal", model={"licence_source": None}, egress=None)
    out = tmp_path / "out"
    code = main(
        ["decide", "--baseline", f"{run}#base", "--challenger", f"{run}#chal", "--out", str(out)]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "verdict: blocked" in printed
    assert (
        "licence: model licence source not recorded (licence_source=) | "
        "offline cache: no egress audit recorded for this arm" in printed
    )
    (md,) = out.glob("decision-*.md")
    text = md.read_text("utf-8")
    assert "**Verdict: blocked**" in text
    assert "## Record gates (checked from the challenger's records)" in text
    assert "- [ ] **licence** — BLOCKED: model licence source not recorded" in text
    assert "- [ ] **offline cache** — BLOCKED: no egress audit recorded for this arm" in text
    assert "- [x] **packaging** — passes" in text
    (js,) = out.glob("decision-*.json")
    assert json.loads(js.read_text("utf-8"))["verdict"] == "blocked"


# ------------------------------------------------------------------ decoding settings

FW_DECODE = {
    "beam_size": 5,
    "temperature": [0.0, 0.2, 0.4],
    "vad_filter": False,
    "condition_on_previous_text": True,
    "without_timestamps": False,
    "word_timestamps": False,
}


def settings_run(tmp_path: Path, chal_decode: dict[str, Any], **chal: Any) -> Path:
    run = gated_run(tmp_path)
    edit_run(run, "base", extra={"decode_options": FW_DECODE, "device": "cpu"})
    edit_run(
        run,
        "chal",
        extra={"decode_options": {**FW_DECODE, **chal_decode}, "device": chal.pop("device", "cpu")},
        **chal,
    )
    return run


def test_unlike_decoding_settings_are_refused_with_each_difference(tmp_path: Path) -> None:
    run = settings_run(
        tmp_path,
        {"beam_size": 1, "temperature": 0.0, "condition_on_previous_text": False},
        device="cuda",
        resources={"threads": 4},
    )
    with pytest.raises(EarmarkError) as info:
        decide(run, tmp_path / "out")
    message = str(info.value)
    assert message.startswith(
        "baseline and challenger decoded with different settings: "
        "beam_size: baseline 5, challenger 1; "
        "condition_on_previous_text: baseline true, challenger false; "
        "device: baseline cpu, challenger cuda; "
        "temperature: baseline 0,0.2,0.4, challenger 0; "
        "threads: baseline not recorded, challenger 4"
    )
    assert "--allow-setting-differences beam_size,condition_on_previous_text,device" in message
    assert not (tmp_path / "out").exists()


def test_cli_refuses_in_one_line_and_allows_named_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = settings_run(tmp_path, {"beam_size": 1, "vad_filter": True})
    args = ["decide", "--baseline", f"{run}#base", "--challenger", f"{run}#chal"]
    assert main([*args, "--out", str(tmp_path / "o1")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "beam_size: baseline 5, challenger 1; vad_filter: baseline false, challenger true" in err
    # Naming only one of the two is not enough.
    assert (
        main([*args, "--out", str(tmp_path / "o2"), "--allow-setting-differences", "beam_size"])
        == 2
    )
    err = capsys.readouterr().err
    assert "vad_filter: baseline false, challenger true" in err and "beam_size:" not in err
    out = tmp_path / "o3"
    allow = ["--allow-setting-differences", "vad_filter,beam_size"]
    assert main([*args, "--out", str(out), *allow]) == 0
    assert "verdict: promote" in capsys.readouterr().out
    (js,) = out.glob("decision-*.json")
    record = json.loads(js.read_text("utf-8"))
    assert record["rules"]["allow_setting_differences"] == ["beam_size", "vad_filter"]
    assert [
        (d["key"], d["baseline"], d["challenger"], d["allowed"])
        for d in record["settings"]["differences"]
    ] == [
        ("beam_size", "5", "1", True),
        ("vad_filter", "false", "true", True),
    ]
    assert any(
        r.startswith("decoding settings differ, allowed: beam_size 5 → 1")
        for r in record["reasons"]
    )
    (md,) = out.glob("decision-*.md")
    assert "| beam_size | 5 | 1 | differs, allowed |" in md.read_text("utf-8")
    assert main([*args, "--out", str(tmp_path / "o4"), "--allow-setting-differences", "all"]) == 0


def test_compute_type_and_model_are_the_subject(tmp_path: Path) -> None:
    run = settings_run(tmp_path, {}, model={"compute_type": "float32"})
    record = decide(run, tmp_path / "out")
    assert record["verdict"] == "promote"
    subject = {d["key"]: (d["baseline"], d["challenger"]) for d in record["settings"]["subject"]}
    assert subject == {"compute_type": ("int8", "float32"), "model": ("test/base", "test/chal")}
    assert record["settings"]["differences"] == []
    assert "model and weight type both changed: the verdict is about the pair" in " ".join(
        record["reasons"]
    )


def test_declared_and_recorded_spellings_compare_equal(tmp_path: Path) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "base", extra={"decode_options": {"beam_size": 5, "temperature": [0.0, 0.2]}})
    edit_run(
        run,
        "chal",
        spec={"settings": {"beam_size": "5", "temperature": "0,0.2", "cpu_threads": "1"}},
        resources={"threads": None},
    )
    edit_run(run, "base", resources={"threads": 1})
    loaded = load_run(run)
    result = compare_settings(Side(loaded, "base"), Side(loaded, "chal")).to_dict()
    assert result["differences"] == []
    assert result["baseline"]["temperature"] == result["challenger"]["temperature"] == "0,0.2"
    assert result["baseline"]["threads"] == result["challenger"]["threads"] == "1"


def test_plan_threads_and_cpu_isa_must_match(tmp_path: Path) -> None:
    base = gated_run(tmp_path / "a")
    chal = gated_run(tmp_path / "b")
    edit_run(base, "base", plan={"sha256": "p" * 64})
    edit_run(chal, "chal", plan={"sha256": "q" * 64, "threads": 4, "cpu_isa": "AVX2"})
    with pytest.raises(EarmarkError) as info:
        write_decision(f"{base}#base", f"{chal}#chal", tmp_path / "out", on=DAY)
    assert (
        "plan.cpu_isa: baseline runtime default, challenger AVX2; "
        "plan.threads: baseline 1, challenger 4" in str(info.value)
    )


def test_a_setting_only_one_engine_has_is_not_comparable(tmp_path: Path) -> None:
    run = gated_run(tmp_path)
    edit_run(run, "base", extra={"decode_options": {"beam_size": 5}})
    edit_run(run, "chal", spec={"backend": "sherpa-onnx"}, extra={"decode_options": {}})
    record = decide(run, tmp_path / "out")
    assert record["verdict"] == "promote"
    assert [d["key"] for d in record["settings"]["not_comparable"]] == ["beam_size"]
    assert [d["key"] for d in record["settings"]["subject"]] == ["backend", "model"]
    # The same engine recording it on one side only is a difference (the record is short).
    edit_run(run, "chal", spec={"backend": "test"})
    with pytest.raises(EarmarkError, match="beam_size: baseline 5, challenger not recorded"):
        decide(run, tmp_path / "out2")


def test_rules_file_can_allow_settings(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text('[decision]\nallow_setting_differences = ["beam_size", "threads"]\n')
    assert DecisionRules.from_toml(path).allow_setting_differences == ("beam_size", "threads")
    assert DecisionRules(allow_setting_differences=("x", "all")).allow_setting_differences == (
        "all",
    )
    with pytest.raises(EarmarkError, match="allow_setting_differences must be a list"):
        DecisionRules(allow_setting_differences=5)  # type: ignore[arg-type]


# ------------------------------------------------------------------ error-rate ceilings

PLAN_TOML = """
manifest = "corpus/manifest.jsonl"
audio_root = "corpus"

[[arms]]
backend = "faster-whisper"
model = "bundled:tiny.en"
"""


def test_plan_ceilings_are_validated_canonical_and_hashed(tmp_path: Path) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text(PLAN_TOML)
    capped = tmp_path / "capped.toml"
    capped.write_text(
        PLAN_TOML + '\n[ceilings]\nwer = { "en/noisy" = 0.25, en = 0.15 }\ncer = { zh = 0 }\n'
    )
    plan = load_plan(capped)
    assert plan.ceilings == {"cer": {"zh": 0.0}, "wer": {"en": 0.15, "en/noisy": 0.25}}
    assert plan.to_dict()["ceilings"] == plan.ceilings
    assert "ceilings" not in load_plan(plain).to_dict()  # old plans keep their hash
    assert plan.sha256() != load_plan(plain).sha256()
    looser = RunPlan(
        **{**plan.__dict__, "ceilings": {"cer": {"zh": 0.01}, "wer": plan.ceilings["wer"]}}
    )
    assert looser.sha256() != plan.sha256()


@pytest.mark.parametrize(
    ("table", "field", "message"),
    [
        ("mer = { en = 0.1 }", "ceilings.mer", "unknown ceiling metric 'mer'"),
        ("cer = 0.1", "ceilings.cer", "must be a non-empty table"),
        ('cer = { zh = "10%" }', "ceilings.cer.zh", "ceiling must be a number"),
        ("cer = { zh = -0.1 }", "ceilings.cer.zh", "finite rate >= 0"),
        ('cer = { "zh/" = 0.1 }', "ceilings.cer.zh/", "bad scope 'zh/'"),
    ],
)
def test_plan_freeze_refuses_a_bad_ceiling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, field: str, message: str
) -> None:
    path = tmp_path / "plan.toml"
    path.write_text(PLAN_TOML + "\n[ceilings]\n" + table + "\n")
    assert main(["plan", "freeze", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and field in err and str(path) in err
    assert not Path(f"{path}.sha256").exists()
    with pytest.raises(EarmarkError):
        check_ceilings({"cer": {"zh": True}})


def ceiling_run(tmp_path: Path, ceilings: dict[str, Any], challenger: list[int] = WIN) -> Path:
    run = gated_run(tmp_path, challenger=challenger)
    edit_run(run, "chal", plan={"sha256": "c" * 64, "ceilings": ceilings})
    return run


def test_a_challenger_over_the_ceiling_is_rejected_despite_a_win(tmp_path: Path) -> None:
    # 25% lower CER (18.18% → 13.64%) would promote; the plan capped zh at 10%.
    record = decide(ceiling_run(tmp_path, {"cer": {"zh": 0.10}}), tmp_path / "out")
    assert record["evidence"][0]["quality_win"]
    assert record["verdict"] == "reject"
    assert record["reasons"][0] == (
        "the challenger is over the pre-registered ceiling: CER zh 13.64% > 10.00% "
        "(plan cccccccccccc)"
    )
    (check,) = record["ceilings"]["checks"]
    assert check["challenger"] == pytest.approx(60 / 440)
    assert check["baseline"] == pytest.approx(80 / 440)
    assert check["view"] == "normalized" and check["met"] is False
    assert record["ceilings"]["plan_sha256"] == "c" * 64


def test_under_the_ceiling_promotes_and_the_ceiling_is_recorded(tmp_path: Path) -> None:
    run = ceiling_run(tmp_path, {"cer": {"zh": 0.15, "zh/zh": 60 / 440}})
    record, md, _ = write_decision(f"{run}:base", f"{run}:chal", tmp_path / "out", on=DAY)
    assert record["verdict"] == "promote"
    assert [(c["scope"], c["met"], c["baseline_met"]) for c in record["ceilings"]["checks"]] == [
        ("zh", True, False),
        ("zh/zh", True, False),  # exactly at the ceiling: met
    ]
    text = md.read_text("utf-8")
    assert "## Pre-registered error-rate ceilings (plan `cccccccccccc`)" in text
    assert "| CER zh (normalized) | 18.18% | 13.64% | ≤ 15.00% | yes |" in text


def test_a_slice_over_its_ceiling_rejects(tmp_path: Path) -> None:
    record = decide(ceiling_run(tmp_path, {"cer": {"zh": 0.5, "zh/zh": 0.12}}), tmp_path / "o")
    assert record["verdict"] == "reject"
    assert "CER zh/zh 13.64% > 12.00%" in record["reasons"][0]


def test_a_ceiling_the_data_cannot_check_is_named_not_applied(tmp_path: Path) -> None:
    run = ceiling_run(tmp_path, {"wer": {"en": 0.1, "zh": 0.1}})
    record = decide(run, tmp_path / "out")
    assert record["verdict"] == "promote"
    reasons = " ".join(record["reasons"])
    assert "ceiling WER en ≤ 10.00% not checked: language en not scored in this run" in reasons
    assert "ceiling WER zh ≤ 10.00% not checked: no WER in the normalized view of zh" in reasons


def test_runs_with_different_ceilings_are_refused(tmp_path: Path) -> None:
    base = gated_run(tmp_path / "a")
    chal = gated_run(tmp_path / "b")
    edit_run(base, "base", plan={"sha256": "p" * 64, "ceilings": {"cer": {"zh": 0.1}}})
    edit_run(chal, "chal", plan={"sha256": "p" * 64, "ceilings": {"cer": {"zh": 0.2}}})
    with pytest.raises(EarmarkError, match="pre-registered different error-rate ceilings"):
        write_decision(f"{base}#base", f"{chal}#chal", tmp_path / "out", on=DAY)
