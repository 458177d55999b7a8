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
