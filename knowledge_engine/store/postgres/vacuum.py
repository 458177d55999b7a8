"""`VACUUM (FULL, ANALYZE)` of one shared-store table with a lock-wait policy: the one rewrite that
forget (forget/pgstore), the message log (PgMessageLog.vacuum) and the vector index use.

Why FULL: a DELETE leaves the row's bytes in the table, TOAST and index pages; only a rewrite into
new files removes them (forget/pgstore says more). ANALYZE too: the planner's statistics keep sample
values of a column and a fresh ANALYZE replaces them with samples of what is left. The rewrite is
not bound by the pool's statement timeout (a large table takes longer than a query may). It needs
the table's ACCESS EXCLUSIVE lock (every agent's rows): the caller chooses how long to wait for it.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from knowledge_engine.observe import counters


def rewrite_table(
    conn: psycopg.Connection,
    table: str | sql.Composable,
    lock_wait_ms: int | None = None,
    attempts: int = 1,
    busy_counter: str | None = None,
) -> bool:
    """Rewrite `table` (a name, or an identifier already composed); True when it was rewritten.

    `lock_wait_ms` None waits for the lock as long as the server's own lock_timeout allows (forget:
    the bytes must go). A number waits at most that long per attempt, `attempts` times, counting each
    miss in `busy_counter`, and returns False when the table stayed locked, so a long transaction
    elsewhere never queues every node's queries behind the rewrite for long."""
    target = sql.Identifier(table) if isinstance(table, str) else table
    conn.execute("SET statement_timeout = 0")
    if lock_wait_ms is not None:
        conn.execute(f"SET lock_timeout = {int(lock_wait_ms)}")
    try:
        for _ in range(max(1, attempts)):
            try:
                conn.execute(sql.SQL("VACUUM (FULL, ANALYZE) {}").format(target))
                return True
            except psycopg.errors.LockNotAvailable:
                if busy_counter is not None:
                    counters.inc(busy_counter)
        return False
    finally:
        conn.execute("RESET statement_timeout")
        if lock_wait_ms is not None:
            conn.execute("RESET lock_timeout")
