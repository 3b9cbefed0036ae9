"""transformers-ctc on a tiny random Wav2Vec2ForCTC built in the test session."""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import pytest

from earmark.engines import build_engine, parse_arm_spec, supported_weight_types, validate_arm
from earmark.engines.base import Clip
from earmark.errors import EarmarkError, MissingExtraError

pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
pytest.importorskip("transformers", reason="transformers is not installed")

ALPHABET = set("abcdefghijklmnopqrstuvwxyz' ")


def _expected_hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _oracle_texts(folder: Path, clips: list[Clip], dtype: str = "float32") -> list[str]:
    """Greedy CTC decoding written directly against transformers, one clip at a time."""
    import torch
    from transformers import AutoModelForCTC, AutoProcessor

    processor = AutoProcessor.from_pretrained(str(folder))
    model = AutoModelForCTC.from_pretrained(str(folder), dtype=getattr(torch, dtype)).eval()
    texts = []
    for clip in clips:
        values = processor(clip.audio, sampling_rate=16000, return_tensors="pt").input_values
        with torch.inference_mode():
            ids = model(values.to(getattr(torch, dtype))).logits.argmax(-1)
        texts.append(processor.batch_decode(ids)[0].strip())
    return texts


def test_ctc_float32_matches_direct_transformers_and_records_provenance(
    tiny_ctc: Path, clips: list[Clip]
) -> None:
    engine = build_engine(parse_arm_spec(f"transformers-ctc:{tiny_ctc}?batch_size=4"))
    info = engine.load()
    expected = _expected_hashes(tiny_ctc)
    assert info.file_sha256 == expected
    listing = "".join(f"{sha}  {name}\n" for name, sha in sorted(expected.items()))
    assert info.revision == "sha256:" + hashlib.sha256(listing.encode()).hexdigest()
    assert info.size_bytes == sum(p.stat().st_size for p in tiny_ctc.iterdir())
    assert info.compute_type == "float32"
    assert info.backend == "transformers-ctc" and info.runtime == "transformers"
    assert info.artifact_id == f"local:{tiny_ctc.resolve().as_posix()}"
    # No attention mask in this model: padding would change outputs, so no batching.
    assert info.extra["batch_size"] == 1 and info.extra["batch_size_requested"] == 4

    first = engine.transcribe(clips, "ga")
    again = engine.transcribe(clips, "ga")
    assert [h.text for h in first] == [h.text for h in again]
    assert [h.text for h in first] == _oracle_texts(tiny_ctc, clips)
    assert all(h.text and set(h.text) <= ALPHABET for h in first)
    assert all(h.error is None for h in first)
    assert [h.language_requested for h in first] == ["ga", "ga"]
    assert [h.language_used for h in first] == [None, None]  # no language token in CTC
    engine.close()


def test_bfloat16_arm_runs_and_reads_the_dtype_back(tiny_ctc: Path, clips: list[Clip]) -> None:
    engine = build_engine(parse_arm_spec(f"transformers-ctc:{tiny_ctc}?dtype=bfloat16"))
    info = engine.load()
    assert info.compute_type == "bfloat16"
    assert info.extra["compute_type_requested"] == "bfloat16"
    hyps = engine.transcribe(clips, None)
    assert [h.text for h in hyps] == [h.text for h in engine.transcribe(clips, None)]
    assert all(h.error is None and set(h.text) <= ALPHABET for h in hyps)
    assert [h.text for h in hyps] == _oracle_texts(tiny_ctc, clips, "bfloat16")


def test_a_failing_clip_becomes_a_reason_code_and_the_others_survive(
    tiny_ctc: Path, clips: list[Clip]
) -> None:
    engine = build_engine(
        parse_arm_spec(f"transformers-ctc:{tiny_ctc}?model_language=ga&batch_size=3")
    )
    engine.load()
    tiny = Clip("tiny", clips[0].audio[:5], 16000)  # shorter than the first conv kernel
    hyps = engine.transcribe([clips[0], tiny, clips[1]], "ga")
    assert [h.id for h in hyps] == ["one", "tiny", "two"]
    assert hyps[1].error == "engine_exception:RuntimeError" and hyps[1].text == ""
    assert "kernel" in hyps[1].extra["message"].lower()
    assert hyps[0].error is None and hyps[2].error is None
    assert [h.language_used for h in (hyps[0], hyps[2])] == ["ga", "ga"]
    assert [hyps[0].text, hyps[2].text] == _oracle_texts(tiny_ctc, [clips[0], clips[1]])


def test_revision_is_the_snapshot_commit_inside_a_hub_cache(tiny_ctc: Path, tmp_path: Path) -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    snapshot = tmp_path / "hub" / "models--facebook--tiny-ctc" / "snapshots" / commit
    shutil.copytree(tiny_ctc, snapshot)
    info = build_engine(parse_arm_spec(f"transformers-ctc:{snapshot}")).load()
    assert info.revision == commit
    assert info.artifact_id == f"facebook/tiny-ctc@{commit}"
    assert info.extra["content_revision"].startswith("sha256:")


def test_target_lang_needs_an_adapter_model(tiny_ctc: Path) -> None:
    engine = build_engine(parse_arm_spec(f"transformers-ctc:{tiny_ctc}?target_lang=gle"))
    with pytest.raises(EarmarkError, match="language adapters") as caught:
        engine.load()
    assert caught.value.field == "target_lang"


def test_settings_and_paths_are_checked_before_loading(tiny_ctc: Path, tmp_path: Path) -> None:
    with pytest.raises(EarmarkError, match="disagrees with compute_type"):
        validate_arm(
            parse_arm_spec(f"transformers-ctc:{tiny_ctc}?dtype=float32&compute_type=bfloat16")
        )
    with pytest.raises(EarmarkError, match="is not one of float32, bfloat16, float16"):
        validate_arm(parse_arm_spec(f"transformers-ctc:{tiny_ctc}?compute_type=int8"))
    with pytest.raises(EarmarkError, match="model not found at"):
        validate_arm(parse_arm_spec(f"transformers-ctc:{tmp_path}/missing"))
    with pytest.raises(EarmarkError, match="unknown setting"):
        validate_arm(parse_arm_spec(f"transformers-ctc:{tiny_ctc}?beam_size=2"))
    # An authorised download validates without touching the network: a moving ref (none
    # given: main) is resolved to a commit only when the files are fetched.
    validate_arm(parse_arm_spec("transformers-ctc:facebook/mms-1b-all?download=true"))
    with pytest.raises(EarmarkError, match="not a commit hash"):
        validate_arm(
            parse_arm_spec("transformers-ctc:facebook/mms-1b-all?download=true&resolved_revision=x")
        )
    validate_arm(parse_arm_spec("transformers-ctc:facebook/mms-1b-all?download=true&revision=abc"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EarmarkError, match="has no config.json"):
        build_engine(parse_arm_spec(f"transformers-ctc:{empty}")).load()
    # What a --weight-types sweep produces validates for every supported type.
    assert supported_weight_types("transformers-ctc") == ("float32", "bfloat16", "float16")
    for weight in supported_weight_types("transformers-ctc"):
        validate_arm(parse_arm_spec(f"transformers-ctc:{tiny_ctc}?compute_type={weight}"))


def test_missing_runtime_names_the_extra(tiny_ctc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(MissingExtraError, match=r"earmark\[transformers\]") as caught:
        build_engine(parse_arm_spec(f"transformers-ctc:{tiny_ctc}"))
    assert caught.value.extra == "transformers"
