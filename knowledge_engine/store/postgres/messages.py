"""The conversation memory in the shared database: `MessageLog`'s contract on table `ke_messages`.

Why one table keyed (agent, id): every node of a cluster appends the messages it receives, and a
message replayed by two nodes (journal, spill, a retried hook) must be stored once; the primary
key makes that the database's job (`ON CONFLICT DO NOTHING`), not a lock's.

Keyword search: `tsv` is a generated `tsvector` ('english' stemming over diacritic-folded text)
with a GIN index. User text never becomes tsquery syntax: the same `QueryBuilder` as FTS5 picks
the words, each is re-emitted as a quoted lexeme made only of letters and digits, and the parts
are joined with our own `|` / `&` / `<->`. Ranking is BM25-like: per word, `ts_rank` (term
frequency, length-normalised) times the word's IDF from a cached document count, summed.
See docs/postgres.md for how this differs from FTS5's BM25.

Forgetting: a DELETE leaves the row's bytes in the table, TOAST and index pages until VACUUM;
`vacuum()` runs `VACUUM (FULL)` on ke_messages, which rewrites them all (docs/postgres.md).
"""

from __future__ import annotations

import logging
import math
import re
import time
import unicodedata
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from knowledge_engine.config import MemoryConfig, PostgresStorageConfig
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
from knowledge_engine.store.messages import MessageLogError
from knowledge_engine.store.postgres import connect
from knowledge_engine.store.postgres.connect import StoreDatabaseError, describe
from knowledge_engine.store.postgres.vacuum import rewrite_table

log = logging.getLogger("knowledge_engine.store.postgres")

_APPEND_ATTEMPTS = 3
_ANALYZE_FIRST = 1000  # rows appended by one handle before its first ANALYZE
_ANALYZE_GROWTH = 0.2  # then again after growing by this share of what it appended before
VACUUM_LOCK_WAIT_MS = 2000  # how long vacuum() waits for ke_messages' exclusive lock
_CONFIG = "english"  # must match the generated column in migrations/0002_messages.sql
_COLUMNS = "seq, id, session, role, speaker, agent_id, ts, text, nul_at"
_LEXEME_RE = re.compile(r"^[^\W_]+$")
_MARKS_RE = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


class PgMessageLogError(MessageLogError, StoreDatabaseError):
    """The shared message log cannot be used; names the server, never the URL or any message text."""


def _clean(value: str | None) -> str | None:
    """Lone surrogates (not encodable) and NUL (not storable in a text column) become U+FFFD; counted."""
    if value is None:
        return None
    fixed = SURROGATE_RE.sub("\ufffd", value).replace("\x00", "\ufffd")
    if fixed != value:
        counters.inc("memory.text_sanitized")
    return fixed


def _text_in(text: str) -> tuple[str, list[int] | None]:
    """The storable text (NUL -> space, a separator for the index too) and where the NULs were."""
    text = SURROGATE_RE.sub("\ufffd", text)
    if "\x00" not in text:
        return text, None
    return text.replace("\x00", " "), [i for i, c in enumerate(text) if c == "\x00"]


def _text_out(text: str, nul_at: list[int] | None) -> str:
    if not nul_at:
        return text
    chars = list(text)
    for i in nul_at:
        if 0 <= i < len(chars):
            chars[i] = "\x00"
    return "".join(chars)


def _utc(ts: datetime) -> datetime:
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts


def _row_to_message(row: Row) -> Message:
    _seq, id_, session, role, speaker, agent_id, ts, text, nul_at = row[:9]
    return Message.model_construct(
        id=id_,
        text=_text_out(text, nul_at),
        role=role,
        session=session,
        speaker=speaker,
        agent_id=agent_id,
        timestamp=ts.astimezone(UTC),
    )


def _fold(token: str) -> str:
    """The query side of ke_fold(): NFKD with combining marks removed."""
    return _MARKS_RE.sub("", unicodedata.normalize("NFKD", token))


def _lexeme(token: str) -> str | None:
    """A quoted tsquery lexeme, or None: only letters and digits ever reach to_tsquery."""
    folded = _fold(token)
    return f"'{folded}'" if _LEXEME_RE.match(folded) else None


def _phrase(text: str) -> str | None:
    words = [w for w in (_lexeme(t) for t in text.split()) if w]
    return " <-> ".join(words) if words else None


def tsquery_parts(built: KeywordQuery) -> tuple[list[str], list[str]]:
    """(required phrase parts, optional parts) as tsquery text, each safe on its own."""
    required = [p for p in (_phrase(ph) for ph in built.phrases) if p]
    optional = [t for t in (_lexeme(t) for t in built.terms) if t]
    optional += [f"{p}:*" for p in (_lexeme(x) for x in built.prefixes) if p]
    return required, optional


def compose_tsquery(required: list[str], optional: list[str]) -> str:
    """Phrases AND-ed (they must match), other words OR-ed (they rank), as FTS5's `compose`."""
    ranked = " | ".join(f"({p})" for p in required + optional)
    if not required:
        return ranked
    must = " & ".join(f"({p})" for p in required)
    return must if not optional else f"{must} & ({ranked})"


def _filters(filters: Filters) -> tuple[str, list[Any]]:
    """Extra SQL conditions (each starting with AND) and their parameters."""
    terms = filters.terms()
    sql = "".join(f" AND {column} %s" for column, _ in terms)
    return sql, [_utc(v) if isinstance(v, datetime) else _clean(v) for _, v in terms]


class PgMessageLog(MessageLogBase):
    """One agent's message log in the shared database; the same public API as `MessageLog`."""

    _message = staticmethod(_row_to_message)

    def __init__(
        self,
        cfg: PostgresStorageConfig,
        agent: str,
        *,
        roles: Collection[str] | None = None,
        max_query_terms: int = DEFAULT_MAX_TERMS,
        extra_stop_words: Iterable[str] = (),
        match_budget: int = DEFAULT_MATCH_BUDGET,
    ) -> None:
        if not cfg.url:
            raise PgMessageLogError("storage.postgres.url is empty; the postgres backend needs one")
        self.cfg = cfg
        self.agent = agent
        self.where = describe(cfg.url)
        self._init_search(roles, max_query_terms, extra_stop_words, match_budget)
        self._closed = False
        self._since_analyze = 0
        self._analyzed_rows = 0
        with self._conn():
            pass  # fail now (unreachable server, newer schema) rather than on the first message

    @classmethod
    def from_config(cls, cfg: PostgresStorageConfig, agent: str, memory: MemoryConfig) -> PgMessageLog:
        """Open one agent's log with a MemoryConfig's roles and query settings."""
        return cls(cfg, agent, **query_settings(memory))

    # ------------------------------------------------------------------ connection

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; any database failure becomes a PgMessageLogError without its details."""
        if self._closed:
            raise PgMessageLogError("message log is closed")
        try:
            with connect.connection(self.cfg) as conn:
                yield conn
        except PgMessageLogError:
            raise
        except (psycopg.Error, StoreDatabaseError, OSError) as exc:
            counters.inc("memory.db_error")
            log.warning("message log on %s failed: %s", self.where, type(exc).__name__)
            raise PgMessageLogError(
                f"message log on the PostgreSQL store at {self.where} failed: {type(exc).__name__}"
            ) from None

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._conn() as conn:
            return conn.execute(sql, params).fetchall()

    def close(self) -> None:
        """Stop using the log (the process's pool stays open for other agents)."""
        self._closed = True

    # ------------------------------------------------------------------ writes

    def _row(self, msg: Message) -> tuple[Any, ...]:
        text, nul_at = _text_in(msg.text)
        if nul_at is None and text != msg.text:
            counters.inc("memory.text_sanitized")
        return (
            self.agent,
            _clean(msg.id),
            _clean(msg.session),
            _clean(msg.role),
            _clean(msg.speaker),
            _clean(msg.agent_id),
            _utc(msg.timestamp),
            text,
            nul_at,
        )

    def append_many(self, msgs: Iterable[Message]) -> int:
        """Store many messages in one transaction; returns how many were new (the first of an id wins).

        Rows are inserted in (time, id) order: two nodes appending overlapping batches then take the
        unique-key locks in the same order and cannot deadlock (a deadlock from rows whose replayed
        copies carry another time is retried). Equal times within one batch are stored in id order.
        """
        rows: dict[str, tuple[Any, ...]] = {}
        offered = 0
        for m in msgs:
            if self._accepts(m):
                offered += 1
                row = self._row(m)
                rows.setdefault(row[1], row)
        if not rows:
            return 0
        ordered = sorted(rows.values(), key=lambda r: (r[6], r[1]))
        with self._conn() as conn:
            for attempt in range(_APPEND_ATTEMPTS):
                try:
                    added = self._insert(conn, ordered)
                    break
                except psycopg.errors.DeadlockDetected:
                    counters.inc("memory.append_deadlock_retried")
                    if attempt == _APPEND_ATTEMPTS - 1:
                        raise
            self._maybe_analyze(conn, added)
        if added < offered:
            counters.inc("memory.duplicate_skipped", offered - added)
        return added

    def _maybe_analyze(self, conn: psycopg.Connection[Any], added: int) -> None:
        """Refresh the planner's statistics each time this handle grew the table by 20%, at least 1,000 rows.

        With stale statistics PostgreSQL guesses an agent's rows are few and scans them all for every
        search instead of using the GIN index (31 ms instead of 0.4 ms at 20k messages); autovacuum
        only looks once a minute, too late after a bulk import or a busy start. Geometric steps keep
        it to a few ANALYZEs; one that would wait for a lock is skipped.
        """
        self._since_analyze += added
        if self._since_analyze < max(_ANALYZE_FIRST, int(self._analyzed_rows * _ANALYZE_GROWTH)):
            return
        self._analyzed_rows += self._since_analyze
        self._since_analyze = 0
        conn.execute("SET lock_timeout = 100")
        try:
            conn.execute("ANALYZE ke_messages")
            counters.inc("memory.analyzed")
        except psycopg.errors.LockNotAvailable:
            counters.inc("memory.analyze_skipped")
        finally:
            conn.execute("RESET lock_timeout")

    @staticmethod
    def _insert(conn: psycopg.Connection[Any], rows: list[tuple[Any, ...]]) -> int:
        added = 0
        with conn.transaction(), conn.cursor() as cur:
            for chunk in chunks(rows):
                cur.executemany(
                    "INSERT INTO ke_messages (agent, id, session, role, speaker, agent_id, ts, text, nul_at)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (agent, id) DO NOTHING"
                    " RETURNING id",
                    chunk,
                    returning=True,
                )
                while True:
                    added += len(cur.fetchall())
                    if not cur.nextset():
                        break
        return added

    def delete(self, ids: Iterable[str]) -> int:
        """Delete messages by id (the keyword index follows); returns how many existed."""
        wanted = self._unique_ids(ids)
        deleted = 0
        with self._conn() as conn, conn.transaction():
            for chunk in chunks(wanted):
                cur = conn.execute(
                    "DELETE FROM ke_messages WHERE agent = %s AND id = ANY(%s)", (self.agent, list(chunk))
                )
                deleted += cur.rowcount
        self._changed("memory.deleted", messages=deleted)
        return deleted

    def delete_session(self, session: str) -> int:
        """Delete every message of one session; returns how many."""
        with self._conn() as conn:
            cur = conn.execute(
                "DELETE FROM ke_messages WHERE agent = %s AND session = %s", (self.agent, _clean(session))
            )
            deleted = cur.rowcount
        self._changed("memory.session_deleted", messages=deleted)
        return deleted

    # redact() (MessageLogBase): the generated index column follows; `vacuum()` afterwards makes the
    # old row versions leave the table files.

    def _redacted_text(self, text: str) -> str:
        return SURROGATE_RE.sub("\ufffd", text or "")

    def _rewrite(self, updates: list[tuple[int, str]]) -> None:
        rows = [(*_text_in(new), self.agent, seq) for seq, new in updates]
        with self._conn() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "UPDATE ke_messages SET text = %s, nul_at = %s WHERE agent = %s AND seq = %s", rows
            )

    def _key(self, id: str) -> str | None:
        return _clean(id)

    def _rows_after(self, seq: int, size: int) -> list[tuple[Any, ...]]:
        return self._read(
            f"SELECT {_COLUMNS} FROM ke_messages WHERE agent = %s AND seq > %s ORDER BY seq LIMIT %s",
            (self.agent, seq, size),
        )

    def _rows_by_id(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        return self._read(
            f"SELECT {_COLUMNS} FROM ke_messages WHERE agent = %s AND id = ANY(%s)", (self.agent, list(ids))
        )

    def _retain(self, max_age_days: float, max_count: int, now: datetime) -> list[str]:
        doomed: list[str] = []
        with self._conn() as conn, conn.transaction():
            if max_age_days > 0:
                cutoff = _utc(now) - timedelta(days=max_age_days)
                cur = conn.execute(
                    "DELETE FROM ke_messages WHERE agent = %s AND ts < %s RETURNING id", (self.agent, cutoff)
                )
                doomed += [r[0] for r in cur.fetchall()]
            if max_count > 0:
                cur = conn.execute(
                    "DELETE FROM ke_messages WHERE agent = %s AND seq IN ("
                    " SELECT seq FROM ke_messages WHERE agent = %s ORDER BY ts, seq"
                    " LIMIT greatest((SELECT count(*) FROM ke_messages WHERE agent = %s) - %s, 0)"
                    ") RETURNING id",
                    (self.agent, self.agent, self.agent, max_count),
                )
                doomed += [r[0] for r in cur.fetchall()]
        return doomed

    def vacuum(self) -> bool:
        """Make deletions physical: `VACUUM (FULL)` rewrites ke_messages, its TOAST table and indexes.

        Plain VACUUM only marks dead row versions reusable (their bytes stay in the pages until
        overwritten) and never removes a word from the GIN index's key tree; FULL writes new files
        without them. It needs the table's exclusive lock (every agent's rows): it waits at most
        VACUUM_LOCK_WAIT_MS for readers and writers to finish, else returns False (run it again),
        so a long transaction elsewhere never queues every node's ingest behind it for long.
        """
        started = time.monotonic()
        wait = min(VACUUM_LOCK_WAIT_MS, self.cfg.statement_timeout_ms)
        with self._conn() as conn:
            done = rewrite_table(conn, "ke_messages", wait, busy_counter="memory.vacuum_lock_busy")
        duration_ms = round((time.monotonic() - started) * 1000, 1)
        emit("memory.vacuum", duration_ms=duration_ms, wal_truncated=done)
        return done

    def check_index(self) -> bool:
        """True when every stored tsvector is the one its text generates (for `validate`)."""
        rows = self._read(
            "SELECT count(*) FROM ke_messages WHERE agent = %s"
            f" AND tsv IS DISTINCT FROM to_tsvector('{_CONFIG}'::regconfig, ke_fold(text))",
            (self.agent,),
        )
        ok = rows[0][0] == 0
        if not ok:
            emit("memory.index_check", ok=False)
        return ok

    def _reindex(self) -> None:
        """REINDEX of the GIN index (for `rebuild_index`; the tsv column is generated, never stale)."""
        with self._conn() as conn:
            conn.execute("REINDEX INDEX ke_messages_tsv")

    # ------------------------------------------------------------------ reads

    def get(self, id: str) -> Message | None:
        rows = self._read(
            f"SELECT {_COLUMNS} FROM ke_messages WHERE agent = %s AND id = %s", (self.agent, _clean(id))
        )
        return _row_to_message(rows[0]) if rows else None

    def has_text_near(self, session: str | None, role: str, text: str, at: datetime, within_s: float) -> bool:
        """Whether the session holds this exact text from `role` within `within_s` of `at`."""
        stored, nul_at = _text_in(text)
        t = _utc(at)
        rows = self._read(
            "SELECT 1 FROM ke_messages WHERE agent = %s AND session IS NOT DISTINCT FROM %s"
            " AND ts BETWEEN %s AND %s AND role = %s AND text = %s"
            " AND nul_at IS NOT DISTINCT FROM %s::integer[] LIMIT 1",
            (
                self.agent,
                _clean(session),
                t - timedelta(seconds=within_s),
                t + timedelta(seconds=within_s),
                _clean(role),
                stored,
                nul_at,
            ),
        )
        return bool(rows)

    def _page(
        self, filters: Filters, cmp: str, direction: str, cursor: Cursor, size: int
    ) -> list[tuple[Any, ...]]:
        where, params = _filters(filters)
        sql = f"SELECT {_COLUMNS} FROM ke_messages WHERE agent = %s{where}"
        args: list[Any] = [self.agent, *params]
        if cursor is not None:
            sql += f" AND (ts, seq) {cmp} (%s, %s)"
            args += list(cursor)
        sql += f" ORDER BY ts {direction}, seq {direction} LIMIT %s"
        return self._read(sql, [*args, size])

    def _count(self, filters: Filters) -> int:
        where, params = _filters(filters)
        rows = self._read(f"SELECT count(*) FROM ke_messages WHERE agent = %s{where}", [self.agent, *params])
        return int(rows[0][0])

    def speakers(self, limit: int = 1000) -> list[str]:
        """Distinct speaker names in the log (a scan of the agent's rows: callers cache it)."""
        rows = self._read(
            "SELECT DISTINCT speaker FROM ke_messages WHERE agent = %s AND speaker IS NOT NULL LIMIT %s",
            (self.agent, limit),
        )
        return [str(name) for (name,) in rows]

    def _search(self, built: KeywordQuery, limit: int, filters: Filters) -> list[tuple[Message, float]]:
        """Full-text search ranked BM25-like (see module doc)."""
        required, optional = tsquery_parts(built)
        if not required and not optional:
            counters.inc("memory.search_empty_query")
            return []
        try:
            return self._ranked(required, optional, limit, _filters(filters))
        except PgMessageLogError:  # never crash a turn: the keyword arm is one of several
            return self._search_failed("PgMessageLogError")

    def _ranked(
        self, required: list[str], optional: list[str], limit: int, filters: tuple[str, list[Any]]
    ) -> list[tuple[Message, float]]:
        top, n = self._size()
        if n == 0:
            return []
        optional, above = self._plan(required, optional, top, n)
        parts = required + optional
        weights = [self._idf(self._doc_freq(p, top), n) for p in parts]
        where, params = filters
        if above:
            where += " AND seq > %s"
            params = [*params, above]
        sql = (
            f"WITH q AS MATERIALIZED (SELECT to_tsquery('{_CONFIG}', u.q) AS tq, u.w"
            "  FROM unnest(%s::text[], %s::float8[]) AS u(q, w))"
            f" SELECT {_COLUMNS}, (SELECT sum(q.w * ts_rank(m.tsv, q.tq, 1)) FROM q) AS score"
            f" FROM ke_messages m WHERE agent = %s AND tsv @@ to_tsquery('{_CONFIG}', %s){where}"
            " ORDER BY score DESC, seq DESC LIMIT %s"
        )
        args = [parts, weights, self.agent, compose_tsquery(required, optional), *params]
        rows = self._read(sql, [*args, max(1, min(limit, MAX_LIMIT))])
        return [(_row_to_message(r), float(r[9] or 0.0)) for r in rows]

    @staticmethod
    def _idf(df: int, n: int) -> float:
        """BM25's IDF: ln(1 + (N - df + 0.5) / (df + 0.5)); a word in every row weighs ~0."""
        return math.log(1 + max(0.0, n - df + 0.5) / (df + 0.5))

    def _plan(self, required: list[str], optional: list[str], top: int, n: int) -> tuple[list[str], int]:
        """Drop the most common OR-ed words beyond `match_budget` (as `MessageLog._plan`, same rules).

        Every matching row is ranked before the sort, so a word in a third of the log costs more than
        all rare words together while its IDF adds almost nothing (`keep_within_budget`). When even
        the rarest word matches more than the budget, only the newest rows are searched (the second
        value: the seq to search above, 0 = everything). Phrase queries are never pruned.
        """
        if self.match_budget <= 0 or required or not optional or n <= self.match_budget:
            return optional, 0
        dfs = sorted((self._doc_freq(p, top), i, p) for i, p in enumerate(optional))
        keep, total = keep_within_budget([(df, p) for df, _, p in dfs], self.match_budget)
        above = 0
        if total > self.match_budget:
            above = self._newest_seq_for(n, self.match_budget / total)
        return [p for p in optional if p in keep], above

    def _newest_seq_for(self, n: int, share: float) -> int:
        """The seq above which the newest `share` of this agent's `n` rows lie (seqs are shared by agents)."""
        skip = max(0, int(n * share))
        rows = self._read(
            "SELECT seq FROM ke_messages WHERE agent = %s ORDER BY seq DESC OFFSET %s LIMIT 1",
            (self.agent, skip),
        )
        return int(rows[0][0]) if rows else 0

    def _size(self) -> tuple[int, int]:
        """(highest seq, row count) of this agent; the count is cached with the document frequencies."""
        rows = self._read("SELECT coalesce(max(seq), 0) FROM ke_messages WHERE agent = %s", (self.agent,))
        top = int(rows[0][0])
        cached = self._df_cache.get("\x00n", top)
        if cached is not None:
            return top, cached
        n = int(self._read("SELECT count(*) FROM ke_messages WHERE agent = %s", (self.agent,))[0][0])
        self._df_cache.put("\x00n", n, top)
        return top, n

    def _doc_freq(self, part: str, top: int) -> int:
        """Rows matching one part; cached until the log grows by 5% (only ranking uses it)."""
        cached = self._df_cache.get(part, top)
        if cached is not None:
            return cached
        df = int(
            self._read(
                f"SELECT count(*) FROM ke_messages WHERE agent = %s AND tsv @@ to_tsquery('{_CONFIG}', %s)",
                (self.agent, part),
            )[0][0]
        )
        self._df_cache.put(part, df, top)
        return df

    def stats(self) -> dict[str, Any]:
        """Counts for `stats`; `table_bytes` is the whole shared table (every agent)."""
        rows = self._read(
            "SELECT count(*), count(DISTINCT session), min(ts), max(ts),"
            " pg_total_relation_size('ke_messages') FROM ke_messages WHERE agent = %s",
            (self.agent,),
        )
        n, sessions, first, last, size = rows[0]
        return {
            "messages": n,
            "sessions": sessions,
            "first": first.astimezone(UTC).isoformat() if first else None,
            "last": last.astimezone(UTC).isoformat() if last else None,
            "table_bytes": int(size),
            "file_bytes": 0,
            "wal_bytes": 0,
        }
