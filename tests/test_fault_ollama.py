"""The Ollama endpoint flapping (up, 500s, hangs, up) under a stream of 1,000 messages through the hooks.

Every message carries one fact only the LLM tier can find (spaCy facts are off). Once the server is
back, every message's fact is in the store exactly once, with exactly its own message as evidence.
"""

from __future__ import annotations

import asyncio
import string
import time
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register
from tests.servers.ollama_server import FakeOllamaServer

N = 1000
# (LLM requests, behaviour): up for 8 calls, 500s for 10, hangs for 6, then up for good. Keyed on the
# server's request count, so the outage hits the stream whatever the machine's speed.
SCHEDULE = (("ok", 8), ("http500", 10), ("hang", 6))


class FlappingOllama(FakeOllamaServer):
    """The loopback Ollama, following SCHEDULE on its LLM endpoint (embeddings unaffected)."""

    llm_requests = 0

    def _next_behaviour(self, channel: str) -> str:
        if channel != "llm":
            return super()._next_behaviour(channel)
        with self._lock:
            n = self.llm_requests
            self.llm_requests += 1
        for behaviour, count in SCHEDULE:
            if n < count:
                return behaviour
            n -= count
        return "ok"


def name(i: int) -> str:
    """A capitalised, letters-only name unique to message i (the fake's pattern wants [A-Z][a-z]+)."""
    letters = ""
    n = i
    for _ in range(3):
        letters += string.ascii_lowercase[n % 26]
        n //= 26
    return "Z" + letters


def org(i: int) -> str:
    """Letters, not digits: fuzzy entity resolution would merge "Acme100" into "Acme10"."""
    return "Acme" + name(i)[1:]


def config(tmp_path: Path, url: str) -> dict[str, Any]:
    return {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"writeDebounceMs": 200},
        "embeddings": {"enabled": False},
        "retrieval": {"enabled": False},
        "memory": {"enabled": False},
        "extraction": {"spacy": {"facts": False},
                       "llm": {"enabled": True, "endpoint": url, "batchSize": 25, "cooldownMs": 100,
                               "timeoutMs": 400, "maxRetries": 1, "retryBackoffMs": 20,
                               "failureThreshold": 3, "failureCooldownMs": 300}},
    }


async def stream(runner: HookRunner) -> None:
    for i in range(N):
        event = {"content": f"{name(i)} works at {org(i)}.", "messageId": f"m{i}",
                 "sessionKey": "agent:flap:main", "timestamp": "2025-01-01T10:00:00Z"}
        await runner.run("message_received", {**event, "from": "u"}, {"sessionKey": "agent:flap:main"})
        if i % 50 == 0:
            await asyncio.sleep(0.05)  # a stream, not one burst


@pytest.mark.slow
def test_every_message_gets_its_llm_fact_once_after_the_endpoint_flaps(tmp_path: Path) -> None:
    server = FlappingOllama(hang_seconds=5.0).start()
    try:
        api = PluginApi("knowledge-engine", config(tmp_path, server.url))
        plugin = register(api)
        assert plugin is not None
        asyncio.run(stream(HookRunner(api.registrations)))
        engine = plugin.engine
        ws = engine.workspace("flap")
        t_sent = time.monotonic()
        deadline = time.monotonic() + 180  # a guard against a hang, not a performance assertion
        while time.monotonic() < deadline:
            engine.flush(10, sync=False)
            stats = engine.llm_stats(ws)
            assert stats is not None
            if stats["queued"] == 0 and stats["pending_batches"] == 0 and engine.queue.pending() == 0:
                break
            time.sleep(0.3)
        stats = engine.llm_stats(ws)
        assert stats is not None and stats["pending_batches"] == 0 and stats["failed_batches"] == 0, stats
        assert stats["failures"] > 0 and stats["parked_batches"] > 0, "the flapping must have been felt"
        engine.flush(10, sync=False)
        facts = [f for f in ws.facts.all() if f.predicate == "works-at"]
        by_triple: dict[tuple[str, str], list[Any]] = {}
        for f in facts:
            by_triple.setdefault((f.subject, f.object), []).append(f)
        missing = [i for i in range(N) if (name(i), org(i)) not in by_triple]
        assert not missing, f"{len(missing)} messages lost their facts, e.g. {missing[:5]}"
        assert all(len(v) == 1 for v in by_triple.values()), "duplicate facts"
        for i in range(N):
            (fact,) = by_triple[(name(i), org(i))]
            ids = [e.message_id for e in fact.evidence]
            assert ids == [f"m{i}"], (i, ids)
        assert len(facts) == N
        print(f"ollama flap figures: {stats} drained_s_after_last_message={time.monotonic() - t_sent:.1f}")
        engine.stop(5)
    finally:
        server.stop()
