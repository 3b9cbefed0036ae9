"""Saved hypotheses are not a verified model (issue 23): a precomputed arm is unverifiable
unless its user declares the model and its identity, and the declaration is recorded as
declared. End to end: `earmark run` with the references as hypotheses, then the leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.cli import main
from earmark.corpus.demo import demo_manifest_path
from earmark.engines import build_engine, parse_arm_spec
from earmark.engines.precomputed import DECLARED_SOURCE
from earmark.engines.spec import ArmSpec
from earmark.errors import EarmarkError
from earmark.render.leaderboard import write_leaderboard
from earmark.render.leaderboard_ranking import build_leaderboard
from earmark.render.run_directory import load_run


def undeclared(arm: str) -> str:
    return (
        f"precomputed arm '{arm}': saved hypotheses prove their bytes, not which model wrote "
        "them (declare model=ID with model_revision= or model_sha256=)"
    )


DIGEST = "ab" * 32


def hyps(tmp_path: Path) -> Path:
    path = tmp_path / "h.jsonl"
    path.write_text('{"id": "a", "hypothesis": "x"}\n', "utf-8")
    return path


def loaded_extra(spec: str) -> dict[str, object]:
    engine = build_engine(parse_arm_spec(spec))
    return dict(engine.load().extra)


def test_undeclared_saved_hypotheses_are_unverifiable(tmp_path: Path) -> None:
    extra = loaded_extra(f"precomputed:{hyps(tmp_path)}?name=c")
    assert extra["verifiable"] is False
    assert extra["unverifiable_reason"] == undeclared("c")
    assert "declared_model" not in extra


def test_a_declared_model_is_recorded_as_declared(tmp_path: Path) -> None:
    spec = (
        f"precomputed:{hyps(tmp_path)}?name=c&model=org/asr-large&model_revision=v3.1"
        f"&model_sha256=weights.bin:{DIGEST.upper()}&system_type=Open-Weights"
    )
    extra = loaded_extra(spec)
    assert "verifiable" not in extra
    assert extra["declared_model"] == {
        "model": "org/asr-large",
        "revision": "v3.1",
        "file_sha256": {"weights.bin": DIGEST},
        "source": DECLARED_SOURCE,
    }
    assert extra["system_type"] == "open-weights"


def test_a_model_without_its_identity_stays_unverifiable(tmp_path: Path) -> None:
    extra = loaded_extra(f"precomputed:{hyps(tmp_path)}?name=c&model=vendor-x")
    assert extra["verifiable"] is False
    assert extra["unverifiable_reason"] == (
        "precomputed arm 'c' declares model 'vendor-x' but neither model_revision= nor "
        "model_sha256="
    )


def test_a_bare_digest_names_the_model_file(tmp_path: Path) -> None:
    extra = loaded_extra(f"precomputed:{hyps(tmp_path)}?name=c&model=m&model_sha256={DIGEST}")
    declared = extra["declared_model"]
    assert isinstance(declared, dict) and declared["file_sha256"] == {"model": DIGEST}


@pytest.mark.parametrize(
    ("settings", "field", "message"),
    [
        ({"model_revision": "abc"}, "model_revision", "identifies no model"),
        ({"model_sha256": DIGEST}, "model_sha256", "identifies no model"),
        ({"model": "m", "model_sha256": "zz"}, "model_sha256", "is not a SHA-256"),
        ({"model": "m", "model_sha256": f"a:{DIGEST},a:{DIGEST}"}, "model_sha256", "twice"),
        ({"model": "m\x00x"}, "model", "control or unprintable"),
        ({"model": "m\u2028x"}, "model", "control or unprintable"),
        ({"model": "m", "model_revision": "\ud800"}, "model_revision", "unprintable"),
        ({"model": "x" * 301}, "model", "longer than 300"),
        ({"model": "   "}, "model", "is empty"),
        ({"system_type": "<script>"}, "system_type", "is not one of"),
    ],
)
def test_hostile_declarations_are_refused(
    tmp_path: Path, settings: dict[str, str], field: str, message: str
) -> None:
    arm = ArmSpec(
        backend="precomputed",
        model=str(hyps(tmp_path)),
        settings=tuple(sorted(settings.items())),
        name="c",
    )
    with pytest.raises(EarmarkError, match=message) as caught:
        build_engine(arm)
    assert caught.value.field == field
    assert "arm 'c'" in caught.value.message


@pytest.fixture(scope="module")
def refs_as_hyps_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus's first 8 clips: C reads the references back (0% WER, declared
    nothing), D a cut copy with its model declared."""
    root = tmp_path_factory.mktemp("declared")
    rows = [json.loads(line) for line in demo_manifest_path().read_text("utf-8").splitlines()]
    (root / "refs.jsonl").write_text(
        "".join(json.dumps({"id": r["id"], "hypothesis": r["text"]}) + "\n" for r in rows)
    )
    (root / "cut.jsonl").write_text(
        "".join(
            json.dumps({"id": r["id"], "hypothesis": " ".join(r["text"].split()[:-1])}) + "\n"
            for r in rows
        )
    )
    out = root / "run"
    argv = ["run", "--manifest", str(demo_manifest_path()), "--first", "8", "--bootstrap", "0"]
    argv += ["--arm", f"precomputed:{root / 'refs.jsonl'}?name=C"]
    argv += ["--arm", f"precomputed:{root / 'cut.jsonl'}?name=D&model=org/asr&model_revision=r7"]
    assert main([*argv, "--isolation", "inline", "--out", str(out), "--quiet"]) == 0
    return out


def test_references_as_hypotheses_rank_last_as_unverifiable(
    refs_as_hyps_run: Path, tmp_path: Path
) -> None:
    board = build_leaderboard([load_run(refs_as_hyps_run)])
    en = {e.system: e for e in board.entries if e.language == "en"}
    assert en["C"].value == 0.0 and not en["C"].verifiable
    assert en["C"].missing == [undeclared("C")]
    assert en["C"].rank == 2 and en["D"].rank == 1 and en["D"].verifiable
    # The hypothesis file's hash is not a model revision: C has none, D the declared one.
    assert en["C"].model_revision is None
    assert en["C"].model_revision_note is not None
    assert en["C"].model_revision_note.startswith("saved hypotheses (sha256:")
    assert en["D"].model_revision == "r7"
    assert en["D"].model_revision_note == "declared for model org/asr, not measured"
    assert en["C"].model_size_bytes is None and en["C"].rtfx is None
    md = write_leaderboard([refs_as_hyps_run], tmp_path / "lb")["md"].read_text("utf-8")
    assert "| 1 | D | " in md and "| r7 (declared) |" in md
    assert "| 2 | C ⚠ unverifiable | " in md


def test_a_folder_written_before_the_rule_is_judged_by_it(
    refs_as_hyps_run: Path, tmp_path: Path
) -> None:
    """A run recorded before precomputed arms said `verifiable: false` gets the same verdict."""
    old = tmp_path / "old"
    old.mkdir()
    for item in refs_as_hyps_run.iterdir():
        if item.is_file():
            text = item.read_text("utf-8")
            if item.name in ("results.json", "provenance.json"):
                text = json.dumps(_without_judgement(json.loads(text)))
            (old / item.name).write_text(text, "utf-8")
    assert '"unverifiable_reason"' not in (old / "results.json").read_text("utf-8")
    run = load_run(old)
    assert run.verifiable("C") == (False, [undeclared("C")])
    assert run.verifiable("D") == (True, [])
    assert run.verifiable() == (False, [undeclared("C")])


def _without_judgement(value: object) -> object:
    """The record as an older engine wrote it: no `verifiable`/`unverifiable_reason` in
    model extras (the run-level verdict is left as it was)."""
    if isinstance(value, dict):
        return {
            k: _without_judgement(v)
            for k, v in value.items()
            if not (k == "unverifiable_reason" or (k == "verifiable" and v is False))
        }
    if isinstance(value, list):
        return [_without_judgement(v) for v in value]
    return value
