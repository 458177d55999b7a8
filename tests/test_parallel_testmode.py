"""testMode: canned remote results without any network or database, loudly announced."""

from __future__ import annotations

import asyncio
import logging

import pytest

from knowledge_engine.config import EmbeddingsConfig, load_config
from knowledge_engine.index.embeddings.base import Embedder
from knowledge_engine.model.retrieval import RetrievalRequest, SourceResult
from knowledge_engine.retrieve.parallel import gather_sources
from knowledge_engine.retrieve.sources import pgvector as pgvector_module
from knowledge_engine.retrieve.sources.factory import make_remote_sources
from knowledge_engine.retrieve.sources.lightrag import LightragSource
from knowledge_engine.retrieve.sources.pgvector import PgvectorSource
from knowledge_engine.retrieve.sources.testmode import (
    WARNING_TEXT,
    MockLightragSource,
    MockPgvectorSource,
    reset_test_mode_warning,
)
from tests.fixtures.postgres import HashEmbedder
from tests.servers.lightrag_server import LightragServer


def _forbidden_factory(config: EmbeddingsConfig) -> Embedder:
    raise AssertionError("test mode must not build an embedder")


@pytest.fixture(autouse=True)
def _fresh_warning() -> None:
    reset_test_mode_warning()


def test_test_mode_returns_canned_data_without_network(caplog: pytest.LogCaptureFixture) -> None:
    server = LightragServer().start()  # a real server: it must receive nothing
    try:
        cfg = load_config(
            {
                "testMode": True,
                "lightragUrl": server.url,
                "lightragEnabled": True,
                "postgresUrl": "postgresql://nobody@127.0.0.1:1/none",
                "pgvectorEnabled": True,
            }
        )
        sources = make_remote_sources(cfg, _forbidden_factory)
        assert [type(s) for s in sources] == [MockPgvectorSource, MockLightragSource]
        req = RetrievalRequest(query="When does Halcyon ship?")

        async def run() -> list[SourceResult]:
            res = await gather_sources(sources, req, 1000, {"pgvector": 500, "lightrag": 500})
            assert asyncio.get_running_loop() not in pgvector_module._POOLS  # no pool was created
            return res

        pg, lr = asyncio.run(run())
        assert server.requests == []
    finally:
        server.stop()
    assert pg.status == "ok" and pg.mock
    assert lr.status == "ok" and lr.mock and lr.text is not None
    assert "HX-2026-0042" in lr.text
    assert "When does Halcyon ship?" in lr.text  # {{query}} substituted
    assert [i.file_path for i in lr.items] == ["test-mode.md"]
    doc = pg.items[0]
    assert "HX-2026-0042" in doc.text
    assert (doc.score, doc.collection, doc.file_path) == (0.8, "knowledge_test", "test-mode.md")
    events = [r.getMessage() for r in caplog.records if '"type":"source"' in r.getMessage()]
    assert len(events) == 2 and all('"mock":true' in e for e in events)


def test_test_mode_works_with_no_urls_at_all() -> None:
    sources = make_remote_sources(load_config({"testMode": {"enabled": True}}), _forbidden_factory)
    assert {s.name for s in sources} == {"pgvector", "lightrag"}


def test_loud_warning_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    cfg = load_config({"testMode": True})
    make_remote_sources(cfg, _forbidden_factory)
    make_remote_sources(cfg, _forbidden_factory)
    warnings = [
        r for r in caplog.records if "TEST MODE ACTIVE" in r.getMessage() and r.levelno == logging.WARNING
    ]
    assert [r.getMessage() for r in warnings].count(WARNING_TEXT) == 1


def test_custom_mock_data_and_references() -> None:
    cfg = load_config(
        {
            "testMode": {
                "enabled": True,
                "lightragMockResponse": "Graph says {{query}} twice: {{query}}.",
                "lightragMockReferences": [
                    "a.md",
                    {"file_path": "b.md", "reference_id": "7", "content": ["x", "y"]},
                    {"nope": 1},
                ],
                "pgvectorMockResults": [
                    {"file_name": "low.md", "text": "low", "score": 0.1},
                    {"file_name": "high.md", "text": "high", "score": 0.9, "collection": "c1"},
                ],
            }
        }
    )
    pg, lr = make_remote_sources(cfg, _forbidden_factory)
    req = RetrievalRequest(query="Q1")
    lres = asyncio.run(lr.search(req))
    assert lres.text == "Graph says Q1 twice: Q1."
    assert [(i.file_path, i.text, i.extra["reference_id"]) for i in lres.items] == [
        ("a.md", "", "1"),
        ("b.md", "x\n\ny", "7"),
    ]
    pres = asyncio.run(pg.search(req))
    assert [(i.file_path, i.collection) for i in pres.items] == [
        ("high.md", "c1"),
        ("low.md", "knowledge_test"),
    ]


def test_real_sources_when_enabled_and_configured() -> None:
    seen: list[EmbeddingsConfig] = []

    def factory(config: EmbeddingsConfig) -> Embedder:
        seen.append(config)
        return HashEmbedder(3072)

    cfg = load_config(
        {
            "pgvector": {
                "enabled": True,
                "url": "postgresql://u@localhost/db",
                "embeddings": {"provider": "ollama"},
            },
            "lightrag": {"enabled": True, "url": "http://127.0.0.1:9"},
        }
    )
    sources = make_remote_sources(cfg, factory)
    assert [type(s) for s in sources] == [PgvectorSource, LightragSource]
    assert seen[0].provider == "ollama"  # pgvector.embeddings wins over the global section


def test_global_embeddings_used_without_a_pgvector_section() -> None:
    seen: list[EmbeddingsConfig] = []

    def factory(config: EmbeddingsConfig) -> Embedder:
        seen.append(config)
        return HashEmbedder(3072)

    cfg = load_config({"pgvector": {"enabled": True, "url": "postgresql://u@localhost/db"}})
    make_remote_sources(cfg, factory)
    assert seen == [cfg.embeddings]


def test_disabled_or_unconfigured_sources_are_left_out(caplog: pytest.LogCaptureFixture) -> None:
    assert make_remote_sources(load_config({}), _forbidden_factory) == []
    cfg = load_config({"pgvector": {"enabled": True}, "lightrag": {"enabled": True}})
    assert make_remote_sources(cfg, _forbidden_factory) == []
    assert any('"source_disabled"' in r.getMessage() and "no_url" in r.getMessage() for r in caplog.records)
