"""Embedding providers behind one protocol; `make_embedder` (factory.py) picks one from the config."""

from __future__ import annotations

from knowledge_engine.index.embeddings.base import Embedder, EmbedderBase, EmbeddingError
from knowledge_engine.index.embeddings.factory import make_embedder
from knowledge_engine.index.embeddings.local import LocalEmbedder

__all__ = ["Embedder", "EmbedderBase", "EmbeddingError", "LocalEmbedder", "make_embedder"]
