"""A record class read or written only a few times is handled by loops over its field
specs; from its `WARM_AFTER`-th use on, by code written out for it. Both give the same
records and the same JSON: pinned here on every results file kept under tests/, each read
and written wholly on one path and wholly on the other.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earmark.results import Results
from earmark.results import record as record_module
from earmark.results.metric import MetricResult

TESTS = Path(__file__).resolve().parent.parent
RESULTS = sorted(p for p in TESTS.rglob("results.json") if p.stat().st_size < 5_000_000)


def _read_and_write(path: Path) -> tuple[Results, list[tuple[str, object]]]:
    data = json.loads(path.read_text("utf-8"))
    results = Results._from_dict_checked(data, "")
    return results, list(results.to_dict().items())


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: str(p.relative_to(TESTS)))
def test_cold_and_warm_classes_write_the_same(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_module, "WARM_AFTER", 10**9)  # every class cold
    cold, cold_written = _read_and_write(path)
    monkeypatch.setattr(record_module, "WARM_AFTER", 0)  # every class warm
    warm = Results.from_dict(json.loads(path.read_text("utf-8")))
    assert warm == cold
    assert json.dumps(list(warm.to_dict().items())) == json.dumps(cold_written)  # key order too


def test_a_class_is_written_out_only_once_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    class Fresh(MetricResult):
        pass

    monkeypatch.setattr(record_module, "WARM_AFTER", 3)
    fields = dict(
        value=0.5, ci=None, substitutions=1, deletions=0, insertions=0, hits=1,
        ref_units=2, hyp_units=2, aggregate="micro", n_scored=1,
    )  # fmt: skip
    record = Fresh(**fields)  # type: ignore[arg-type]
    written = [record.to_dict() for _ in range(5)]
    assert "_earmark_encode" in Fresh.__dict__  # written out on the fourth use
    assert all(w == written[0] and list(w) == list(written[0]) for w in written)
    read = [Fresh.from_dict(written[0]) for _ in range(5)]
    assert "_earmark_fast_copy" in Fresh.__dict__
    assert all(r == record for r in read)
