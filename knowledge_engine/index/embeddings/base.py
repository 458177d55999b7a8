"""The embedding provider protocol: texts in, unit-length vectors out.

`EmbedderBase` holds what every provider shares (batching, the query LRU cache,
normalisation, the dimension check) so each provider only implements one batch call.
"""

from __future__ import annotations

import math
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from typing import Protocol, runtime_checkable

from knowledge_engine.observe import counters


class EmbeddingError(RuntimeError):
    """A provider could not embed (after its retries)."""


class Embedder(Protocol):
    """One small protocol behind every provider (local ONNX, Ollama, Gemini, OpenAI-compatible)."""

    @property
    def model_id(self) -> str:
        """Provider and model, recorded with every index (e.g. `local:all-MiniLM-L6-v2-int8`)."""
        ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (batched internally)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (LRU-cached)."""
        ...


@runtime_checkable
class TokenWindow(Protocol):
    """An embedder whose tokenizer we can run: it ignores text past `max_tokens` tokens."""

    max_tokens: int

    @property
    def special_tokens(self) -> int: ...

    def count_tokens(self, texts: list[str]) -> list[int]: ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...


# Longer inputs are cut before embedding: every model truncates anyway, and this bounds request size.
MAX_EMBED_CHARS = 8192


def l2_normalise(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0:
        return vec
    return [x / norm for x in vec]


class QueryCache:
    """Thread-safe LRU of query vectors; queries repeat across turns (retries, follow-ups)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._data: OrderedDict[str, list[float]] = OrderedDict()

    def get(self, key: str) -> list[float] | None:
        with self._lock:
            vec = self._data.get(key)
            if vec is not None:
                self._data.move_to_end(key)
            return vec

    def put(self, key: str, vec: list[float]) -> None:
        if self._size <= 0:
            return
        with self._lock:
            self._data[key] = vec
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


class EmbedderBase(ABC):
    """Batching, truncation, normalisation, dimension check and the query cache."""

    def __init__(self, model_id: str, batch_size: int, cache_size: int, dimensions: int | None) -> None:
        self._model_id = model_id
        self._batch_size = max(1, batch_size)
        self._expected_dims = dimensions
        self._dims: int | None = dimensions
        self.cache = QueryCache(cache_size)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        """Known from config or the model; otherwise one probe call tells it."""
        if self._dims is None:
            self.embed(["dimension probe"])
        assert self._dims is not None
        return self._dims

    def adopt_dimensions(self, dims: int) -> None:
        """Take the size recorded with an existing index instead of probing the provider (no network
        call just to open an index); a provider that then returns another size still fails loudly."""
        if self._dims is None:
            self._dims = dims

    @abstractmethod
    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        """Embed at most batch_size texts; raise EmbeddingError on failure."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        clipped = [self._clip(t) for t in texts]
        for start in range(0, len(clipped), self._batch_size):
            chunk = clipped[start : start + self._batch_size]
            vectors = self._embed_batch(chunk)
            if len(vectors) != len(chunk):
                raise EmbeddingError(
                    f"{self._model_id}: provider returned {len(vectors)} vectors for {len(chunk)} texts"
                )
            out.extend(self._check(v) for v in vectors)
        return out

    def embed_query(self, text: str) -> list[float]:
        cached = self.cache.get(text)
        if cached is not None:
            counters.inc("embeddings.query_cache_hit")
            return cached
        vec = self.embed([text])[0]
        self.cache.put(text, vec)
        return vec

    def _clip(self, text: str) -> str:
        if len(text) > MAX_EMBED_CHARS:
            counters.inc("embeddings.truncated")
            return text[:MAX_EMBED_CHARS]
        return text

    def _check(self, vec: list[float]) -> list[float]:
        if self._dims is None:
            self._dims = len(vec)
        if len(vec) != self._dims:
            raise EmbeddingError(
                f"{self._model_id}: got a {len(vec)}-dimension vector, expected {self._dims}"
                + (" (embeddings.dimensions)" if self._expected_dims else "")
            )
        return l2_normalise([float(x) for x in vec])
