"""The LLM tier wired into the engine: hooks -> queue -> batcher -> loopback Ollama -> facts in the store."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register
from tests.servers.ollama_server import FakeOllamaServer

TEXTS = [
    "Nadia works at Vandelay Industries.",
    "Omar lives in Rotterdam.",
    "Priya moved to Montreal.",
    "Quentin likes Tarantino.",
    "Rosa works at Wayne Enterprises.",
]


def config(tmp_path: Path, url: str, **llm: Any) -> dict[str, Any]:
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
                "cooldownMs": 200,
                "timeoutMs": 2000,
                "retryBackoffMs": 10,
                **llm,
            },
        },
    }


async def send(runner: HookRunner, n: int) -> None:
    for i in range(n):
        event = {
            "content": TEXTS[i % len(TEXTS)],
            "messageId": f"m{i}",
            "sessionKey": "agent:llm:main",
            "timestamp": "2025-01-01T10:00:00Z",
        }
        await runner.run("message_received", {**event, "from": "u"}, {"sessionKey": "agent:llm:main"})


def test_every_message_of_a_batch_gets_its_llm_facts(tmp_path: Path, ollama_server: FakeOllamaServer) -> None:
    api = PluginApi("knowledge-engine", config(tmp_path, ollama_server.url))
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)
    asyncio.run(send(runner, 10))
    assert plugin.engine.flush(60, sync=False)
    ws = plugin.engine.workspace("llm")
    llm_facts = {f.text() for f in ws.facts.all() if f.source == "llm"}
    assert {
        "Nadia works at Vandelay Industries",
        "Omar lives in Rotterdam",
        "Priya moved to Montreal",
        "Rosa works at Wayne Enterprises",
    } <= llm_facts
    calls = ollama_server.calls("/api/chat")
    assert len(calls) == math.ceil(10 / 4)
    nadia = next(f for f in ws.facts.all() if f.subject == "Nadia" and f.source == "llm")
    assert {e.message_id for e in nadia.evidence} == {"m0", "m5"}
    plugin.engine.stop(5)


def test_llm_outage_parks_batches_and_a_restart_delivers_them(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    cfg = config(tmp_path, ollama_server.url, maxRetries=0, failureThreshold=1, failureCooldownMs=60000)
    ollama_server.default = "http500"  # Ollama answers 500 until it is "fixed"
    api = PluginApi("knowledge-engine", cfg)
    plugin = register(api)
    assert plugin is not None
    asyncio.run(send(HookRunner(api.registrations), 4))
    plugin.engine.flush(10, sync=False)
    plugin.engine.stop(5)
    ws_dir = tmp_path / "llm"
    assert list((ws_dir / "llm-pending").glob("*.json")), "the failed batch must be parked on disk"
    ollama_server.default = "ok"  # Ollama is back
    api2 = PluginApi("knowledge-engine", cfg)
    plugin2 = register(api2)
    assert plugin2 is not None and plugin2.engine is not plugin.engine
    ws = plugin2.engine.workspace("llm")
    plugin2.engine.flush(30, sync=False)
    for _ in range(100):
        if any(f.source == "llm" for f in ws.facts.all()):
            break
        asyncio.run(asyncio.sleep(0.05))
    assert "Omar lives in Rotterdam" in {f.text() for f in ws.facts.all() if f.source == "llm"}
    plugin2.engine.flush(10, sync=False)  # the parked file goes with the store flush after its delivery
    assert not list((ws_dir / "llm-pending").glob("*.json"))
    plugin2.engine.stop(5)
