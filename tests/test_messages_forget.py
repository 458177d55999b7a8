"""Forgetting: after delete/redact/retention + vacuum, no byte of the text remains in any workspace file."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog

SECRET = "Vortigern-Kestrel 4471 zqxjwomble passphrase"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "project",
    "meeting",
    "budget",
    "launch",
    "review",
    "design",
    "office",
    "river",
]


def populate(log: MessageLog) -> int:
    """Filler around one secret message (so its pages are shared with text that stays); returns its seq."""
    rng = random.Random(7)

    def filler(prefix: str, n: int, day: int) -> list[Message]:
        return [
            Message(
                id=f"{prefix}{i}",
                text=" ".join(rng.choices(WORDS, k=25)),
                session="keep",
                timestamp=T0 + timedelta(days=day, seconds=i),
            )
            for i in range(n)
        ]

    log.append_many(filler("a", 1500, day=10))
    log.append(Message(id="secret", text=f"my {SECRET}, do not share", session="private", timestamp=T0))
    log.append_many(filler("b", 1500, day=10))
    return int(log.conn.execute("SELECT seq FROM messages WHERE id = 'secret'").fetchone()[0])


def needles(log: MessageLog, seq: int) -> set[bytes]:
    """The secret as written, plus every index term FTS5 made of it (lower-cased, stemmed)."""
    log.conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, messages_fts, 'instance')"
    )
    terms = {t for (t,) in log.conn.execute("SELECT term FROM temp.vocab WHERE doc = ?", (seq,))}
    terms = {t for t in terms if len(t) >= 4 and t not in {"share"}}
    assert {"vortigern", "kestrel", "zqxjwombl", "4471"} <= terms
    return {SECRET.encode(), *(t.encode() for t in terms), b"Vortigern", b"zqxjwomble"}


def leftovers(workspace: Path, wanted: set[bytes]) -> dict[str, list[bytes]]:
    found: dict[str, list[bytes]] = {}
    for f in workspace.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            hits = [n for n in wanted if n in data or n.lower() in data]
            if hits:
                found[f.name] = hits
    return found


def _delete(log: MessageLog) -> None:
    assert log.delete(["secret"]) == 1


def _delete_session(log: MessageLog) -> None:
    assert log.delete_session("private") == 1


def _redact(log: MessageLog) -> None:
    assert log.redact(["secret"], "[redacted]") == ["secret"]


def _retain(log: MessageLog) -> None:
    assert log.retain(max_age_days=5, now=T0 + timedelta(days=10)) == ["secret"]


@pytest.mark.parametrize("forget", [_delete, _delete_session, _redact, _retain])
def test_no_byte_of_forgotten_text_remains(workspace: Path, forget: Callable[[MessageLog], None]) -> None:
    log = MessageLog(workspace)
    host = MessageLog(workspace)  # a second connection, as when the host runs during `forget`
    seq = populate(log)
    wanted = needles(log, seq)
    assert host.search("zqxjwomble")
    assert leftovers(workspace, wanted)  # control: the scan sees the text while it is stored
    forget(log)
    assert log.vacuum() is True
    assert leftovers(workspace, wanted) == {}
    log.conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
    assert log.search("zqxjwomble") == [] and host.search("vortigern kestrel") == []
    assert host.count() == 3000 + (1 if forget is _redact else 0)
    assert len(log.search("budget", limit=5)) == 5
    host.close()
    log.close()
    assert leftovers(workspace, wanted) == {}


def test_without_vacuum_the_index_still_holds_terms(workspace: Path) -> None:
    """Why vacuum() exists: secure_delete zeroes the row, but FTS5 keeps old segments until merged."""
    with MessageLog(workspace) as log:
        wanted = needles(log, populate(log))
        log.delete(["secret"])
        log.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert log.search("zqxjwomble") == []
        assert leftovers(workspace, wanted)
        assert log.vacuum() is True
        assert leftovers(workspace, wanted) == {}


def test_vacuum_reports_a_wal_it_could_not_truncate(workspace: Path) -> None:
    """The checkpoint waits busy_timeout for readers, then says so instead of pretending."""
    with MessageLog(workspace, busy_timeout_ms=200) as log, MessageLog(workspace) as reader:
        log.append(Message(id="1", text="hello world"))
        reader.conn.execute("BEGIN")
        reader.conn.execute("SELECT count(*) FROM messages").fetchone()  # holds a read snapshot
        log.append(Message(id="2", text="more text"))
        assert log.vacuum() is False
        reader.conn.execute("COMMIT")
        assert log.vacuum() is True


def test_logs_carry_no_text_nor_query(workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    with MessageLog(workspace) as log:
        populate(log)
        log.search("zqxjwomble vortigern")
        log.search("\"passphrase\" )) NEAR(")
        log.redact(lambda m: "zqxjwomble" in m.text, lambda t: t.replace("zqxjwomble", "[x]"))
        log.retain(max_count=10)
        log.delete_session("private")
        log.vacuum()
    assert "[knowledge.event]" in caplog.text  # control: events were logged
    for needle in ("zqxjwomble", "Vortigern", "passphrase", "alpha", "budget"):
        assert needle not in caplog.text
