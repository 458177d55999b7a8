"""A fact stated a moment ago is found by meaning at once, not only after the next sync (index/live.py).

Before, the live indexer embedded the stored messages only; the facts extracted from them reached the
vector index at the next sync (every 15 minutes), so "Who pays my salary?" found the fact works-at
Northwind Labs by its words and entities only. These tests run the real local embedder, real spaCy
and a real embedded Chroma index (and a Chroma server that is not there).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.index.live import LiveIndexer
from knowledge_engine.model.records import Fact, Message
from knowledge_engine.model.retrieval import RetrievalRequest
from knowledge_engine.observe import counters
from knowledge_engine.retrieve.sources.local import LocalSource
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.chroma import _free_port
from tests.fixtures.postgres import database_fixture, store_config

DEADLINE_S = 120
ASKED = "Who pays my salary?"  # shares no word with either fact


def _engine(root: Path, **over: Any) -> KnowledgeEngine:
    return KnowledgeEngine(
        load_config(
            {
                "workspaceRoot": str(root),
                "extraction": {"llm": {"enabled": False}, "spacy": {"workers": 0}},
                "maintenance": {"enabled": False},  # no scheduled sync: only the live indexer indexes
                **over,
            }
        )
    )


def _say(engine: KnowledgeEngine, ws: Workspace, mid: str, text: str) -> None:
    engine.ingest(ws, [Message(id=mid, text=text, role="user", session="s1", speaker="user")])


def _job(ws: Workspace, employer: str) -> Fact:
    (fact,) = [f for f in ws.facts.all() if f.predicate == "works-at" and f.object == employer]
    return fact


def _vector_arm(engine: KnowledgeEngine, ws: Workspace) -> set[str]:
    """The facts the vector arm of a search for ASKED found (the retriever drops invalid ones)."""
    items = LocalSource(engine, ws).search_sync(RetrievalRequest(query=ASKED, agent_id=ws.agent_id))
    return {i.id for i in items if i.kind == "fact" and "vector" in i.scores}


def _until(check: Any) -> bool:
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _valid_in_index(engine: KnowledgeEngine, ws: Workspace, fid: str) -> bool | None:
    got = engine.chroma(ws).collection("facts").get(ids=[fid], include=["metadatas"])
    return bool(got["metadatas"][0]["valid"]) if got["ids"] else None


def test_a_new_fact_and_its_supersession_reach_the_index_without_a_sync(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    ws = engine.open_workspace(tmp_path / "ws")
    try:
        _say(engine, ws, "m1", "I work at Northwind Labs as a data engineer.")
        old = _job(ws, "Northwind Labs")
        assert _until(lambda: old.id in _vector_arm(engine, ws))
        first = engine.sync(ws).per_kind["facts"]  # writes the hash cache, and finds nothing to do
        assert (first["embedded"], first["updated"], first["deleted"]) == (0, 0, 0), first

        _say(engine, ws, "m2", "I left Northwind and started a new job at Helix Robotics this week.")
        new = _job(ws, "Helix Robotics")
        assert not _job(ws, "Northwind Labs").is_valid  # the store superseded the old job
        assert _until(lambda: new.id in _vector_arm(engine, ws))
        assert _until(lambda: _valid_in_index(engine, ws, old.id) is False)  # not found as current
        assert old.id not in _vector_arm(engine, ws)

        hits = counters.get("sync.hash_cache_hit")
        second = engine.sync(ws).per_kind["facts"]
        assert (second["embedded"], second["updated"], second["deleted"]) == (0, 0, 0), second
        assert second["unchanged"] == len(ws.facts.all())
        assert counters.get("sync.hash_cache_hit") > hits  # the live writes kept the cache valid
    finally:
        engine.stop()


def test_with_live_indexing_off_facts_wait_for_the_sync(tmp_path: Path) -> None:
    """The control: the same statement, `embeddings.liveIndex` off, is not in the index until a sync."""
    engine = _engine(tmp_path, embeddings={"liveIndex": False})
    ws = engine.open_workspace(tmp_path / "ws")
    try:
        _say(engine, ws, "m1", "I work at Northwind Labs as a data engineer.")
        fact = _job(ws, "Northwind Labs")
        assert engine.chroma(ws).count("facts") == 0
        assert engine.sync(ws).per_kind["facts"]["embedded"] == len(ws.facts.all())
        assert fact.id in _vector_arm(engine, ws)
    finally:
        engine.stop()


def test_too_many_changed_facts_are_left_to_the_sync_and_counted(tmp_path: Path) -> None:
    engine = _engine(tmp_path, embeddings={"liveIndex": False})
    ws = engine.open_workspace(tmp_path / "ws")
    live = LiveIndexer(engine.chroma, max_pending=1)
    try:
        since = LiveIndexer.mark(ws)
        ws.facts.add("Dana", "likes", "sailing")
        ws.facts.add("Dana", "likes", "chess")
        skipped = counters.get("index.live_facts_skipped")
        live.submit_facts(ws, since)
        assert live.wait_idle(DEADLINE_S)
        assert counters.get("index.live_facts_skipped") == skipped + 1
        assert engine.chroma(ws).count("facts") == 0
        assert engine.sync(ws).per_kind["facts"]["embedded"] == 2  # the sync is the safety net
    finally:
        live.stop(5)
        engine.stop()


def test_a_dead_chroma_server_never_breaks_fact_ingestion(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Live indexing of facts against a Chroma server that is not there: logged and counted, nothing
    raised, every fact stored."""
    dead = f"http://127.0.0.1:{_free_port()}"
    engine = _engine(tmp_path, chroma={"url": dead})
    ws = engine.open_workspace(tmp_path / "ws")
    failed = counters.get("index.live_failed")
    try:
        with caplog.at_level(logging.WARNING, logger="knowledge_engine.index"):
            _say(engine, ws, "m1", "I work at Northwind Labs as a data engineer.")
            assert _until(lambda: any("facts failed" in r.getMessage() for r in caplog.records))
        assert counters.get("index.live_failed") > failed
        assert _job(ws, "Northwind Labs").is_valid
        assert engine.flush(DEADLINE_S, sync=False)
    finally:
        engine.stop()


pg_db = database_fixture("ke_live_facts")


def test_on_postgres_facts_reach_pgvector_and_the_sync_finds_them(tmp_path: Path, pg_db: str) -> None:
    """The shared backend: the fact table's change log is the database's, the index is pgvector."""
    engine = _engine(tmp_path, **{**store_config(pg_db), "embeddings": {"enabled": True}})
    ws = engine.open_workspace(tmp_path / "ws", "live")
    try:
        _say(engine, ws, "m1", "I work at Northwind Labs as a data engineer.")
        fact = _job(ws, "Northwind Labs")
        assert _until(lambda: fact.id in engine.chroma(ws).stored_hashes("facts"))
        assert fact.id in _vector_arm(engine, ws)
        report = engine.sync(ws).per_kind["facts"]
        assert (report["embedded"], report["updated"], report["deleted"]) == (0, 0, 0), report
    finally:
        engine.stop()
