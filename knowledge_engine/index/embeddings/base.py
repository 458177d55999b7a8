"""The embedding provider protocol: texts in, unit-length vectors out."""

from __future__ import annotations

from typing import Protocol


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
