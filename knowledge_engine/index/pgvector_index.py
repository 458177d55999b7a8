"""An agent's fact and message vectors in pgvector (`storage.backend: postgres`): no Chroma needed.

Rows are keyed (agent, kind, id) with the sync's content hash, the filter metadata as jsonb and
the embedding as halfvec(D) under an HNSW cosine index. One table per dimension, `ke_vectors_<D>`,
made on first use and recorded in `ke_vector_tables` (migration 0003): D follows the embedder
(384 for the local model) and a halfvec column cannot change D under live rows, so a new D gets
a new table and an agent's model change is a rebuild, never an ALTER. `ke_vector_spaces` records
each agent's model and D, so a node configured with another embedder is refused
(IndexMismatchError) instead of mixing vector spaces. Queries run with pgvector's iterative scan,
so a filtered query (the agent and kind columns are filters too) still returns k rows; if the
scan stops short, an exact scan of the agent's rows finishes the answer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from knowledge_engine.config import EngineConfig, PostgresStorageConfig
from knowledge_engine.index.chroma import REBUILD_COMMAND, Hit, IndexMismatchError, KindMethods, Metadata
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.index.pgvector_where import where_sql
from knowledge_engine.observe import counters, emit
from knowledge_engine.store.postgres.connect import connection
from knowledge_engine.store.postgres.vacuum import rewrite_table

KINDS = ("facts", "messages")
MAX_DIMENSIONS = 4000  # pgvector's HNSW limit for halfvec
BATCH = 1000
_TABLE_LOCK = 0x6B655F766563  # advisory lock id of "ke_vec": one node creates a table or a space at a time
# hnsw.ef_search: the candidate list of one HNSW pass, k or more (as Chroma's hnswlib uses max(ef, k)); the
# iterative scan goes on past it when a filter drops rows. 2k cost twice the time for +0.13 recall
# (docs/postgres.md).
_EF_SEARCH_MIN, _EF_SEARCH_MAX = 40, 1000
VACUUM_LOCK_WAIT_MS = 2000  # per attempt, how long a forget's rewrite waits for a table's exclusive lock


class VectorsBusyError(RuntimeError):
    """A vector table could not be rewritten (VACUUM FULL) because other sessions held it."""


class VectorsReadOnlyError(RuntimeError):
    """A write to an agent's vectors that a read-only command opened before any existed."""


class _Space(NamedTuple):
    model: str
    dimensions: int
    generation: int


class _Collection(NamedTuple):
    """What sync asks of a collection: an id that changes with every rebuild."""

    id: str
    name: str


def vector_literal(vec: Sequence[float]) -> str:
    """pgvector's text input form, so no numpy/pgvector adapter is needed."""
    return "[" + ",".join(repr(float(x)) for x in vec) + "]"


def table_name(dimensions: int) -> str:
    return f"ke_vectors_{int(dimensions)}"


def _table(dimensions: int) -> sql.Identifier:
    return sql.Identifier(table_name(dimensions))


def _clean(meta: Metadata) -> dict[str, Any]:
    """Metadata as Chroma keeps it: a None value is no key (so $ne/$nin do not match it)."""
    return {k: v for k, v in meta.items() if v is not None}


def ensure_table(conn: psycopg.Connection, dimensions: int) -> None:
    """`ke_vectors_<D>` and its HNSW index, made once and registered; call inside a transaction."""
    d = int(dimensions)
    if not 1 <= d <= MAX_DIMENSIONS:
        raise IndexMismatchError(f"pgvector indexes at most {MAX_DIMENSIONS} dimensions, not {d}")
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_TABLE_LOCK,))
    if conn.execute("SELECT 1 FROM ke_vector_tables WHERE dimensions = %s", (d,)).fetchone():
        return
    t = _table(d)
    conn.execute(
        sql.SQL(
            "CREATE TABLE {t} (agent text NOT NULL, kind text NOT NULL, id text NOT NULL,"
            " hash text NOT NULL, metadata jsonb NOT NULL, embedding halfvec({d}) NOT NULL,"
            " PRIMARY KEY (agent, kind, id))"
        ).format(t=t, d=sql.Literal(d))
    )
    conn.execute(
        sql.SQL("CREATE INDEX {i} ON {t} USING hnsw (embedding halfvec_cosine_ops)").format(
            i=sql.Identifier(f"{table_name(d)}_hnsw"), t=t
        )
    )
    conn.execute("INSERT INTO ke_vector_tables (dimensions, table_name) VALUES (%s, %s)", (d, table_name(d)))
    emit("pgvector_table_created", dimensions=d)


def _dimensions(conn: psycopg.Connection) -> list[int]:
    return [int(r[0]) for r in conn.execute("SELECT dimensions FROM ke_vector_tables ORDER BY dimensions")]


def vacuum_tables(conn: psycopg.Connection, attempts: int = 3) -> None:
    """`VACUUM (FULL)` every vector table: a DELETE leaves the row's bytes (its metadata holds names:
    a fact's subject and object, a message's speaker) in the heap pages, and its vector in the HNSW
    index, until the table and its indexes are rewritten. The rewrite holds each table's exclusive
    lock (every agent's rows); it waits at most VACUUM_LOCK_WAIT_MS for it per attempt, so a long
    transaction elsewhere never queues every node's queries behind it for long, and raises
    VectorsBusyError after `attempts` (the rows are deleted: run forget again). Not bound by the
    pool's statement timeout (a rewrite of a large table takes longer)."""
    for d in _dimensions(conn):
        if not rewrite_table(conn, _table(d), VACUUM_LOCK_WAIT_MS, attempts, "pgvector.vacuum_lock_busy"):
            raise VectorsBusyError(
                f"{table_name(d)} stayed locked by other sessions; the forgotten rows are deleted but "
                "their bytes are not yet rewritten away: run forget again"
            )


def forget_vectors(
    pg: PostgresStorageConfig,
    agent: str,
    facts: Sequence[str],
    messages: Sequence[str],
    entities: Sequence[str],
) -> int:
    """`forget` on the postgres backend (needs no embedder): the agent's rows of these facts and
    messages, and of every fact naming a forgotten entity, deleted from every vector table, then the
    tables rewritten (vacuum_tables). Returns the rows deleted."""
    if not (facts or messages or entities):
        return 0
    fact_match = sql.SQL(
        "kind = 'facts' AND (id = ANY(%s) OR metadata ->> 'subject_id' = ANY(%s)"
        " OR metadata ->> 'object_id' = ANY(%s))"
    )
    deleted = 0
    with connection(pg) as conn:
        with conn.transaction():
            for d in _dimensions(conn):
                head = sql.SQL("DELETE FROM {t} WHERE agent = %s AND ").format(t=_table(d))
                done = conn.execute(head + fact_match, (agent, list(facts), list(entities), list(entities)))
                deleted += max(done.rowcount, 0)
                done = conn.execute(
                    head + sql.SQL("kind = 'messages' AND id = ANY(%s)"), (agent, list(messages))
                )
                deleted += max(done.rowcount, 0)
        vacuum_tables(conn)  # also when nothing was left: a sync may have deleted the rows before
    emit("pgvector_forget", deleted=deleted)
    return deleted


class PgVectorIndex(KindMethods):
    """`VectorIndex` over pgvector: the agent's rows of `ke_vectors_<D>` in the shared store."""

    shared = True

    def __init__(
        self, workspace: Path, agent_id: str, config: EngineConfig, embedder: Embedder, create: bool = True
    ) -> None:
        """`create=False` (read-only commands): an agent without vectors reads as empty, writes refuse."""
        self._setup(workspace, agent_id, config, embedder)
        self._space: _Space | None = self._open(create)

    def _setup(self, workspace: Path, agent_id: str, config: EngineConfig, embedder: Embedder) -> None:
        self.workspace, self.agent_id = Path(workspace), agent_id
        self.config, self.embedder = config, embedder
        self.lock = threading.RLock()
        self._pg = config.storage.postgres

    @classmethod
    def for_rebuild(
        cls, workspace: Path, agent_id: str, config: EngineConfig, embedder: Embedder
    ) -> PgVectorIndex:
        """Open even when the recorded model differs, then reset (to the configured embedder)."""
        self = cls.__new__(cls)
        self._setup(workspace, agent_id, config, embedder)
        self.reset()
        return self

    # ------------------------------------------------------------------ the agent's space

    def _read_space(self, conn: psycopg.Connection) -> _Space | None:
        row = conn.execute(
            "SELECT model, dimensions, generation FROM ke_vector_spaces WHERE agent = %s", (self.agent_id,)
        ).fetchone()
        return _Space(str(row[0]), int(row[1]), int(row[2])) if row else None

    def _open(self, create: bool) -> _Space | None:
        with connection(self._pg) as conn:
            space = self._read_space(conn)
            if space is None and create:
                with conn.transaction():
                    ensure_table(conn, self.embedder.dimensions)
                    conn.execute(
                        "INSERT INTO ke_vector_spaces (agent, model, dimensions) VALUES (%s, %s, %s)"
                        " ON CONFLICT (agent) DO NOTHING",
                        (self.agent_id, self.embedder.model_id, self.embedder.dimensions),
                    )
                    space = self._read_space(conn)  # another node's, if it registered first
        if space is not None:
            self._check_model(space)
        return space

    def _check_model(self, space: _Space) -> None:
        adopt = getattr(self.embedder, "adopt_dimensions", None)
        if callable(adopt) and space.model == self.embedder.model_id:
            adopt(space.dimensions)
        if space.model != self.embedder.model_id or space.dimensions != self.embedder.dimensions:
            raise IndexMismatchError(
                f"the pgvector index of agent {self.agent_id!r} was built with {space.model} "
                f"({space.dimensions} dimensions) but the configured embedder is {self.embedder.model_id} "
                f"({self.embedder.dimensions} dimensions); rebuild it with: {REBUILD_COMMAND}"
            )

    def _require(self) -> _Space:
        if self._space is None:
            raise VectorsReadOnlyError(f"agent {self.agent_id!r} has no vectors yet (opened read-only)")
        return self._space

    def collection(self, kind: str) -> _Collection:
        space = self._space
        gen = f"{space.dimensions}:{space.generation}" if space else "absent"
        return _Collection(f"pg:{self.agent_id}:{kind}:{gen}", f"{self.agent_id}-{kind}")

    def reset(self) -> None:
        """Delete the agent's vectors everywhere and record the configured model (a rebuild)."""
        d = self.embedder.dimensions
        with self.lock, connection(self._pg) as conn, conn.transaction():
            ensure_table(conn, d)
            self._delete_everywhere(conn, None, None)
            conn.execute(
                "INSERT INTO ke_vector_spaces (agent, model, dimensions) VALUES (%s, %s, %s)"
                " ON CONFLICT (agent) DO UPDATE SET model = EXCLUDED.model, dimensions = EXCLUDED.dimensions,"
                " generation = ke_vector_spaces.generation + 1, updated_at = now()",
                (self.agent_id, self.embedder.model_id, d),
            )
            self._space = self._read_space(conn)
        emit("pgvector_reset", agent_id=self.agent_id, dimensions=d)

    # ------------------------------------------------------------------ writes

    def max_batch(self) -> int:
        return BATCH

    def upsert(
        self, kind: str, ids: Sequence[str], vectors: Sequence[Sequence[float]], metadatas: Sequence[Metadata]
    ) -> None:
        """Vectors and filter metadata only (texts stay in the stores); one transaction per batch."""
        space = self._require()
        stmt = sql.SQL(
            "INSERT INTO {t} (agent, kind, id, hash, metadata, embedding) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (agent, kind, id) DO UPDATE SET hash = EXCLUDED.hash,"
            " metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding"
        ).format(t=_table(space.dimensions))
        rows = []
        for rid, vec, meta in zip(ids, vectors, metadatas, strict=True):
            if len(vec) != space.dimensions:
                raise IndexMismatchError(
                    f"a {len(vec)}-dimensional vector for an index of {space.dimensions} dimensions"
                )
            content_hash = str(meta.get("content_hash") or "")
            rows.append((self.agent_id, kind, rid, content_hash, Jsonb(_clean(meta)), vector_literal(vec)))
        self._write_many(stmt, rows, id_at=2)

    def update_metadata(self, kind: str, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        space = self._require()
        stmt = sql.SQL(
            "UPDATE {t} SET hash = %s, metadata = %s WHERE agent = %s AND kind = %s AND id = %s"
        ).format(t=_table(space.dimensions))
        rows = [
            (str(meta.get("content_hash") or ""), Jsonb(_clean(meta)), self.agent_id, kind, rid)
            for rid, meta in zip(ids, metadatas, strict=True)
        ]
        self._write_many(stmt, rows, id_at=4)

    def _write_many(self, stmt: sql.Composed, rows: list[tuple[Any, ...]], id_at: int) -> None:
        """Batches in id order: two nodes writing overlapping rows then lock them in one order, so
        they wait for each other instead of deadlocking (seen with opposite orders)."""
        rows = sorted(rows, key=lambda r: str(r[id_at]))
        with connection(self._pg) as conn:
            for s in range(0, len(rows), BATCH):
                with conn.transaction(), conn.cursor() as cur:
                    cur.executemany(stmt, rows[s : s + BATCH])

    def delete(self, kind: str, ids: Iterable[str]) -> int:
        """Remove the rows (from every dimension's table: a node with a stale model may have written
        to an old one); unknown ids are ignored. Returns the rows deleted."""
        batch = list(dict.fromkeys(ids))
        if not batch:
            return 0
        with self.lock, connection(self._pg) as conn, conn.transaction():
            return self._delete_everywhere(conn, kind, batch)

    def _delete_everywhere(self, conn: psycopg.Connection, kind: str | None, ids: list[str] | None) -> int:
        cond: sql.Composable = sql.SQL("agent = %s")
        params: list[Any] = [self.agent_id]
        if kind is not None:
            cond, params = cond + sql.SQL(" AND kind = %s"), [*params, kind]
        if ids is not None:
            cond, params = cond + sql.SQL(" AND id = ANY(%s)"), [*params, ids]
        deleted = 0
        for d in _dimensions(conn):
            cur = conn.execute(sql.SQL("DELETE FROM {t} WHERE ").format(t=_table(d)) + cond, params)
            deleted += max(cur.rowcount, 0)
        return deleted

    def stored_hashes(self, kind: str) -> dict[str, str]:
        """id -> content_hash of every row of this kind (one index scan, no vectors read). Every sync
        starts here, so it first re-reads the agent's space: another node may have rebuilt it since."""
        with connection(self._pg) as conn:
            space = self._refresh(conn)
            if space is None:
                return {}
            stmt = sql.SQL("SELECT id, hash FROM {t} WHERE agent = %s AND kind = %s").format(
                t=_table(space.dimensions)
            )
            return {str(r[0]): str(r[1]) for r in conn.execute(stmt, (self.agent_id, kind))}

    def _refresh(self, conn: psycopg.Connection) -> _Space | None:
        """The agent's space as the database has it now: a rebuild by another node with this model is
        followed (its new generation); one with another model is IndexMismatchError here, before this
        node writes vectors of its old model into the old table."""
        space = self._read_space(conn) if self._space is not None else None
        if space is not None and space != self._space:
            self._check_model(space)
            self._space = space
        return self._space

    def count(self, kind: str) -> int:
        if self._space is None:
            return 0
        stmt = sql.SQL("SELECT count(*) FROM {t} WHERE agent = %s AND kind = %s").format(
            t=_table(self._space.dimensions)
        )
        with connection(self._pg) as conn:
            row = conn.execute(stmt, (self.agent_id, kind)).fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------------ queries

    def _query(
        self, kind: str, vector: Sequence[float], k: int, where: dict[str, Any] | None, metadata: bool = True
    ) -> list[Hit]:
        """(`metadata` is read with the row here at no extra cost: always returned.)"""
        cond, where_params = where_sql(where)  # a bad filter is an error even on an empty index
        if k <= 0 or self._space is None:
            return []
        d = self._space.dimensions
        if len(vector) != d:
            raise IndexMismatchError(f"a {len(vector)}-dimensional query for an index of {d} dimensions")
        q = vector_literal(vector)
        with connection(self._pg) as conn, conn.transaction():
            conn.execute(
                "SELECT set_config('hnsw.iterative_scan', 'strict_order', true),"
                " set_config('hnsw.ef_search', %s, true)",
                (str(min(_EF_SEARCH_MAX, max(_EF_SEARCH_MIN, k))),),
            )
            stmt, params = _search_sql(d, cond, [self.agent_id, kind, *where_params], q, k, exact=False)
            rows = conn.execute(stmt, params).fetchall()
            if len(rows) < k:  # the scan stopped short (a selective filter, a small agent in a big table)
                stmt, params = _search_sql(d, cond, [self.agent_id, kind, *where_params], q, k, exact=True)
                rows = conn.execute(stmt, params).fetchall()
                counters.inc("pgvector.exact_fallback")
        return [Hit(str(rid), 1.0 - float(dist), dict(meta or {})) for rid, meta, dist in rows]


def _search_sql(
    dimensions: int, cond: sql.Composable, filters: list[Any], q: str, k: int, exact: bool
) -> tuple[sql.Composed, list[Any]]:
    """Nearest rows of one agent and kind, and the parameters in order. `exact`: ranks a materialized
    set of the agent's matching rows, which the HNSW index cannot serve, so every match is seen."""
    t, d = _table(dimensions), sql.Literal(int(dimensions))
    dist = sql.SQL("(embedding <=> %s::halfvec({d}))::float8").format(d=d)
    match = sql.SQL(" FROM {t} WHERE agent = %s AND kind = %s AND ").format(t=t) + cond
    if not exact:
        stmt = (
            sql.SQL("SELECT id, metadata, ")
            + dist
            + sql.SQL(" AS dist")
            + match
            + sql.SQL(" ORDER BY embedding <=> %s::halfvec({d}) LIMIT %s").format(d=d)
        )
        return stmt, [q, *filters, q, k]
    stmt = (
        sql.SQL("WITH m AS MATERIALIZED (SELECT id, metadata, embedding")
        + match
        + sql.SQL(") SELECT id, metadata, ")
        + dist
        + sql.SQL(" AS dist FROM m ORDER BY dist LIMIT %s")
    )
    return stmt, [*filters, q, k]
