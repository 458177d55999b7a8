"""Retrieval while the shared store's database is down (issue 17): once a look for other nodes'
changes has failed, a prompt is answered from the facts in memory at once, instead of every database
read (message log, speakers, newest time) waiting for the connect timeout; when the database is back,
the next look succeeds and the full search returns. Real PostgreSQL; the outage is the database
refusing connections and the agent's connections cut."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import psycopg

from knowledge_engine.config import EngineConfig
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.model.retrieval import RetrievalRequest
from knowledge_engine.observe import counters
from knowledge_engine.retrieve.sources.local import LocalSource
from tests.fixtures.postgres import database_fixture, store_config
from tests.fixtures.waiting import wait_for

DB = "ke_outage_retrieval"
pg_db = database_fixture(DB)
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _kinds(items: list) -> dict[str, list[str]]:  # type: ignore[type-arg]
    out: dict[str, list[str]] = {}
    for i in items:
        out.setdefault(i.kind, []).append(i.text)
    return out


def test_with_the_database_down_the_facts_in_memory_still_answer(
    pg_db: str, pg_url: str, tmp_path: Path
) -> None:
    raw = store_config(pg_db)
    raw["storage"]["postgres"] |= {"followMs": 0, "connectTimeoutMs": 1000}
    raw["extraction"] = {"llm": {"enabled": False}}
    engine = KnowledgeEngine(EngineConfig.model_validate(raw))
    try:
        ws = engine.workspace("outage", str(tmp_path))
        said = Message(
            id="m1",
            session="s1",
            role="user",
            speaker="Ann",
            timestamp=T0,
            text="Ann works at Acme Robotics in the harbour district",
        )
        ws.messages.append(said)
        ev = Evidence(message_id="m1", session="s1", role="user", timestamp=T0)
        ws.facts.add("Ann", "works-at", "Acme Robotics", evidence=[ev])
        assert ws.flush()
        source = LocalSource(engine, ws)
        ask = RetrievalRequest(query="Where does Ann work? Acme Robotics harbour")
        up = _kinds(source.search_sync(ask, semantic=False))
        assert up.get("memory") and any("Acme Robotics" in t for t in up.get("fact", []))

        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS false')
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (DB,))
            try:
                ws.follow()  # the engine meets the outage: counted, not raised
                assert ws.store_down
                skipped = counters.get("retrieve.store_down")
                down = _kinds(source.search_sync(ask, semantic=False))
                assert any("Acme Robotics" in t for t in down.get("fact", [])), down
                assert "memory" not in down  # the log is in the database: not waited for
                assert counters.get("retrieve.store_down") == skipped + 1
            finally:
                admin.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS true')

        def back() -> bool:
            ws.follow()  # retried after its backoff (1 s, doubling)
            return not ws.store_down

        wait_for("the look for changes to succeed again", back)
        again = _kinds(source.search_sync(ask, semantic=False))
        assert again.get("memory") and any("Acme Robotics" in t for t in again.get("fact", []))
    finally:
        engine.stop(10)


def test_a_file_store_is_never_down(tmp_path: Path) -> None:
    engine = KnowledgeEngine(EngineConfig.model_validate({"embeddings": {"enabled": False}}))
    try:
        ws = engine.workspace("files", str(tmp_path))
        ws.follow()
        assert not ws.store_down
    finally:
        engine.stop(10)
