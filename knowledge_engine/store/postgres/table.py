"""Facts or entities of one agent in the shared database: the file store's table contract on PostgreSQL.

Concurrency is the database's. Every node keeps its records in memory (as the file store does) and
writes its pending changes in one transaction per flush: an update names the row version it was
based on (`UPDATE ... WHERE row_version = loaded`); when another node changed the row meanwhile, its
version is read back and the two are combined by the table's merge hook (facts: union of evidence,
sources, tiers; entities: aliases, mentions, counts), with the version both started from as the
base, so no update is lost and a removal (forget) is not undone. A delete wins over a concurrent
update (a forget must not come back) and leaves a tombstone.

Writers of one (agent, kind) take a transaction-scoped advisory lock, so their change numbers
(`seq`) commit in order: a node follows the others by reading rows and tombstones with a `seq`
above the highest it has seen, never a full reload, and `changed_since` reports those ids to the
derived indexes. Anything else that writes `ke_records` or `ke_tombstones` must take `lock_kind` too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, TypeVar

import orjson
import psycopg
from pydantic import BaseModel, TypeAdapter, ValidationError

from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.gcpause import gc_paused
from knowledge_engine.observe import counters
from knowledge_engine.store.postgres.connect import StoreDatabaseError, connection, describe
from knowledge_engine.store.table import BaseTable, updated_at

log = logging.getLogger("knowledge_engine.store.postgres")

R = TypeVar("R", bound=BaseModel)

_LOCK_CLASS = 0x6B65  # "ke": the first key of the two-key advisory locks of record writers
FOLLOW_BACKOFF_S = 30.0  # the longest pause between follow attempts while the database fails
MERGE_ROUNDS = 5  # a row changed again while we merged (a writer without the lock): read and merge again


def lock_kind(conn: psycopg.Connection, agent: str, kind: str) -> None:
    """Serialise the writers of one agent's kind until the transaction ends (change numbers in order)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, f"{agent}\x1f{kind}"))


def _failure(what: str, cfg: PostgresStorageConfig, exc: BaseException) -> str:
    return f"could not {what} in the PostgreSQL store at {describe(cfg.url)}: {type(exc).__name__}"


def _newer(mine: Any, theirs: Any, base: Any) -> Any:
    """Default merge: the newer `updated_at` wins (mine on a tie: it is the later decision here)."""
    return theirs if updated_at(theirs) > updated_at(mine) else mine


class _Write:
    """What one flush did, adopted in memory only once its transaction committed."""

    def __init__(self) -> None:
        self.synced: dict[str, tuple[int, bytes, int]] = {}  # id -> (row version, body, seq) now stored
        self.merged: dict[str, Any] = {}  # id -> merged record (theirs combined with mine)
        self.dropped: list[str] = []  # mine, deleted meanwhile by another node (the deletion wins)
        self.tombstones: dict[str, int] = {}  # id -> change number of the tombstone written
        self.gone: dict[str, datetime] = {}  # deleted by another node after our change: when
        self.applied = 0  # how many of the pending applied keys were written

    def stored(self, rows: list[tuple[Any, ...]], ids: list[str], body: dict[str, bytes]) -> list[str]:
        """Note the (id, row version, seq) rows a statement wrote; returns the ids of `ids` it did not
        write (another writer got there first)."""
        for rid, ver, seq in rows:
            self.synced[rid] = (ver, body[rid], seq)
        return [i for i in ids if i not in self.synced]


class PgRecordTable(BaseTable[R]):
    """Records of one kind (`facts`, `entities`) of one agent, in `ke_records`."""

    def __init__(self, cfg: PostgresStorageConfig, agent: str, key: str, model: type[R]) -> None:
        super().__init__(key, model)
        self.cfg = cfg
        self.agent = agent
        self._one: TypeAdapter[Any] = TypeAdapter(model)
        self._many: TypeAdapter[list[Any]] = TypeAdapter(list[model])  # type: ignore[valid-type]
        # id -> (row version, body, change number) as last read or written: the base of a merge, and
        # how a follow knows a row it wrote itself (the change number: a version restarts after a delete)
        self._synced: dict[str, tuple[int, bytes, int]] = {}
        self._seq = 0  # the highest change number of this (agent, kind) followed
        self._meta_keys: set[str] = set()
        self._quarantine_gone: list[Any] = []  # restored or dropped here: deleted from ke_quarantine
        self._tombs_gone: set[str] = set()
        self._own_tombs: dict[str, int] = {}  # id -> seq of a tombstone written here
        self.applied_pending: list[str] = []  # applied-message keys written with the next flush's records
        self.follow_errors = 0
        self._follow_again = 0.0  # monotonic time before which a failing follow is not retried
        self._following = threading.Lock()  # one look for other nodes' changes at a time
        self._writes = 0  # bumped when a load or flush changes what is synced: a look begun before is stale

    @property
    def name(self) -> str:
        return f"{self.key} (PostgreSQL)"

    def applied_keys(self, limit: int) -> list[str]:
        try:
            with connection(self.cfg) as conn:
                rows = conn.execute(
                    "SELECT key FROM ke_applied WHERE agent = %s ORDER BY applied_at DESC LIMIT %s",
                    (self.agent, limit),
                ).fetchall()
        except psycopg.Error as exc:
            raise StoreDatabaseError(_failure("read the applied-message keys", self.cfg, exc)) from exc
        return [r[0] for r in reversed(rows)]

    def note_applied(self, key: str, window: Iterable[str]) -> None:
        self.applied_pending.append(key)  # ke_applied keeps every key; the window only bounds memory

    # ------------------------------------------------------------------ reading
    def _dump(self, rec: R) -> bytes:
        return self._one.dump_json(rec, exclude_none=True)

    def _parse(
        self, rows: list[tuple[Any, ...]]
    ) -> tuple[list[tuple[R, tuple[Any, ...]]], list[tuple[Any, ...]]]:
        """(record, row) of the rows that validate, and those that do not (one pydantic pass if all do)."""
        if not rows:
            return [], []
        try:
            recs = self._many.validate_json(b"[" + b",".join(r[1].encode() for r in rows) + b"]")
            return list(zip(recs, rows, strict=True)), []
        except ValidationError:
            pass
        good, bad = [], []
        for row in rows:
            try:
                rec = self._one.validate_json(row[1])
            except ValidationError:
                bad.append(row)
                continue
            if getattr(rec, "id", None) != row[0]:
                bad.append(row)
                continue
            good.append((rec, row))
        return good, bad

    def load(self) -> None:
        """Every row of this agent's kind; invalid rows are moved to `ke_quarantine` (counted, kept)."""
        with self.mutex, gc_paused():
            try:
                with connection(self.cfg) as conn, conn.transaction():
                    rows, tombs, meta = self._read(conn, 0)  # every change number is above 0
                    kept = conn.execute(
                        "SELECT body::text FROM ke_quarantine WHERE agent = %s AND kind = %s",
                        (self.agent, self.key),
                    ).fetchall()
            except psycopg.Error as exc:
                raise StoreDatabaseError(_failure(f"load the {self.key}", self.cfg, exc)) from exc
            good, bad = self._parse(rows)
            self.records = {row[0]: rec for rec, row in good}
            self._synced = {row[0]: (row[2], row[1].encode(), row[3]) for _, row in good}
            self.tombstones = {t[0]: t[1] for t in tombs}
            self.meta = dict(meta)
            self._own_tombs.clear()  # every tombstone read now is known
            self._reset_quarantine()
            self._quarantine([orjson.loads(k[0]) for k in kept])
            self._seq = max([0, *(r[3] for r in rows), *(t[2] for t in tombs)])
            self.dirty.clear()
            self.deleted.clear()
            self.meta_dirty = False
            self._meta_keys.clear()
            self.generation += 1
            self.version += 1
            self._writes += 1
            if bad:
                self._move_to_quarantine(bad)

    def _read(
        self, conn: psycopg.Connection, since: int
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Rows and tombstones with a change number above `since`, and the meta, in one snapshot: what
        a load (since 0) and a follow (since the last seen) both read. Opens the read-only transaction."""
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        args = (self.agent, self.key, since)
        rows = conn.execute(
            "SELECT id, body::text, row_version, seq FROM ke_records WHERE agent = %s AND kind = %s "
            "AND seq > %s",
            args,
        ).fetchall()
        tombs = conn.execute(
            "SELECT id, deleted_at, seq FROM ke_tombstones WHERE agent = %s AND kind = %s AND seq > %s",
            args,
        ).fetchall()
        meta = conn.execute("SELECT key, value FROM ke_meta WHERE agent = %s AND kind = %s", args[:2])
        return rows, tombs, meta.fetchall()

    def _move_to_quarantine(self, rows: list[tuple[Any, ...]]) -> None:
        """Rows that fail validation leave `ke_records` for `ke_quarantine` in one step: kept verbatim."""
        self._quarantine([orjson.loads(r[1]) for r in rows])
        counters.inc("store.quarantined", len(rows))
        log.error(
            "%s: %d records failed validation; kept in ke_quarantine (see validate)", self.name, len(rows)
        )
        try:
            with connection(self.cfg) as conn, conn.transaction():
                lock_kind(conn, self.agent, self.key)
                for row in rows:
                    conn.execute(
                        "INSERT INTO ke_quarantine (agent, kind, body) VALUES (%s, %s, %s::jsonb) "
                        "ON CONFLICT DO NOTHING",
                        (self.agent, self.key, row[1]),
                    )
                    conn.execute(
                        "DELETE FROM ke_records WHERE agent = %s AND kind = %s AND id = %s AND "
                        "row_version = %s",
                        (self.agent, self.key, row[0], row[2]),
                    )
        except psycopg.Error as exc:  # they stay in ke_records (skipped on every load) until this works
            counters.inc("store.db_errors")
            log.error("%s", _failure("quarantine invalid records", self.cfg, exc))

    # ------------------------------------------------------------------ mutation upkeep
    def set_meta(self, key: str, value: Any) -> None:
        with self.mutex:
            super().set_meta(key, value)
            self._meta_keys.add(key)

    def restore_quarantined(self) -> int:
        with self.mutex:
            before = list(self.quarantined)
            n = super().restore_quarantined()
            self._note_quarantine_gone(before)
            return n

    def drop_quarantined(self, match: Callable[[Any], bool]) -> int:
        with self.mutex:
            before = list(self.quarantined)
            n = super().drop_quarantined(match)
            self._note_quarantine_gone(before)
            return n

    def _note_quarantine_gone(self, before: list[Any]) -> None:
        still = {orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in self.quarantined}
        gone = [r for r in before if orjson.dumps(r, option=orjson.OPT_SORT_KEYS) not in still]
        self._quarantine_gone.extend(gone)

    def drop_tombstones(self, older_than: datetime) -> int:
        with self.mutex:
            had = set(self.tombstones)
            n = super().drop_tombstones(older_than)
            self._tombs_gone |= had - set(self.tombstones)
            return n

    @property
    def has_changes(self) -> bool:
        return bool(
            self.dirty
            or self.deleted
            or self.meta_dirty
            or self.applied_pending
            or self._quarantine_gone
            or self._tombs_gone
        )

    # ------------------------------------------------------------------ writing
    def flush(self, force: bool = False) -> bool:
        """Write every pending change in one transaction; on a database error they stay pending."""
        if not self.has_changes:
            return False
        self._reach_database()
        with self.mutex:
            if not self.has_changes:
                return False
            try:
                with connection(self.cfg) as conn, conn.transaction():
                    lock_kind(conn, self.agent, self.key)
                    done = self._write(conn)
            except psycopg.Error as exc:
                counters.inc("store.db_errors")
                raise StoreDatabaseError(_failure(f"write the {self.key}", self.cfg, exc)) from exc
            self._adopt(done)
            return True

    def _reach_database(self) -> None:
        """Wait for a connection without the table's mutex: when the database stopped answering, a
        flush spends the connect timeout here, not holding up prompts that read the records."""
        try:
            with connection(self.cfg):
                pass
        except (psycopg.Error, StoreDatabaseError) as exc:
            counters.inc("store.db_errors")
            raise StoreDatabaseError(_failure(f"write the {self.key}", self.cfg, exc)) from exc

    def _write(self, conn: psycopg.Connection) -> _Write:
        done = _Write()
        self._write_deletes(conn, done)
        self._write_records(conn, done)
        self._write_meta(conn)
        done.applied = len(self.applied_pending)  # apply() may add keys while this runs (no table mutex)
        if self.applied_pending:
            conn.execute(
                "INSERT INTO ke_applied (agent, key) SELECT %s, k FROM unnest(%s::text[]) AS k ON "
                "CONFLICT DO NOTHING",
                (self.agent, self.applied_pending[: done.applied]),
            )
        return done

    def _write_deletes(self, conn: psycopg.Connection, done: _Write) -> None:
        ids = sorted(self.deleted)
        a = (self.agent, self.key)
        if ids:
            at = [self.tombstones.get(i) for i in ids]
            conn.execute("DELETE FROM ke_records WHERE agent = %s AND kind = %s AND id = ANY(%s)", (*a, ids))
            rows = conn.execute(
                "INSERT INTO ke_tombstones (agent, kind, id, deleted_at) "
                "SELECT %s, %s, t.id, coalesce(t.at, now()) FROM unnest(%s::text[], "
                "%s::timestamptz[]) AS t(id, at) "
                "ON CONFLICT (agent, kind, id) DO UPDATE SET deleted_at = excluded.deleted_at, "
                "seq = nextval('ke_change_seq') RETURNING id, seq",
                (*a, ids, at),
            ).fetchall()
            done.tombstones = {r[0]: r[1] for r in rows}
        if self._tombs_gone:
            conn.execute(
                "DELETE FROM ke_tombstones WHERE agent = %s AND kind = %s AND id = ANY(%s)",
                (*a, sorted(self._tombs_gone - self.tombstones.keys())),
            )
        for raw in self._quarantine_gone:
            conn.execute(
                "DELETE FROM ke_quarantine WHERE agent = %s AND kind = %s AND digest = "
                "md5((%s::jsonb)::text)",
                (*a, orjson.dumps(raw).decode()),
            )

    def _unseen_tombstones(self, conn: psycopg.Connection, ids: list[str]) -> dict[str, datetime]:
        """Deletions by other nodes this one has not followed yet, of ids it is about to write."""
        rows = conn.execute(
            "SELECT id, deleted_at, seq FROM ke_tombstones WHERE agent = %s AND kind = %s AND id = "
            "ANY(%s) AND seq > %s",
            (self.agent, self.key, ids, self._seq),
        ).fetchall()
        return {r[0]: r[1] for r in rows if self._own_tombs.get(r[0]) != r[2]}

    def _write_records(self, conn: psycopg.Connection, done: _Write) -> None:
        ids = sorted(i for i in self.dirty if i in self.records)
        if not ids:
            return
        a = (self.agent, self.key)
        gone = self._unseen_tombstones(conn, ids)
        for rid, at in gone.items():
            if at >= updated_at(self.records[rid]):  # deleted after this version was made: the deletion wins
                done.dropped.append(rid)
                done.gone[rid] = at
        ids = [i for i in ids if i not in done.dropped]
        conn.execute("DELETE FROM ke_tombstones WHERE agent = %s AND kind = %s AND id = ANY(%s)", (*a, ids))
        body = {i: self._dump(self.records[i]) for i in ids}
        known = [i for i in ids if i in self._synced]
        new = [i for i in ids if i not in self._synced]
        read = {i: (self._synced[i][0], self._synced[i][2]) for i in known}
        conflicts = [*self._update(conn, known, body, read, done)]
        conflicts += self._insert(conn, new, body, done)
        for _ in range(MERGE_ROUNDS):
            if not conflicts:
                return
            conflicts = self._merge_round(conn, conflicts, body, done)
        raise psycopg.errors.SerializationFailure(f"{len(conflicts)} rows kept changing while merging")

    def _update(
        self,
        conn: psycopg.Connection,
        ids: list[str],
        body: dict[str, bytes],
        versions: dict[str, tuple[int, int]],
        done: _Write,
    ) -> list[str]:
        """Update rows still as we read them (row version and change number: a version restarts when a
        row is deleted and made again); returns the ids another writer changed meanwhile."""
        if not ids:
            return []
        rows = conn.execute(
            "UPDATE ke_records r SET body = v.body::jsonb, updated_at = v.at, row_version = "
            "r.row_version + 1, "
            "seq = nextval('ke_change_seq') "
            "FROM unnest(%s::text[], %s::text[], %s::timestamptz[], %s::bigint[], %s::bigint[]) "
            "AS v(id, body, at, ver, seq) "
            "WHERE r.agent = %s AND r.kind = %s AND r.id = v.id AND r.row_version = v.ver AND r.seq = v.seq "
            "RETURNING r.id, r.row_version, r.seq",
            (
                ids,
                [body[i].decode() for i in ids],
                [updated_at(self.records[i]) for i in ids],
                [versions[i][0] for i in ids],
                [versions[i][1] for i in ids],
                self.agent,
                self.key,
            ),
        ).fetchall()
        return done.stored(rows, ids, body)

    def _insert(
        self, conn: psycopg.Connection, ids: list[str], body: dict[str, bytes], done: _Write
    ) -> list[str]:
        """Insert rows new to us; returns the ids another writer inserted first."""
        if not ids:
            return []
        rows = conn.execute(
            "INSERT INTO ke_records (agent, kind, id, body, updated_at) "
            "SELECT %s, %s, v.id, v.body::jsonb, v.at FROM unnest(%s::text[], %s::text[], %s::timestamptz[]) "
            "AS v(id, body, at) ON CONFLICT DO NOTHING RETURNING id, row_version, seq",
            (
                self.agent,
                self.key,
                ids,
                [body[i].decode() for i in ids],
                [updated_at(self.records[i]) for i in ids],
            ),
        ).fetchall()
        return done.stored(rows, ids, body)

    def _merge_round(
        self, conn: psycopg.Connection, ids: list[str], body: dict[str, bytes], done: _Write
    ) -> list[str]:
        """Read the other writers' rows, merge ours into them, write the result at their version."""
        rows = conn.execute(
            "SELECT id, body::text, row_version, seq FROM ke_records WHERE agent = %s AND kind = %s AND "
            "id = ANY(%s) "
            "FOR UPDATE",
            (self.agent, self.key, ids),
        ).fetchall()
        theirs = {r[0]: r for r in rows}
        merge = self.merge or _newer
        versions: dict[str, tuple[int, int]] = {}
        for rid in ids:
            row = theirs.get(rid)
            if row is None:
                continue
            mine = done.merged.get(rid, self.records[rid])
            try:
                other = self._one.validate_json(row[1])
            except ValidationError:  # theirs is unreadable here: ours replaces it, theirs is kept aside
                counters.inc("store.quarantined")
                conn.execute(
                    "INSERT INTO ke_quarantine (agent, kind, body) VALUES (%s, %s, %s::jsonb) ON "
                    "CONFLICT DO NOTHING",
                    (self.agent, self.key, row[1]),
                )
                versions[rid] = (row[2], row[3])
                continue
            merged = merge(mine, other, self._base(rid))
            done.merged[rid] = merged
            body[rid] = self._dump(merged)
            versions[rid] = (row[2], row[3])
        absent = [i for i in ids if i not in theirs]
        again = self._update(conn, sorted(versions), body, versions, done)
        return again + self._insert(conn, absent, body, done)

    def _base(self, rid: str) -> R | None:
        """The version this node last read or wrote of a record: what both writers started from."""
        synced = self._synced.get(rid)
        if synced is None:
            return None
        try:
            base: R = self._one.validate_json(synced[1])
        except ValidationError:
            return None
        return base

    def _write_meta(self, conn: psycopg.Connection) -> None:
        for key in sorted(self._meta_keys):
            if key in self.meta:
                conn.execute(
                    "INSERT INTO ke_meta (agent, kind, key, value) VALUES (%s, %s, %s, %s::jsonb) "
                    "ON CONFLICT (agent, kind, key) DO UPDATE SET value = excluded.value",
                    (self.agent, self.key, key, orjson.dumps(self.meta[key]).decode()),
                )
            else:
                conn.execute(
                    "DELETE FROM ke_meta WHERE agent = %s AND kind = %s AND key = %s",
                    (self.agent, self.key, key),
                )

    def _adopt(self, done: _Write) -> None:
        """After the commit: what the database now holds is the base of the next merge."""
        self._writes += 1
        self._synced.update(done.synced)
        for rid, seq in done.tombstones.items():
            self._synced.pop(rid, None)
            self._own_tombs[rid] = seq
        for rid, rec in done.merged.items():
            if rid in done.synced:
                self._replace(rid, rec)
        for rid in done.dropped:
            self._remove(rid)
            self.tombstones[rid] = done.gone[rid]
        self.dirty.clear()
        self.deleted.clear()
        self.meta_dirty = False
        self._meta_keys.clear()
        self._quarantine_gone.clear()
        self._tombs_gone.clear()
        del self.applied_pending[: done.applied]

    def _replace(self, rid: str, rec: R) -> None:
        """Take another node's (or a merged) version of a record: reported to derived indexes."""
        self.records[rid] = rec
        self.tombstones.pop(rid, None)
        self.version += 1
        self._changes.append((self.version, rid))
        if self.on_put is not None:
            self.on_put(rec)

    def _remove(self, rid: str) -> None:
        if self.records.pop(rid, None) is not None and self.on_delete is not None:
            self.on_delete(rid)
        self._synced.pop(rid, None)
        self.version += 1
        self._changes.append((self.version, rid))

    # ------------------------------------------------------------------ following other nodes
    @property
    def reachable(self) -> bool:
        """False from a failed follow until one succeeds: readers then skip the database instead of
        each waiting for the connect timeout."""
        return self.follow_errors == 0

    def refresh(self) -> None:
        """Adopt the rows and tombstones other nodes wrote since the last look (seq above the last seen);
        a record with a change pending here is merged with theirs, not overwritten.

        The database is read without the table's mutex: a look that waits for the connect timeout
        (the database stopped answering) must not hold up a prompt reading the records in memory."""
        with self._following:  # one look at a time
            with self.mutex:
                if self.follow_errors and time.monotonic() < self._follow_again:
                    return  # the database failed just now: a prompt must not wait for its timeout each time
                since, writes = self._seq, self._writes
            try:
                with connection(self.cfg) as conn, conn.transaction():
                    rows, tombs, meta = self._read(conn, since)
            except (psycopg.Error, StoreDatabaseError) as exc:
                self._follow_failed(exc)
                return
            with self.mutex:
                self._follow_worked()
                if self._writes == writes:  # else a flush or load ran meanwhile: what was read may be
                    self._adopt_followed(rows, tombs, meta)  # older than it; the next look reads it again

    def _follow_failed(self, exc: BaseException) -> None:
        with self.mutex:
            self.follow_errors += 1
            self._follow_again = time.monotonic() + min(FOLLOW_BACKOFF_S, 2.0 ** (self.follow_errors - 1))
        counters.inc("store.follow_errors")
        if self.follow_errors == 1:
            log.warning("%s", _failure(f"follow the {self.key}", self.cfg, exc))

    def _follow_worked(self) -> None:
        if self.follow_errors:
            log.warning("following the %s works again after %d failures", self.key, self.follow_errors)
            self.follow_errors = 0

    def _adopt_followed(
        self, rows: list[tuple[Any, ...]], tombs: list[tuple[Any, ...]], meta: list[tuple[Any, ...]]
    ) -> None:
        """Take what a look read (under the mutex, nothing written here since it began)."""
        with self.mutex:
            self._apply_rows(rows)
            self._apply_tombstones(tombs)
            for key, value in meta:
                if key not in self._meta_keys:
                    self.meta[key] = value
            self._seq = max([self._seq, *(r[3] for r in rows), *(t[2] for t in tombs)])

    def _apply_rows(self, rows: Iterable[tuple[Any, ...]]) -> None:
        rows = [r for r in rows if self._synced.get(r[0], (0, b"", None))[2] != r[3]]  # not our own writes
        good, bad = self._parse(rows)
        if bad:
            self._move_to_quarantine(bad)
        merge = self.merge or _newer
        for theirs, row in good:
            rid = row[0]
            if rid in self.deleted:
                continue  # our deletion is pending: it wins
            mine = self.records.get(rid) if rid in self.dirty else None
            rec = merge(mine, theirs, self._base(rid)) if mine is not None else theirs
            self._synced[rid] = (row[2], row[1].encode(), row[3])
            self._replace(rid, rec)

    def _apply_tombstones(self, tombs: Iterable[tuple[Any, ...]]) -> None:
        for rid, at, seq in tombs:
            if self._own_tombs.pop(rid, None) == seq:
                continue  # our own delete, already applied here (the record may have been put again since)
            self.tombstones[rid] = at
            mine = self.records.get(rid)
            if rid in self.dirty and mine is not None and updated_at(mine) > at:
                continue  # changed here after it was deleted there: written back by the next flush
            self.dirty.discard(rid)
            if rid in self.records or rid in self._synced:
                self._remove(rid)
