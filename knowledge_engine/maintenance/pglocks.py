"""Maintenance locks of the shared store: PostgreSQL advisory locks keyed by what and which agent.

Why advisory locks and not the workspace's lock files: with `storage.backend = postgres` several
machines work on one agent, and a flock on one machine's disk means nothing to the others. A
session-level `pg_try_advisory_lock` is held by one database session; the server releases it when
that session ends, so a node killed mid-job (kill -9, a lost network) never leaves a stale lock.
Each lock has its own connection, outside the pool: a pooled connection handed back while it still
held a lock would lend the lock to whatever borrows it next.

Keys are 64-bit hashes of `ke:<scope>:<agent>` (blake2b, computed here so every node agrees without
relying on a server function); two names that collide only make one run skip, never run twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator
from typing import Protocol

import psycopg

from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.store.postgres.connect import StoreDatabaseError, describe, tcp_options

POLL_S = 0.05


class Stoppable(Protocol):
    """locks.Stoppable, restated: locks imports this module, so it cannot import locks back."""

    def check(self) -> None: ...


def lock_id(scope: str, agent: str) -> int:
    """The advisory lock id of one job (or the store-jobs scope `meta`) of one agent."""
    digest = hashlib.blake2b(f"ke:{scope}:{agent}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _connect(cfg: PostgresStorageConfig) -> psycopg.Connection:
    try:
        return psycopg.connect(
            cfg.url,
            autocommit=True,
            connect_timeout=max(1, cfg.connect_timeout_ms // 1000),
            application_name="knowledge-engine-lock",
            # a lock held over a dropped network must end, or the job it guards never runs again
            **tcp_options(cfg.url, cfg.statement_timeout_ms + cfg.connect_timeout_ms),
        )
    except psycopg.Error as exc:
        raise StoreDatabaseError(
            f"cannot reach the PostgreSQL store at {describe(cfg.url)}: {type(exc).__name__}"
        ) from exc


def _try(conn: psycopg.Connection, key: int) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return bool(row and row[0])


def _unlock(conn: psycopg.Connection, key: int) -> None:
    with contextlib.suppress(psycopg.Error):  # a broken session: the server already released it
        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


@contextlib.contextmanager
def try_lock(cfg: PostgresStorageConfig, scope: str, agent: str) -> Iterator[bool]:
    """Non-blocking: yields False when another session (any node) holds the lock."""
    key = lock_id(scope, agent)
    conn = _connect(cfg)
    try:
        if not _try(conn, key):
            yield False
            return
        try:
            yield True
        finally:
            _unlock(conn, key)
    finally:
        conn.close()


@contextlib.contextmanager
def wait_lock(
    cfg: PostgresStorageConfig, scope: str, agent: str, timeout_s: float, ctx: Stoppable | None = None
) -> Iterator[None]:
    """Blocking with a deadline (TimeoutError); a stop request ends the wait (Cancelled), as the file lock."""
    key = lock_id(scope, agent)
    conn = _connect(cfg)
    try:
        tries = max(1, int(timeout_s / POLL_S))  # counted, not clocked: immune to a frozen test clock
        for _ in range(tries):
            if _try(conn, key):
                try:
                    yield
                finally:
                    _unlock(conn, key)
                return
            if ctx is not None:
                ctx.check()
            time.sleep(POLL_S)
        raise TimeoutError(f"maintenance lock {scope} of this agent held by another node")
    finally:
        conn.close()


def held_elsewhere(cfg: PostgresStorageConfig, scope: str, agent: str) -> bool:
    """True while some session holds the lock (for status and tests). Read from pg_locks, never by
    taking the lock: a probe that held it for an instant would make a real run skip."""
    key = lock_id(scope, agent) & 0xFFFFFFFFFFFFFFFF  # pg_locks shows the key as two unsigned halves
    conn = _connect(cfg)
    try:
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND classid = %s::bigint::oid AND objid = %s::bigint::oid AND objsubid = 1)",
            (key >> 32, key & 0xFFFFFFFF),
        ).fetchone()
    finally:
        conn.close()
    return bool(row and row[0])
