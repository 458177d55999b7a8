"""Picks the embedding provider for a config; apart from the providers so none imports its factory.

Every embedder is built here (the engine caches one per configuration: KnowledgeEngine.embedder_for).
"""

from __future__ import annotations

from knowledge_engine.config import EmbeddingsConfig
from knowledge_engine.index.embeddings.base import Embedder, EmbeddingError
from knowledge_engine.index.embeddings.local import LocalEmbedder
from knowledge_engine.index.embeddings.remote import GeminiEmbedder, OllamaEmbedder, OpenAIEmbedder

# (default endpoint, default model, known dimension of the default model)
DEFAULTS: dict[str, tuple[str, str, int | None]] = {
    "ollama": ("http://localhost:11434", "nomic-embed-text", None),
    "gemini": ("https://generativelanguage.googleapis.com", "gemini-embedding-001", 3072),
    "openai": ("https://api.openai.com/v1", "text-embedding-3-small", None),
}


def make_embedder(config: EmbeddingsConfig) -> Embedder:
    """Build the configured provider; remote ones learn their dimension from config, model or a probe."""
    if config.provider == "local":
        if config.model and config.model not in ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2-int8"):
            raise EmbeddingError(f"local provider only ships all-MiniLM-L6-v2, not {config.model!r}")
        return LocalEmbedder(batch_size=config.batch_size, cache_size=config.cache_size)
    endpoint, model, dims = DEFAULTS[config.provider]
    model = config.model or model
    endpoint = config.endpoint or endpoint
    if config.dimensions is None and model == DEFAULTS[config.provider][1] and dims:
        config = config.model_copy(update={"dimensions": dims})
    if config.provider == "ollama":
        return OllamaEmbedder(config, endpoint, model)
    if config.provider == "gemini":
        return GeminiEmbedder(config, endpoint, model)
    return OpenAIEmbedder(config, endpoint, model)
