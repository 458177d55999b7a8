"""Ollama, OpenAI-compatible and Gemini providers against a real loopback HTTP server."""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Iterator

import pytest

from knowledge_engine.config import EmbeddingsConfig
from knowledge_engine.index.embeddings import EmbeddingError, make_embedder
from knowledge_engine.index.embeddings.remote import GeminiEmbedder, OllamaEmbedder, OpenAIEmbedder
from tests.servers.embed_server import EmbedServer, fake_vector

SECRET_TEXT = "my secret diagnosis is private"


@pytest.fixture
def server() -> Iterator[EmbedServer]:
    with EmbedServer() as srv:
        yield srv


def _cfg(provider: str, endpoint: str, **kw: object) -> EmbeddingsConfig:
    base: dict[str, object] = {
        "provider": provider,
        "endpoint": endpoint,
        "retry_backoff_ms": 1,
        "max_retries": 2,
    }
    base.update(kw)
    return EmbeddingsConfig.model_validate(base)


def _close_to(a: list[float], b: list[float]) -> bool:
    return all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b, strict=True))


def test_ollama_batches_the_input_list(server: EmbedServer) -> None:
    emb = make_embedder(_cfg("ollama", server.url, model="nomic-embed-text", batch_size=2))
    assert isinstance(emb, OllamaEmbedder)
    texts = ["alpha beta", "gamma", "delta epsilon", "zeta", "eta"]
    vecs = emb.embed(texts)
    assert [r["path"] for r in server.state.requests] == ["/api/embed"] * 3
    assert server.state.requests[0]["body"] == {"model": "nomic-embed-text", "input": ["alpha beta", "gamma"]}
    assert all(_close_to(v, fake_vector(t, 16)) for v, t in zip(vecs, texts, strict=True))
    assert emb.dimensions == 16
    assert emb.model_id == "ollama:nomic-embed-text"


def test_openai_sends_bearer_key_and_orders_by_index(server: EmbedServer) -> None:
    emb = make_embedder(
        _cfg("openai", f"{server.url}/v1", model="text-embedding-3-small", api_key="test-key")
    )
    assert isinstance(emb, OpenAIEmbedder)
    texts = ["first text", "second text", "third"]
    vecs = emb.embed(texts)
    req = server.state.requests[0]
    assert req["path"] == "/v1/embeddings"
    assert req["headers"]["Authorization"] == "Bearer test-key"
    assert req["body"]["input"] == texts
    assert all(_close_to(v, fake_vector(t, 16)) for v, t in zip(vecs, texts, strict=True))


def test_openai_requested_dimensions(server: EmbedServer) -> None:
    emb = make_embedder(_cfg("openai", f"{server.url}/v1", api_key="test-key", dimensions=8))
    assert len(emb.embed(["one"])[0]) == 8
    assert server.state.requests[0]["body"]["dimensions"] == 8


def test_openai_bad_key_fails_at_once_without_leaking_it(
    server: EmbedServer, caplog: pytest.LogCaptureFixture
) -> None:
    emb = make_embedder(_cfg("openai", f"{server.url}/v1", api_key="wrong-secret-key"))
    with pytest.raises(EmbeddingError, match="HTTP 401") as err:
        emb.embed([SECRET_TEXT])
    assert len(server.state.requests) == 1  # 4xx is not retried
    assert "wrong-secret-key" not in str(err.value)
    assert SECRET_TEXT not in str(err.value)
    assert all(
        "wrong-secret-key" not in r.getMessage() and "secret" not in r.getMessage() for r in caplog.records
    )


def test_gemini_single_and_batch_calls_with_header_key(
    server: EmbedServer, caplog: pytest.LogCaptureFixture
) -> None:
    emb = make_embedder(_cfg("gemini", server.url, api_key="test-key"))
    assert isinstance(emb, GeminiEmbedder)
    assert emb.dimensions == 3072  # known for the default model without a call
    assert server.state.requests == []
    q = emb.embed_query(SECRET_TEXT)
    docs = emb.embed(["doc one", "doc two"])
    paths = [r["path"] for r in server.state.requests]
    assert paths == [
        "/v1beta/models/gemini-embedding-001:embedContent",
        "/v1beta/models/gemini-embedding-001:batchEmbedContents",
    ]
    assert len(q) == 3072 and len(docs) == 2 and len(docs[0]) == 3072
    assert server.state.requests[0]["body"]["content"] == {"parts": [{"text": SECRET_TEXT}]}
    assert server.state.requests[0]["headers"]["x-goog-api-key"] == "test-key"
    assert all(
        "key=" not in r["path"] for r in server.state.requests
    )  # key never in the URL (logged by httpx)
    assert all("test-key" not in r.getMessage() and "secret" not in r.getMessage() for r in caplog.records)


def test_gemini_bad_key_is_a_clear_error(server: EmbedServer) -> None:
    emb = make_embedder(_cfg("gemini", server.url, api_key="nope"))
    with pytest.raises(EmbeddingError, match="API key not valid"):
        emb.embed(["x"])


def test_retries_transient_errors_then_succeeds(server: EmbedServer) -> None:
    server.state.fail_next = 2
    emb = make_embedder(_cfg("ollama", server.url, max_retries=2))
    assert len(emb.embed(["hello"])[0]) == 16
    assert len(server.state.requests) == 3


def test_gives_up_after_retries(server: EmbedServer) -> None:
    server.state.fail_next = 10
    emb = make_embedder(_cfg("ollama", server.url, max_retries=2))
    with pytest.raises(EmbeddingError, match="failed after 3 attempts"):
        emb.embed(["hello"])
    assert len(server.state.requests) == 3


def test_unreachable_server_is_an_embedding_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    emb = make_embedder(_cfg("ollama", f"http://127.0.0.1:{port}", max_retries=1))
    with pytest.raises(EmbeddingError, match="ConnectError"):
        emb.embed(["hello"])


def test_dimension_mismatch_is_detected(server: EmbedServer) -> None:
    emb = make_embedder(_cfg("ollama", server.url, dimensions=8))
    with pytest.raises(EmbeddingError, match="expected 8"):
        emb.embed(["hello"])


def test_query_cache_avoids_a_second_request(server: EmbedServer) -> None:
    emb = make_embedder(_cfg("ollama", server.url, cache_size=4))
    a = emb.embed_query("same question")
    b = emb.embed_query("same question")
    assert a == b
    assert len(server.state.requests) == 1


def test_unknown_dimension_is_probed_once(server: EmbedServer) -> None:
    emb = make_embedder(_cfg("ollama", server.url))
    assert emb.dimensions == 16
    assert emb.dimensions == 16
    assert len(server.state.requests) == 1


def test_wrong_endpoint_path_is_a_clear_error() -> None:
    with EmbedServer() as srv:
        emb = make_embedder(_cfg("openai", f"{srv.url}/nope", api_key="test-key"))
        with pytest.raises(EmbeddingError, match="HTTP 404"):
            emb.embed(["x"])


def test_nothing_sensitive_in_logs(server: EmbedServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.state.fail_next = 1
    emb = make_embedder(_cfg("openai", f"{server.url}/v1", api_key="test-key"))
    emb.embed([SECRET_TEXT])
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert SECRET_TEXT not in text
    assert "test-key" not in text
