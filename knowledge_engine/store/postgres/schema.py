"""Versioned migrations of the shared store: `migrations/NNNN_name.sql`, applied in order, once.

Why files and a version table, not `CREATE IF NOT EXISTS` scattered in the code: every node of a
cluster must agree on one schema, an upgrade must be one step that either happens or not, and a
node older than the database must refuse to write to it rather than guess.
"""

from __future__ import annotations

import re
from importlib import resources

import psycopg

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK_KEY = 0x6B655F736368  # advisory lock id of "ke_sch": one migrating node at a time


class SchemaTooNewError(RuntimeError):
    """The database was migrated by a newer engine than this one."""


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every bundled migration, in version order."""
    found: list[tuple[int, str, str]] = []
    for entry in resources.files("knowledge_engine.store.postgres.migrations").iterdir():
        m = _NAME.match(entry.name)
        if m:
            found.append((int(m.group(1)), m.group(2), entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a version: {versions}")
    return found


def applied_versions(conn: psycopg.Connection) -> set[int]:
    exists = conn.execute("SELECT to_regclass('ke_schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return set()
    return {row[0] for row in conn.execute("SELECT version FROM ke_schema_migrations")}


def migrate(conn: psycopg.Connection) -> list[int]:
    """Apply the missing migrations in one transaction under an advisory lock; returns those applied."""
    known = migrations()
    newest = known[-1][0] if known else 0
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS ke_schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = applied_versions(conn)
        if done and max(done) > newest:
            raise SchemaTooNewError(
                f"the store's schema is at version {max(done)} but this engine knows only up to {newest}; "
                "upgrade knowledge-engine on this node"
            )
        applied: list[int] = []
        for version, name, sql in known:
            if version in done:
                continue
            conn.execute(sql)  # our own bundled SQL, no parameters
            conn.execute("INSERT INTO ke_schema_migrations (version, name) VALUES (%s, %s)", (version, name))
            applied.append(version)
    return applied
