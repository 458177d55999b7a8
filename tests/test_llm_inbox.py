"""The LLM tier's inbox: messages waiting for a batch survive kill -9 and are replayed once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.cli.status import folder_status
from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.extract.inbox import INBOX_NAME, LlmInbox
from knowledge_engine.ingest.journal import JOURNAL_NAME
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from tests.servers.ollama_server import FakeOllamaServer

NAMES = ["Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sami", "Tomas", "Ursula", "Viktor", "Wanda"]
ORGS = ["Vandelay", "Initech", "Globex", "Hooli", "Umbrella", "Soylent"]


def msg(i: int) -> Message:
    return Message(id=f"m{i}", text=f"note {i}")


def test_only_an_owned_prefix_leaves_the_inbox(tmp_path: Path) -> None:
    inbox = LlmInbox(tmp_path / INBOX_NAME)
    for i in range(4):
        assert inbox.append(msg(i))
    assert not inbox.append(msg(1))  # already waiting: a replay is not queued twice
    inbox.owned(["m0", "m2"])  # m1 is still in memory: m2 must stay with it
    token = inbox.checkpoint()
    assert token == 1
    inbox.append(msg(4))  # arrives while the store is being written
    inbox.release(token)
    assert [m.id for m in LlmInbox(tmp_path / INBOX_NAME).recover()] == ["m1", "m2", "m3", "m4"]


def test_recover_skips_a_torn_line_and_keeps_the_rest(tmp_path: Path) -> None:
    inbox = LlmInbox(tmp_path / INBOX_NAME)
    inbox.append(msg(0))
    inbox.append(msg(1))
    with open(tmp_path / INBOX_NAME, "ab") as fh:
        fh.write(b'{"id": "m2", "te')  # the kill cut the last write
    before = counters.get("llm.inbox_bad_line")
    again = LlmInbox(tmp_path / INBOX_NAME)
    assert [m.id for m in again.recover()] == ["m0", "m1"]
    assert counters.get("llm.inbox_bad_line") == before + 1
    again.owned(["m0", "m1"])
    again.release(again.checkpoint())
    assert (tmp_path / INBOX_NAME).read_bytes() == b""


HOST = textwrap.dedent(
    """
    import asyncio, json, sys
    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register
    cfg, n = json.loads(sys.argv[1]), int(sys.argv[2])
    names, orgs = json.loads(sys.argv[3]), json.loads(sys.argv[4])
    api = PluginApi("knowledge-engine", cfg)
    register(api)
    runner = HookRunner(api.registrations)

    async def main() -> None:
        for i in range(n):
            text = f"{names[i % len(names)]} works at {orgs[i // len(names)]}."
            event = {"content": text, "messageId": f"m{i}", "sessionKey": "agent:k:main",
                     "timestamp": "2025-01-01T10:00:00Z"}
            await runner.run("message_received", {**event, "from": "u"}, {"sessionKey": "agent:k:main"})
        print("sent", flush=True)
        await asyncio.sleep(600)  # killed long before

    asyncio.run(main())
    """
)


def host_config(tmp_path: Path, url: str, cooldown_ms: int) -> dict[str, Any]:
    return {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"writeDebounceMs": 50},
        "embeddings": {"enabled": False},
        "retrieval": {"enabled": False},
        "maintenance": {"enabled": False},
        "extraction": {
            "spacy": {"facts": False, "workers": 0},
            "llm": {"enabled": True, "endpoint": url, "batchSize": 500, "cooldownMs": cooldown_ms},
        },
    }


@pytest.mark.slow
def test_kill_9_while_messages_wait_for_an_llm_batch_loses_no_llm_fact(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> None:
    import json

    n = 40
    script = tmp_path / "host.py"
    script.write_text(HOST)
    cfg = host_config(tmp_path, ollama_server.url, cooldown_ms=600_000)  # the batch waits in memory
    proc = subprocess.Popen(
        [sys.executable, str(script), json.dumps(cfg), str(n), json.dumps(NAMES), json.dumps(ORGS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    folder = tmp_path / "k"
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "sent"
        deadline = time.monotonic() + 60
        # the local tiers' results are flushed and the ingest journal checkpointed: before the inbox,
        # the LLM tier's batch lived only in this process's memory at this point
        while time.monotonic() < deadline:
            journal = folder / JOURNAL_NAME
            if (folder / "facts.json").exists() and journal.exists() and journal.stat().st_size == 0:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the host never checkpointed its journal")
        assert len((folder / "llm-pending" / INBOX_NAME).read_bytes().splitlines()) == n
        assert folder_status(folder, load_config({}))["llm_waiting_messages"] == n  # what `stats` shows
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert ollama_server.calls("/api/chat") == []  # nothing reached the LLM before the kill

    engine = KnowledgeEngine(load_config(host_config(tmp_path, ollama_server.url, cooldown_ms=100)))
    ws = engine.workspace("k")
    assert engine.flush(60, sync=False)
    llm_evidence = {e.message_id for f in ws.facts.all() if f.source == "llm" for e in f.evidence}
    assert llm_evidence == {f"m{i}" for i in range(n)}
    assert len(ollama_server.calls("/api/chat")) == 1  # one batch, sent once
    assert (folder / "llm-pending" / INBOX_NAME).read_bytes() == b""  # released by the flush
    engine.stop(5)
