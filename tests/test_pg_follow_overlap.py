"""A look for other nodes' changes no longer holds the table's mutex while the database answers (so a
prompt never waits for it), which lets a flush of this node commit between the look's read and its
adoption. What the look read is then older than what the flush wrote: it must not be adopted over
it (the record in memory would go back to its earlier version). Real PostgreSQL: the look is held
between its reads by a lock on ke_meta, the last table it reads, which the flush does not touch."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import psycopg

from knowledge_engine.config import EngineConfig
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence
from tests.fixtures.postgres import database_fixture, store_config
from tests.fixtures.waiting import wait_for

DB = "ke_follow_overlap"
pg_db = database_fixture(DB)
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _evidence(i: int) -> Evidence:
    return Evidence(message_id=f"m{i}", session="s1", role="user", timestamp=T0)


def test_a_flush_during_a_look_is_not_undone_by_it(pg_db: str, tmp_path: Path) -> None:
    raw = store_config(pg_db)
    raw["storage"]["postgres"] |= {"followMs": 0}
    raw["extraction"] = {"llm": {"enabled": False}}
    engine = KnowledgeEngine(EngineConfig.model_validate(raw))
    try:
        ws = engine.workspace("overlap", str(tmp_path))
        fact, _ = ws.facts.add("Ann", "works-at", "Acme Robotics", evidence=[_evidence(1)])
        assert ws.flush()
        with psycopg.connect(pg_db, autocommit=True) as admin:
            admin.execute("BEGIN")
            admin.execute("LOCK TABLE ke_meta IN ACCESS EXCLUSIVE MODE")
            ws.follow_for_prompt()  # reads ke_records (the version just written), then waits for ke_meta

            def look_waits() -> bool:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s",
                    ("%ke_meta%",),
                ).fetchone()
                return bool(row and row[0])

            wait_for("the look to wait for ke_meta", look_waits)
            ws.facts.add("Ann", "works-at", "Acme Robotics", evidence=[_evidence(2)])
            assert ws.flush()  # the second version is stored while the look holds the first
            admin.execute("COMMIT")
        wait_for("the look to end", lambda: not ws.following)
        kept = ws.facts.get(fact.id)
        assert kept is not None and {e.message_id for e in kept.evidence} == {"m1", "m2"}
        ws.follow()  # the next look adopts what is stored: the same second version
        kept = ws.facts.get(fact.id)
        assert kept is not None and {e.message_id for e in kept.evidence} == {"m1", "m2"}
        assert not ws.facts.table.has_changes
    finally:
        engine.stop(10)
