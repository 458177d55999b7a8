"""Issue 16 §1: the engine owns its retrievers (and its retrieval warm-up), so nothing outlives it.

They were cached in module-level dicts keyed by id(engine) (and by the engine, with values that
held it): a stopped engine was never released, and an id reused by a new engine could hand it the
old engine's retriever.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.retrieve.retriever import Retriever, retriever_for
from knowledge_engine.retrieve.warmup import warm_engine

WAIT_S = 120.0  # generous: the embedding model may load on a busy machine


def _engine(tmp_path: Path) -> KnowledgeEngine:
    return KnowledgeEngine(load_config({"storage": {"writeDebounceMs": 3_600_000}}))


def _stopped_and_dropped(
    tmp_path: Path, warm: bool
) -> tuple[weakref.ref[KnowledgeEngine], weakref.ref[Retriever]]:
    engine = _engine(tmp_path)
    ws = engine.open_workspace(tmp_path / "ws", "main")
    retriever = retriever_for(engine, ws)
    assert retriever_for(engine, ws) is retriever  # one per workspace while the engine runs
    if warm:
        assert warm_engine(engine).wait(WAIT_S)
        assert retriever.wait_ready(WAIT_S)
    engine.stop()
    return weakref.ref(engine), weakref.ref(retriever)


def test_a_stopped_engine_and_its_retrievers_are_released(tmp_path: Path) -> None:
    engine_ref, retriever_ref = _stopped_and_dropped(tmp_path, warm=False)
    gc.collect()
    assert retriever_ref() is None
    assert engine_ref() is None


def test_a_warmed_up_engine_is_released_too(tmp_path: Path) -> None:
    engine_ref, retriever_ref = _stopped_and_dropped(tmp_path, warm=True)
    gc.collect()
    assert retriever_ref() is None
    assert engine_ref() is None


def test_a_new_engine_never_gets_another_engines_retriever(tmp_path: Path) -> None:
    first, second = _engine(tmp_path), _engine(tmp_path)
    try:
        folder = tmp_path / "ws"
        a = retriever_for(first, first.open_workspace(folder, "main"))
        b = retriever_for(second, second.open_workspace(folder, "main"))
        assert a is not b and a.engine is first and b.engine is second
    finally:
        first.stop()
        second.stop()
