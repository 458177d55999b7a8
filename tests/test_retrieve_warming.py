"""Issue 18, section 1, in process: a turn during warm-up answers from what is ready and trips no breaker."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from knowledge_engine.model.retrieval import RetrievalRequest, SourceResult
from knowledge_engine.retrieve.cooldown import Breaker
from knowledge_engine.retrieve.parallel import gather_sources
from knowledge_engine.retrieve.retriever import retriever_for
from knowledge_engine.retrieve.warmup import Warmup

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class LoadingSource:
    """Never answers in time; says it is warming until told otherwise."""

    name = "local"

    def __init__(self) -> None:
        self.warming = True

    async def search(self, request: RetrievalRequest) -> SourceResult:
        await asyncio.Event().wait()  # cancelled by the source's timeout
        raise AssertionError("unreachable")


def test_timeouts_while_warming_never_count_toward_the_breaker() -> None:
    source = LoadingSource()
    breaker = Breaker(name="local")
    request = RetrievalRequest(query="where does Maya work")

    async def turn(budget_ms: float = 5000) -> SourceResult:
        (result,) = await gather_sources([source], request, budget_ms, {"local": 50}, {"local": breaker})
        return result

    for _ in range(5):  # more than the breaker's threshold of 3
        result = asyncio.run(turn())
        assert (result.status, result.error) == ("timeout", "warming")
    result = asyncio.run(turn(budget_ms=20))  # cut by the overall budget, not its own timeout
    assert (result.status, result.error) == ("timeout", "warming")
    assert not breaker.is_open and breaker.consecutive_timeouts == 0
    source.warming = False  # warm now: a source that still times out is slow, and does count
    for _ in range(3):
        assert asyncio.run(turn()).error == "timeout"
    assert breaker.is_open


def _seeded_engine(tmp_path: Path) -> tuple[KnowledgeEngine, object]:
    engine = KnowledgeEngine(load_config({"storage": {"writeDebounceMs": 3_600_000}}))
    ws = engine.open_workspace(tmp_path / "ws", "main")
    ws.facts.add("user", "moved-to", "Lisbon")
    ws.store_message(Message(id="m1", text="I moved to Lisbon", role="user", session="s1", timestamp=T0))
    return engine, ws


def test_a_turn_before_warm_up_ends_answers_from_the_keyword_arms(tmp_path: Path) -> None:
    engine, ws = _seeded_engine(tmp_path)
    try:
        retriever = retriever_for(engine, ws)
        gate = threading.Event()  # holds the real warm-up steps back until the first turn is over
        local = retriever.local
        local.warmup = Warmup("workspace", [("gate", gate.wait), *local.warmup.steps])
        retriever.warm_up()
        first = asyncio.run(retriever.hook({"prompt": "What do you remember about Lisbon?"}, {}))
        report = retriever.last_provenance or {}
        assert report["sources"]["local"]["status"] == "ok"
        assert report["sources"]["local"]["error"] == "warming"  # keyword arms only, said so
        assert {i["section"] for i in report["items"]} == {"facts", "memory"}
        assert first is not None and "| moved-to | Lisbon" in first["appendSystemContext"]
        assert not retriever.breakers["local"].is_open
        assert retriever.breakers["local"].consecutive_timeouts == 0

        gate.set()
        assert local.warmup.ready.wait(300)
        again = asyncio.run(retriever.hook({"prompt": "What do you remember about Lisbon?"}, {}))
        report = retriever.last_provenance or {}
        assert report["sources"]["local"]["error"] is None  # not served from the cache: every arm ran
        assert again is not None and "I moved to Lisbon" in again["appendSystemContext"]
    finally:
        gate.set()
        engine.stop(5)
