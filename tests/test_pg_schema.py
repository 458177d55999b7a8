"""The shared store's migrations against a real PostgreSQL (issue 17): applied once, in order,
safely from several nodes at once, and a database newer than the engine is refused."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

from knowledge_engine.store.postgres.schema import SchemaTooNewError, migrate, migrations
from tests.fixtures.postgres import fresh_database


def test_every_migration_is_applied_once_and_recorded(pg_url: str) -> None:
    url = fresh_database(pg_url, "ke_schema_once")
    with psycopg.connect(url, autocommit=True) as conn:
        first = migrate(conn)
        again = migrate(conn)
        rows = conn.execute("SELECT version, name FROM ke_schema_migrations ORDER BY version").fetchall()
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'ke_%'")}
    assert first == [v for v, _, _ in migrations()]
    assert again == []
    assert rows == [(v, n) for v, n, _ in migrations()]
    assert {"ke_records", "ke_tombstones", "ke_meta", "ke_applied", "ke_quarantine"} <= tables


def test_nodes_that_start_together_migrate_once(pg_url: str) -> None:
    url = fresh_database(pg_url, "ke_schema_race")
    results: list[Any] = []

    def node() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            try:
                results.append(migrate(conn))
            except Exception as exc:  # pragma: no cover - the assertion below shows it
                results.append(exc)

    threads = [threading.Thread(target=node) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    applied = [r for r in results if r]
    assert len(results) == 4 and all(isinstance(r, list) for r in results), results
    assert applied == [[v for v, _, _ in migrations()]]


def test_a_database_migrated_by_a_newer_engine_is_refused(pg_url: str) -> None:
    url = fresh_database(pg_url, "ke_schema_newer")
    with psycopg.connect(url, autocommit=True) as conn:
        migrate(conn)
        conn.execute("INSERT INTO ke_schema_migrations (version, name) VALUES (9999, 'future')")
        with pytest.raises(SchemaTooNewError, match="upgrade knowledge-engine"):
            migrate(conn)
