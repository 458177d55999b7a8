"""The first prompt of a shared-store outage (issue 17 leftover): the look for other nodes' changes
runs in the background, so the prompt that meets a database that stopped answering is answered from
the facts in memory instead of waiting for the connect timeout and missing the local source's time
limit. The failed look still marks the store down for the prompts after it. Real PostgreSQL; the
outage is the database refusing connections and the agent's connections cut."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from knowledge_engine.config import EngineConfig
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.retrieve.retriever import retriever_for
from knowledge_engine.store.postgres.connect import pool
from tests.fixtures.postgres import database_fixture, store_config
from tests.fixtures.waiting import wait_for

DB = "ke_outage_prompt"
pg_db = database_fixture(DB)
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _block(retriever: object, question: str) -> str:
    """What before_prompt_build injects for `question` (each question asked once: no cache hit)."""
    event = {"prompt": question, "messages": [{"role": "user", "content": question}]}
    result = asyncio.run(retriever.hook(event, {"agentId": "outage", "trigger": "user"}))  # type: ignore[attr-defined]
    return "\n".join(result.values()) if result else ""


def test_prompts_of_an_outage_answer_from_memory(pg_db: str, pg_url: str, tmp_path: Path) -> None:
    raw = store_config(pg_db)
    # the connect timeout is longer than the local source's time limit: a prompt that waited for a
    # connection would lose every local item
    raw["storage"] |= {"writeDebounceMs": 60_000}  # this test flushes itself
    raw["storage"]["postgres"] |= {"followMs": 0, "connectTimeoutMs": 3000}
    raw["retrieval"] = {"localTimeoutMs": 1500}
    raw["extraction"] = {"llm": {"enabled": False}}
    engine = KnowledgeEngine(EngineConfig.model_validate(raw))
    try:
        ws = engine.workspace("outage", str(tmp_path))
        ws.messages.append(
            Message(
                id="m1",
                session="s1",
                role="user",
                speaker="Ann",
                timestamp=T0,
                text="Ann works at Acme Robotics in the harbour district",
            )
        )
        ev = Evidence(message_id="m1", session="s1", role="user", timestamp=T0)
        ws.facts.add("Ann", "works-at", "Acme Robotics", evidence=[ev])
        assert ws.flush()
        retriever = retriever_for(engine, ws)
        assert "Acme Robotics" in _block(retriever, "Where does Ann work these days?")
        wait_for("the look before the first prompt to end", lambda: not ws.following)

        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS false')
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (DB,))
            try:
                assert not ws.store_down  # nobody has met the outage yet
                first = _block(retriever, "Which company does Ann work for?")
                assert "Acme Robotics" in first, first
                # the look the first prompt started fails in the background: later prompts know at once
                wait_for("the failed look to mark the store down", lambda: ws.store_down and not ws.following)

                # a flush waiting for a connection does not hold the records a prompt reads
                ws.facts.add("Ann", "lives-in", "Porto", evidence=[ev])
                flushing = threading.Thread(target=ws.flush)
                flushing.start()
                store_pool = pool(ws.config.storage.postgres)
                wait_for("the flush to wait", lambda: store_pool.get_stats()["requests_waiting"] > 0)
                second = _block(retriever, "Who is Ann's employer?")
                assert "Acme Robotics" in second, second
                flushing.join()
                assert ws.flush_errors  # the change stays in memory, retried by the next flush
            finally:
                admin.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS true')
        wait_for("the change kept in memory to be written", ws.flush)
        with psycopg.connect(pg_db) as conn:
            rows = conn.execute("SELECT body->>'object' FROM ke_records WHERE kind = 'facts'").fetchall()
        assert {"Acme Robotics", "Porto"} <= {r[0] for r in rows}
    finally:
        engine.stop(10)
