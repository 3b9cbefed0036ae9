"""The bases engines share (one clip at a time; the transformers pair), and the socket
target the arm's egress guard shares with the child-process guard."""

from __future__ import annotations

import socket
from collections.abc import Sequence

import numpy as np
import pytest

from earmark.engines.base import Clip, Hypothesis, ModelInfo
from earmark.engines.funasr import FunAsrEngine
from earmark.engines.local_engine import ClipByClipEngine
from earmark.engines.spec import ArmSpec
from earmark.engines.transformers_ctc import TransformersCtcEngine
from earmark.engines.transformers_runtime import TransformersEngine
from earmark.engines.transformers_seq2seq import TransformersSeq2SeqEngine
from earmark.engines.vosk import VoskEngine
from earmark.execution.egress_child import socket_target


class _Upper(ClipByClipEngine[None, None]):
    """Decodes a clip as its id in capitals, recording the order clips came in."""

    def __init__(self) -> None:
        super().__init__(ArmSpec("fake", "m", name="upper"), None, None)
        self.seen: list[str] = []

    def load(self) -> ModelInfo:
        self._start_load()
        self._model = object()
        self._info = ModelInfo("fake", "m", None, {}, None, None, "none", None, None, 0.0)
        return self._info

    def _one(self, clip: Clip, language: str | None) -> Hypothesis:
        self.seen.append(clip.id)
        return Hypothesis(clip.id, clip.id.upper(), 0.0, language_requested=language)


def _clips(ids: Sequence[str]) -> list[Clip]:
    return [Clip(i, np.zeros(16, dtype=np.float32), 16_000) for i in ids]


def test_clip_by_clip_decodes_each_clip_in_order_after_load() -> None:
    engine = _Upper()
    with pytest.raises(RuntimeError, match="arm 'upper': call load\\(\\) before transcribe"):
        engine.transcribe(_clips(["a"]), None)
    engine.load()
    out = engine.transcribe(_clips(["b", "a", "c"]), "en")
    assert [h.text for h in out] == ["B", "A", "C"] and engine.seen == ["b", "a", "c"]
    assert {h.language_requested for h in out} == {"en"}
    engine.close()
    with pytest.raises(RuntimeError, match="call load"):
        engine.transcribe(_clips(["a"]), None)


def test_engines_take_the_shared_bases() -> None:
    assert issubclass(VoskEngine, ClipByClipEngine) and issubclass(FunAsrEngine, ClipByClipEngine)
    assert issubclass(TransformersCtcEngine, TransformersEngine)
    assert issubclass(TransformersSeq2SeqEngine, TransformersEngine)


def test_socket_target_is_host_and_port_and_none_for_a_unix_socket() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as inet:
        assert socket_target(inet, ("192.0.2.1", 443)) == ("192.0.2.1", 443)
        assert socket_target(inet, "odd") == ("odd", None)
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as inet6:
        assert socket_target(inet6, ("2001:db8::1", 80, 0, 0)) == ("2001:db8::1", 80)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
        assert socket_target(unix, "/tmp/s") is None
