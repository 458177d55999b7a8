"""A new message is found by its meaning on the next prompts, not only after the next sync (index/live.py).

The scheduled sync runs every 15 minutes: before live indexing, "Where do I live?" right after "I moved
to Lisbon last spring" could only be answered by words the two share (none). These tests run the real
local embedder and a real Chroma index (embedded, and a server that is not there).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.index.live import LiveIndexer
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.plugin import register
from tests.fixtures.chroma import _free_port
from tests.fixtures.postgres import database_fixture, store_config

DEADLINE_S = 120
SAID = "I moved to Lisbon last spring, the light there is wonderful."
ASKED = "Where do I live these days?"


def _plugin_config(root: Path, **over: Any) -> dict[str, Any]:
    return {
        "workspaceRoot": str(root),
        "extraction": {"llm": {"enabled": False}, "spacy": {"workers": 0}},
        "maintenance": {"enabled": False},  # no scheduled sync: only the live indexer can index
        "retrieval": {"cacheTtlMs": 0},  # every prompt searches afresh
        **over,
    }


async def _ask_until(runner: HookRunner, ctx: dict[str, Any], wanted: str) -> str:
    """The block of `ASKED`, asked again until it holds `wanted` or the deadline passes."""
    deadline = time.monotonic() + DEADLINE_S
    block = ""
    while time.monotonic() < deadline:
        result = await runner.run("before_prompt_build", {"prompt": ASKED, "messages": []}, ctx)
        block = (result or {}).get("appendSystemContext", "")
        if wanted in block:
            return block
        await asyncio.sleep(0.2)
    return block


def _hooks(root: Path, **over: Any) -> tuple[KnowledgeEngine, HookRunner, dict[str, Any]]:
    api = PluginApi("knowledge-engine", _plugin_config(root, **over))
    plugin = register(api)
    assert plugin is not None
    ctx = {"agentId": "main", "workspaceDir": str(root / "ws"), "sessionKey": "agent:main:chat"}
    return plugin.engine, HookRunner(api.registrations), ctx


async def _say(runner: HookRunner, ctx: dict[str, Any], text: str, mid: str) -> None:
    await runner.run("session_start", {"sessionId": "s1", "sessionKey": ctx["sessionKey"]}, ctx)
    await runner.run(
        "message_received",
        {"from": "u1", "content": text, "messageId": mid, "sessionKey": ctx["sessionKey"]},
        {**ctx, "channelId": "web"},
    )


def test_a_new_message_is_found_by_meaning_without_a_sync(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, Any]:
        engine, runner, ctx = _hooks(tmp_path)
        await _say(runner, ctx, SAID, "m1")
        block = await _ask_until(runner, ctx, SAID)
        ws = engine.workspace(ctx["agentId"], ctx["workspaceDir"])
        report = await asyncio.to_thread(engine.sync, ws)
        await runner.run("gateway_stop", {"reason": "test"}, {})
        return block, report

    block, report = asyncio.run(scenario())
    assert SAID in block, block  # the turn itself, verbatim, as a memory item (it shares no word with ASKED)
    assert report.per_kind["messages"]["embedded"] == 0  # the sync found it indexed, with the same hash
    assert report.per_kind["messages"]["unchanged"] == 1


def test_live_indexing_off_leaves_the_message_to_the_sync(tmp_path: Path) -> None:
    """The control: without live indexing the same turn is not found by meaning until a sync runs."""

    async def scenario() -> tuple[str, str]:
        engine, runner, ctx = _hooks(tmp_path, embeddings={"liveIndex": False})
        await _say(runner, ctx, SAID, "m1")
        ws = engine.workspace(ctx["agentId"], ctx["workspaceDir"])
        deadline = time.monotonic() + DEADLINE_S
        while "m1" not in {m.id for m in ws.messages.iter()} and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        result = await runner.run("before_prompt_build", {"prompt": ASKED, "messages": []}, ctx)
        before = (result or {}).get("appendSystemContext", "")
        await asyncio.to_thread(engine.sync, ws)
        after = await _ask_until(runner, ctx, SAID)
        await runner.run("gateway_stop", {"reason": "test"}, {})
        return before, after

    before, after = asyncio.run(scenario())
    assert SAID not in before
    assert SAID in after


def _engine(root: Path, **over: Any) -> KnowledgeEngine:
    return KnowledgeEngine(
        load_config(
            {
                "workspaceRoot": str(root),
                "extraction": {"llm": {"enabled": False}},
                "maintenance": {"enabled": False},
                **over,
            }
        )
    )


def _msg(mid: str, text: str) -> Message:
    return Message(id=mid, text=text, role="user", session="s1", speaker="user")


def test_only_messages_still_in_the_log_are_indexed(tmp_path: Path) -> None:
    """A message forgotten (gone from the log) before its batch is embedded is not indexed."""
    engine = _engine(tmp_path)
    ws = engine.open_workspace(tmp_path / "ws")
    kept, forgotten = _msg("m1", "The cat sleeps on the sofa."), _msg("m2", "My PIN is 4711.")
    ws.store_messages([kept])
    live = LiveIndexer(engine.chroma, max_pending=100)
    live.submit(ws, [kept, forgotten])
    assert live.wait_idle(DEADLINE_S)
    index = engine.chroma(ws)
    assert index.count("messages") == 1
    assert index.stored_hashes("messages").keys() == {"m1"}
    live.stop(5)
    engine.stop()


def test_a_full_queue_leaves_the_batch_to_the_sync_and_counts_it(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    ws = engine.open_workspace(tmp_path / "ws")
    msgs = [_msg(f"m{i}", f"Message number {i} about gardens.") for i in range(3)]
    ws.store_messages(msgs)
    live = LiveIndexer(engine.chroma, max_pending=2)
    skipped = counters.get("index.live_skipped")
    live.submit(ws, msgs)  # 3 > 2 waiting: left whole to the sync
    assert counters.get("index.live_skipped") == skipped + 3
    assert live.wait_idle(DEADLINE_S)
    assert engine.chroma(ws).count("messages") == 0
    live.stop(5)
    assert engine.sync(ws).per_kind["messages"]["embedded"] == 3  # the sync is the safety net
    engine.stop()


def test_a_dead_chroma_server_is_counted_and_ingestion_goes_on(tmp_path: Path) -> None:
    """Live indexing against a Chroma server that is not there: counted and logged, nothing raised, every
    message still stored."""
    dead = f"http://127.0.0.1:{_free_port()}"
    engine = _engine(
        tmp_path, chroma={"url": dead}, extraction={"llm": {"enabled": False}, "spacy": {"workers": 0}}
    )
    ws = engine.open_workspace(tmp_path / "ws")
    failed = counters.get("index.live_failed")
    for i in range(3):
        assert engine.submit(ws, _msg(f"m{i}", f"Note {i}: the boiler was serviced."))
    deadline = time.monotonic() + DEADLINE_S
    while counters.get("index.live_failed") == failed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert counters.get("index.live_failed") > failed
    assert engine.flush(DEADLINE_S, sync=False)
    assert {m.id for m in ws.messages.iter()} == {"m0", "m1", "m2"}
    engine.stop()


pg_db = database_fixture("ke_index_live")


def test_on_postgres_messages_reach_pgvector_and_the_sync_finds_them(tmp_path: Path, pg_db: str) -> None:
    """The shared backend: a stored batch lands in pgvector with the sync's hash (no re-embedding)."""
    cfg = store_config(pg_db)
    engine = _engine(tmp_path, **{**cfg, "embeddings": {"enabled": True}})
    ws = engine.open_workspace(tmp_path / "ws", "live")
    msgs = [_msg("p1", "The allotment needs watering twice a week."), _msg("p2", "We repainted the hallway.")]
    for m in msgs:
        assert engine.submit(ws, m)
    index = engine.chroma(ws)
    deadline = time.monotonic() + DEADLINE_S
    while index.count("messages") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.stored_hashes("messages").keys() == {"p1", "p2"}
    assert engine.sync(ws).per_kind["messages"]["embedded"] == 0
    engine.stop()
