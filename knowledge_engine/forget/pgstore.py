"""`forget` on the shared PostgreSQL store: what a DELETE leaves behind, and making it gone.

A DELETE (or an UPDATE, which writes a new row version) leaves the old row's bytes in the table's
pages, in its TOAST table (a long body is stored out of line there) and in its index pages until
they are overwritten. Plain `VACUUM` only marks that space reusable: the bytes stay until a later
insert happens to land on them, and a btree or GIN page keeps a removed key's bytes the same way.
`VACUUM FULL` writes the table, its TOAST table and every index into new files and removes the old
ones, so no file of the database holds the forgotten text afterwards. It takes an ACCESS EXCLUSIVE
lock on each table for the rewrite (every agent's rows: other nodes wait, for seconds at 100k rows).

Tables rewritten here: ke_records (records and their ids: an entity's id is made from its name),
ke_tombstones (deletion markers keyed by those ids), ke_quarantine and ke_parked (parked LLM
batches: message text, rewritten by forget.coord before). The message log rewrites
ke_messages itself (PgMessageLog.vacuum) and the vector index its tables (pgvector_index). ke_meta
and ke_applied hold no stored text (times, counts, message ids).

Left to the operator (docs/postgres.md, "Forget"): the write-ahead log (pg_wal) and its archive,
replicas, backups, and the planner statistics of an earlier ANALYZE until the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import psycopg
from psycopg import sql

from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.observe import emit
from knowledge_engine.store.postgres.connect import connection
from knowledge_engine.store.postgres.vacuum import rewrite_table

log = logging.getLogger("knowledge_engine.forget.stores")

REWRITTEN = ("ke_records", "ke_tombstones", "ke_quarantine", "ke_parked")
# where a forgotten name could still be, per table: the stored JSON or text of this agent's rows
_SEARCHED = {
    "ke_records": "id || ' ' || body::text",
    "ke_tombstones": "id",
    "ke_quarantine": "body::text",
    "ke_messages": "coalesce(speaker, '') || ' ' || text",
    "ke_parked": "body",
}


def drop_tombstones(cfg: PostgresStorageConfig, agent: str, kind: str, ids: Iterable[str]) -> int:
    """Delete the deletion markers of `ids` (their ids are made from forgotten names); returns how many.

    Taken under the table writers' lock so the change numbers other nodes follow stay in order.
    """
    from knowledge_engine.store.postgres.table import lock_kind

    wanted = sorted(set(ids))
    if not wanted:
        return 0
    with connection(cfg) as conn, conn.transaction():
        lock_kind(conn, agent, kind)
        cur = conn.execute(
            "DELETE FROM ke_tombstones WHERE agent = %s AND kind = %s AND id = ANY(%s)", (agent, kind, wanted)
        )
        return max(cur.rowcount, 0)


def vacuum_full(cfg: PostgresStorageConfig, tables: Iterable[str] = REWRITTEN) -> list[str]:
    """`VACUUM (FULL, ANALYZE)` each table (store.postgres.vacuum), waiting for each table's lock as
    long as it takes: a forget that reports success leaves no byte behind. Returns the tables."""
    done: list[str] = []
    with connection(cfg) as conn:
        for table in tables:
            rewrite_table(conn, table)
            done.append(table)
    emit("forget.pg_vacuum", tables=len(done))
    return done


def remaining(cfg: PostgresStorageConfig, agent: str, terms: Iterable[str], min_len: int) -> list[str]:
    """`postgres:<table>` for each table where this agent's rows still name a term (any letter case):
    what a node that held the record unflushed in memory wrote back meanwhile. Run forget again then."""
    words = {t.strip().lower() for t in terms if len(t.strip()) >= min_len}
    needles = sorted(words | {w.replace(" ", "-") for w in words})  # an id is made from the name with dashes
    if not needles:
        return []
    hits: list[str] = []
    with connection(cfg) as conn:
        for table, column in _SEARCHED.items():
            query = sql.SQL(
                "SELECT EXISTS (SELECT 1 FROM {} WHERE agent = %s AND EXISTS ("
                " SELECT 1 FROM unnest(%s::text[]) AS n WHERE strpos(lower({}), n) > 0))"
            ).format(sql.Identifier(table), sql.SQL(column))
            try:
                row = conn.execute(query, (agent, needles)).fetchone()
            except psycopg.errors.UndefinedTable:
                continue
            if row and row[0]:
                hits.append(f"postgres:{table}")
    return hits
