"""The ingest journal: what the hooks accepted survives kill -9 and is replayed exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.ingest.journal import JOURNAL_NAME, IngestJournal
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

HOOKS = textwrap.dedent(
    """
    import asyncio, sys
    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register
    root = sys.argv[1]
    api = PluginApi("knowledge-engine", {"workspace": root + "/{agentId}", "embeddings": {"enabled": False},
                                         "retrieval": {"enabled": False}, "maintenance": {"enabled": False}})
    register(api)
    runner = HookRunner(api.registrations)

    async def main() -> None:
        i = 0
        while True:
            event = {"content": f"Note {i}: Dana met Priya at Initech in Boston.", "messageId": f"m{i}",
                     "sessionKey": "agent:j:main"}
            await runner.run("message_received", {**event, "from": "u"}, {"sessionKey": "agent:j:main"})
            print(i, flush=True)  # acknowledged: the hook returned
            i += 1
            if i % 50 == 0:
                await asyncio.sleep(0.01)

    asyncio.run(main())
    """
)


@pytest.mark.slow
def test_kill_9_through_the_hooks_loses_no_accepted_message(tmp_path: Path) -> None:
    script = tmp_path / "hooks.py"
    script.write_text(HOOKS)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acked: list[str] = []
    deadline = time.monotonic() + 60
    while len(acked) < 400 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.strip().isdigit():
            acked.append(line.strip())
    os.kill(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate()
    acked += [x for x in rest.split() if x.isdigit()]
    assert len(acked) >= 400
    engine = KnowledgeEngine(
        load_config({"workspace": str(tmp_path / "{agentId}"), "embeddings": {"enabled": False}})
    )
    ws = engine.workspace("j")
    assert engine.flush(120, sync=False)
    stored = {m.id for m in ws.messages.iter()}
    assert {f"m{i}" for i in acked} <= stored
    initech = ws.entities.resolve("Initech")
    assert initech is not None and initech.count >= len(acked)  # each message counted once: no duplicates
    assert initech.count == len(stored)
    engine.stop(10)
    assert (tmp_path / "j" / JOURNAL_NAME).read_bytes() == b""  # checkpointed once durable


def test_checkpoint_keeps_lines_appended_during_the_flush(tmp_path: Path) -> None:
    journal = IngestJournal()
    for i in range(3):
        journal.append(tmp_path, Message(id=f"a{i}", text="x"))
    journal.applied(tmp_path, 3)
    token = journal.checkpoint(tmp_path)
    journal.append(tmp_path, Message(id="late", text="y"))  # arrives while the store is being written
    journal.release(tmp_path, token)
    journal.close()
    assert [m.id for m in IngestJournal().recover(tmp_path)] == ["late"]


def test_no_checkpoint_while_messages_are_unapplied(tmp_path: Path) -> None:
    journal = IngestJournal()
    journal.append(tmp_path, Message(id="a", text="x"))
    journal.release(tmp_path, journal.checkpoint(tmp_path))  # pending 1: nothing may be dropped
    journal.close()
    assert [m.id for m in IngestJournal().recover(tmp_path)] == ["a"]


def _crashed_host_journal(folder: Path, n: int) -> None:
    """What a killed host leaves behind: accepted messages never applied."""
    journal = IngestJournal()
    for i in range(n):
        journal.append(folder, Message(id=f"c{i}", text=f"Dana met Priya at Initech, note {i}."))
    journal.close()


def _config(tmp_path: Path) -> dict[str, object]:
    return {"workspace": str(tmp_path / "{agentId}"), "embeddings": {"enabled": False},
            "maintenance": {"enabled": False}, "extraction": {"spacy": {"workers": 0}}}


def test_a_cli_process_neither_replays_nor_rewrites_a_hosts_journal(tmp_path: Path) -> None:
    folder = tmp_path / "j"
    folder.mkdir()
    _crashed_host_journal(folder, 3)
    before = (folder / JOURNAL_NAME).read_bytes()
    cli = KnowledgeEngine(load_config(_config(tmp_path)), ingest_owner=False)
    ws = cli.open_workspace(folder, "j")
    assert cli.flush(30, sync=False)
    assert (folder / JOURNAL_NAME).read_bytes() == before  # the host's work stays the host's
    assert ws.entities.resolve("Initech") is None
    cli.stop(5)
    host = KnowledgeEngine(load_config(_config(tmp_path)))
    ws = host.open_workspace(folder, "j")
    assert host.flush(60, sync=False)
    initech = ws.entities.resolve("Initech")
    assert initech is not None and initech.count == 3  # replayed once, by the next host
    host.stop(5)


def test_a_second_host_on_the_same_workspace_runs_without_the_journal(tmp_path: Path) -> None:
    folder = tmp_path / "j"
    first = KnowledgeEngine(load_config(_config(tmp_path)))
    first.open_workspace(folder, "j")
    before = counters.get("ingest.journal_not_owner")
    second = KnowledgeEngine(load_config(_config(tmp_path)))
    ws2 = second.open_workspace(folder, "j")
    assert counters.get("ingest.journal_not_owner") == before + 1
    assert second.submit(ws2, Message(id="s1", text="Omar lives in Rotterdam."))
    assert second.flush(30, sync=False)
    journal = folder / JOURNAL_NAME
    assert not journal.exists() or journal.read_bytes() == b""  # the second host wrote nothing to it
    assert ws2.entities.resolve("Rotterdam") is not None  # but it still processed the message
    second.stop(5)
    first.stop(5)
    third = KnowledgeEngine(load_config(_config(tmp_path)))  # the lock went with the first host
    third.open_workspace(folder, "j")
    assert counters.get("ingest.journal_not_owner") == before + 1
    third.stop(5)
