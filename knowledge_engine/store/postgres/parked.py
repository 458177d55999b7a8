"""Parked LLM batches in the shared database (ke_parked): any node sends them, one node at a time.

Why: a parked file lives on one node's disk, so a node that dies for good strands its batches. A
row keyed by agent does not. A node claims a batch with one UPDATE that sets a lease
(claimed_by, claimed_until); only a row that is free or whose lease ended matches, so two nodes
retrying at once never send one batch together, and a node killed while holding a claim only
delays the batch until its lease ends. The claim stays while the delivered batch waits for the
store flush that makes its facts durable (then the row is deleted); a lease that ends before
that lets another node send it again, which costs a call, not a duplicate (applying an
extraction twice is idempotent).
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable

import orjson
import psycopg

from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.extract.parked import ParkError
from knowledge_engine.ingest.redact import Redactor, Tally, rewrite_batch_body
from knowledge_engine.observe import counters, emit
from knowledge_engine.store.postgres.connect import StoreDatabaseError, connection

DEFAULT_LEASE_S = 600.0  # longer than a batch's calls with all their retries and backoff
_DB_ERRORS = (psycopg.Error, StoreDatabaseError)


class PgParked:
    """The ParkedStore of one agent on the shared store."""

    def __init__(self, cfg: PostgresStorageConfig, agent: str, lease_s: float = DEFAULT_LEASE_S) -> None:
        self._cfg = cfg
        self._agent = agent
        self._lease_s = lease_s
        self.node = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def prepare(self) -> None:
        return None

    def waiting(self) -> list[str]:
        try:
            with connection(self._cfg) as conn:
                rows = conn.execute(
                    "SELECT id FROM ke_parked WHERE agent = %s AND state = 'waiting' ORDER BY id",
                    (self._agent,),
                ).fetchall()
        except _DB_ERRORS as exc:
            self._failed("list", exc)
            return []
        return [r[0] for r in rows]

    def claim(self, key: str) -> bool:
        """One UPDATE: the row is ours only if nobody holds a live lease on it."""
        try:
            with connection(self._cfg) as conn:
                cur = conn.execute(
                    "UPDATE ke_parked SET claimed_by = %s,"
                    " claimed_until = clock_timestamp() + make_interval(secs => %s)"
                    " WHERE agent = %s AND id = %s AND state = 'waiting'"
                    " AND (claimed_until IS NULL OR claimed_until < clock_timestamp() OR claimed_by = %s)",
                    (self.node, self._lease_s, self._agent, key, self.node),
                )
                return cur.rowcount == 1
        except _DB_ERRORS as exc:
            self._failed("claim", exc)
            return False

    def unclaim(self, key: str) -> None:
        self._run(
            "UPDATE ke_parked SET claimed_by = NULL, claimed_until = NULL"
            " WHERE agent = %s AND id = %s AND claimed_by = %s",
            (self._agent, key, self.node),
            "unclaim",
        )

    def read(self, key: str) -> bytes | None:
        try:
            with connection(self._cfg) as conn:
                row = conn.execute(
                    "SELECT body FROM ke_parked WHERE agent = %s AND id = %s", (self._agent, key)
                ).fetchone()
        except _DB_ERRORS as exc:
            self._failed("read", exc)
            return None
        return row[0].encode() if row else None

    def write(self, key: str, body: bytes, create: bool) -> None:
        text = body.decode()
        if create:
            query = (
                "INSERT INTO ke_parked (agent, id, body) VALUES (%s, %s, %s)"
                " ON CONFLICT (agent, id) DO UPDATE SET body = EXCLUDED.body"
            )
            params: tuple[object, ...] = (self._agent, key, text)
        else:
            query = "UPDATE ke_parked SET body = %s WHERE agent = %s AND id = %s"
            params = (text, self._agent, key)
        try:
            with connection(self._cfg) as conn:
                conn.execute(query, params)
        except _DB_ERRORS as exc:
            raise ParkError(f"parking failed: {type(exc).__name__}") from exc

    def remove(self, key: str) -> None:
        """Deleted whoever holds a claim on it: the batch is done (delivered and stored, or dropped), and
        a node that sends it again meanwhile only repeats an idempotent extraction (see the module doc)."""
        self._run(
            "DELETE FROM ke_parked WHERE agent = %s AND id = %s",
            (self._agent, key),
            "remove",
        )

    def set_aside(self, key: str, kind: str) -> None:
        self._run(
            "UPDATE ke_parked SET state = %s, claimed_by = NULL, claimed_until = NULL"
            " WHERE agent = %s AND id = %s",
            (kind, self._agent, key),
            "set_aside",
        )

    def failed_count(self) -> int:
        try:
            with connection(self._cfg) as conn:
                row = conn.execute(
                    "SELECT count(*) FROM ke_parked WHERE agent = %s AND state = 'failed'", (self._agent,)
                ).fetchone()
        except _DB_ERRORS as exc:
            self._failed("count", exc)
            return 0
        return int(row[0]) if row else 0

    def forget(self, redactor: Redactor, seen: Callable[[str], None] | None) -> Tally:
        """Every batch of the agent (set-aside ones too) rewritten under a row lock, in one transaction."""
        tally = Tally()
        with connection(self._cfg) as conn, conn.transaction():
            rows = conn.execute(
                "SELECT id, body FROM ke_parked WHERE agent = %s ORDER BY id FOR UPDATE", (self._agent,)
            ).fetchall()
            for key, text in rows:
                try:
                    body = orjson.loads(text)
                except orjson.JSONDecodeError:
                    continue  # a corrupt batch: the final check still searches its text
                new = rewrite_batch_body(body, redactor, tally, seen)
                if new is None:
                    continue
                if not new.get("messages"):
                    conn.execute("DELETE FROM ke_parked WHERE agent = %s AND id = %s", (self._agent, key))
                    tally.files_removed += 1
                else:
                    conn.execute(
                        "UPDATE ke_parked SET body = %s WHERE agent = %s AND id = %s",
                        (orjson.dumps(new).decode(), self._agent, key),
                    )
        return tally

    def _run(self, query: str, params: tuple[object, ...], what: str) -> None:
        try:
            with connection(self._cfg) as conn:
                conn.execute(query, params)
        except _DB_ERRORS as exc:
            raise ParkError(f"parked batch {what} failed: {type(exc).__name__}") from exc

    @staticmethod
    def _failed(what: str, exc: BaseException) -> None:
        counters.inc("llm.parked_db_errors")
        emit("llm.parked_db_error", logging.WARNING, op=what, error=type(exc).__name__)
