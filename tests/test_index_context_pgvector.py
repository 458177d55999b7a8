"""`embeddings.contextTurns` on the postgres backend: pgvector stores the vector of the composed text too.

pgvector embeds nothing itself (the sync does, for both backends), so this checks the one thing that
could differ: its stored vectors and hashes. Against the session's real PostgreSQL + pgvector, one fresh
database for this module, vectors from the fixtures' deterministic HashEmbedder.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.index.pgvector_index import PgVectorIndex
from knowledge_engine.index.sync import sync
from tests.fixtures.postgres import HashEmbedder, database_fixture
from tests.index_samples import sample_messages

url = database_fixture("ke_index_context")


def _index(tmp_path: Path, url: str, agent: str, turns: int) -> PgVectorIndex:
    cfg = load_config(
        {"storage": {"backend": "postgres", "postgres": {"url": url}}, "embeddings": {"contextTurns": turns}}
    )
    return PgVectorIndex(tmp_path, agent, cfg, HashEmbedder(64))


def test_pgvector_holds_the_vector_of_the_turn_with_the_one_before_it(tmp_path: Path, url: str) -> None:
    agent = f"agent-{uuid.uuid4().hex[:8]}"
    msgs = sample_messages(12)  # m3's session s0: m0 before it
    plain = _index(tmp_path, url, agent, 0)
    assert sync(plain, [], msgs).embedded == 12
    index = _index(tmp_path, url, agent, 1)
    report = sync(index, [], msgs)
    assert (report.embedded, report.unchanged) == (9, 3)  # a session's first turn has nothing before it
    composed = f"alice: {msgs[0].text}\n{msgs[3].text}"
    hit = index.query_messages(index.embedder.embed_query(composed), 1)[0]
    assert hit.id == "m3" and hit.score == pytest.approx(1.0, abs=1e-2)
    assert sync(index, [], msgs).embedded == 0
