"""The scorer keeps each id as an 8-byte digest, and never lets a digest change an output.

`RowKeys` (`earmark.scoring.row_keys`) finds repeated ids and numbers the bootstrap's
clusters from 64-bit digests when it can read the rows again (`reread`, or rows it keeps); on any match the strings
cannot confirm it reads the ids again and goes on exactly as the string-keeping scorer
(`reread=None`). Pinned here: the cluster codes are the first-appearance numbering of
the cluster key strings (an oracle written out below) on random ids with repeats, shared
clips and speakers; a forced collision (every digest equal, or a few) gives the string
path's records, figures and errors exactly, and reads the rows again only once; the
digest set agrees with a Python set; and the per-row memory of the ids is the digest's.
"""

from __future__ import annotations

import json
import os
import random
import tracemalloc
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fast_paths_corpus import corpus_records, corpus_rows

from earmark.errors import EarmarkError
from earmark.formats.pairs import stream_pairs
from earmark.formats.rows import ScoringRow
from earmark.scoring import row_keys as row_keys_module
from earmark.scoring.options import ScoringOptions
from earmark.scoring.policy import NormalizerPolicy
from earmark.scoring.row_facts import RowFacts
from earmark.scoring.row_keys import SortedRuns
from earmark.scoring.scorer import CorpusScorer
from earmark.stats.settings import BootstrapSettings


def _random_rows(n: int, seed: int) -> list[ScoringRow]:
    """Unclustered ids, repeats sharing a clip, clips keyed like an unclustered id (before
    and after it), ids holding NUL, and speakers named like clip ids."""
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        roll = rng.random()
        ident = f"u{k}"
        if roll < 0.55:
            cluster = None
        elif roll < 0.75:
            cluster = f"clip{rng.randrange(max(n // 8, 1))}"
        elif roll < 0.85:
            cluster = f"u{rng.randrange(n)}"  # an unclustered row's id, earlier or later
        elif roll < 0.9:
            ident, cluster = f"a\x00{k}", None
        else:
            cluster = f"speaker\x00s{rng.randrange(3)}"  # a speaker's bootstrap key
        speaker = {"speaker": f"s{rng.randrange(4)}"} if rng.random() < 0.5 else {}
        words = " ".join(rng.choice("a b c d e".split()) for _ in range(rng.randint(1, 6)))
        hyp = " ".join(w for w in words.split() if rng.random() < 0.8)
        rows.append(ScoringRow(ident, words, hyp, cluster=cluster, extra=speaker))
    return rows


def _first_appearance_oracle(rows: Iterable[ScoringRow]) -> list[int]:
    """The numbering the key strings got: each distinct cluster key by first appearance."""
    seen: dict[str, int] = {}
    return [seen.setdefault(r.cluster_key, len(seen)) for r in rows]


def _facts(rows: list[ScoringRow], chunk: int, *, exact: bool) -> RowFacts:
    facts = RowFacts(reread=None if exact else (lambda: rows))
    for start in range(0, len(rows), chunk):
        facts.add(rows[start : start + chunk])
    facts.seal()
    return facts


def _same_codes(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal codes exactly where the other's are equal (what the figures read)."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len({x for x, _ in pairs}) == len({y for _, y in pairs})


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk", [1, 7, 1_000])
def test_cluster_codes_are_the_key_strings_first_appearance(seed: int, chunk: int) -> None:
    rows = [r for r in _random_rows(300, seed)]
    # Drop repeated ids within a clip (the random draw may make one): the oracle's rows.
    keys: set[str] = set()
    unique = []
    for r in rows:
        key = r.id if r.cluster is None else f"{r.id}\x00{r.cluster}"
        if key not in keys:
            keys.add(key)
            unique.append(r)
    digests = _facts(unique, chunk, exact=False)
    strings = _facts(unique, chunk, exact=True)
    oracle = _first_appearance_oracle(unique)
    assert digests.cluster_code.tolist() == oracle == strings.cluster_code.tolist()
    # A speaker's key among the clip keys: the codes the string path gives, same merges.
    for unit_rows in (np.arange(len(unique)), np.arange(0, len(unique), 3)):
        assert _same_codes(
            digests.bootstrap_codes(unit_rows, "speaker"),
            strings.bootstrap_codes(unit_rows, "speaker"),
        )


def test_a_speaker_keyed_like_a_clip_merges_with_it_as_the_strings_do() -> None:
    rows = [
        ScoringRow("u0", "a", "a", cluster="speaker\x00s1"),
        ScoringRow("u1", "a", "b", extra={"speaker": "s1"}),
        ScoringRow("u2", "a", "b", extra={"speaker": "s2"}),
    ]
    for exact in (False, True):
        codes = _facts(rows, 2, exact=exact).bootstrap_codes(np.arange(3), "speaker")
        assert codes[0] == codes[1] != codes[2]


def _score(
    rows: list[ScoringRow], options: ScoringOptions, chunk: int, *, reread: bool
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    scorer = CorpusScorer(options, reread=(lambda: rows) if reread else None)
    records = []
    for start in range(0, len(rows), chunk):
        records.extend(scorer.add(rows[start : start + chunk]))
    return records, scorer.finish().to_dict()


OPTIONS = {
    "clip, 200 resamples": ScoringOptions(
        NormalizerPolicy.parse("auto"), bootstrap=BootstrapSettings(resamples=200)
    ),
    "speaker clusters, minimums": ScoringOptions(
        NormalizerPolicy.parse("auto"),
        bootstrap=BootstrapSettings(resamples=100),
        cluster="speaker",
        min_speakers=2,
    ),
}


@pytest.mark.parametrize("name", list(OPTIONS))
@pytest.mark.parametrize(
    "digest", [None, lambda s: 0, lambda s: len(s) % 3], ids=["siphash", "all-equal", "len%3"]
)
def test_a_forced_collision_gives_the_string_paths_outputs(
    name: str, digest: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        replace(r, extra={"speaker": f"s{k % 4}"} if k % 3 else {})
        for k, r in enumerate(corpus_rows(150))
    ]
    options = OPTIONS[name]
    expected = _score(rows, options, 11, reread=False)
    if digest is not None:
        monkeypatch.setattr(row_keys_module, "_digest", digest)
    reads = []

    def reread() -> list[ScoringRow]:
        reads.append(1)
        return rows

    scorer = CorpusScorer(options, reread=reread)
    records = []
    for start in range(0, len(rows), 11):
        records.extend(scorer.add(rows[start : start + 11]))
    assert (records, scorer.finish().to_dict()) == expected
    # The rows are read again once, at the first match, and never otherwise.
    assert len(reads) == (0 if digest is None else 1)


@pytest.mark.parametrize("digest", [None, lambda s: 0], ids=["siphash", "all-equal"])
def test_a_repeated_id_is_the_same_error_at_the_same_chunk(
    digest: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real repeat is found when its chunk is added, named as the string path names it;
    a collision alone is never a repeat."""
    if digest is not None:
        monkeypatch.setattr(row_keys_module, "_digest", digest)
    rows = corpus_rows(40)
    options = ScoringOptions(
        NormalizerPolicy.parse("none"), bootstrap=BootstrapSettings(resamples=0)
    )
    clustered = [r for r in rows if r.cluster is not None]
    for repeat, earlier in ((rows[3], rows[:10]), (clustered[1], clustered[:2])):
        fed = [*earlier, *(rows[12:14] if repeat.cluster is None else [])]
        for reread in (True, False):
            scorer = CorpusScorer(options, reread=(lambda f=fed: f) if reread else None)
            scorer.add(earlier)
            scorer.add(fed[len(earlier) :])
            with pytest.raises(EarmarkError) as caught:
                scorer.add([repeat])
            message = f"field 'id': duplicate utterance id {repeat.id!r} in scoring input"
            assert str(caught.value) == message
    # Every digest equal, no id repeated: scored as with distinct digests.
    scorer = CorpusScorer(options, reread=lambda: rows)
    scorer.add(rows[:20])
    scorer.add(rows[20:])
    assert scorer.finish().to_dict()["coverage"]["scored"] == len(rows)


def test_a_streamed_file_read_again_on_a_collision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PairStream.reread` reads the file anew: with every digest equal, the records and
    figures are the digest path's and the string path's."""
    source = tmp_path / "corpus.jsonl"
    source.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus_records(120)), "utf-8"
    )
    options = ScoringOptions(
        NormalizerPolicy.parse("auto"), bootstrap=BootstrapSettings(resamples=50)
    )
    outputs = []
    for digest, reread in ((None, False), (None, True), (lambda s: 7, True)):
        if digest is not None:
            monkeypatch.setattr(row_keys_module, "_digest", digest)
        stream = stream_pairs(source, check_ids=False)
        scorer = CorpusScorer(options, reread=stream.reread if reread else None)
        records = [record for chunk in stream.chunks(13) for record in scorer.add(chunk)]
        outputs.append((records, scorer.finish().to_dict()))
    assert outputs[0] == outputs[1] == outputs[2]


def test_reread_gives_the_rows_of_every_kind_of_stream(tmp_path: Path) -> None:
    combined = tmp_path / "c.jsonl"
    combined.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus_records(30)), "utf-8"
    )
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b\nc\n", "utf-8")
    ref.write_text("a b\nc d\n", "utf-8")
    kaldi_hyp, kaldi_ref = tmp_path / "hyp.kaldi", tmp_path / "ref.kaldi"
    kaldi_hyp.write_text("utt1 a b\nutt2 c\n", "utf-8")
    kaldi_ref.write_text("utt2 c d\nutt1 a b\nutt3 e\n", "utf-8")
    for stream in (
        stream_pairs(combined, check_ids=False),
        stream_pairs(hyp, refs=ref, fmt="lines"),
        stream_pairs(kaldi_hyp, refs=kaldi_ref, fmt="kaldi"),
    ):
        first = list(stream.rows)
        assert list(stream.reread()) == first == list(stream.reread())


def _touch(path: Path) -> None:
    """Same size and bytes; only the modification time moves (1 ms on)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def _append(path: Path) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("utt3 e\n")


def test_a_file_changed_before_it_is_read_again_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows of two different contents are never scored as one corpus: a stream refuses to
    read a file again (on a digest match, or to recheck) once its size or modification
    time differs from when the stream first read it, or it is gone."""
    combined = tmp_path / "c.jsonl"
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus_records(30))
    combined.write_text(lines, "utf-8")
    hyp, ref = tmp_path / "hyp.kaldi", tmp_path / "ref.kaldi"
    hyp.write_text("utt1 a b\nutt2 c\n", "utf-8")
    ref.write_text("utt1 a b\nutt2 c d\n", "utf-8")
    for path, stream, change in (
        (combined, stream_pairs(combined, check_ids=False), _touch),
        (ref, stream_pairs(hyp, refs=ref, fmt="kaldi"), _append),
    ):
        first = list(stream.rows)
        assert list(stream.reread()) == first
        change(path)
        with pytest.raises(EarmarkError, match="changed") as caught:
            list(stream.reread())
        assert caught.value.file == str(path)
    gone = stream_pairs(combined, check_ids=False)
    list(gone.rows)
    combined.unlink()
    with pytest.raises(EarmarkError, match="went away"):
        gone.recheck()
    # Through the scorer: a digest match after the file changed is that error.
    combined.write_text(lines, "utf-8")
    monkeypatch.setattr(row_keys_module, "_digest", lambda s: 7)
    stream = stream_pairs(combined, check_ids=False)
    scorer = CorpusScorer(ScoringOptions(NormalizerPolicy.parse("none")), reread=stream.reread)
    chunk = next(stream.chunks(10))  # read before the file changes, matched after
    _touch(combined)
    with pytest.raises(EarmarkError, match="changed"):
        scorer.add(chunk)


def test_sorted_runs_agree_with_a_set() -> None:
    rng = np.random.default_rng(5)
    runs, seen, added = SortedRuns(), set(), []
    for _ in range(300):
        chunk = rng.integers(-(2**40), 2**40, size=int(rng.integers(0, 40)), dtype=np.int64)
        if rng.random() < 0.1 and seen:
            chunk = np.append(chunk, rng.choice(sorted(seen)))
        values = chunk.tolist()
        repeats = len(set(values)) < len(values) or bool(seen & set(values))
        assert runs.add(chunk) == repeats
        seen |= set(values)
        added += values
        probe = rng.integers(-(2**40), 2**40, size=5, dtype=np.int64)
        if rng.random() < 0.3 and seen:
            probe[2] = rng.choice(sorted(seen))
        assert runs.contains_any(probe) == bool(seen & set(probe.tolist()))
    assert np.concatenate(runs.runs).size == len(added)
    assert all((np.diff(run) >= 0).all() for run in runs.runs)
    assert sorted(np.concatenate(runs.runs).tolist()) == sorted(added)
    assert len(runs.runs) <= 2 * np.log2(len(seen)) + 2


def _id_bytes(n: int, reread: bool) -> float:
    """Bytes per row that coding `n` streamed rows keeps once the last chunk is in (each
    chunk's rows made just before it is added and gone after, as a streamed file's are)."""

    def chunk(start: int) -> list[ScoringRow]:
        return [ScoringRow(f"utt{k:07d}", "a b", "a") for k in range(start, start + 2_000)]

    facts = RowFacts(reread=(lambda: [r for s in range(0, n, 2_000) for r in chunk(s)]))
    if not reread:
        facts = RowFacts()
    tracemalloc.start()
    try:
        for start in range(0, n, 2_000):
            facts.add(chunk(start))
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return kept / n


def test_ids_cost_their_digest_not_their_string() -> None:
    """Per row while streaming: language, status, speaker and slice codes (16 B, in
    arrays whose capacity doubles) and the digest (8 B); the string path keeps each id
    and its dict entry besides."""
    digests, strings = _id_bytes(60_000, True), _id_bytes(60_000, False)
    assert digests < 48, digests
    assert strings > digests + 60, (strings, digests)
