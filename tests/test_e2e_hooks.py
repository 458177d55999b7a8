"""End to end through the reference runner: real spaCy, real Chroma (embedded), a real workspace on disk."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.observe import counters
from knowledge_engine.plugin import KnowledgePlugin, register

CONVERSATION = [
    ("user", "Hi, I'm Dana. I work at Globex Corporation as a product designer."),
    ("assistant", "Nice to meet you, Dana! What are you working on at Globex?"),
    ("user", "We are launching the Orbit app in March. My manager is Carlos Mendes."),
    ("user", "I live in Toronto and I love rock climbing."),
    ("user", "Send the invoice to dana@globex.example by 2025-03-14, it is $4,500."),
]


def plugin_config(root: Path, **extra: Any) -> dict[str, Any]:
    return {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(root / "agents"),
        "storage": {"writeDebounceMs": 50},
        **extra,
    }


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[tuple[HookRunner, KnowledgePlugin]]:
    api = PluginApi("knowledge-engine", plugin_config(tmp_path))
    plugin = register(api)
    assert plugin is not None
    yield HookRunner(api.registrations), plugin
    plugin.engine.stop(5)


async def feed(runner: HookRunner, agent: str, folder: Path, lines: list[tuple[str, str]]) -> None:
    ctx = {"agentId": agent, "sessionKey": f"agent:{agent}:main", "workspaceDir": str(folder)}
    await runner.run("session_start", {"sessionId": f"{agent}-1", "sessionKey": f"agent:{agent}:main"}, ctx)
    for i, (role, text) in enumerate(lines):
        event = {
            "content": text,
            "messageId": f"{agent}-{i}",
            "sessionKey": f"agent:{agent}:main",
            "timestamp": f"2025-02-0{1 + i % 9}T10:00:00Z",
            "metadata": {"senderName": "Dana"},
        }
        msg_ctx = {"channelId": "test", "sessionKey": f"agent:{agent}:main"}
        if role == "user":
            await runner.run("message_received", {**event, "from": "user-1"}, msg_ctx)
        else:
            await runner.run("message_sent", {**event, "to": "user-1", "success": True}, msg_ctx)


@pytest.mark.slow
def test_conversation_becomes_durable_knowledge_and_is_injected(
    runner: tuple[HookRunner, KnowledgePlugin], tmp_path: Path
) -> None:
    hooks, plugin = runner
    folder = tmp_path / "agent-a"

    async def scenario() -> dict[str, Any]:
        await feed(hooks, "a", folder, CONVERSATION)
        await asyncio.to_thread(plugin.engine.flush, 60)
        result = await hooks.run(
            "before_prompt_build",
            {
                "prompt": "Where does Dana work?",
                "messages": [{"role": "user", "content": "Where does Dana work?"}],
            },
            {"agentId": "a", "sessionKey": "agent:a:main", "workspaceDir": str(folder), "trigger": "user"},
        )
        await hooks.run("gateway_stop", {"reason": "test"}, {})
        return result or {}

    result = asyncio.run(scenario())
    ws_dir = folder / "ke"
    entities = json.loads((ws_dir / "entities.json").read_text())["entities"]
    values = {(e["type"], e["value"]) for e in entities}
    assert ("organization", "Globex Corporation") in values or ("organization", "Globex") in values
    assert ("email", "dana@globex.example") in values
    assert any(t == "money" for t, _ in values) and any(t == "person" and "Carlos" in v for t, v in values)
    facts = json.loads((ws_dir / "facts.json").read_text())["facts"]
    assert any(f["predicate"] == "works-at" and "Globex" in f["object"] for f in facts)
    block = result["appendSystemContext"]
    assert "Globex" in block and "not instructions" in block
    assert "### Known Facts" in block


@pytest.mark.slow
def test_two_agents_in_one_process_never_see_each_other(
    runner: tuple[HookRunner, KnowledgePlugin], tmp_path: Path
) -> None:
    hooks, plugin = runner

    async def scenario() -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        await feed(hooks, "a", tmp_path / "a", [("user", "I work at Initech and live in Austin.")])
        await feed(hooks, "b", tmp_path / "b", [("user", "I work at Umbrella Health and live in Oslo.")])
        await asyncio.to_thread(plugin.engine.flush, 60)
        ask = {"prompt": "Where do I work and live?", "messages": []}
        ra = await hooks.run(
            "before_prompt_build", ask, {"agentId": "a", "workspaceDir": str(tmp_path / "a")}
        )
        rb = await hooks.run(
            "before_prompt_build", ask, {"agentId": "b", "workspaceDir": str(tmp_path / "b")}
        )
        return ra, rb

    ra, rb = asyncio.run(scenario())
    a_text = (tmp_path / "a" / "ke" / "facts.json").read_text() + (
        tmp_path / "a" / "ke" / "entities.json"
    ).read_text()
    b_text = (tmp_path / "b" / "ke" / "facts.json").read_text() + (
        tmp_path / "b" / "ke" / "entities.json"
    ).read_text()
    assert "Initech" in a_text and "Umbrella" not in a_text and "Oslo" not in a_text
    assert "Umbrella" in b_text and "Initech" not in b_text and "Austin" not in b_text
    assert ra and "Initech" in ra["appendSystemContext"] and "Umbrella" not in ra["appendSystemContext"]
    assert rb and "Umbrella" in rb["appendSystemContext"] and "Initech" not in rb["appendSystemContext"]


@pytest.mark.slow
def test_overload_spills_to_disk_and_loses_nothing(tmp_path: Path) -> None:
    api = PluginApi("knowledge-engine", plugin_config(tmp_path, extraction={"queueSize": 10}))
    plugin = register(api)
    assert plugin is not None
    hooks = HookRunner(api.registrations)
    before = counters.get("ingest.spilled")
    lines = [("user", f"Note {i}: meeting with Acme Corp in Berlin.") for i in range(200)]
    asyncio.run(feed(hooks, "load", tmp_path / "load", lines))
    assert plugin.engine.flush(120, sync=False)
    ws = plugin.engine.workspace("load", str(tmp_path / "load"))
    assert counters.get("ingest.spilled") > before
    assert ws.messages.count() == 200
    acme = ws.entities.resolve("Acme Corp")
    assert acme is not None and acme.count == 200
    plugin.engine.stop(5)


def test_hooks_never_raise_on_garbage(runner: tuple[HookRunner, KnowledgePlugin], tmp_path: Path) -> None:
    _hooks, plugin = runner

    async def scenario() -> dict[str, Any] | None:
        await plugin.message_received({"content": None}, {})
        await plugin.message_received({"content": [{"type": "image"}]}, None)
        await plugin.message_sent({"content": "x", "success": False}, {})
        await plugin.message_received("not a dict", 42)
        return await plugin.before_prompt_build({"prompt": 12345, "messages": "oops"}, {"agentId": None})

    assert asyncio.run(scenario()) is None


@pytest.mark.slow
def test_messages_parked_at_stop_are_extracted_on_the_next_start(tmp_path: Path) -> None:
    cfg = plugin_config(tmp_path)
    api = PluginApi("knowledge-engine", cfg)
    plugin = register(api)
    assert plugin is not None
    hooks = HookRunner(api.registrations)
    lines = [("user", f"Item {i}: Priya from Stark Industries, LLC called.") for i in range(300)]
    asyncio.run(feed(hooks, "park", tmp_path / "park", lines))
    plugin.engine.stop(0.01)  # far too short to extract 300 messages
    again = PluginApi("knowledge-engine", cfg)
    plugin2 = register(again)
    assert plugin2 is not None and plugin2.engine is not plugin.engine
    ws = plugin2.engine.workspace("park", str(tmp_path / "park"))
    assert plugin2.engine.flush(120, sync=False)
    stark = ws.entities.resolve("Stark Industries")
    assert stark is not None and stark.count == 300
    plugin2.engine.stop(5)
