"""Picks the remote sources a configuration asks for: the test-mode mocks, else pgvector and LightRAG.

The one place that chooses sources, apart from the sources themselves so none imports its factory.
The local source is not chosen: every workspace's retriever has one (it needs the engine and the
workspace, see retriever.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from knowledge_engine.config import EmbeddingsConfig, EngineConfig, PgvectorConfig
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.model.retrieval import Source
from knowledge_engine.observe import emit
from knowledge_engine.retrieve.sources.lightrag import LightragSource
from knowledge_engine.retrieve.sources.pgvector import PgvectorSource
from knowledge_engine.retrieve.sources.testmode import (
    MockLightragSource,
    MockPgvectorSource,
    warn_test_mode,
)

log = logging.getLogger("knowledge_engine.retrieve")
EmbedderFactory = Callable[[EmbeddingsConfig], Embedder]


def _default_factory(config: EmbeddingsConfig) -> Embedder:
    """make_embedder, imported on first use: a config without pgvector never loads the providers."""
    from knowledge_engine.index.embeddings import make_embedder

    return make_embedder(config)


def make_remote_sources(
    config: EngineConfig, embedder_factory: EmbedderFactory | None = None
) -> list[Source]:
    """The remote sources to run: both mocks in test mode, else the enabled and configured real ones.

    As in the seed, test mode counts both sources as enabled without URLs or credentials.
    """
    if config.test_mode.enabled:
        warn_test_mode()
        return [MockPgvectorSource(config.test_mode), MockLightragSource(config.test_mode, config.lightrag)]
    sources: list[Source] = []
    pg: PgvectorConfig = config.pgvector
    if pg.enabled:
        if not pg.url:
            log.warning("pgvector is enabled but pgvector.url is empty: source disabled")
            emit("source_disabled", source="pgvector", reason="no_url")
        else:
            factory = embedder_factory or _default_factory
            sources.append(PgvectorSource(pg, factory(pg.embeddings or config.embeddings)))
    if config.lightrag.enabled:
        if not config.lightrag.url:
            log.warning("lightrag is enabled but lightrag.url is empty: source disabled")
            emit("source_disabled", source="lightrag", reason="no_url")
        else:
            sources.append(LightragSource(config.lightrag))
    return sources
