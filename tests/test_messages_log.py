"""The SQLite message log's own behaviour: its file in the workspace, the schema version, FTS5 drift.

The message log contract (append, reads, search, retention, redaction, odd input) is one suite,
parametrized over SQLite and PostgreSQL, in tests/test_messages_backends.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_engine.store.messages import MESSAGES_FILE, MessageLog, MessageLogError
from tests.messages_support import fill, ids, msg


@pytest.fixture
def log(workspace: Path) -> Iterator[MessageLog]:
    with MessageLog(workspace) as opened:
        yield opened


def test_workspace_dir_opens_the_default_file(workspace: Path, log: MessageLog) -> None:
    assert log.path == workspace / MESSAGES_FILE
    log.append(msg(1, "hello"))
    assert (workspace / MESSAGES_FILE).exists()


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "messages.sqlite3"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(MessageLogError, match="cannot open message log"):
        MessageLog(bad)


def test_newer_schema_is_refused(workspace: Path) -> None:
    with MessageLog(workspace) as log:
        log.conn.execute("PRAGMA user_version = 99")
    with pytest.raises(MessageLogError, match="newer"):
        MessageLog(workspace)


def test_index_drift_is_detected_and_repaired(log: MessageLog) -> None:
    fill(log)
    log.append(msg(1, "original wording"))
    assert log.check_index() is True
    log.conn.execute("DROP TRIGGER messages_au")  # simulate a writer that bypassed the index
    log.conn.execute("UPDATE messages SET text = 'replacement wording' WHERE id = '1'")
    assert log.check_index() is False
    assert ids(log.search("replacement")) == []
    log.rebuild_index()
    assert log.check_index() is True
    assert ids(log.search("replacement")) == ["1"]
    assert log.search("original") == []
