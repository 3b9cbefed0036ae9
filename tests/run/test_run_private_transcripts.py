"""A corpus that forbids sharing transcripts: shareable outputs carry figures only; a run
records its speaker-leakage check; minimums and speakers reach a run's results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.cli import main
from earmark.corpus.model import CorpusMeta, Utterance
from earmark.corpus.writer import write_manifest

REFS = {
    "c0": "quartz harbour lantern",
    "c1": "violet meadow compass",
    "c2": "amber falcon thimble",
    "c3": "copper willow saddle",
}
HYPS = {
    "c0": "quartz harbor lantern",
    "c1": "violent meadow compass zeppelin",
    "c2": "amber falcon",
    "c3": "copper willow saddle",
}
SPEAKERS = {"c0": "s1", "c1": "s1", "c2": "s2", "c3": "s3"}


def _corpus(root: Path, *, share: bool) -> Path:
    (root / "audio").mkdir(parents=True)
    rows = []
    for i, (ident, text) in enumerate(REFS.items()):
        tone = (np.sin(np.arange(3200) * (0.01 + 0.003 * i)) * 0.3).astype(np.float32)
        sf.write(root / "audio" / f"{ident}.wav", tone, 16000, subtype="PCM_16")
        rows.append(
            Utterance(
                id=ident,
                audio=f"audio/{ident}.wav",
                text=text,
                language="en",
                speaker=SPEAKERS[ident],
                slices=("a",) if i < 3 else ("b",),
                custom={"split": "test"},
            )
        )
    # A training row by speaker s2: the evaluated rows leak s2.
    sf.write(root / "audio" / "t0.wav", np.zeros(3200, dtype=np.float32), 16000)
    rows.append(
        Utterance(
            id="t0",
            audio="audio/t0.wav",
            text="obsidian kestrel",
            language="fr",  # left out by --languages en
            speaker="s2",
            custom={"split": "train"},
        )
    )
    meta = CorpusMeta(
        dataset="private",
        licence="proprietary",
        consent_basis="internal",
        redistribute_audio=False,
        redistribute_transcripts=share,
    )
    write_manifest(root / "manifest.jsonl", rows, meta)
    return root / "manifest.jsonl"


def _run(tmp_path: Path, share: bool, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    manifest = _corpus(tmp_path / "corpus", share=share)
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text("".join(json.dumps({"id": k, "hypothesis": v}) + "\n" for k, v in HYPS.items()))
    out = tmp_path / "run"
    args = ["run", "--manifest", str(manifest), "--arm", f"precomputed:{hyps}?name=sys"]
    args += ["--languages", "en", "--isolation", "inline", "--normalizer", "none"]
    args += ["--bootstrap", "50", "--out", str(out), *extra]
    assert main(args) == 0, capsys.readouterr().err
    return out


def _texts() -> set[str]:
    """Every reference and hypothesis string, and every word of them."""
    strings = {*REFS.values(), *HYPS.values(), "obsidian kestrel", "copper pillow saddle"}
    return strings | {w for s in strings for w in s.split()}


def test_private_corpus_outputs_carry_no_transcript_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A second arm that differs on c3, so comparison and churn sections have rows to show.
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "c3", "hypothesis": "copper pillow saddle"}) + "\n")
    out = _run(tmp_path, False, capsys, "--arm", f"precomputed:{other}?name=other")
    printed = capsys.readouterr()
    assert main(["report", str(out)]) == 0, capsys.readouterr().err
    shared = {
        "terminal": printed.out + printed.err,
        "results.json": (out / "results.json").read_text("utf-8"),
        "results.md": (out / "results.md").read_text("utf-8"),
        "report.html": (out / "report.html").read_text("utf-8"),
    }
    for name, content in shared.items():
        leaked = sorted(t for t in _texts() if t in content)
        assert not leaked, f"{name} carries transcript text {leaked}"
    # The figures are still there: 1 S (c0) + 1 S 1 I (c1) + 1 D (c2) over 12 words.
    arm = json.loads(shared["results.json"])["arms"]["sys"]
    wer = arm["overall"]["views"]["raw"]["wer"]
    assert (wer["substitutions"], wer["deletions"], wer["insertions"]) == (2, 1, 1)
    assert wer["value"] == pytest.approx(4 / 12)
    worst = arm["error_analysis"]["en"]["worst_utterances"]
    assert [w["id"] for w in worst] and all("alignment" not in w for w in worst)
    assert "withheld" in arm["error_analysis"]["en"]["text_withheld"]
    # predictions.jsonl is the private record: it keeps the texts.
    private = (out / "predictions.jsonl").read_text("utf-8")
    assert all(r in private for r in REFS.values())


def test_shareable_corpus_still_shows_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control: the same run on a corpus that permits sharing shows the alignments,
    so the test above proves withholding, not an output that never had text."""
    out = _run(tmp_path, True, capsys)
    results = (out / "results.json").read_text("utf-8")
    assert "violent" in results and "harbor" in results
    assert "violent" in (out / "results.md").read_text("utf-8")


def test_run_records_speaker_leakage_in_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, True, capsys)
    provenance = json.loads((out / "provenance.json").read_text("utf-8"))
    leakage = provenance["speaker_leakage"]
    assert leakage["checked"] is True and leakage["leaked"] is True
    assert leakage["shared"] == ["s2"]
    assert leakage["evaluated_splits"] == ["test"] and leakage["other_splits"] == ["train"]
    assert any(d["kind"] == "speaker_leakage" for d in provenance["deviations"])


def test_run_minimums_and_speaker_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, True, capsys, "--min-per-slice", "2", "--min-speakers", "2")
    results = json.loads((out / "results.json").read_text("utf-8"))
    block = results["arms"]["sys"]["by_language"]["en"]
    # Slice a: 3 rows, 2 speakers (s1, s2): figures stand. Slice b: 1 row, 1 speaker: null.
    a, b = block["by_slice"]["a"], block["by_slice"]["b"]
    assert a["n_speakers"] == 2 and a["views"]["raw"]["wer"]["value"] == pytest.approx(4 / 9)
    assert b["views"]["raw"]["wer"]["value"] is None
    assert b["views"]["raw"]["wer"]["ci95"] is None
    assert "--min-per-slice" in b["below_minimum"] and "--min-speakers" in b["below_minimum"]
    # Speaker s1 has 2 rows (c0, c1): 3 errors / 6 words; s2 and s3 are under 2 rows.
    assert block["by_speaker"]["s1"]["views"]["raw"]["wer"]["value"] == pytest.approx(3 / 6)
    assert block["by_speaker"]["s3"]["views"]["raw"]["wer"]["value"] is None
    md = (out / "results.md").read_text("utf-8")
    assert "### Speakers" in md and "null (below_minimum" in md
    assert results["plan"]["min_per_slice"] == 2 and results["plan"]["min_speakers"] == 2
    assert main(["report", str(out)]) == 0, capsys.readouterr().err
    page = (out / "report.html").read_text("utf-8")
    assert "<h3>Speakers" in page and "null (below_minimum: 1 rows" in page


def test_verify_reproduces_speaker_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, True, capsys, "--min-per-slice", "2", "--min-speakers", "2")
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0, capsys.readouterr().out
