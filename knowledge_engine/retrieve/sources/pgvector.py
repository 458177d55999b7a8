"""Document search over the seed's `knowledge_vectors` table (PostgreSQL + pgvector).

The SQL is the seed's, unchanged in shape: ORDER BY the halfvec cosine distance with a LIMIT
and no score filter in SQL, so PostgreSQL can use the HNSW expression index; the score
threshold is applied afterwards. One query per collection, run concurrently.
"""

from __future__ import annotations

import asyncio
import re
import time
import weakref
from typing import Any

from psycopg import AsyncConnection, OperationalError, errors, sql
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from knowledge_engine.config import PgvectorConfig
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.index.pgvector_index import vector_literal as vector_literal  # also imported from here
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem, SourceResult
from knowledge_engine.observe import emit
from knowledge_engine.store.postgres.connect import tcp_options

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$")

QUERY_TEMPLATE = (
    "SELECT file_name, mime_type, text, file_id, source, owner, chunk_index, total_chunks,"
    " timestamp_start, timestamp_end, embedded_at,"
    " 1 - (embedding::halfvec({d}) <=> %(q)s::halfvec({d})) AS score"
    " FROM {table} WHERE collection = %(collection)s"
    " ORDER BY embedding::halfvec({d}) <=> %(q)s::halfvec({d}) LIMIT %(k)s"
)


class DimensionMismatchError(ValueError):
    """Embedding size, `pgvector.dimensions` and the table's vector(D) do not all agree."""

    category = "dimension_mismatch"


def resolve_dimensions(config: PgvectorConfig, embedder: Embedder) -> int:
    """D of the table: `pgvector.dimensions` when set, else the provider's size.

    The provider's size is known for local (384) and Gemini's default model (3072), taken from
    `embeddings.dimensions`, or learnt by embedding one string (OpenAI-compatible, Ollama).
    Ingestion calls this before it creates anything; a query takes D the same way (the setting,
    else its own vector's size, which is the provider's), so both agree on D.
    """
    actual = embedder.dimensions
    if config.dimensions is not None and config.dimensions != actual:
        raise DimensionMismatchError(
            f"{embedder.model_id} produces {actual}-dimensional vectors, but pgvector.dimensions is"
            f" {config.dimensions}: remove pgvector.dimensions (it then follows the provider)"
            f" or set it to {actual}"
        )
    return config.dimensions or actual


def table_mismatch_message(table: str, stored: int, wanted: int, rows: int | None = None) -> str:
    """What is wrong and the ways out; said the same way by ingestion and queries."""
    held = f" (it holds {rows} rows)" if rows is not None else ""
    return (
        f"table {table} stores vector({stored}){held}, but the embeddings are {wanted}-dimensional."
        f" Either set pgvector.table to a new table name (created on the next `docs ingest`), or run"
        f" `knowledge-engine docs ingest --recreate ...` to drop {table} and re-create it as vector({wanted})"
        f" (this deletes every collection stored in it), or use an embedding provider of {stored} dimensions"
    )


class PgvectorTimeout(TimeoutError):
    """The statement timeout fired (counted as a timeout, not an error)."""

    category = "statement_timeout"


def table_identifier(name: str) -> sql.Composable:
    """Validate `table` (optionally schema.table) and quote it; config must never inject SQL."""
    if not _IDENT.match(name):
        raise ValueError(f"pgvector.table {name!r} is not a plain SQL identifier")
    return sql.Identifier(*name.split("."))


def search_sql(table: str, dimensions: int) -> sql.Composed:
    """The seed's query for this table and D (D is an int from validated config)."""
    return sql.SQL(QUERY_TEMPLATE.replace("{d}", str(int(dimensions)))).format(table=table_identifier(table))


_EXPECTED_DIMS = re.compile(r"expected \d+ dimensions, not (\d+)")


def _stored_dimensions(exc: Exception) -> int | None:
    """The table's D from pgvector's cast error ("expected 384 dimensions, not 3072"), if that is it."""
    match = _EXPECTED_DIMS.search(str(exc))
    return int(match.group(1)) if match else None


# One pool per URL (and timeout/size) per event loop: a pool's connections belong to the loop
# that opened them, and statement_timeout is fixed when a connection is made.
_PoolKey = tuple[str, str, int]
_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_PoolKey, AsyncConnectionPool[Any]]] = (
    weakref.WeakKeyDictionary()
)
_POOL_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def _session_options(config: PgvectorConfig) -> str:
    """Per-connection settings: the statement timeout, and pgvector 0.8's iterative index scan.

    Without the iterative scan, `WHERE collection = ... ORDER BY distance LIMIT k` through HNSW
    only filters the first ef_search (40) candidates, so a small collection in a big table can
    come back empty. Older pgvector ignores the setting (a placeholder GUC).
    """
    opts = f"-c statement_timeout={int(config.timeout_ms)}"
    if config.iterative_scan != "off":
        opts += f" -c hnsw.iterative_scan={config.iterative_scan}"
    return opts


async def get_pool(config: PgvectorConfig) -> AsyncConnectionPool[Any]:
    """The shared pool for config.url on the running loop, created and opened on first use."""
    loop = asyncio.get_running_loop()
    lock = _POOL_LOCKS.setdefault(loop, asyncio.Lock())
    async with lock:
        pools = _POOLS.setdefault(loop, {})
        key = (config.url, _session_options(config), config.pool_max)
        pool = pools.get(key)
        if pool is None:
            pool = AsyncConnectionPool(
                config.url,
                min_size=0,
                max_size=config.pool_max,
                kwargs={
                    "options": _session_options(config),
                    "autocommit": True,
                    **tcp_options(config.url, config.timeout_ms),  # a dropped network ends the socket
                },
                check=AsyncConnectionPool.check_connection,  # drops connections broken by a server restart
                timeout=config.timeout_ms / 1000,
                open=False,
            )
            await pool.open(wait=False)
            pools[key] = pool
        return pool


async def close_pools() -> None:
    """Close this loop's pools (call on shutdown)."""
    pools = _POOLS.pop(asyncio.get_running_loop(), {})
    for pool in pools.values():
        await pool.close()


def row_to_item(row: dict[str, Any], collection: str) -> RetrievedItem:
    """A document item carrying the seed's provenance columns."""
    score = float(row["score"])
    ident = f"pgvector:{collection}:{row.get('file_id') or row.get('file_name')}:{row.get('chunk_index')}"
    extra = {k: row.get(k) for k in ("chunk_index", "total_chunks", "timestamp_start", "timestamp_end")}
    for key in ("mime_type", "file_id", "source", "owner"):
        if row.get(key) is not None:
            extra[key] = row[key]
    return RetrievedItem(
        id=ident,
        kind="document",
        source="pgvector",
        text=row.get("text") or "",
        score=score,
        scores={"vector": score},
        file_path=row.get("file_name"),
        collection=collection,
        extra=extra,
    )


class PgvectorSource:
    """`Source` over the document table; the pool is created lazily on the caller's loop."""

    name = "pgvector"

    def __init__(self, config: PgvectorConfig, embedder: Embedder) -> None:
        if not config.url:
            raise ValueError("pgvector.url is empty")
        table_identifier(config.table)  # a bad name is a config error at once, not at the first query
        self.config = config
        self.embedder = embedder
        self._sql: dict[int, sql.Composed] = {}

    def _search_sql(self, dims: int) -> sql.Composed:
        if dims not in self._sql:
            self._sql[dims] = search_sql(self.config.table, dims)
        return self._sql[dims]

    async def _embed(self, query: str) -> tuple[str, int]:
        """The query vector and D: pgvector.dimensions, else the provider's size (as at ingestion)."""
        vec = await asyncio.to_thread(self.embedder.embed_query, query)
        dims = self.config.dimensions or len(vec)
        if len(vec) != dims:
            raise DimensionMismatchError(
                f"query embedding from {self.embedder.model_id} has {len(vec)} dimensions, "
                f"but pgvector.dimensions is {self.config.dimensions}"
            )
        return vector_literal(vec), dims

    async def _query(
        self, conn: AsyncConnection[Any], q: str, dims: int, collection: str
    ) -> list[dict[str, Any]]:
        params = {"q": q, "collection": collection, "k": self.config.top_k}
        async with conn.cursor(row_factory=dict_row) as cur:
            try:
                await cur.execute(self._search_sql(dims), params)
            except errors.DataException as exc:
                stored = _stored_dimensions(exc)
                if stored is None:
                    raise
                message = table_mismatch_message(self.config.table, stored, dims)
                raise DimensionMismatchError(message) from None
            return await cur.fetchall()

    async def query_collection(self, q: str, dims: int, collection: str) -> list[RetrievedItem]:
        """Top-k rows of one collection; one retry on a connection a server restart broke."""
        pool = await get_pool(self.config)
        for attempt in (0, 1):
            try:
                async with pool.connection() as conn:
                    rows = await self._query(conn, q, dims, collection)
                break
            except errors.QueryCanceled:
                raise PgvectorTimeout() from None
            except OperationalError:
                if attempt:
                    raise
        return [row_to_item(r, collection) for r in rows]

    async def search(self, request: RetrievalRequest) -> SourceResult:
        start = time.perf_counter()
        q, dims = await self._embed(request.query)
        per_collection = await asyncio.gather(
            *(self.query_collection(q, dims, c) for c in self.config.collections)
        )
        raw = [i for batch in per_collection for i in batch]
        items = sorted((i for i in raw if i.score >= self.config.score_threshold), key=lambda i: -i.score)
        emit(
            "pgvector",
            collections=len(self.config.collections),
            raw_count=len(raw),
            kept_count=len(items),
            top_score=round(items[0].score, 4) if items else None,
        )
        duration = round((time.perf_counter() - start) * 1000, 2)
        return SourceResult(source=self.name, items=items, duration_ms=duration)
