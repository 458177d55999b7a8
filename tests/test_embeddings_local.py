"""The offline default embedder: real MiniLM int8 ONNX, real tokenizer, real similarity."""

from __future__ import annotations

import math
import threading

import pytest

from knowledge_engine.config import EmbeddingsConfig
from knowledge_engine.index.embeddings import EmbeddingError, LocalEmbedder, make_embedder
from knowledge_engine.index.embeddings.local import DIMENSIONS, MODEL_ID
from knowledge_engine.observe import counters


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    emb = make_embedder(EmbeddingsConfig())
    assert isinstance(emb, LocalEmbedder)
    return emb


def test_cat_is_closer_to_kitten_than_to_revenue(local: LocalEmbedder) -> None:
    cat, kitten, revenue = local.embed(["cat", "kitten", "quarterly revenue"])
    assert _cos(cat, kitten) > 0.6
    assert _cos(cat, revenue) < 0.3
    assert _cos(cat, kitten) - _cos(cat, revenue) > 0.4


def test_vectors_are_unit_length_and_sized(local: LocalEmbedder) -> None:
    vecs = local.embed(["Alice works at Acme.", "", "x" * 20000])
    assert local.dimensions == DIMENSIONS == 384
    assert local.model_id == MODEL_ID
    for v in vecs:
        assert len(v) == 384
        assert math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-5)


def test_length_sorting_keeps_the_callers_order(local: LocalEmbedder) -> None:
    texts = ["a much longer sentence about the quarterly budget meeting in Paris", "dog", "the weather today"]
    batched = local.embed(texts)
    for text, vec in zip(texts, batched, strict=True):
        alone = local.embed([text])[0]
        assert _cos(alone, vec) > 0.999


def test_embed_empty_list(local: LocalEmbedder) -> None:
    assert local.embed([]) == []


def test_query_cache_returns_the_same_vector_without_recomputing(local: LocalEmbedder) -> None:
    before = counters.get("embeddings.query_cache_hit")
    first = local.embed_query("where does Alice work?")
    second = local.embed_query("where does Alice work?")
    assert first == second
    assert counters.get("embeddings.query_cache_hit") == before + 1


def test_concurrent_first_use_is_safe() -> None:
    emb = LocalEmbedder(batch_size=8, cache_size=0)
    results: list[list[list[float]]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(emb.embed(["parallel text one", "parallel text two"]))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(_cos(r[0], results[0][0]) > 0.999 for r in results)


def test_unknown_local_model_is_a_clear_error() -> None:
    with pytest.raises(EmbeddingError, match="only ships all-MiniLM-L6-v2"):
        make_embedder(EmbeddingsConfig(model="bge-large"))
