"""The scoring pipeline end to end: hand-computed values, jiwer as oracle, schema, CLI == API."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jiwer
import jsonschema
import pytest

from earmark.cli import main
from earmark.file_scoring import ScoreFigures, ScoreInputs, score_predictions
from earmark.formats.rows import ScoringRow
from earmark.render.results import results_schema
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.scorer import score_rows
from earmark.stats.settings import BootstrapSettings

ROWS = [
    {
        "id": "a",
        "reference": "The cat sat on the mat.",
        "hypothesis": "the cat sat on mat",
        "language": "en",
    },
    {"id": "b", "reference": "Hello world", "hypothesis": "hello there world", "language": "en"},
    {"id": "c", "reference": "我爱北京天安门。", "hypothesis": "我爱北京天安門", "language": "zh"},
    {
        "id": "d",
        "reference": "",
        "hypothesis": "thank you for watching",
        "language": "en",
        "slices": ["no-speech"],
    },
    {"id": "e", "reference": "Tá an t-athair ag obair.", "language": "ga"},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_hand_computed_mixed_corpus(tmp_path: Path) -> None:
    results = score_predictions(
        ScoreInputs(write_jsonl(tmp_path / "p.jsonl", ROWS)),
        ScoreFigures(normalizer="auto", resamples=200),
    ).to_dict()
    arm = results["arms"]["p"]
    assert arm["overall"] is None and "different normalisers" in arm["overall_null_reason"]
    en = arm["by_language"]["en"]["views"]["normalized"]["wer"]
    # a: 1 deletion (5 hits); b: 1 insertion (2 hits); d: 4 insertions on an empty reference.
    assert (en["substitutions"], en["deletions"], en["insertions"], en["hits"]) == (0, 1, 5, 7)
    assert en["ref_units"] == 8 and en["value"] == pytest.approx(6 / 8)
    zh = arm["by_language"]["zh"]["views"]
    assert zh["raw"]["cer"]["value"] == pytest.approx(2 / 8)  # 门→門 and the dropped 。
    assert zh["normalized"]["cer"]["value"] == pytest.approx(1 / 7)
    assert zh["script_normalized"]["cer"]["value"] == 0.0
    assert "wer" not in zh["normalized"]  # Chinese is scored in characters only
    ga = arm["by_language"]["ga"]["views"]["normalized"]["wer"]
    assert ga["deletions"] == 5 and ga["value"] == 1.0  # missing hypothesis = all deletions
    assert arm["coverage"]["not_ok"] == [{"id": "e", "status": "missing_hypothesis"}]
    hall = arm["by_language"]["en"]["hallucination"]
    assert hall["no_speech_rows"] == 1 and hall["no_speech_with_output"] == 1
    jsonschema.validate(results, results_schema())


def test_macro_is_labelled_and_hand_computed(tmp_path: Path) -> None:
    rows = [
        {"id": "1", "reference": "a b c d", "hypothesis": "a b c x"},  # 1/4
        {"id": "2", "reference": "a", "hypothesis": "b"},  # 1/1
        {"id": "3", "reference": "", "hypothesis": ""},  # empty/empty -> 0
    ]
    path = write_jsonl(tmp_path / "m.jsonl", rows)
    micro = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="none", resamples=0)
    ).to_dict()["arms"]["m"]["overall"]
    macro = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="none", resamples=0, aggregate="macro")
    ).to_dict()
    raw_micro = micro["views"]["raw"]["wer"]
    raw_macro = macro["arms"]["m"]["overall"]["views"]["raw"]["wer"]
    assert raw_micro["value"] == pytest.approx(2 / 5) and raw_micro["aggregate"] == "micro"
    assert raw_macro["value"] == pytest.approx((0.25 + 1 + 0) / 3)
    assert raw_macro["aggregate"] == "macro"


def test_jiwer_oracle_on_random_corpus() -> None:
    rng = random.Random(7)
    vocab = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
    refs, hyps = [], []
    for _ in range(300):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        hyp = [w for w in ref if rng.random() > 0.15]
        for _ in range(rng.randint(0, 2)):
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        hyp = [rng.choice(vocab) if rng.random() < 0.1 else w for w in hyp]
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    rows = [
        ScoringRow(id=str(i), reference=r, hypothesis=h)
        for i, (r, h) in enumerate(zip(refs, hyps, strict=True))
    ]
    summary = score_rows(
        rows,
        ScoringOptions(policy=NormalizerPolicy("none"), bootstrap=BootstrapSettings(resamples=0)),
    ).to_dict()
    wer = summary["overall"]["views"]["raw"]["wer"]
    out = jiwer.process_words(refs, [h if h else "" for h in hyps])
    assert (wer["substitutions"], wer["deletions"], wer["insertions"], wer["hits"]) == (
        out.substitutions,
        out.deletions,
        out.insertions,
        out.hits,
    )
    assert wer["value"] == pytest.approx(out.wer)
    cer = summary["overall"]["views"]["raw"]["cer"]
    assert cer["value"] == pytest.approx(jiwer.cer(refs, hyps))


def test_bootstrap_ci_brackets_estimate_and_is_seeded(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    a = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="auto", resamples=500, seed=1)
    ).to_dict()
    b = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="auto", resamples=500, seed=1)
    ).to_dict()
    m = a["arms"]["p"]["by_language"]["en"]["views"]["normalized"]["wer"]
    assert m["ci95"][0] <= m["value"] <= m["ci95"][1]
    assert m["ci95"] == b["arms"]["p"]["by_language"]["en"]["views"]["normalized"]["wer"]["ci95"]
    assert a["arms"]["p"]["bootstrap"]["seed"] == 1


def test_cli_and_api_give_identical_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", ROWS)
    api = score_predictions(
        ScoreInputs(path), ScoreFigures(normalizer="auto", resamples=300, seed=5)
    ).to_dict()
    rc = main(
        [
            "score",
            str(path),
            "--normalizer",
            "auto",
            "--bootstrap",
            "300",
            "--seed",
            "5",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert rc == 0
    cli = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))
    assert cli["arms"] == api["arms"]
    assert (tmp_path / "out" / "results.md").exists()
    rows = [
        json.loads(x) for x in (tmp_path / "out" / "predictions.jsonl").read_text().splitlines()
    ]
    assert [r["id"] for r in rows] == ["a", "b", "c", "d", "e"]
    assert rows[0]["views"]["normalized"]["wer"]["deletions"] == 1
    assert "WER" in capsys.readouterr().out


def test_kaldi_pairs_and_unmatched(tmp_path: Path) -> None:
    (tmp_path / "text").write_text("u1 hello world\nu2 good morning\n", "utf-8")
    (tmp_path / "hyp").write_text("u1 hello word\nu3 stray\n", "utf-8")
    with pytest.raises(Exception, match="u3"):
        score_predictions(
            ScoreInputs(tmp_path / "hyp", refs=tmp_path / "text"), ScoreFigures(normalizer="none")
        ).to_dict()
    res = score_predictions(
        ScoreInputs(tmp_path / "hyp", refs=tmp_path / "text", exclude_unmatched=True),
        ScoreFigures(normalizer="none", resamples=0),
    ).to_dict()
    arm = res["arms"]["hyp"]
    assert arm["coverage"]["excluded"] == [{"id": "u3", "reason": "no_reference"}]
    wer = arm["overall"]["views"]["raw"]["wer"]
    assert (wer["substitutions"], wer["deletions"], wer["hits"]) == (1, 2, 1)  # u2 missing


def test_csv_and_tsv_with_custom_fields(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text('key,ref,out\nx,"a, b",a b\n', "utf-8")
    res = score_predictions(
        ScoreInputs(
            tmp_path / "p.csv",
            fields=__import__("earmark.formats.fields", fromlist=["FieldNames"]).FieldNames(
                id="key", reference="ref", hypothesis="out"
            ),
        ),
        ScoreFigures(normalizer="crude-v1", resamples=0),
    ).to_dict()
    assert res["arms"]["p"]["overall"]["views"]["normalized"]["wer"]["value"] == 0.0


@pytest.mark.parametrize(
    ("content", "name", "needle"),
    [
        (
            b'{"id":"a","reference":"x","hypothesis":"y"}\n{"id":"a","reference":"x"}\n',
            "dup.jsonl",
            "dup.jsonl:2: field 'id': duplicate utterance id",
        ),
        (b'{"id":"a","reference":"x"\n', "trunc.jsonl", "trunc.jsonl:1: invalid JSON"),
        (b'{"id":"a","hypothesis":"y"}\n', "noref.jsonl", "noref.jsonl:1: field 'reference'"),
        (b'{"id":"a","reference":"\xff"}\n', "bytes.jsonl", "bytes.jsonl:1: not valid UTF-8"),
        (
            b'{"id":1,"reference":"x"}\n',
            "type.jsonl",
            "type.jsonl:1: field 'id': expected a string",
        ),
        (b"id\treference\thypothesis\na\tb\n", "bad.csv", "bad.csv:1: the header has one column"),
        (b"id\treference\thypothesis\na\tb\n", "bad.tsv", "bad.tsv:2: expected 3 columns"),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, name: str, needle: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    rc = main(["score", str(path), "--normalizer", "none", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert needle in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_missing_file_and_unknown_normaliser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(tmp_path / "nope.jsonl"), "--normalizer", "none", "--out", "o"]) == 2
    assert "file not found" in capsys.readouterr().err
    path = write_jsonl(tmp_path / "p.jsonl", ROWS[:1])
    assert main(["score", str(path), "--normalizer", "xx-v9", "--out", str(tmp_path / "o")]) == 2
    assert "xx-v9" in capsys.readouterr().err


def test_failed_probe_refuses_to_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from earmark import file_scoring as api
    from earmark.scoring import probes

    bad = probes.ProbeResult("broken", False, "x", "y")
    monkeypatch.setattr(api, "run_scorer_probes", lambda: [bad])
    with pytest.raises(Exception, match="self-check failed"):
        score_predictions(
            ScoreInputs(write_jsonl(tmp_path / "p.jsonl", ROWS)),
            ScoreFigures(normalizer="auto", resamples=0),
            out_dir=tmp_path / "out",
        ).to_dict()
    assert not (tmp_path / "out" / "results.json").exists()


def test_all_probes_pass() -> None:
    from earmark.scoring.probes import run_scorer_probes

    results = run_scorer_probes()
    assert results and all(p.passed for p in results), [p for p in results if not p.passed]


def test_repeats_share_a_cluster(tmp_path: Path) -> None:
    rows = [
        {"id": "a#0", "clip": "a", "reference": "x y", "hypothesis": "x y"},
        {"id": "a#1", "clip": "a", "reference": "x y", "hypothesis": "x z"},
        {"id": "b#0", "clip": "b", "reference": "x y", "hypothesis": "x y"},
    ]
    res = score_predictions(
        ScoreInputs(write_jsonl(tmp_path / "r.jsonl", rows)),
        ScoreFigures(normalizer="none", resamples=100),
    ).to_dict()
    overall = res["arms"]["r"]["overall"]
    assert overall["n_utterances"] == 3 and overall["n_clusters"] == 2


def test_run_predictions_with_arms_and_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"arm": "a", "id": "u1", "repeat": 0, "reference": "x y", "hypothesis": "x y"},
        {"arm": "a", "id": "u1", "repeat": 1, "reference": "x y", "hypothesis": "x z"},
        {
            "arm": "a",
            "id": "u2",
            "repeat": 0,
            "reference": "x y",
            "hypothesis": None,
            "status": "engine_exception:RuntimeError",
        },
        {"arm": "a", "id": "u2", "repeat": 1, "reference": "x y", "hypothesis": "x y"},
        {"arm": "b", "id": "u1", "repeat": 0, "reference": "x y", "hypothesis": "x y"},
    ]
    path = write_jsonl(tmp_path / "predictions.jsonl", rows)
    assert main(["score", str(path), "--normalizer", "none", "--out", str(tmp_path / "o")]) == 2
    assert "pass --arm NAME" in capsys.readouterr().err
    res = score_predictions(
        ScoreInputs(path, arm="a"), ScoreFigures(normalizer="none", resamples=0)
    ).to_dict()
    arm = res["arms"]["a"]
    assert arm["coverage"]["not_ok"] == [{"id": "u2", "status": "engine_exception:RuntimeError"}]
    overall = arm["overall"]
    assert overall["n_utterances"] == 4 and overall["n_clusters"] == 2
    wer = overall["views"]["raw"]["wer"]
    assert (wer["substitutions"], wer["deletions"], wer["hits"]) == (1, 2, 5)
    with pytest.raises(Exception, match="no row of arm 'c'"):
        score_predictions(
            ScoreInputs(path, arm="c"), ScoreFigures(normalizer="none", resamples=0)
        ).to_dict()
