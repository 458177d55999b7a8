"""The first prompt after the shared store stops, right after a message (new-user pass 3): the read
of the newest message's time (the block's "now") waited for the pool's timeout, then the local
source timed out on the message log, and the prompt injected nothing after two seconds. Now that
read is bounded, a hang or a failure starts a look at the database at once, and the prompt answers
from the facts in memory. Our own PostgreSQL server, stopped for real.

Which of the two the read meets depends on who uses the pool's idle connection first: the server
killed it, so its first user fails at once (AdminShutdown) and later ones wait for a new connection.
A CI run met the failure while the hang was the only path handled: the look never started, the
message log waited, and the prompt injected nothing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from knowledge_engine.config import EngineConfig
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.observe import counters
from knowledge_engine.retrieve.retriever import retriever_for
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import fresh_database, pg_server_in_tempdir, store_config

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _ask(retriever: object, question: str) -> str:
    event = {"prompt": question, "messages": [{"role": "user", "content": question}]}
    result = asyncio.run(retriever.hook(event, {"agentId": "first", "trigger": "user"}))  # type: ignore[attr-defined]
    return "\n".join(result.values()) if result else ""


def _misses() -> int:
    """Reads of the newest message time that gave up: a hang or a failure."""
    return counters.get("retrieve.newest_time_timeouts") + counters.get("retrieve.newest_time_errors")


def _engine_with_a_fact(url: str, tmp_path: Path) -> tuple[KnowledgeEngine, Workspace, Any]:
    raw = store_config(url)
    raw["storage"]["writeDebounceMs"] = 15_000  # the default: no write on the prompt's path
    raw["extraction"] = {"llm": {"enabled": False}, "spacy": {"enabled": False}}
    engine = KnowledgeEngine(EngineConfig.model_validate(raw))
    ws = engine.workspace("first", str(tmp_path))
    ws.messages.append(
        Message(id="m1", session="s1", role="user", speaker="Ann", timestamp=T0, text="Ann works at Acme")
    )
    ws.facts.add("Ann", "works-at", "Acme Robotics", evidence=[Evidence(message_id="m1", timestamp=T0)])
    assert ws.flush()
    retriever = retriever_for(engine, ws)
    assert "Acme Robotics" in _ask(retriever, "Where does Ann work?")
    # the prompt touched the fact, and on the shared store its write is due within followMs: written
    # now, so no write meets the stopped server before the next prompt does (a loaded run saw it)
    ws.flush()
    return engine, ws, retriever


def test_the_first_prompt_of_an_outage_answers_from_memory(tmp_path: Path) -> None:
    with pg_server_in_tempdir() as server:  # our own server: the session's is not stopped under others
        engine, ws, retriever = _engine_with_a_fact(fresh_database(server.url, "ke_first_prompt"), tmp_path)
        try:
            server.stop()
            engine.submit(
                ws, Message(id="m2", session="s1", role="user", speaker="Ann", text="Ann likes tea")
            )
            misses = _misses()
            block = _ask(retriever, "Which company does Ann work for?")
            assert "Acme Robotics" in block, block
            assert _misses() == misses + 1
            assert ws.store_down  # the look the miss started: later prompts answer from memory at once
        finally:
            server.start()
            engine.stop(10)


def test_a_prompt_that_meets_the_killed_connection_first_answers_from_memory(tmp_path: Path) -> None:
    """Nothing else uses the pool after the stop: the prompt's read of the newest time takes the idle
    connection the server killed and fails at once."""
    with pg_server_in_tempdir() as server:
        engine, ws, retriever = _engine_with_a_fact(fresh_database(server.url, "ke_killed_conn"), tmp_path)
        try:
            server.stop()
            errors = counters.get("retrieve.newest_time_errors")
            block = _ask(retriever, "Which company does Ann work for?")
            assert "Acme Robotics" in block, block
            assert counters.get("retrieve.newest_time_errors") == errors + 1
            assert ws.store_down
        finally:
            server.start()
            engine.stop(10)
