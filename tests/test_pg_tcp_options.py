"""A network that drops packets (a partition, nothing refused) must end the store's connections in
seconds, not after the kernel's retries (15+ minutes for a read, 2 hours for an idle socket): the
connections carry TCP keepalives and tcp_user_timeout, checked here on what libpq itself holds."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.store.postgres.connect import close_all, connection, tcp_options
from tests.fixtures.postgres import database_fixture

pg_keepalive_db = database_fixture("ke_tcp_options")


def _libpq(conn: psycopg.Connection) -> dict[str, str]:
    """The connection options libpq uses (PQconninfo), the password left out."""
    return {
        o.keyword.decode(): o.val.decode() for o in conn.pgconn.info if o.val and o.keyword != b"password"
    }


def test_options_the_url_sets_are_left_to_it() -> None:
    assert tcp_options("postgresql://h/db", 12000) == {
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": 12000,
    }
    chosen = tcp_options("postgresql://h/db?keepalives=0&tcp_user_timeout=5000", 12000)
    assert "keepalives" not in chosen and "tcp_user_timeout" not in chosen and chosen["keepalives_idle"] == 30


@pytest.fixture
def store(pg_keepalive_db: str) -> Iterator[PostgresStorageConfig]:
    yield PostgresStorageConfig(url=pg_keepalive_db, statement_timeout_ms=4000, connect_timeout_ms=2000)
    close_all()


def test_the_store_pool_connections_carry_keepalives_and_a_user_timeout(store: PostgresStorageConfig) -> None:
    with connection(store) as conn:
        opts = _libpq(conn)
    assert opts["keepalives"] == "1" and opts["keepalives_idle"] == "30" and opts["keepalives_count"] == "3"
    assert opts["tcp_user_timeout"] == "6000"  # the statement timeout plus the connect timeout


def test_the_job_lock_connection_carries_them_too(store: PostgresStorageConfig) -> None:
    from knowledge_engine.maintenance.pglocks import _connect

    with _connect(store) as conn:
        assert _libpq(conn)["tcp_user_timeout"] == "6000"


def test_the_document_source_pool_carries_them(pg_keepalive_db: str) -> None:
    import asyncio

    from knowledge_engine.config import PgvectorConfig
    from knowledge_engine.retrieve.sources.pgvector import close_pools, get_pool

    async def options() -> dict[str, str]:
        pool = await get_pool(PgvectorConfig(enabled=True, url=pg_keepalive_db, timeout_ms=1500))
        try:
            async with pool.connection() as conn:
                return {o.keyword.decode(): o.val.decode() for o in conn.pgconn.info if o.val}
        finally:
            await close_pools()

    opts = asyncio.run(options())
    assert opts["keepalives"] == "1" and opts["tcp_user_timeout"] == "1500"
