"""PgVectorIndex (issue 17): the postgres backend's fact and message vectors in pgvector, no Chroma.

Against the session's real PostgreSQL 18 + pgvector, one fresh database for this module. Vectors
come from the fixtures' HashEmbedder (deterministic, no model), so exact expected rankings can be
computed here by brute force.
"""

from __future__ import annotations

import math
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from knowledge_engine.config import EngineConfig, load_config
from knowledge_engine.index.chroma import ChromaIndex, IndexMismatchError, matches
from knowledge_engine.index.pgvector_index import (
    PgVectorIndex,
    VectorsBusyError,
    VectorsReadOnlyError,
    forget_vectors,
    table_name,
)
from knowledge_engine.index.pgvector_where import UnsupportedFilterError
from knowledge_engine.index.sync import status, sync
from knowledge_engine.index.vector_index import open_vector_index
from knowledge_engine.model.records import fact_id
from tests.fixtures.postgres import HashEmbedder, database_fixture, files_holding, relation_files
from tests.index_samples import T0, WHERE_FILTERS, fact, sample_facts, sample_messages

url = database_fixture("ke_pgvector_index")


@pytest.fixture()
def cfg(url: str) -> EngineConfig:
    return load_config({"storage": {"backend": "postgres", "postgres": {"url": url}}})


def _agent() -> str:
    return f"agent-{uuid.uuid4().hex[:8]}"


def _index(tmp_path: Path, cfg: EngineConfig, agent: str, dims: int = 64, **kw: Any) -> PgVectorIndex:
    return PgVectorIndex(tmp_path, agent, cfg, HashEmbedder(dims), **kw)


def _rows(url: str, dims: int, agent: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table_name(dims)} WHERE agent = %s", (agent,)).fetchone()
    return int(row[0]) if row else 0


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (
        math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)) or 1.0
    )


def test_sync_then_query_back_facts_and_messages(tmp_path: Path, cfg: EngineConfig) -> None:
    index = _index(tmp_path, cfg, _agent())
    emb = index.embedder
    msgs, facts = sample_messages(12), sample_facts()
    first = sync(index, facts, msgs)
    assert (first.embedded, first.deleted) == (15, 0)
    assert index.count("facts") == 3 and index.count("messages") == 12
    assert sync(index, facts, msgs).embedded == 0  # the stored hashes say everything is there
    assert status(index, facts, msgs)["pending"] == 0

    hit = index.query_messages(emb.embed_query("Message 7 about a trip to Lisbon"), 1)[0]
    assert hit.id == "m7" and hit.score == pytest.approx(1.0, abs=1e-2)
    assert hit.metadata["session"] == "s1" and hit.metadata["content_hash"]
    top = index.query_facts(emb.embed_query("Bob has-role database administrator"), 2)
    assert top[0].id == fact_id("Bob", "has-role", "database administrator")
    assert top[0].metadata["valid"] is True and "object_id" not in top[0].metadata  # None is no key
    assert index.query_messages(emb.embed_query("x"), 0) == []


@pytest.mark.parametrize(
    "where",
    [
        *WHERE_FILTERS,
        {"$and": [{"timestamp": {"$lt": (T0 + timedelta(minutes=12)).timestamp()}}, {"speaker": "bot"}]},
    ],
)
def test_filters_return_the_nearest_matching_rows(
    tmp_path: Path, cfg: EngineConfig, where: dict[str, Any]
) -> None:
    """The same filters as Chroma's test, checked against a brute-force ranking with `matches`."""
    index = _index(tmp_path, cfg, _agent())
    msgs = sample_messages(60)
    sync(index, [], msgs)
    q = index.embedder.embed_query("budget meeting")
    hits = index.query_messages(q, 5, where=where)
    metas = {h.id: h.metadata for h in index.query_messages(q, 60)}
    vectors = dict(zip([m.id for m in msgs], index.embedder.embed([m.text for m in msgs]), strict=True))
    expected = sorted(
        (_cos(q, vectors[i]) for i, meta in metas.items() if matches(meta, where)), reverse=True
    )
    assert len(hits) == min(5, len(expected)) == 5
    assert all(matches(h.metadata, where) for h in hits)
    assert [h.score for h in hits] == pytest.approx(expected[:5], abs=2e-3)  # halfvec precision


def test_a_selective_filter_still_returns_k_rows(tmp_path: Path, cfg: EngineConfig) -> None:
    index = _index(tmp_path, cfg, _agent())
    msgs = sample_messages(400)
    for i in (17, 123, 350):
        msgs[i] = msgs[i].model_copy(update={"session": "rare"})
    sync(index, [], msgs)
    hits = index.query_messages(index.embedder.embed_query("lunch plans"), 3, where={"session": "rare"})
    assert sorted(h.id for h in hits) == ["m123", "m17", "m350"]
    fewer = index.query_messages(index.embedder.embed_query("lunch"), 10, where={"session": "rare"})
    assert len(fewer) == 3  # only three match: all of them, not an error


@pytest.mark.parametrize(
    "where",
    [
        {"$contains": "Lisbon"},
        {"session": {"$regex": "s.*"}},
        {"session": None},
        {"session": ["s1", "s2"]},
        {"timestamp": {"$gt": "yesterday"}},
        {"valid": {"$gte": True}},
        {"session": {"$in": "s1"}},
        {"$or": []},
        {"$and": {"session": "s1"}},
    ],
)
def test_filters_outside_the_translated_subset_are_a_clear_error(
    tmp_path: Path, cfg: EngineConfig, where: dict[str, Any]
) -> None:
    index = _index(tmp_path, cfg, _agent())
    sync(index, [], sample_messages(3))
    with pytest.raises(UnsupportedFilterError):
        index.query_messages(index.embedder.embed_query("budget"), 3, where=where)


def test_type_aware_equality_and_missing_keys(tmp_path: Path, cfg: EngineConfig) -> None:
    index = _index(tmp_path, cfg, _agent())
    facts = [*sample_facts(), fact("Carol", "likes", "tea", invalid_at=T0)]
    sync(index, facts, [])
    q = index.embedder.embed_query("Alice")
    assert {h.id for h in index.query_facts(q, 10, where={"valid": False})} == {facts[3].id}
    assert index.query_facts(q, 10, where={"valid": 0}) == []  # False is not 0, as in Chroma
    assert len(index.query_facts(q, 10, where={"valid": True, "subject_id": "person:alice"})) == 2
    # object_id is None on every fact (no key): $ne matches only records that have the key
    assert index.query_facts(q, 10, where={"object_id": {"$ne": "x"}}) == []


def test_delete_removes_the_rows(tmp_path: Path, cfg: EngineConfig, url: str) -> None:
    agent = _agent()
    index = _index(tmp_path, cfg, agent)
    facts, msgs = sample_facts(), sample_messages(10)
    sync(index, facts, msgs)
    assert _rows(url, 64, agent) == 13
    assert index.delete_messages(["m3", "m4", "unknown"]) == 2
    assert index.delete_facts([facts[0].id]) == 1
    assert _rows(url, 64, agent) == 10
    hits = index.query_messages(index.embedder.embed_query("Message 3 about the database migration"), 10)
    assert "m3" not in {h.id for h in hits} and len(hits) == 8
    report = sync(index, facts, msgs[:5])  # the store dropped m5..m9 too: sync deletes them
    assert report.deleted == 5 and report.embedded == 3
    assert index.count("messages") == 5 and index.count("facts") == 3


def test_two_agents_share_nothing(tmp_path: Path, cfg: EngineConfig) -> None:
    a, b = _index(tmp_path / "a", cfg, _agent()), _index(tmp_path / "b", cfg, _agent())
    sync(a, sample_facts(), sample_messages(6))
    sync(b, [], sample_messages(4, start=100))
    q = a.embedder.embed_query("budget meeting")
    assert {h.id for h in a.query_messages(q, 50)} == {f"m{i}" for i in range(6)}
    assert {h.id for h in b.query_messages(q, 50)} == {f"m{i}" for i in range(100, 104)}
    assert b.query_facts(q, 50) == [] and b.count("facts") == 0
    sync(b, [], sample_messages(4))  # the same ids as a's: separate rows
    b.delete_messages(["m0", "m1"])
    b.reset()
    assert a.count("messages") == 6 and {h.id for h in a.query_messages(q, 2, where={"session": "s0"})}
    assert b.count("messages") == 0


def test_another_model_or_dimension_is_refused_until_rebuilt(
    tmp_path: Path, cfg: EngineConfig, url: str
) -> None:
    agent = _agent()
    sync(_index(tmp_path, cfg, agent, dims=64), sample_facts(), sample_messages(5))
    with pytest.raises(IndexMismatchError, match=r"(?s)64 dimensions.*32 dimensions.*--rebuild"):
        _index(tmp_path, cfg, agent, dims=32)

    class Renamed(HashEmbedder):
        @property
        def model_id(self) -> str:
            return "test:another-model"

    with pytest.raises(IndexMismatchError, match="another-model"):
        PgVectorIndex(tmp_path, agent, cfg, Renamed(64))

    rebuilt = open_vector_index(tmp_path, agent, cfg, HashEmbedder(32), rebuild=True)
    assert rebuilt.count("messages") == 0 and _rows(url, 64, agent) == 0  # the old vectors are gone
    report = sync(rebuilt, sample_facts(), sample_messages(5))
    assert report.embedded == 8 and _rows(url, 32, agent) == 8
    assert _index(tmp_path, cfg, agent, dims=32).count("facts") == 3  # now this model opens it
    with psycopg.connect(url, autocommit=True) as conn:
        tables = dict(conn.execute("SELECT dimensions, table_name FROM ke_vector_tables").fetchall())
    assert tables[64] == "ke_vectors_64" and tables[32] == "ke_vectors_32"
    with pytest.raises(IndexMismatchError):
        rebuilt.query_messages([0.1] * 64, 3)  # a query vector of the wrong size


def test_read_only_open_makes_nothing(tmp_path: Path, cfg: EngineConfig, url: str) -> None:
    agent = _agent()
    index = _index(tmp_path, cfg, agent, create=False)
    assert index.count("messages") == 0 and index.stored_hashes("facts") == {}
    assert index.query_messages(index.embedder.embed_query("budget"), 3) == []
    with pytest.raises(VectorsReadOnlyError):
        index.upsert("messages", ["m1"], [[1.0] + [0.0] * 63], [{"session": "s"}])
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT 1 FROM ke_vector_spaces WHERE agent = %s", (agent,)).fetchone() is None


def test_a_node_sees_what_another_node_wrote(tmp_path: Path, cfg: EngineConfig) -> None:
    """Two processes' indexes on one agent: hashes are read from the database, never from a node's
    local cache, so a row another node rewrote is brought back in line on the next sync."""
    agent = _agent()
    node_a, node_b = _index(tmp_path / "a", cfg, agent), _index(tmp_path / "b", cfg, agent)
    msgs = sample_messages(6)
    sync(node_a, [], msgs)
    changed = [*msgs[:5], msgs[5].model_copy(update={"session": "moved"})]
    assert sync(node_b, [], changed).upserted == 1
    assert sync(node_a, [], msgs).upserted == 1  # a's cache would have said "unchanged"
    hit = node_b.query_messages(node_b.embedder.embed_query(msgs[5].text), 1)[0]
    assert hit.id == "m5" and hit.metadata["session"] == "s2"


def test_the_backend_picks_the_index(tmp_path: Path, cfg: EngineConfig) -> None:
    pg = open_vector_index(tmp_path, _agent(), cfg, HashEmbedder())
    assert isinstance(pg, PgVectorIndex) and pg.shared
    chroma = open_vector_index(tmp_path / "files", "main", EngineConfig(), HashEmbedder())
    assert isinstance(chroma, ChromaIndex) and not chroma.shared
    assert pg.query_messages(pg.embedder.embed_query("x"), 3) == []  # nothing stored: no error


def test_forget_leaves_no_trace_in_the_vector_table_files(
    tmp_path: Path, cfg: EngineConfig, url: str
) -> None:
    """The metadata holds names (a fact's subject, a message's speaker): after forget_vectors no byte of
    a forgotten one is left in the table's files, and the other rows and agents keep theirs."""
    agent, other = _agent(), _agent()
    index, bystander = (
        _index(tmp_path / "a", cfg, agent, dims=48),
        _index(tmp_path / "b", cfg, other, dims=48),
    )
    secret = "zanzibarquokka"
    msgs = sample_messages(6)
    msgs[2] = msgs[2].model_copy(update={"speaker": secret})
    facts = [*sample_facts(), fact("Quokka", "lives-in", "Perth"), fact("Dora", "knows", "Quokka")]
    facts[3] = facts[3].model_copy(update={"subject": secret, "subject_id": "person:q"})
    facts[4] = facts[4].model_copy(update={"object": secret + "s", "object_id": "person:q"})
    sync(index, facts, msgs)
    sync(bystander, sample_facts(), sample_messages(3))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # write the pages to the files
        assert files_holding(relation_files(conn, table_name(48)), [secret.encode()])
        deleted = forget_vectors(cfg.storage.postgres, agent, [], ["m2"], ["person:q"])
        conn.execute("CHECKPOINT")
        assert files_holding(relation_files(conn, table_name(48)), [secret.encode()]) == []
    assert deleted == 3
    assert index.count("facts") == 3 and index.count("messages") == 5
    assert bystander.count("facts") == 3 and bystander.count("messages") == 3
    assert forget_vectors(cfg.storage.postgres, agent, [], [], []) == 0


def test_forget_does_not_wait_forever_for_a_busy_table(tmp_path: Path, cfg: EngineConfig, url: str) -> None:
    """Another session reading the table holds off the rewrite: a clear error after a few short waits
    (the rows are already deleted), and the next forget finishes."""
    agent = _agent()
    index = _index(tmp_path, cfg, agent, dims=40)
    sync(index, [], sample_messages(4))
    with psycopg.connect(url) as reader:  # not autocommit: the lock lasts until the transaction ends
        reader.execute(f"LOCK TABLE {table_name(40)} IN ACCESS SHARE MODE")
        with pytest.raises(VectorsBusyError, match="run forget again"):
            forget_vectors(cfg.storage.postgres, agent, [], ["m1"], [])
        reader.rollback()
    assert index.count("messages") == 3
    assert forget_vectors(cfg.storage.postgres, agent, [], ["m1"], []) == 0


def test_an_engine_on_the_postgres_backend_syncs_into_pgvector_without_chroma(
    tmp_path: Path, url: str
) -> None:
    """The engine path: records and messages in PostgreSQL, the local ONNX embedder, engine.sync and
    engine.chroma(ws) on pgvector; a second engine (another node, its own folder) reads the same
    vectors, and no Chroma folder is made."""
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.maintenance.jobs import RunContext, retention

    def config(root: Path) -> EngineConfig:
        return EngineConfig.model_validate(
            {
                "workspaceTemplate": "{workspaceDir}/ke",
                "workspaceRoot": str(root / "agents"),
                "extraction": {"llm": {"enabled": False}},
                "memory": {"maxMessages": 6},
                "storage": {"backend": "postgres", "postgres": {"url": url}},
            }
        )

    agent = _agent()
    engine = KnowledgeEngine(config(tmp_path / "node1"))
    other = KnowledgeEngine(config(tmp_path / "node2"))
    try:
        ws = engine.workspace(agent, str(tmp_path / "node1"))
        ws.messages.append_many(sample_messages(8))
        ws.facts.add("Alice", "lives-in", "Lisbon", subject_id="person:alice")
        ws.flush()
        report = engine.sync(ws)
        assert report.per_kind["messages"]["embedded"] == 8 and report.per_kind["facts"]["embedded"] == 1
        index = engine.chroma(ws)
        assert isinstance(index, PgVectorIndex)
        assert engine.sync(ws).embedded == 0

        ws2 = other.workspace(agent, str(tmp_path / "node2"))
        seen = other.chroma(ws2)
        q = other.embedder.embed_query("a trip to Lisbon")
        hits = seen.query_messages(q, 3, where={"role": "user"})
        assert hits and all(h.metadata["role"] == "user" for h in hits)
        assert "Lisbon" in next(m.text for m in sample_messages(8) if m.id == hits[0].id)
        assert [h.id for h in seen.query_facts(q, 1)] == [fact_id("Alice", "lives-in", "Lisbon")]
        assert not any(p.name == "chroma" for p in tmp_path.rglob("chroma"))
        kept = retention(ws, engine, RunContext())  # memory.maxMessages: the oldest two go, vectors too
        assert kept == {"messages_deleted": 2, "index_deleted": 2}
        assert seen.count("messages") == 6 and {"m0", "m1"}.isdisjoint(seen.stored_hashes("messages"))
    finally:
        engine.stop(10)
        other.stop(10)


def test_a_node_whose_model_another_node_rebuilt_away_is_stopped_before_it_writes(
    tmp_path: Path, cfg: EngineConfig, url: str
) -> None:
    agent = _agent()
    old_node, same_node = _index(tmp_path / "a", cfg, agent), _index(tmp_path / "c", cfg, agent)
    sync(old_node, sample_facts(), sample_messages(4))
    open_vector_index(tmp_path / "b", agent, cfg, HashEmbedder(32), rebuild=True)
    with pytest.raises(IndexMismatchError, match="--rebuild"):
        sync(old_node, sample_facts(), sample_messages(4))
    assert _rows(url, 64, agent) == 0  # nothing written back into the old model's table
    rebuilt_again = open_vector_index(tmp_path / "b", agent, cfg, HashEmbedder(64), rebuild=True)
    assert sync(same_node, sample_facts(), sample_messages(4)).embedded == 7  # follows the new generation
    assert rebuilt_again.count("messages") == 4 and _rows(url, 64, agent) == 7


def test_the_postgres_backend_does_not_warm_up_chromadb(cfg: EngineConfig) -> None:
    """The retrieval warm-up loads the embedder and, only where Chroma is the index, imports chromadb."""
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.retrieve.warmup import engine_steps

    pg, files = KnowledgeEngine(cfg, ingest_owner=False), KnowledgeEngine(EngineConfig(), ingest_owner=False)
    try:
        assert [name for name, _ in engine_steps(pg)] == ["embedder"]
        assert [name for name, _ in engine_steps(files)] == ["embedder", "chromadb"]
    finally:
        pg.stop(5)
        files.stop(5)


def test_two_nodes_writing_the_same_rows_in_opposite_orders_do_not_deadlock(
    tmp_path: Path, cfg: EngineConfig
) -> None:
    """Two nodes syncing one agent upsert overlapping ids; each batch locks its rows in one order."""
    import threading

    agent = _agent()
    nodes = [_index(tmp_path / "a", cfg, agent), _index(tmp_path / "b", cfg, agent)]
    ids = [f"m{i}" for i in range(1500)]
    vecs = nodes[0].embedder.embed([f"message {i}" for i in range(1500)])
    metas: list[Any] = [{"session": "s", "content_hash": f"h{i}"} for i in range(1500)]
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def write(node: PgVectorIndex, backwards: bool) -> None:
        order = list(range(1500))[::-1] if backwards else list(range(1500))
        start.wait(60)
        try:
            for _ in range(3):
                node.upsert(
                    "messages", [ids[i] for i in order], [vecs[i] for i in order], [metas[i] for i in order]
                )
                node.update_metadata("messages", [ids[i] for i in order], [metas[i] for i in order])
        except BaseException as exc:  # the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n, i == 1)) for i, n in enumerate(nodes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    assert nodes[0].count("messages") == 1500
