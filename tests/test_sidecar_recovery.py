"""A sidecar killed with SIGKILL mid-burst, started again: what it had acknowledged is replayed at start,
not when the agent next speaks (new-user pass 3, issue 17).

Before the fix the restarted sidecar opened an agent's folder only when a hook named the agent, so the
acknowledged messages stayed in the journal, `/drain` answered `drained: true, pending: 0` and the
message log missed them until the agent's next turn.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.ingest.journal import JOURNAL_NAME
from knowledge_engine.ingest.pickup import parked_workspaces
from tests.sidecar_process import sidecar_config, start_sidecar
from tests.test_sidecar_lifecycle import post_messages, stored


@pytest.mark.slow
def test_kill_9_then_restart_replays_without_waiting_for_the_agent(tmp_path: Path) -> None:
    cfg = sidecar_config(tmp_path, storage={"writeDebounceMs": 60000})
    sc = start_sidecar(tmp_path, cfg, socket=tmp_path / "ke.sock")
    ids = post_messages(sc, "burst", 40)  # all acknowledged; most still queued behind spaCy's start
    assert sc.terminate(signal.SIGKILL) == -signal.SIGKILL
    assert (tmp_path / "agents" / "main" / JOURNAL_NAME).stat().st_size > 0

    again = start_sidecar(tmp_path, cfg, socket=tmp_path / "ke.sock", name="again")
    try:
        status, body = again.call("POST", "/drain", {"timeoutMs": 300000}, timeout_s=400)
        assert status == 200 and body == {"drained": True, "pending": 0}
        messages, emails = stored(tmp_path, ids)
        assert messages == set(ids)
        assert {f"priya{i}@initech.example" for i in range(40)} <= emails
    finally:
        assert again.terminate() == 0
    log = again.stderr()
    assert "replaying 40 messages accepted before an unclean stop" in log
    assert "plugin.parked_work_opened" in log and "Initech" not in log


def _journal(folder: Path, text: bytes) -> None:
    folder.mkdir(parents=True)
    (folder / JOURNAL_NAME).write_bytes(text)


def test_only_agent_folders_with_parked_work_are_found(tmp_path: Path) -> None:
    _journal(tmp_path / "agents" / "main", b'{"id": "m1"}\n')
    _journal(tmp_path / "agents" / "idle", b"")  # a clean stop leaves the journal empty
    (tmp_path / "agents" / "ops" / "llm-pending").mkdir(parents=True)
    (tmp_path / "agents" / "ops" / "llm-pending" / "inbox.jsonl").write_bytes(b'{"id": "m2"}\n')
    cfg = load_config({"workspace": str(tmp_path / "agents" / "{agentId}")})
    found = parked_workspaces(cfg)
    assert found == [
        ((tmp_path / "agents" / "main").resolve(), "main"),
        ((tmp_path / "agents" / "ops").resolve(), "ops"),
    ]


def test_folders_named_only_by_a_hook_are_not_searched(tmp_path: Path) -> None:
    _journal(tmp_path / "one" / "knowledge-engine", b'{"id": "m1"}\n')
    for config in ({}, {"workspace": str(tmp_path / "one" / "knowledge-engine")}):
        assert parked_workspaces(load_config(config)) == []
