"""The per-agent message log: an append-only SQLite table with an FTS5 BM25 keyword index.

Why SQLite: the host and the CLI open the same file at once (WAL + busy_timeout give
concurrent readers and one writer, with no lost update), and FTS5 gives real BM25 from
the standard library. Why an *external-content* FTS5 table kept in step by triggers:
the text is stored once, and deleting a row removes it from the index in the same
transaction (SQLite 3.40 here has no `contentless_delete`).

Forgetting: `secure_delete=ON` zeroes the cells of deleted rows, but FTS5 keeps a
deleted document's terms in older index segments until they are merged, and the WAL
keeps old page images until a checkpoint. `vacuum()` therefore merges the FTS index
('optimize'), rebuilds the file (VACUUM) and truncates the WAL: after it, no byte of a
deleted message remains in the workspace files.

A log this process cannot write (a read-only backup folder, a file of another user) is opened
read-only (`read_only`), so `stats`, `messages`, `search` and `show` can inspect it; any write then
fails with a MessageLogError naming the cause, as the open itself did before.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from knowledge_engine.config import MemoryConfig
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit
from knowledge_engine.store.keyword import DEFAULT_MAX_TERMS, KeywordQuery
from knowledge_engine.store.message_common import (
    DEFAULT_MATCH_BUDGET,
    MAX_LIMIT,
    SURROGATE_RE,
    Cursor,
    Filters,
    MessageLogBase,
    Row,
    chunks,
    keep_within_budget,
    query_settings,
)

MESSAGES_FILE = "messages.sqlite3"  # the message log, in the workspace folder
_NOT_WRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)
_INTEGRITY_CHECK = "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)"
SCHEMA_VERSION = 1
_COLUMNS = "seq, id, session, role, speaker, agent_id, ts, ts_iso, text"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: a deleted row's FTS rowid is never recycled
    id TEXT NOT NULL UNIQUE,
    session TEXT,
    role TEXT NOT NULL,
    speaker TEXT,
    agent_id TEXT,
    ts REAL NOT NULL,
    ts_iso TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_ts ON messages(ts);
CREATE INDEX IF NOT EXISTS messages_session_ts ON messages(session, ts);
CREATE INDEX IF NOT EXISTS messages_role_ts ON messages(role, ts);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    text, content='messages', content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_au AFTER UPDATE OF text ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO messages_fts(rowid, text) VALUES (new.seq, new.text);
END;
"""


class MessageLogError(RuntimeError):
    """The log file cannot be used (not a database, newer schema, ...)."""


def _clean(value: str | None) -> str | None:
    """Replace lone surrogates (not encodable for SQLite) with U+FFFD; counted, never raised."""
    if value is None:
        return None
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        counters.inc("memory.text_sanitized")
        return SURROGATE_RE.sub("\ufffd", value)


def _epoch(ts: datetime) -> float:
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.timestamp()


def _iso(ts: datetime) -> str:
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return ts.astimezone(UTC).isoformat()


def _row_to_message(row: Row) -> Message:
    _seq, id_, session, role, speaker, agent_id, _ts, ts_iso, text = row[:9]
    return Message.model_construct(
        id=id_,
        text=text,
        role=role,
        session=session,
        speaker=speaker,
        agent_id=agent_id,
        timestamp=datetime.fromisoformat(ts_iso),
    )


def _filters(filters: Filters, alias: str = "") -> tuple[str, list[Any]]:
    """SQL conditions (joined by AND, possibly empty) and their parameters."""
    terms = filters.terms()
    conds = [f"{alias}{column} ?" for column, _ in terms]
    params = [_epoch(v) if isinstance(v, datetime) else v for _, v in terms]
    return " AND ".join(conds), params


class MessageLog(MessageLogBase):
    """Append-only message log of one agent; safe across threads (a lock) and processes (WAL)."""

    _message = staticmethod(_row_to_message)

    def __init__(
        self,
        path: Path | str,
        *,
        busy_timeout_ms: int = 10000,
        roles: Collection[str] | None = None,
        max_query_terms: int = DEFAULT_MAX_TERMS,
        extra_stop_words: Iterable[str] = (),
        match_budget: int = DEFAULT_MATCH_BUDGET,
    ) -> None:
        p = Path(path).expanduser()
        self.path = p / MESSAGES_FILE if p.is_dir() else p
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._init_search(roles, max_query_terms, extra_stop_words, match_budget)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self.read_only: str | None = None  # why the log was opened read-only (an OS error's text)
        self._busy_timeout_ms = busy_timeout_ms
        try:
            self._conn = self._open(busy_timeout_ms)
        except sqlite3.DatabaseError as exc:
            raise MessageLogError(f"cannot open message log {self.path}: {exc}") from None

    @classmethod
    def from_config(cls, workspace: Path | str, cfg: MemoryConfig) -> MessageLog:
        """Open `<workspace>/messages.sqlite3` with a MemoryConfig's roles and query settings."""
        return cls(
            Path(workspace) / MESSAGES_FILE, busy_timeout_ms=cfg.busy_timeout_ms, **query_settings(cfg)
        )

    # ------------------------------------------------------------------ connection

    def _open(self, busy_timeout_ms: int) -> sqlite3.Connection:
        if self.path.is_symlink():
            raise MessageLogError(f"{self.path} is a symbolic link; the message log must be a regular file")
        # created owner-only before SQLite opens it: its -wal and -shm files take the same mode
        try:
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        except OSError as exc:
            if exc.errno in _NOT_WRITABLE and self.path.is_file():
                return self._open_read_only(busy_timeout_ms, exc.strerror or os.strerror(exc.errno))
            raise MessageLogError(f"cannot open message log {self.path}: {exc.strerror}") from None
        conn = sqlite3.connect(
            self.path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            return self._prepare(conn, busy_timeout_ms)
        except sqlite3.OperationalError:
            conn.close()
            self._conn = None
            if os.access(self.path.parent, os.W_OK):
                raise
            # the file is writable, its folder is not: SQLite cannot make the -wal and -shm files
            return self._open_read_only(busy_timeout_ms, os.strerror(errno.EACCES))
        except BaseException:
            conn.close()
            self._conn = None
            raise

    def _open_read_only(self, busy_timeout_ms: int, why: str) -> sqlite3.Connection:
        """The log opened for reading only (`why`: the OS's reason it cannot be written).

        A WAL database needs its -shm file even to be read: when the folder cannot hold one, and no
        -wal file holds changes not yet in the main file (a clean close leaves none), the file is
        read as `immutable`, which needs neither. A -wal file that cannot be read along is an error:
        reading past it would miss the newest messages."""
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            conn = self._connect_read_only(uri, busy_timeout_ms)
        except sqlite3.OperationalError:
            if wal.exists() and wal.stat().st_size > 0:
                raise MessageLogError(f"cannot open message log {self.path}: {why}") from None
            conn = self._connect_read_only(uri + "&immutable=1", busy_timeout_ms)
        self.read_only = why
        counters.inc("memory.opened_read_only")
        return conn

    def _connect_read_only(self, uri: str, busy_timeout_ms: int) -> sqlite3.Connection:
        conn = sqlite3.connect(
            uri, uri=True, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            conn.execute("PRAGMA temp_store = MEMORY")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except BaseException:
            conn.close()
            raise
        if version != SCHEMA_VERSION:
            conn.close()
            raise MessageLogError(
                f"{self.path} has schema {version}, not this engine's {SCHEMA_VERSION}, and cannot be "
                "written to bring it up to date"
            )
        return conn

    def _prepare(self, conn: sqlite3.Connection, busy_timeout_ms: int) -> sqlite3.Connection:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("PRAGMA secure_delete = ON")  # per connection: deleted cells are zeroed
        conn.execute("PRAGMA temp_store = MEMORY")  # sorts and VACUUM never spill text to temp files
        self._retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"), busy_timeout_ms)
        conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise MessageLogError(
                f"{self.path} has schema {version}, newer than this engine's {SCHEMA_VERSION};"
                " upgrade the engine"
            )
        if version < SCHEMA_VERSION:
            self._conn = conn
            with self._write() as c:
                for stmt in _split_script(_SCHEMA):
                    c.execute(stmt)
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return conn

    @staticmethod
    def _retry_busy(fn: Callable[[], Any], budget_ms: int) -> Any:
        """PRAGMA journal_mode does not wait on the busy handler; retry it within the budget."""
        deadline = time.monotonic() + budget_ms / 1000
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise MessageLogError("message log is closed")
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: takes the write lock up front, so it never fails half-way on BUSY."""
        with self._lock:
            self._writable()
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def require_writable(self) -> None:
        with self._lock:
            self._writable()

    def _writable(self) -> None:
        """Raise the clear error of a read-only log, unless it has become writable (its mode was fixed
        while a host ran): then it is opened for writing from now on."""
        if self.read_only is None:
            return
        old, why = self._conn, self.read_only
        conn: sqlite3.Connection | None = None
        try:
            os.close(os.open(self.path, os.O_RDWR | os.O_NOFOLLOW))
            self.read_only = None
            conn = self._open(self._busy_timeout_ms)  # read-only again when SQLite cannot write either
        except (OSError, sqlite3.DatabaseError, MessageLogError):
            pass
        if conn is not None and self.read_only is None:
            if old is not None:
                old.close()
            self._conn = conn
            return
        if conn is not None:
            conn.close()
        self._conn, self.read_only = old, why
        raise MessageLogError(f"cannot write message log {self.path}: it is read-only here: {why}")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # ------------------------------------------------------------------ writes

    def _row(self, msg: Message) -> tuple[Any, ...]:
        return (
            _clean(msg.id),
            _clean(msg.session),
            _clean(msg.role),
            _clean(msg.speaker),
            _clean(msg.agent_id),
            _epoch(msg.timestamp),
            _iso(msg.timestamp),
            _clean(msg.text),
        )

    def append_many(self, msgs: Iterable[Message]) -> int:
        """Store many messages in one transaction; returns how many were new."""
        rows = [self._row(m) for m in msgs if self._accepts(m)]
        if not rows:
            return 0
        with self._write() as c:
            cur = c.executemany(
                "INSERT OR IGNORE INTO messages(id, session, role, speaker, agent_id, ts, ts_iso, text)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            added = max(cur.rowcount, 0)  # ignored duplicates count 0; trigger rows are not counted
        if added < len(rows):
            counters.inc("memory.duplicate_skipped", len(rows) - added)
        return added

    def delete(self, ids: Iterable[str]) -> int:
        """Delete messages by id (and from the keyword index); returns how many existed."""
        wanted = self._unique_ids(ids)
        deleted = 0
        with self._write() as c:
            for chunk in chunks(wanted):
                marks = ",".join("?" * len(chunk))
                deleted += c.execute(f"DELETE FROM messages WHERE id IN ({marks})", chunk).rowcount
        self._changed("memory.deleted", messages=deleted)
        return deleted

    def delete_session(self, session: str) -> int:
        """Delete every message of one session; returns how many."""
        with self._write() as c:
            deleted = c.execute("DELETE FROM messages WHERE session = ?", (session,)).rowcount
        self._changed("memory.session_deleted", messages=deleted)
        return deleted

    def _redacted_text(self, text: str) -> str:
        return _clean(text) or ""

    def _rewrite(self, updates: list[tuple[int, str]]) -> None:
        with self._write() as c:
            c.executemany("UPDATE messages SET text = ? WHERE seq = ?", [(new, seq) for seq, new in updates])

    def _rows_after(self, seq: int, size: int) -> list[tuple[Any, ...]]:
        return self._read(f"SELECT {_COLUMNS} FROM messages WHERE seq > ? ORDER BY seq LIMIT ?", (seq, size))

    def _rows_by_id(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        marks = ",".join("?" * len(ids))
        return self._read(f"SELECT {_COLUMNS} FROM messages WHERE id IN ({marks})", ids)

    def _retain(self, max_age_days: float, max_count: int, now: datetime) -> list[str]:
        doomed: list[str] = []
        with self._write() as c:
            if max_age_days > 0:
                cutoff = _epoch(now - timedelta(days=max_age_days))
                doomed += [r[0] for r in c.execute("SELECT id FROM messages WHERE ts < ?", (cutoff,))]
            if max_count > 0:
                total = c.execute("SELECT count(*) FROM messages").fetchone()[0] - len(doomed)
                excess = total - max_count
                if excess > 0:
                    skip = set(doomed)
                    for (id_,) in c.execute("SELECT id FROM messages ORDER BY ts, seq"):
                        if excess <= 0:
                            break
                        if id_ not in skip:
                            doomed.append(id_)
                            excess -= 1
            for chunk in chunks(doomed):
                marks = ",".join("?" * len(chunk))
                c.execute(f"DELETE FROM messages WHERE id IN ({marks})", chunk)
        return doomed

    def vacuum(self) -> bool:
        """Make deletions physical: merge the FTS index, rebuild the file, truncate the WAL.

        The checkpoint waits up to busy_timeout for other connections' read transactions; returns
        False when one outlasted it, so the WAL (old page images) could not be truncated yet: the
        main file is clean, run vacuum() again once readers are done.
        """
        started = time.monotonic()
        with self._lock:
            conn = self.conn
            with self._write() as c:
                c.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
            conn.execute("VACUUM")
            busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        duration_ms = round((time.monotonic() - started) * 1000, 1)
        emit("memory.vacuum", duration_ms=duration_ms, wal_truncated=not busy)
        return not busy

    def check_index(self) -> bool:
        """True when the keyword index matches the stored texts exactly (for `validate`). A read-only
        log is checked in an in-memory copy: FTS5 takes the check as an INSERT, which it refuses."""
        try:
            with self._lock:
                if self.read_only is None:
                    self.conn.execute(_INTEGRITY_CHECK)
                else:
                    with contextlib.closing(sqlite3.connect(":memory:")) as copy:
                        self.conn.backup(copy)
                        copy.execute(_INTEGRITY_CHECK)
        except sqlite3.DatabaseError:
            emit("memory.index_check", ok=False)
            return False
        return True

    def _reindex(self) -> None:
        """FTS5's 'rebuild' re-reads every stored text (for `rebuild_index`)."""
        with self._write() as c:
            c.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")

    # ------------------------------------------------------------------ reads

    def get(self, id: str) -> Message | None:
        rows = self._read(f"SELECT {_COLUMNS} FROM messages WHERE id = ?", (id,))
        return _row_to_message(rows[0]) if rows else None

    def has_text_near(self, session: str | None, role: str, text: str, at: datetime, within_s: float) -> bool:
        """Whether the session holds this exact text from `role` within `within_s` of `at`: one turn that
        reached the host's hooks twice under two ids."""
        t = _epoch(at)
        rows = self._read(
            "SELECT 1 FROM messages WHERE session IS ? AND ts BETWEEN ? AND ? AND role = ? AND text = ?"
            " LIMIT 1",
            (session, t - within_s, t + within_s, role, SURROGATE_RE.sub("\ufffd", text)),
        )
        return bool(rows)

    def _page(
        self, filters: Filters, cmp: str, direction: str, cursor: Cursor, size: int
    ) -> list[tuple[Any, ...]]:
        where, params = _filters(filters)
        conds = [where] if where else []
        if cursor is not None:
            conds.append(f"(ts, seq) {cmp} (?, ?)")
            params += list(cursor)
        sql = f"SELECT {_COLUMNS} FROM messages"
        if conds:
            sql += " WHERE " + " AND ".join(conds)
        sql += f" ORDER BY ts {direction}, seq {direction} LIMIT ?"
        return self._read(sql, [*params, size])

    def _count(self, filters: Filters) -> int:
        where, params = _filters(filters)
        sql = "SELECT count(*) FROM messages" + (f" WHERE {where}" if where else "")
        return int(self._read(sql, params)[0][0])

    def speakers(self, limit: int = 1000) -> list[str]:
        """Distinct speaker names in the log (a scan of the speaker column: callers cache it)."""
        rows = self._read("SELECT DISTINCT speaker FROM messages WHERE speaker IS NOT NULL LIMIT ?", [limit])
        return [str(name) for (name,) in rows]

    def _search(self, built: KeywordQuery, limit: int, filters: Filters) -> list[tuple[Message, float]]:
        """FTS5 BM25; scores are -bm25() so higher is better."""
        planned, newest_only = self._plan(built)
        expression = planned.expression
        where, params = _filters(filters, alias="m.")
        if (session := filters.session) is not None:
            # A session's messages are mostly contiguous in arrival order: bounding the FTS rowid lets
            # FTS5 seek inside its doclists instead of scoring every match of the whole log.
            lo, hi = self._read("SELECT min(seq), max(seq) FROM messages WHERE session = ?", [session])[0]
            if lo is None:
                return []
            where += " AND f.rowid BETWEEN ? AND ?"
            params += [lo, hi]
        elif newest_only:
            where = " AND ".join(c for c in (where, "f.rowid > ?") if c)
            params.append(newest_only)
        if where:  # bm25() is only evaluated for rows that pass the filters
            join = " JOIN messages m ON m.seq = f.rowid" if "m." in where else ""
            sql = (
                f"SELECT f.rowid, bm25(messages_fts) AS score FROM messages_fts f{join}"
                f" WHERE messages_fts MATCH ? AND {where} ORDER BY score LIMIT ?"
            )
        else:
            sql = "SELECT rowid, bm25(messages_fts) AS score FROM messages_fts WHERE messages_fts MATCH ?"
            sql += " ORDER BY score LIMIT ?"
        try:
            hits = self._read(sql, [expression, *params, max(1, min(limit, MAX_LIMIT))])
        except sqlite3.OperationalError as exc:  # the builder should make this impossible; never crash a turn
            return self._search_failed(type(exc).__name__)
        return self._hydrate(hits)

    def _hydrate(self, hits: list[tuple[Any, ...]]) -> list[tuple[Message, float]]:
        """Load the messages of the top hits only (the text of other matches is never read)."""
        if not hits:
            return []
        marks = ",".join("?" * len(hits))
        rows = {
            r[0]: r
            for r in self._read(
                f"SELECT {_COLUMNS} FROM messages WHERE seq IN ({marks})", [h[0] for h in hits]
            )
        }
        return [(_row_to_message(rows[seq]), -float(score)) for seq, score in hits if seq in rows]

    def _plan(self, built: KeywordQuery) -> tuple[KeywordQuery, int]:
        """Drop the most common OR-ed words when scoring every row they match would blow the budget.

        FTS5 computes bm25() for every matching row before sorting, so one very common word
        (in a third of the log) costs more than all rare words together while adding almost
        nothing to the ranking (its IDF is near zero): `keep_within_budget` chooses the words.
        Phrase queries are never pruned (the phrase is required, so it already bounds the match set).

        When even the rarest word matches more than the budget (every word of the query is that
        common), only the newest rows expected to hold about `match_budget` matches are scored:
        the second value is the rowid to search above (0 = the whole log). Among that many
        near-equal matches, the newer ones are the better answer for conversation memory.
        """
        parts = built.optional_parts()
        if self.match_budget <= 0 or built.phrases or not parts:
            return built, 0
        top = self._max_seq()
        if top <= self.match_budget:
            return built, 0
        keep, total = keep_within_budget(
            sorted((self._doc_freq(p, top), p) for p in parts), self.match_budget
        )
        newest_only = 0
        if total > self.match_budget:
            newest_only = max(0, top - int(top * self.match_budget / total))
        if len(keep) < len(parts):
            return built.keep_only(keep), newest_only
        return built, newest_only

    def _max_seq(self) -> int:
        return int(self._read("SELECT coalesce(max(seq), 0) FROM messages")[0][0])

    def _doc_freq(self, part: str, top: int) -> int:
        """Rows matching one quoted word; cached until the log grows by 5% (only the plan uses it)."""
        cached = self._df_cache.get(part, top)
        if cached is not None:
            return cached
        df = int(self._read("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", [part])[0][0])
        self._df_cache.put(part, df, top)
        return df

    def stats(self) -> dict[str, Any]:
        """Counts and on-disk sizes for `stats`."""
        rows = self._read("SELECT count(*), count(DISTINCT session), min(ts_iso), max(ts_iso) FROM messages")
        n, sessions, first, last = rows[0]
        wal = self.path.with_name(self.path.name + "-wal")
        return {
            "messages": n,
            "sessions": sessions,
            "first": first,
            "last": last,
            "file_bytes": self.path.stat().st_size if self.path.exists() else 0,
            "wal_bytes": wal.stat().st_size if wal.exists() else 0,
        }


def _split_script(script: str) -> list[str]:
    """Split the schema into statements (triggers contain ';' inside BEGIN...END)."""
    stmts: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            stmts.append(buf.strip())
            buf = ""
    return [s for s in stmts if s]
