"""A message log the host cannot write (a malformed messages.sqlite3) is logged with SQLite's reason
(new-user pass 3, issue 17): the sidecar said only 'message log append failed: MessageLogError', while
the CLI on the same folder said 'database disk image is malformed'. The batch's facts are still stored."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message


def test_a_malformed_message_log_is_logged_with_its_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "messages.sqlite3").write_bytes(b"not a database, " * 512)
    cfg = load_config({"embeddings": {"enabled": False}, "extraction": {"spacy": {"enabled": False}},
                       "storage": {"writeDebounceMs": 0}})  # fmt: skip
    engine = KnowledgeEngine(cfg)
    try:
        ws = engine.open_workspace(folder, "main")
        text = "Mail me at dana@example.org about Initech"
        with caplog.at_level(logging.ERROR, logger="knowledge_engine"):
            assert engine.submit(ws, Message(id="m1", text=text, role="user", session="s1"))
            assert engine.flush(120.0, sync=False)
        failed = [r.getMessage() for r in caplog.records if "message log append failed" in r.getMessage()]
        assert failed and "file is not a database" in failed[0], failed
        assert all("dana@" not in r.getMessage() and "Initech" not in r.getMessage() for r in caplog.records)
        assert any(e.value == "dana@example.org" for e in ws.entities.all())  # the facts still land
    finally:
        engine.stop(10.0)


def test_messages_the_log_cannot_take_stay_in_the_journal_for_the_next_start(tmp_path: Path) -> None:
    """Their facts were stored and the flush dropped their journal lines: once the log was fixed the
    messages themselves were gone. Now the journal keeps them and the next start appends them."""
    from knowledge_engine.ingest.journal import JOURNAL_NAME

    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "messages.sqlite3").write_bytes(b"not a database, " * 512)
    cfg = load_config({"embeddings": {"enabled": False}, "extraction": {"spacy": {"enabled": False}},
                       "storage": {"writeDebounceMs": 0}})  # fmt: skip
    engine = KnowledgeEngine(cfg)
    try:
        ws = engine.open_workspace(folder, "main")
        for i in range(3):
            assert engine.submit(ws, Message(id=f"m{i}", text=f"Mail me at p{i}@example.org", role="user"))
        assert engine.flush(120.0, sync=False)
        assert any(e.value == "p2@example.org" for e in ws.entities.all())
    finally:
        engine.stop(10.0)
    assert (folder / JOURNAL_NAME).read_bytes().count(b"\n") == 3  # held, not dropped by the flush

    (folder / "messages.sqlite3").rename(folder / "messages.sqlite3.broken")  # the operator's fix
    again = KnowledgeEngine(cfg)
    try:
        ws = again.open_workspace(folder, "main")  # replays the journal
        assert again.flush(120.0, sync=False)
        assert {m.id for m in ws.messages.get_many(["m0", "m1", "m2"])} == {"m0", "m1", "m2"}
    finally:
        again.stop(10.0)
    assert (folder / JOURNAL_NAME).read_bytes() == b""
