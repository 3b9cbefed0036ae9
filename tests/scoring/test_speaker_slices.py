"""Per-speaker figures, the speaker-clustered bootstrap, and pre-registered minimums
(issue 14 item 6; issue 15: minimum counts and speakers, the speaker-leakage exit)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.selection import split_leakage
from earmark.corpus.writer import write_manifest
from earmark.errors import EarmarkError
from earmark.execution.plan import load_plan
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.rows import ScoringRow
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.bootstrap import bootstrap_ci
from earmark.stats.settings import BootstrapSettings

# Speaker a: 2 rows, 1 error in 4 words each; b: 3 rows, none wrong; c: 1 row all wrong.
ROWS = [
    ScoringRow(
        "a1", "one two three four", "one two three for", "en", ("x",), extra={"speaker": "a"}
    ),
    ScoringRow(
        "a2", "one two three four", "one too three four", "en", ("x",), extra={"speaker": "a"}
    ),
    ScoringRow("b1", "five six", "five six", "en", ("x",), extra={"speaker": "b"}),
    ScoringRow("b2", "five six", "five six", "en", ("y",), extra={"speaker": "b"}),
    ScoringRow("b3", "five six", "five six", "en", ("y",), extra={"speaker": "b"}),
    ScoringRow("c1", "seven eight", "", "en", ("y",), extra={"speaker": "c"}),
]
ERRORS = np.array([1, 1, 0, 0, 0, 2])
REF_UNITS = np.array([4, 4, 2, 2, 2, 2])


def _options(**kw: object) -> ScoringOptions:
    return ScoringOptions(
        policy=NormalizerPolicy.parse("none"),
        bootstrap=BootstrapSettings(resamples=400, seed=7),
        **kw,
    )  # type: ignore[arg-type]


def _wer(block: dict) -> dict:
    return block["views"][block["primary_view"]]["wer"]


def test_speaker_blocks_hand_computed() -> None:
    en = score_rows(ROWS, _options()).to_dict()["by_language"]["en"]
    assert en["n_speakers"] == 3
    by_speaker = en["by_speaker"]
    assert sorted(by_speaker) == ["a", "b", "c"]
    assert _wer(by_speaker["a"])["value"] == pytest.approx(2 / 8)
    assert _wer(by_speaker["b"])["value"] == 0.0
    assert _wer(by_speaker["c"])["value"] == 1.0
    # A speaker's own interval resamples its clips (one speaker is one cluster).
    assert by_speaker["b"]["n_clusters"] == 3 and by_speaker["a"]["n_speakers"] == 1
    # Slice y: b2, b3 (speaker b) and c1: 2 speakers, 2 errors / 6 words.
    assert en["by_slice"]["y"]["n_speakers"] == 2
    assert _wer(en["by_slice"]["y"])["value"] == pytest.approx(2 / 6)


def test_speaker_cluster_ci_is_the_bootstrap_over_speaker_codes() -> None:
    """`cluster="speaker"`: the interval is exactly the cluster bootstrap with speakers as
    cluster codes (the peer computation), and differs from the clip bootstrap."""
    summary = score_rows(ROWS, _options(cluster="speaker")).to_dict()
    wer = _wer(summary["overall"])
    speakers = [r.extra["speaker"] for r in ROWS]
    peer = bootstrap_ci(ERRORS, REF_UNITS, clusters=speakers, resamples=400, seed=7)
    assert wer["ci95"] == [pytest.approx(peer.low), pytest.approx(peer.high)]
    assert summary["overall"]["n_clusters"] == 3
    assert summary["bootstrap"]["cluster"] == "speaker"
    by_clip = bootstrap_ci(ERRORS, REF_UNITS, clusters=None, resamples=400, seed=7)
    assert _wer(score_rows(ROWS, _options()).to_dict()["overall"])["ci95"] == [
        pytest.approx(by_clip.low),
        pytest.approx(by_clip.high),
    ]
    assert (by_clip.low, by_clip.high) != (peer.low, peer.high)
    assert wer["value"] == pytest.approx(4 / 16)  # the point estimate does not move


def test_speaker_cluster_keeps_rows_without_speaker_as_clips() -> None:
    rows = [*ROWS, ScoringRow("n1", "nine", "nine", "en"), ScoringRow("n2", "ten", "x", "en")]
    overall = score_rows(rows, _options(cluster="speaker")).to_dict()["overall"]
    assert overall["n_clusters"] == 3 + 2 and overall["n_speakers"] == 3


def test_minimums_null_thin_blocks_with_a_reason() -> None:
    summary = score_rows(ROWS, _options(min_per_slice=3, min_speakers=2)).to_dict()
    en = summary["by_language"]["en"]
    assert summary["minimums"] == {"min_per_slice": 3, "min_speakers": 2}
    # Slice x: 3 rows, speakers a and b: figures stand.
    assert _wer(en["by_slice"]["x"])["value"] == pytest.approx(2 / 10)
    assert "below_minimum" not in en["by_slice"]["x"]
    # Speakers a (2 rows) and c (1 row) are under 3 rows; b (3 rows) is not.
    for name in ("a", "c"):
        wer = _wer(en["by_speaker"][name])
        assert wer["value"] is None and wer["ci95"] is None and wer["mer"] is None
        assert "fewer than the minimum 3 (--min-per-slice)" in wer["null_reason"]
        assert wer["substitutions"] + wer["deletions"] >= 1  # counts stay: what was seen
    assert _wer(en["by_speaker"]["b"])["value"] == 0.0
    # min_speakers never applies to one speaker's own block.
    assert "speakers" not in en["by_speaker"]["b"].get("below_minimum", "")


def test_min_speakers_without_speakers_is_null_not_a_claim() -> None:
    rows = [ScoringRow(f"u{i}", "a b", "a b", "en") for i in range(5)]
    en = score_rows(rows, _options(min_speakers=1)).to_dict()["by_language"]["en"]
    assert en["n_speakers"] == 0
    assert _wer(en)["value"] is None
    assert en["below_minimum"].startswith("below_minimum: 0 speakers")
    assert "by_speaker" not in en


def test_default_results_keep_their_shape_without_speakers() -> None:
    rows = [ScoringRow(f"u{i}", "a b", "a c", "en") for i in range(3)]
    summary = score_rows(rows, _options()).to_dict()
    en = summary["by_language"]["en"]
    assert "n_speakers" not in en and "by_speaker" not in en and "minimums" not in summary
    assert "cluster" not in summary["bootstrap"]


@pytest.mark.parametrize(
    "kw", [{"cluster": "utterance"}, {"min_per_slice": 0}, {"min_speakers": True}]
)
def test_bad_options_are_refused(kw: dict) -> None:
    with pytest.raises(EarmarkError):
        _options(**kw)


def _trn(tmp_path: Path) -> tuple[Path, Path]:
    ref = tmp_path / "ref.trn"
    hyp = tmp_path / "hyp.trn"
    ref.write_text("".join(f"{r.reference} ({r.extra['speaker']}-{r.id})\n" for r in ROWS))
    hyp.write_text("".join(f"{r.hypothesis} ({r.extra['speaker']}-{r.id})\n" for r in ROWS))
    return ref, hyp


def test_score_cli_and_api_agree_on_speaker_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, hyp = _trn(tmp_path)
    flags = ["--cluster", "speaker", "--min-per-slice", "2", "--min-speakers", "2"]
    args = ["score", str(hyp), "--refs", str(ref), "--format", "trn", "--normalizer", "none"]
    args += ["--bootstrap", "300", *flags, "--out", str(tmp_path / "cli"), "--quiet"]
    assert main(args) == 0, capsys.readouterr().err
    cli = json.loads((tmp_path / "cli" / "results.json").read_text("utf-8"))
    api = score_predictions(
        ScoreInputs(hyp, refs=ref, format="trn"),
        ScoreFigures(
            normalizer="none", resamples=300, cluster="speaker", min_per_slice=2, min_speakers=2
        ),
    ).to_dict()
    arm_cli, arm_api = cli["arms"]["hyp"], api["arms"]["hyp"]
    assert arm_cli["overall"] == arm_api["overall"]
    assert arm_cli["by_language"] == arm_api["by_language"]
    en = next(iter(arm_cli["by_language"].values()))
    assert _wer(en["by_speaker"]["c"])["value"] is None  # one row, minimum 2
    assert _wer(en["by_speaker"]["a"])["value"] == pytest.approx(2 / 8)
    assert arm_cli["overall"]["n_clusters"] == 3  # speakers, not rows
    md = (tmp_path / "cli" / "results.md").read_text("utf-8")
    assert "### Speakers" in md and "null (below_minimum: 1 rows" in md


def _manifest(path: Path, rows: list[tuple[str, str | None, str | None]]) -> Path:
    utts = [
        Utterance(
            id=i,
            audio=f"{i}.wav",
            text="words",
            language="en",
            speaker=spk,
            custom={"split": split} if split else {},
        )
        for i, spk, split in rows
    ]
    meta = CorpusMeta(dataset="t", licence="CC0-1.0", consent_basis="synthetic")
    write_manifest(path, utts, meta)
    return path


def test_manifest_leakage_exits_non_zero_on_shared_speakers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _manifest(tmp_path / "a.jsonl", [("u1", "s1", None), ("u2", "s2", None)])
    b = _manifest(tmp_path / "b.jsonl", [("v1", "s2", None), ("v2", None, None)])
    c = _manifest(tmp_path / "c.jsonl", [("w1", "s9", None)])
    assert main(["manifest", "leakage", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "LEAKAGE: 1 speaker(s) in both: s2" in out and "unchecked: 1 row(s)" in out
    assert main(["manifest", "leakage", str(a), str(c)]) == 0
    assert "no shared speakers" in capsys.readouterr().out


def test_split_leakage_rule() -> None:
    def utt(i: str, spk: str | None, split: str | None) -> Utterance:
        return Utterance(
            i, f"{i}.wav", "w", "en", speaker=spk, custom={"split": split} if split else {}
        )

    test_rows = [utt("t1", "s1", "test"), utt("t2", "s2", "test")]
    # An unselected test row by s3 is the same split: not leakage. A dev row by s1 is.
    manifest = [
        *test_rows,
        utt("t3", "s3", "test"),
        utt("d1", "s1", "dev"),
        utt("r1", "s3", "train"),
    ]
    record = split_leakage(manifest, test_rows)
    assert record["checked"] and record["leaked"]
    assert record["shared"] == ["s1"] and record["other_splits"] == ["dev", "train"]
    clean = split_leakage([*test_rows, utt("r1", "s9", "train")], test_rows)
    assert clean["checked"] and not clean["leaked"]
    none = split_leakage([utt("x", "s1", None)], [utt("x", "s1", None)])
    assert none == {"checked": False, "reason": none["reason"]} and "split" in none["reason"]


def test_plan_freezes_cluster_and_minimums(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    body = 'manifest = "m.jsonl"\n[[arms]]\nbackend = "precomputed"\nmodel = "h.jsonl"\n'
    plan.write_text('cluster = "speaker"\nmin_per_slice = 30\nmin_speakers = 5\n' + body)
    loaded = load_plan(plan, resolve_data=False)
    assert loaded.to_dict()["min_per_slice"] == 30 and loaded.to_dict()["cluster"] == "speaker"
    options = loaded.scoring_options()
    assert (options.cluster, options.min_per_slice, options.min_speakers) == ("speaker", 30, 5)
    plain = tmp_path / "plain.toml"
    plain.write_text(body)
    assert "min_speakers" not in load_plan(plain, resolve_data=False).to_dict()
    plan.write_text('cluster = "utterance"\n' + body)
    with pytest.raises(EarmarkError):
        load_plan(plan, resolve_data=False)


def test_run_with_a_plan_refuses_minimum_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --plan, the minimums are frozen in the plan, never added at the command line."""
    _manifest(tmp_path / "m.jsonl", [("u1", "s1", None)])
    plan = tmp_path / "plan.toml"
    plan.write_text('manifest = "m.jsonl"\n[[arms]]\nbackend = "precomputed"\nmodel = "h.jsonl"\n')
    args = ["run", "--plan", str(plan), "--min-speakers", "3", "--out", str(tmp_path / "o")]
    assert main(args) == 2
    assert "--min-speakers goes in the plan file" in capsys.readouterr().err
