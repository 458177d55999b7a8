"""Many threads asking a fresh engine for a workspace's Chroma index at the same moment.

`engine.chroma` used to build the index outside its lock: racing threads each opened an embedded
PersistentClient on the same folder, and chromadb's shared system for that path was torn down under
the others ("Could not connect to tenant default_tenant", then AttributeErrors in vector search).
The index must be built once and every caller must get that one, working index.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine

THREADS = 12
ROUNDS = 3


def _race(engine: KnowledgeEngine, ws: Any) -> tuple[list[Any], list[BaseException]]:
    """THREADS threads released together; each opens the index and runs a vector search."""
    start = threading.Barrier(THREADS)
    got: list[Any] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    vector = [0.0] * engine.embedder.dimensions
    vector[0] = 1.0

    def worker() -> None:
        try:
            start.wait(timeout=60)
            index = engine.chroma(ws)
            index.query_facts(vector, 3)
            index.query_messages(vector, 3)
            with lock:
                got.append(index)
        except BaseException as exc:  # every failure is the finding
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=worker, name=f"race-{i}") for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread never returned (deadlock?)"
    return got, errors


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_racing_threads_get_one_working_index(tmp_path: Path, round_: int) -> None:
    cfg = load_config({"workspace": str(tmp_path / "ws-{agentId}"), "storage": {"writeDebounceMs": 0}})
    engine = KnowledgeEngine(cfg)
    try:
        ws = engine.workspace("main", None)
        engine.embedder.embed_query("warm the model so threads race on Chroma, not on the ONNX load")
        got, errors = _race(engine, ws)
        assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
        assert len(got) == THREADS
        assert len({id(i) for i in got}) == 1, "the index was built more than once"
        ws.facts.add("Dana", "works-at", "Initech")
        ws.flush()
        engine.sync(ws)
        index = engine.chroma(ws)
        assert index.count("facts") == len(ws.facts.all()) > 0
    finally:
        engine.stop(5)
