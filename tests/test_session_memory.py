"""Whom a later he/she means and whom a kin word names survive a restart (store/sessions.py).

Real engines on one workspace folder, one after the other; and a real host process killed with
SIGKILL between two messages, whose journal replays the second into the memory read back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.forget.coord import apply_on_host
from knowledge_engine.ingest.redact import ForgetRequest
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.store.sessions import SESSIONS_FILE
from tests.test_cli_support import cli
from tests.test_forget_host import Host, files_with

pytestmark = pytest.mark.slow  # spaCy and real processes

FIRST = "My husband Tom Hardy works at Initech."
HE = "He moved to Boston last week."
KIN = "My husband started a new job at Northwind Logistics last week."


def engine_config(tmp_path: Path) -> dict[str, Any]:
    return {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"writeDebounceMs": 600_000},  # writes only when told
        "embeddings": {"enabled": False},
        "retrieval": {"enabled": False},
        "maintenance": {"enabled": False},
        "extraction": {"spacy": {"workers": 0}, "llm": {"enabled": False}},
    }


def facts_of(folder: Path) -> set[tuple[str, str, str]]:
    doc = orjson.loads((folder / "facts.json").read_bytes())
    return {(f["subject"], f["predicate"], f["object"]) for f in doc["facts"]}


def run_engine(tmp_path: Path, messages: list[tuple[str, str, str]]) -> Path:
    """One engine's life: the messages (id, session, text) from Ana, drained, flushed, stopped."""
    engine = KnowledgeEngine(load_config(engine_config(tmp_path)))
    try:
        ws = engine.workspace("a")
        for mid, session, text in messages:
            engine.submit(ws, Message(id=mid, text=text, speaker="Ana", session=session))
        assert engine.queue.drain(300)
        assert engine.flush(300, sync=False)
        return ws.folder
    finally:
        engine.stop(10)


def test_a_restart_between_two_messages_keeps_whom_he_and_my_husband_mean(tmp_path: Path) -> None:
    folder = run_engine(tmp_path, [("m1", "s1", FIRST)])
    assert (folder / SESSIONS_FILE).exists()
    assert (folder / SESSIONS_FILE).stat().st_mode & 0o077 == 0  # it holds names: owner-only
    restored = counters.get("sessions.restored")
    run_engine(tmp_path, [("m2", "s1", HE), ("m3", "s2", KIN)])
    assert counters.get("sessions.restored") == restored + 1
    facts = facts_of(folder)
    assert ("Tom Hardy", "moved-to", "Boston") in facts
    assert ("Tom Hardy", "works-at", "Northwind Logistics") in facts


def test_without_the_file_a_restart_forgets_them(tmp_path: Path) -> None:
    """The control: the same two lives, the file removed between them."""
    folder = run_engine(tmp_path, [("m1", "s1", FIRST)])
    (folder / SESSIONS_FILE).unlink()
    run_engine(tmp_path, [("m2", "s1", HE), ("m3", "s2", KIN)])
    facts = facts_of(folder)
    assert not any(o in {"Boston", "Northwind Logistics"} for _, _, o in facts), facts


@pytest.mark.parametrize(
    "body", [b"{not json", b'{"version": 1, "tiers": {"spacy": {"people": [{"x": 1}]}}}']
)
def test_a_corrupt_file_is_counted_and_the_sessions_start_empty(tmp_path: Path, body: bytes) -> None:
    folder = run_engine(tmp_path, [("m1", "s1", FIRST)])
    (folder / SESSIONS_FILE).write_bytes(body)
    corrupt = counters.get("sessions.corrupt")
    run_engine(tmp_path, [("m2", "s1", HE), ("m3", "s1", "Priya works at Globex.")])
    assert counters.get("sessions.corrupt") == corrupt + 1
    facts = facts_of(folder)
    assert ("Priya", "works-at", "Globex") in facts  # extraction goes on
    assert not any(o == "Boston" for _, _, o in facts)
    saved = orjson.loads((folder / SESSIONS_FILE).read_bytes())  # written whole again by the flush
    assert any(p["named"] == ["Priya"] for p in saved["tiers"]["spacy"]["people"])


def test_a_host_killed_between_two_messages_replays_the_second_into_its_memory(tmp_path: Path) -> None:
    cfg = engine_config(tmp_path)
    folder = tmp_path / "a"
    host = Host(tmp_path, cfg)
    try:
        host.send("say", messages=[["m1", FIRST]])
        host.send("drain")
        host.send("flush")  # the memory of m1 is saved with this flush
        host.send("say", messages=[["m2", HE]])
        host.send("drain")  # extracted, in memory only: the journal still holds m2
        host.kill()
    finally:
        host.stop()
    assert "Boston" not in json.dumps(sorted(facts_of(folder)))
    engine = KnowledgeEngine(load_config(cfg))
    try:
        engine.workspace("a")  # the replay of m2 reads it with the memory read back
        assert engine.queue.drain(300)
        assert engine.flush(300, sync=False)
    finally:
        engine.stop(10)
    assert ("Tom Hardy", "moved-to", "Boston") in facts_of(folder)


def test_forget_with_no_host_running_leaves_no_memory_naming_them(tmp_path: Path) -> None:
    folder = run_engine(tmp_path, [("m1", "s1", FIRST)])
    assert b"Hardy" in (folder / SESSIONS_FILE).read_bytes()
    code, out, err = cli("forget", "--entity", "Tom Hardy", "-w", str(folder), "--yes", "--json")
    assert code == 0, (out, err)
    assert json.loads(out)["pending_applied_by"] == "this process"
    assert files_with(folder, "hardy") == []
    run_engine(tmp_path, [("m2", "s1", HE)])  # the next host starts without that memory
    assert not any(o == "Boston" for _, _, o in facts_of(folder))


def test_a_forget_between_a_flush_checkpoint_and_its_write_is_not_undone(tmp_path: Path) -> None:
    """The flush takes the memory before its store writes and saves it after; a host applying a
    forget in between must not find the name written back by that flush (it was, and a forget
    run beside a busy host ended 'not final' now and then)."""
    engine = KnowledgeEngine(load_config(engine_config(tmp_path)))
    try:
        ws = engine.workspace("a")
        engine.submit(ws, Message(id="m1", text=FIRST, speaker="Ana", session="s1"))
        assert engine.queue.drain(300)
        tokens = [checkpoint() for checkpoint, _ in ws.flush_hooks]  # the flush starts ...
        assert any(tokens), "the memory names Tom Hardy and was never written: a checkpoint to take"
        req = ForgetRequest(id="r1", terms=["Tom Hardy"])
        apply_on_host(engine, ws, req)  # ... a forget lands ...
        for (_, release), token in zip(ws.flush_hooks, tokens, strict=True):
            release(token)  # ... and the flush ends
        assert b"hardy" not in (ws.folder / SESSIONS_FILE).read_bytes().lower()
        assert counters.get("sessions.stale_checkpoint") >= 1
        assert engine.flush(300, sync=False)  # the next flush writes the memory since: no name in it
        assert b"hardy" not in (ws.folder / SESSIONS_FILE).read_bytes().lower()
    finally:
        engine.stop(10)
