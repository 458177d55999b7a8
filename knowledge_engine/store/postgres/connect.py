"""Pooled connections to the shared store, one pool per (URL, process), opened on first use.

Why a pool per URL and not per workspace: every agent of a process shares the database, and a
gateway with many agents must not open a pool each. The URL is never logged (it may hold a
password); errors name the host and database only.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from knowledge_engine.config import PostgresStorageConfig

log = logging.getLogger("knowledge_engine.store.postgres")

_POOLS: dict[tuple[str, int], ConnectionPool] = {}
_LOCK = threading.Lock()


class StoreDatabaseError(RuntimeError):
    """The shared store cannot be reached or used; the message names the server, never the password."""


def describe(url: str) -> str:
    """`host:port/dbname` of a URL, for messages and logs (no user, no password)."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparseable PostgreSQL URL>"
    host = str(parts.get("host") or "localhost")
    if host.startswith("/"):
        host = "unix socket"
    return f"{host}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"


def tcp_options(url: str, timeout_ms: int) -> dict[str, Any]:
    """libpq options that end a connection the network dropped (a partition: packets lost, nothing
    refused) in about `timeout_ms`, not after the kernel's retries (15+ minutes for a read, 2 hours for
    an idle socket): TCP keepalives, and tcp_user_timeout for data sent but never acknowledged. A
    server-side statement_timeout cannot help there. Options the URL sets itself are left to it."""
    wanted = {
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": max(1000, timeout_ms),
    }
    given = conninfo_to_dict(url) if url else {}
    return {k: v for k, v in wanted.items() if k not in given}


def pool(cfg: PostgresStorageConfig) -> ConnectionPool:
    """The process's pool for this URL (opened, and the schema migrated, on first use)."""
    key = (cfg.url, os.getpid())  # a forked child must not share its parent's sockets
    with _LOCK:
        found = _POOLS.get(key)
        if found is not None and not found.closed:
            return found
        opts = f"-c statement_timeout={cfg.statement_timeout_ms}"
        _probe(cfg)
        made = ConnectionPool(
            cfg.url,
            min_size=1,
            max_size=cfg.pool_max,
            timeout=cfg.connect_timeout_ms / 1000,
            kwargs={
                "autocommit": True,
                "options": opts,
                "connect_timeout": max(1, cfg.connect_timeout_ms // 1000),
                **tcp_options(cfg.url, cfg.statement_timeout_ms + cfg.connect_timeout_ms),
            },
            open=False,
            name="knowledge-engine-store",
        )
        try:
            made.open(wait=True, timeout=cfg.connect_timeout_ms / 1000)
        except Exception as exc:
            made.close()
            raise StoreDatabaseError(
                f"cannot reach the PostgreSQL store at {describe(cfg.url)}: {type(exc).__name__}"
            ) from exc
        from knowledge_engine.store.postgres.schema import migrate

        with made.connection() as conn:
            migrate(conn)
        _POOLS[key] = made
        return made


# libpq's reason for a failed connection -> what to say (its own text is not shown: it may quote names)
_REASONS = (
    ("connection refused", "connection refused"),
    ("no such file or directory", "no server socket at that path"),
    ("password authentication failed", "password authentication failed"),
    ("no password supplied", "no password supplied"),
    ('role "', "no such role (user)"),  # FATAL:  role "x" does not exist
    ('database "', "no such database"),
    ("timeout expired", "no answer within storage.postgres.connectTimeoutMs"),
    ("could not translate host name", "unknown host name"),
    ("the database system is starting up", "the server is starting up"),
    ("the database system is shutting down", "the server is shutting down"),
)


def _probe(cfg: PostgresStorageConfig) -> None:
    """One direct connection before the pool is made. A server that refuses (stopped, wrong port, no
    socket, wrong password) fails here at once with a reason; the pool would retry it in the background
    until its timeout and end in a bare PoolTimeout, logging libpq's text (host, port) twice a second."""
    timeout_s = max(1, cfg.connect_timeout_ms // 1000)
    try:
        psycopg.connect(
            cfg.url, autocommit=True, connect_timeout=timeout_s,
            **tcp_options(cfg.url, cfg.statement_timeout_ms + cfg.connect_timeout_ms),
        ).close()  # fmt: skip
    except psycopg.Error as exc:
        text = str(exc).lower()
        reason = next((say for key, say in _REASONS if key in text), type(exc).__name__)
        where = describe(cfg.url)
        raise StoreDatabaseError(f"cannot reach the PostgreSQL store at {where}: {reason}") from exc


@contextmanager
def connection(cfg: PostgresStorageConfig) -> Iterator[psycopg.Connection]:
    """A pooled connection (autocommit; use `conn.transaction()` for several statements)."""
    with pool(cfg).connection() as conn:
        yield conn


def close_all() -> None:
    """Close every pool of this process (gateway_stop, tests, exit)."""
    with _LOCK:
        pools = [p for (_, pid), p in _POOLS.items() if pid == os.getpid()]
        _POOLS.clear()
    for p in pools:
        p.close()


atexit.register(close_all)
