"""The LLM tier wired into the engine: hooks -> queue -> batcher -> loopback Ollama -> facts in the store."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register
from knowledge_engine.store.workspace import Workspace
from tests.servers.ollama_server import FakeOllamaServer

TEXTS = [
    "Nadia works at Vandelay Industries.",
    "Omar lives in Rotterdam.",
    "Priya moved to Montreal.",
    "Quentin likes Tarantino.",
    "Rosa works at Wayne Enterprises.",
]


# Generous deadlines: on a busy 2-core machine spaCy's workers take 10 s or more to start.
DEADLINE_S = 120.0


def config(tmp_path: Path, url: str, **llm: Any) -> dict[str, Any]:
    """Batches are sent when full or on a flush, never by a quiet timer, so the number of calls does
    not depend on how fast the extraction worker hands messages over."""
    return {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"writeDebounceMs": 0},
        "embeddings": {"enabled": False},
        "retrieval": {"enabled": False},
        "extraction": {
            "spacy": {"facts": False},
            "llm": {
                "enabled": True,
                "endpoint": url,
                "batchSize": 4,
                "cooldownMs": 600_000,
                "timeoutMs": 30_000,
                "retryBackoffMs": 10,
                **llm,
            },
        },
    }


def wait_for(predicate: Callable[[], bool], timeout_s: float = DEADLINE_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def llm_facts(ws: Workspace) -> set[str]:
    return {f.text() for f in ws.facts.all() if f.source == "llm"}


@pytest.fixture
def engines() -> Iterator[list[KnowledgeEngine]]:
    """Engines a test started are stopped even when it fails (they share process-wide state)."""
    started: list[KnowledgeEngine] = []
    yield started
    for engine in started:
        engine.stop(DEADLINE_S)


async def send(runner: HookRunner, n: int) -> None:
    for i in range(n):
        event = {
            "content": TEXTS[i % len(TEXTS)],
            "messageId": f"m{i}",
            "sessionKey": "agent:llm:main",
            "timestamp": "2025-01-01T10:00:00Z",
        }
        await runner.run("message_received", {**event, "from": "u"}, {"sessionKey": "agent:llm:main"})


@pytest.mark.slow
def test_every_message_of_a_batch_gets_its_llm_facts(
    tmp_path: Path, ollama_server: FakeOllamaServer, engines: list[KnowledgeEngine]
) -> None:
    api = PluginApi("knowledge-engine", config(tmp_path, ollama_server.url))
    plugin = register(api)
    assert plugin is not None
    engines.append(plugin.engine)
    runner = HookRunner(api.registrations)
    asyncio.run(send(runner, 10))
    assert plugin.engine.flush(DEADLINE_S, sync=False)
    ws = plugin.engine.workspace("llm")
    assert {
        "Nadia works at Vandelay Industries",
        "Omar lives in Rotterdam",
        "Priya moved to Montreal",
        "Rosa works at Wayne Enterprises",
    } <= llm_facts(ws)
    calls = ollama_server.calls("/api/chat")
    assert len(calls) == math.ceil(10 / 4)
    nadia = next(f for f in ws.facts.all() if f.subject == "Nadia" and f.source == "llm")
    assert {e.message_id for e in nadia.evidence} == {"m0", "m5"}


@pytest.mark.slow
def test_llm_outage_parks_batches_and_a_restart_delivers_them(
    tmp_path: Path, ollama_server: FakeOllamaServer, engines: list[KnowledgeEngine]
) -> None:
    cfg = config(tmp_path, ollama_server.url, maxRetries=0, failureThreshold=1, failureCooldownMs=60000)
    ollama_server.default = "http500"  # Ollama answers 500 until it is "fixed"
    api = PluginApi("knowledge-engine", cfg)
    plugin = register(api)
    assert plugin is not None
    engines.append(plugin.engine)
    asyncio.run(send(HookRunner(api.registrations), 4))
    assert plugin.engine.flush(DEADLINE_S, sync=False)  # the batch was sent, failed and was parked
    plugin.engine.stop(DEADLINE_S)
    ws_dir = tmp_path / "llm"
    assert list((ws_dir / "llm-pending").glob("*.json")), "the failed batch must be parked on disk"
    ollama_server.default = "ok"  # Ollama is back
    api2 = PluginApi("knowledge-engine", cfg)
    plugin2 = register(api2)
    assert plugin2 is not None and plugin2.engine is not plugin.engine
    engines.append(plugin2.engine)
    ws = plugin2.engine.workspace("llm")  # its batcher retries the parked batch on its own thread
    # the batch's facts are applied message by message: wait for the one checked, not for the first
    assert wait_for(lambda: "Omar lives in Rotterdam" in llm_facts(ws))
    # the flush waits for the delivery to finish; the parked file goes with the store flush after it
    assert plugin2.engine.flush(DEADLINE_S, sync=False)
    assert not list((ws_dir / "llm-pending").glob("*.json"))
