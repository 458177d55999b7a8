"""PostgreSQL stopped during retrieval and restarted, with the engine (and its pool) left running.

While the database is down, before_prompt_build keeps answering inside its host timeout with the
local knowledge (pgvector reports an error or timeout, the host sees no handler timeout). After the
restart the same engine, on the same event loop and pool, gets document rows again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import KnowledgePlugin, register
from knowledge_engine.retrieve.retriever import retriever_for
from knowledge_engine.retrieve.sources.pgvector import close_pools, get_pool, vector_literal
from tests.fixtures.postgres import PgHandle, pg_server_in_tempdir
from tests.servers.ollama_server import FakeOllamaServer, hash_vector

DIMS = 16
TABLE = "fault_vectors"


@pytest.fixture
def own_pg() -> Iterator[PgHandle]:
    """A server of this test's own: stopping the session one would break other tests."""
    from knowledge_engine.documents.ingest import ensure_schema

    with pg_server_in_tempdir() as pg:
        with pg.connect() as conn:
            ensure_schema(conn, TABLE, DIMS)
            rows = [f"Halcyon launch runbook section {i}: rollback needs two approvals." for i in range(40)]
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {TABLE} (collection, file_name, mime_type, text, file_id, source,"
                    " chunk_index, total_chunks, timestamp_start, timestamp_end, embedded_at, embedding)"
                    " VALUES"
                    " ('knowledge_default', %s, 'text/markdown', %s, %s, 'fixture', 0, 1, '00:00', '00:10',"
                    f" now(), %s::vector({DIMS}))",
                    [(f"doc-{i}.md", t, f"fid-{i}", vector_literal(hash_vector(t, DIMS)))
                     for i, t in enumerate(rows)],
                )
        yield pg


def plugin_config(tmp_path: Path, pg_url: str, ollama_url: str) -> dict[str, Any]:
    return {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"writeDebounceMs": 0},
        "embeddings": {"enabled": False},
        "retrieval": {"budgetMs": 1500},  # prompt cache on: a degraded answer must not outlive the outage
        "pgvector": {"enabled": True, "url": pg_url, "table": TABLE, "collections": ["knowledge_default"],
                     "dimensions": DIMS, "scoreThreshold": -1, "timeoutMs": 700,
                     "embeddings": {"provider": "ollama", "endpoint": ollama_url, "model": "nomic-embed-text",
                                    "dimensions": DIMS, "maxRetries": 0}},
    }


async def ask(runner: HookRunner, plugin: KnowledgePlugin, prompt: str) -> tuple[str, dict[str, Any], float]:
    t0 = time.perf_counter()
    result = await runner.run("before_prompt_build", {"prompt": prompt, "messages": []},
                              {"agentId": "pg", "sessionKey": "agent:pg:main", "trigger": "user"})
    elapsed = (time.perf_counter() - t0) * 1000
    ws = plugin.engine.workspace("pg")
    prov = retriever_for(plugin.engine, ws).last_provenance or {}
    return (result or {}).get("appendSystemContext", ""), prov.get("sources", {}), elapsed


@pytest.mark.slow
def test_postgres_stopped_and_restarted_hook_degrades_to_local_and_pool_recovers(
    tmp_path: Path, own_pg: PgHandle
) -> None:
    ollama = FakeOllamaServer(embed_dim=DIMS).start()
    api = PluginApi("knowledge-engine", plugin_config(tmp_path, own_pg.url, ollama.url))
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)
    ws = plugin.engine.workspace("pg")
    ws.facts.add("Dana", "works-at", "Globex Corporation")
    ws.flush()
    timings: dict[str, list[float]] = {"up": [], "down": [], "restart": [], "pool_back": [],
                                        "back": []}

    async def scenario() -> None:
        block, sources, ms = await ask(runner, plugin, "Where does Dana work, what is the Halcyon runbook?")
        timings["up"].append(ms)
        assert sources["pgvector"]["status"] == "ok" and sources["pgvector"]["count"] > 0
        assert "Globex" in block and "Halcyon launch runbook" in block
        await asyncio.to_thread(own_pg.stop)
        # two failures: below the source breaker's threshold (3), which would pause pgvector for 5 minutes
        for prompt in ("Where does Dana work these days?", "Which company employs Dana?"):
            block, sources, ms = await ask(runner, plugin, prompt)
            timings["down"].append(ms)
            assert sources["pgvector"]["status"] in ("error", "timeout"), sources
            assert sources["local"]["status"] == "ok"
            assert "Globex" in block and "Halcyon launch runbook" not in block
        t_restart = time.perf_counter()
        await asyncio.to_thread(own_pg.start)
        timings["restart"].append((time.perf_counter() - t_restart) * 1000)
        # the pool reconnects on its own (psycopg_pool's backoff); wait for it, never recreate it
        pool = await get_pool(plugin.engine.config.pgvector)
        deadline = time.monotonic() + 120
        while pool.get_stats().get("pool_available", 0) == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        timings["pool_back"].append((time.perf_counter() - t_restart) * 1000)
        block, sources, ms = await ask(runner, plugin, "Dana and the Halcyon runbook rollback approvals?")
        timings["back"].append(ms)
        assert sources["pgvector"]["status"] == "ok" and sources["pgvector"]["count"] > 0, sources
        assert "Globex" in block and "Halcyon launch runbook" in block
        # a question first asked during the outage: its degraded answer was not cached
        block, _, _ = await ask(runner, plugin, "Which company employs Dana?")
        assert "Globex" in block and "Halcyon launch runbook" in block

    async def scenario_then_close() -> None:
        try:
            await scenario()
        finally:  # a pool left open would keep PostgreSQL's smart shutdown waiting at teardown
            await close_pools()

    try:
        asyncio.run(scenario_then_close())
        stats = runner.stats()["before_prompt_build"]
        assert stats.get("timed_out", 0) == 0 and stats.get("failed", 0) == 0, stats
        print("pg fault timings ms:", {k: [round(v) for v in vs] for k, vs in timings.items()})
    finally:
        plugin.engine.stop(5)
        ollama.stop()
