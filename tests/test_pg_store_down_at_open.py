"""Messages for an agent whose shared store is down when its workspace is first opened are parked, not
lost (new-user pass 3, issue 17).

A sidecar started while PostgreSQL was stopped answered `message_received` with 200, logged
"message_received hook failed: StoreDatabaseError" and kept nothing: the workspace (and so the ingest
journal) could not open, and the message was gone when the server came back. Now it waits in the agent's
local folder (`ingest-spill.jsonl`) and is stored when the workspace opens.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from knowledge_engine.config import load_config
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.ingest.queue import SPILL_NAME
from knowledge_engine.observe import counters
from knowledge_engine.plugin import register
from knowledge_engine.store.postgres.connect import close_all
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import fresh_database, pg_server_in_tempdir, store_config

AGENT = "cold"
SESSION = f"agent:{AGENT}:chat"


def _hook(runner: HookRunner, name: str, event: dict[str, Any], ctx: dict[str, Any]) -> Any:
    return asyncio.run(runner.run(name, event, ctx))


def _received(runner: HookRunner, mid: str, text: str) -> None:
    event = {"from": "u1", "content": text, "messageId": mid, "sessionKey": SESSION}
    _hook(runner, "message_received", event, {"channelId": "web"})


def test_messages_wait_in_the_folder_until_the_store_answers(tmp_path: Path) -> None:
    with pg_server_in_tempdir() as server:  # our own server: the session's is not stopped under others
        url = fresh_database(server.url, "ke_down_at_open")
        config = {
            **store_config(url),
            "workspace": str(tmp_path / "agents" / "{agentId}"),
            "extraction": {"spacy": {"enabled": False}},
        }
        api = PluginApi("knowledge-engine", config)
        plugin = register(api)
        runner = HookRunner(api.registrations)
        folder = tmp_path / "agents" / AGENT
        try:
            server.stop()
            parked_before = counters.get("ingest.parked")
            _received(runner, "d1", "Write to dana@example.org about the lease")
            _received(runner, "d2", "And cc ops@example.org")
            assert (folder / SPILL_NAME).read_bytes().count(b"\n") == 2
            assert counters.get("ingest.parked") - parked_before == 2

            server.start()
            _received(runner, "d3", "Also tell max@example.org")  # the workspace opens and takes the rest
            assert plugin is not None and plugin.engine.flush(120.0, sync=False)
        finally:
            _hook(runner, "gateway_stop", {"reason": "shutdown"}, {})
        ws = Workspace(folder, load_config(config), AGENT)
        try:
            assert {m.id for m in ws.messages.get_many(["d1", "d2", "d3"])} == {"d1", "d2", "d3"}
            emails = {e.value for e in ws.entities.all() if e.type == "email"}
            assert {"dana@example.org", "ops@example.org", "max@example.org"} <= emails
        finally:
            ws.close()
            close_all()  # before the server goes: no pool left retrying a deleted socket
        assert not (folder / SPILL_NAME).exists()


def test_a_drain_stores_them_once_the_store_answers(tmp_path: Path) -> None:
    """The sidecar's `/drain` reported drained with the parked messages still waiting for a hook."""
    from knowledge_engine.sidecar.runtime import SidecarRuntime

    async def run(server: Any, config: dict[str, Any]) -> tuple[bool, int]:
        sidecar = SidecarRuntime(config)
        await sidecar.start()
        try:
            server.stop()
            text = "Write to erin@example.org"
            event = {"from": "u1", "content": text, "messageId": "e1", "sessionKey": SESSION}
            await sidecar.run_hook("message_received", event, {"channelId": "web"})
            server.start()
            return await sidecar.drain(120.0)
        finally:
            await sidecar.stop(5.0)

    with pg_server_in_tempdir() as server:
        url = fresh_database(server.url, "ke_down_at_open_drain")
        config = {**store_config(url), "workspace": str(tmp_path / "agents" / "{agentId}"),
                  "extraction": {"spacy": {"enabled": False}}}  # fmt: skip
        assert asyncio.run(run(server, config)) == (True, 0)
        ws = Workspace(tmp_path / "agents" / AGENT, load_config(config), AGENT)
        try:
            assert [m.id for m in ws.messages.get_many(["e1"])] == ["e1"]
        finally:
            ws.close()
            close_all()


def test_work_left_by_a_kill_waits_for_a_store_down_at_start(tmp_path: Path) -> None:
    """A sidecar restarted (after a kill) while the database is down: its start could not open the
    folder with the parked work, and nothing tried again before the agent's next hook."""
    from knowledge_engine.ingest.journal import encode_message
    from knowledge_engine.model.records import Message
    from knowledge_engine.sidecar.runtime import SidecarRuntime

    folder = tmp_path / "agents" / AGENT
    folder.mkdir(parents=True)
    left = Message(id="k1", text="Write to kim@example.org", role="user", session=SESSION)
    (folder / SPILL_NAME).write_bytes(encode_message(left))

    async def run(server: Any, config: dict[str, Any]) -> tuple[bool, int]:
        server.stop()
        sidecar = SidecarRuntime(config)
        await sidecar.start()  # its pickup finds the folder but cannot open it
        try:
            server.start()
            return await sidecar.drain(120.0)
        finally:
            await sidecar.stop(5.0)

    with pg_server_in_tempdir() as server:
        url = fresh_database(server.url, "ke_down_at_start")
        config = {**store_config(url), "workspace": str(tmp_path / "agents" / "{agentId}"),
                  "extraction": {"spacy": {"enabled": False}}}  # fmt: skip
        assert asyncio.run(run(server, config)) == (True, 0)
        ws = Workspace(folder, load_config(config), AGENT)
        try:
            assert [m.id for m in ws.messages.get_many(["k1"])] == ["k1"]
        finally:
            ws.close()
            close_all()
