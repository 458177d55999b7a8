"""session_start builds the local fact index in the background, so the first turn does not."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register
from knowledge_engine.retrieve.retriever import retriever_for
from knowledge_engine.store.workspace import Workspace


def test_session_start_warms_the_fact_index(tmp_path: Path) -> None:
    folder = tmp_path / "agent-a" / "ke"
    seeded = Workspace(folder, load_config({}))
    for i in range(300):
        seeded.facts.add(f"Person {i}", "works-at", f"Company {i % 7}")
    seeded.flush()
    seeded.close()

    cfg = {"workspaceTemplate": "{workspaceDir}/ke", "embeddings": {"enabled": False}}
    api = PluginApi("knowledge-engine", cfg)
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)
    ctx = {"agentId": "a", "sessionKey": "agent:a:main", "workspaceDir": str(tmp_path / "agent-a")}
    try:
        asyncio.run(runner.run("session_start", {"sessionId": "a-1", "sessionKey": "agent:a:main"}, ctx))
        ws = plugin.engine.workspace("a", str(tmp_path / "agent-a"))
        index = retriever_for(plugin.engine, ws).local.terms
        deadline = time.monotonic() + 120  # generous: the warm-up shares two busy cores
        while index.rebuilds == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert index.rebuilds == 1 and len(index.valid) == 300  # built before any turn asked
        event = {"prompt": "Where does Person 12 work?", "sessionKey": "agent:a:main"}
        result = asyncio.run(runner.run("before_prompt_build", event, ctx))
        assert "Company 5" in str(result)
        assert index.rebuilds == 1  # the turn used the warm index
    finally:
        plugin.engine.stop(5)
