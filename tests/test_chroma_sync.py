"""ChromaIndex + incremental sync against real chromadb, embedded and a real `chroma run` server."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from knowledge_engine.config import EngineConfig, load_config
from knowledge_engine.index.chroma import (
    REBUILD_COMMAND,
    ChromaIndex,
    ChromaUnavailableError,
    IndexMismatchError,
    collection_name,
    matches,
    normalise_where,
    open_index,
)
from knowledge_engine.index.embeddings import EmbeddingError, LocalEmbedder, make_embedder
from knowledge_engine.index.sync import read_state, rebuild, status, sync
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from tests.index_samples import T0, WHERE_FILTERS, fact, sample_facts, sample_messages
from tests.servers.embed_server import EmbedServer


class CountingEmbedder:
    """Wraps the real local embedder; counts texts and can fail after a number of calls (crash simulation)."""

    def __init__(
        self, inner: LocalEmbedder, model_id: str | None = None, fail_after_calls: int | None = None
    ):
        self.inner = inner
        self._model_id = model_id or inner.model_id
        self.texts = 0
        self.calls = 0
        self.fail_after_calls = fail_after_calls

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self.fail_after_calls is not None and self.calls >= self.fail_after_calls:
            raise EmbeddingError("simulated crash in the middle of a sync")
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder(batch_size=32)


@pytest.fixture(params=["embedded", pytest.param("server", marks=pytest.mark.slow)])
def make_index(
    request: pytest.FixtureRequest, workspace: Path, local: LocalEmbedder
) -> Callable[..., tuple[ChromaIndex, CountingEmbedder]]:
    """Factory of indexes on one workspace and agent; server mode uses the session's `chroma run`."""
    cfg = EngineConfig()
    if request.param == "server":
        url = request.getfixturevalue("chroma_server")
        cfg = load_config({"chroma": {"url": url, "headers": {"X-Test": "1"}, "authToken": "tok"}})
    agent = f"agent-{uuid.uuid4().hex[:8]}"

    def factory(**kw: object) -> tuple[ChromaIndex, CountingEmbedder]:
        emb = CountingEmbedder(local, **kw)  # type: ignore[arg-type]
        return ChromaIndex(workspace, agent, cfg, emb), emb

    return factory


def test_first_sync_embeds_everything_second_embeds_nothing(make_index: Callable[..., tuple]) -> None:
    index, emb = make_index()
    msgs, facts = sample_messages(12), sample_facts()
    first = sync(index, facts, msgs)
    assert (first.embedded, first.upserted, first.deleted, first.unchanged) == (15, 15, 0, 0)
    assert emb.texts == 15
    assert index.count("facts") == 3 and index.count("messages") == 12
    second = sync(index, facts, msgs)
    assert (second.embedded, second.upserted, second.deleted, second.unchanged) == (0, 0, 0, 15)
    assert emb.texts == 15
    assert status(index, facts, msgs)["pending"] == 0
    assert read_state(index.workspace)["counts"] == {"facts": 3, "messages": 12}


def test_changed_text_reembeds_one_and_new_records_are_added(make_index: Callable[..., tuple]) -> None:
    index, emb = make_index()
    msgs = sample_messages(5)
    sync(index, [], msgs)
    msgs[2] = msgs[2].model_copy(update={"text": "Completely different words about Lisbon"})
    msgs += sample_messages(2, start=5)
    st = status(index, [], msgs)
    assert (st["synced"], st["pending"]) == (4, 3)
    before = emb.texts
    rep = sync(index, [], msgs)
    assert (rep.embedded, rep.unchanged) == (3, 4)
    assert emb.texts - before == 3
    hit = index.query_messages(emb.embed_query("Lisbon"), 1, where={"session": msgs[2].session})[0]
    assert hit.id == "m2"


def test_removed_records_are_deleted(make_index: Callable[..., tuple]) -> None:
    index, _ = make_index()
    msgs, facts = sample_messages(6), sample_facts()
    sync(index, facts, msgs)
    rep = sync(index, facts[1:], msgs[:4])
    assert rep.deleted == 3 and rep.embedded == 0
    assert index.count("messages") == 4 and index.count("facts") == 2
    assert index.delete_messages(["m0", "does-not-exist"]) == 2
    assert index.count("messages") == 3
    assert index.delete_facts([facts[1].id]) == 1
    assert index.count("facts") == 1


def test_superseded_fact_is_updated_without_reembedding(make_index: Callable[..., tuple]) -> None:
    index, emb = make_index()
    facts = sample_facts()
    sync(index, facts, [])
    new = fact("Alice", "works-at", "Globex", valid_at=T0)
    old = facts[0].model_copy(update={"invalid_at": T0, "superseded_by": new.id})
    before = emb.texts
    rep = sync(index, [old, facts[1], facts[2], new], [])
    assert rep.embedded == 1 and rep.upserted == 2  # only the new fact is embedded; the old one is updated
    assert emb.texts - before == 1
    q = emb.embed_query("Where does Alice work?")
    valid = index.query_facts(q, 5, where={"valid": True, "subject_id": "person:alice"})
    assert {h.id for h in valid} == {facts[1].id, new.id}
    invalid = index.query_facts(q, 5, where={"valid": False})
    assert [h.id for h in invalid] == [old.id]
    assert invalid[0].metadata["invalid_at"] == T0.timestamp()
    assert invalid[0].metadata["superseded_by"] == new.id
    # and back: a restored fact loses its invalid_at key instead of keeping a stale one
    sync(index, facts, [])
    restored = index.query_facts(q, 5, where={"valid": True, "predicate": "works-at"})
    assert [h.id for h in restored] == [facts[0].id]
    assert "invalid_at" not in restored[0].metadata


@pytest.mark.slow
def test_crash_mid_sync_heals_on_the_next_run(make_index: Callable[..., tuple]) -> None:
    msgs = sample_messages(700)
    index, _ = make_index(fail_after_calls=2)  # chunks of 200: the third chunk crashes
    with pytest.raises(EmbeddingError, match="simulated crash"):
        sync(index, [], msgs, chunk_size=200)
    done = index.count("messages")
    assert done == 400
    index2, _ = make_index()
    rep = sync(index2, [], msgs)
    assert rep.embedded == 700 - done and rep.unchanged == done
    assert index2.count("messages") == 700
    assert sync(index2, [], msgs).embedded == 0


def test_message_metadata_allows_filtering(make_index: Callable[..., tuple]) -> None:
    index, emb = make_index()
    msgs = sample_messages(30)
    sync(index, [], msgs)
    q = emb.embed_query("my cat")
    hits = index.query_messages(
        q, 5, where={"role": "assistant", "timestamp": {"$gte": (T0 + timedelta(minutes=10)).timestamp()}}
    )
    assert hits
    for h in hits:
        assert (
            h.metadata["role"] == "assistant"
            and h.metadata["timestamp"] >= (T0 + timedelta(minutes=10)).timestamp()
        )
        assert set(h.metadata) >= {"session", "role", "speaker", "timestamp", "content_hash", "synced_at"}
    top = index.query_messages(q, 3)
    assert all("cat Luna" in next(m.text for m in msgs if m.id == h.id) for h in top)
    assert top[0].score > top[-1].score - 1e-9 and 0 < top[0].score <= 1.0001
    assert index.query_messages(q, 0) == []


def test_a_query_without_metadata_finds_the_same_hits(make_index: Callable[..., tuple]) -> None:
    """The retriever's arms need ids and scores only; reading the metadata was most of the query."""
    index, emb = make_index()
    sync(index, sample_facts(), sample_messages(30))
    q = emb.embed_query("my cat")
    for query in (index.query_messages, index.query_facts):
        full, bare = query(q, 10), query(q, 10, metadata=False)
        assert [(h.id, round(h.score, 6)) for h in bare] == [(h.id, round(h.score, 6)) for h in full]
        assert all(h.metadata for h in full) and not any(h.metadata for h in bare)
    # a filter needs the metadata, so it is read then
    kept = index.query_messages(q, 3, where={"role": "assistant"}, metadata=False)
    assert kept and all(h.metadata["role"] == "assistant" for h in kept)


def test_progress_reports_every_record(make_index: Callable[..., tuple]) -> None:
    index, _ = make_index()
    seen: list[tuple[int, int]] = []
    sync(index, sample_facts(), sample_messages(10), progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 13) and seen[-1] == (13, 13)


def test_model_mismatch_names_the_rebuild_command(make_index: Callable[..., tuple]) -> None:
    index, _ = make_index()
    sync(index, sample_facts(), sample_messages(3))
    with pytest.raises(IndexMismatchError) as err:
        make_index(model_id="other:model")
    assert REBUILD_COMMAND in str(err.value)
    assert "other:model" in str(err.value)
    fresh = ChromaIndex.for_rebuild(
        index.workspace,
        index.agent_id,
        index.config,
        CountingEmbedder(index.embedder.inner, model_id="other:model"),
    )
    rep = rebuild(fresh, sample_facts(), sample_messages(3))
    assert rep.embedded == 6
    assert fresh.facts.metadata["embedding_model"] == "other:model"


def test_empty_texts_are_skipped_and_counted(make_index: Callable[..., tuple]) -> None:
    index, _ = make_index()
    msgs = [*sample_messages(2), Message(id="blank", text="   ")]
    rep = sync(index, [], msgs)
    assert (rep.embedded, rep.skipped) == (2, 1)
    assert index.count("messages") == 2


def test_collection_names_follow_chroma_rules() -> None:
    assert collection_name("knowledge", "main", "facts") == "knowledge-main-facts"
    odd = collection_name("knowledge", "agent with spaces/ünïcode", "messages")
    assert odd.startswith("knowledge-agent-with-spaces-") and odd.endswith("-messages")
    assert collection_name("knowledge", "a b", "facts") != collection_name("knowledge", "a-b", "facts")
    long = collection_name("k", "x" * 2000, "facts")
    assert 3 <= len(long) <= 512
    assert collection_name("k", "..", "facts").endswith("-facts")


def test_embedded_index_lives_in_the_workspace(workspace: Path, local: LocalEmbedder) -> None:
    ChromaIndex(workspace, "main", EngineConfig(), local)
    assert (workspace / "chroma" / "chroma.sqlite3").exists()


def test_collections_have_no_default_embedding_function(workspace: Path, local: LocalEmbedder) -> None:
    index = ChromaIndex(workspace, "main", EngineConfig(), local)
    with pytest.raises(ValueError, match="embedding function"):
        index.messages.add(ids=["x"], documents=["text without a vector"])
    assert index.messages.configuration_json["hnsw"]["space"] == "cosine"


def test_unreachable_server_is_a_clear_error(workspace: Path, local: LocalEmbedder) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = load_config({"chroma": {"url": f"http://127.0.0.1:{port}"}})
    with pytest.raises(ChromaUnavailableError, match=f"127.0.0.1:{port}"):
        ChromaIndex(workspace, "main", cfg, local)


def test_open_index_uses_the_configured_embedder(workspace: Path) -> None:
    index = open_index(workspace, "main", EngineConfig())
    assert index.facts.metadata["embedding_model"] == "local:all-MiniLM-L6-v2-int8"
    assert index.facts.metadata["embedding_dimensions"] == 384


@pytest.mark.parametrize("where", WHERE_FILTERS)
def test_overfetch_filtering_matches_chromas_own_filter(
    make_index: Callable[..., tuple], where: dict
) -> None:
    index, emb = make_index()
    sync(index, [], sample_messages(60))
    q = emb.embed_query("budget meeting")
    ours = index.query_messages(q, 5, where=where)
    theirs = index._raw_query("messages", q, 5, normalise_where(where))
    assert [h.id for h in ours] == [h.id for h in theirs]
    assert len(ours) == 5


def test_selective_filter_falls_back_to_chroma(make_index: Callable[..., tuple]) -> None:
    index, emb = make_index()
    msgs = sample_messages(300)
    msgs[123] = msgs[123].model_copy(update={"session": "rare"})
    sync(index, [], msgs)
    before = counters.get("chroma.filtered_query_fallback")
    hits = index.query_messages(emb.embed_query("lunch plans"), 3, where={"session": "rare"})
    assert [h.id for h in hits] == ["m123"]
    assert counters.get("chroma.filtered_query_fallback") == before + 1


def test_matches_follows_chroma_semantics() -> None:
    meta = {"a": 1, "b": "x", "valid": True}
    assert matches(meta, {"a": 1}) and not matches(meta, {"a": 2})
    assert matches(meta, {"$and": [{"a": {"$gte": 1}}, {"b": {"$in": ["x", "y"]}}]})
    assert not matches(meta, {"missing": {"$ne": 3}})  # Chroma only matches records having the key
    assert not matches(meta, {"b": {"$gt": 3}})  # type mismatch never matches
    with pytest.raises(ValueError, match="unsupported"):
        matches(meta, {"a": {"$regex": "x"}})


def test_second_sync_uses_the_hash_cache_and_heals_after_out_of_band_deletes(
    make_index: Callable[..., tuple],
) -> None:
    index, _ = make_index()
    msgs = sample_messages(20)
    sync(index, [], msgs)
    hits = counters.get("sync.hash_cache_hit")
    assert sync(index, [], msgs).unchanged == 20
    assert counters.get("sync.hash_cache_hit") == hits + 2  # facts and messages
    index.delete_messages(["m3", "m4"])  # count no longer matches the cache: Chroma is read again
    misses = counters.get("sync.hash_cache_miss")
    rep = sync(index, [], msgs)
    assert (rep.embedded, rep.unchanged) == (2, 18)
    assert counters.get("sync.hash_cache_miss") >= misses + 1


def test_reopening_with_a_remote_embedder_needs_no_probe_call(workspace: Path) -> None:
    cfg = load_config({"embeddings": {"provider": "ollama", "retryBackoffMs": 1}})
    with EmbedServer() as srv:
        cfg.embeddings.endpoint = srv.url
        ChromaIndex(workspace, "main", cfg, make_embedder(cfg.embeddings))
        assert len(srv.state.requests) == 1  # the dimension probe when the collections are created
        index = ChromaIndex(workspace, "main", cfg, make_embedder(cfg.embeddings))
        assert len(srv.state.requests) == 1
        assert index.embedder.dimensions == 16
        rep = sync(index, [], sample_messages(3))
        assert rep.embedded == 3 and len(srv.state.requests) == 2
