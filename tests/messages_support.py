"""Shared pieces of the message-log tests: sample messages, filler text and the hostile queries.

The contract cases live once, parametrized over both backends, in tests/test_messages_backends.py;
tests/test_messages_log.py keeps only what is SQLite's own (the file, FTS5, the schema version).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from knowledge_engine.model.records import Message

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FILLER = [
    "we walked along the river in the morning",
    "lunch was a sandwich and some soup",
    "the printer on floor three is jammed again",
    "my sister visited over the weekend",
    "the train was late by twenty minutes",
    "please water the plants on friday",
    "the new chairs arrived in the office",
    "rain is expected for most of the week",
    "the kids played football after school",
    "dinner reservations are at eight tonight",
]
INJECTIONS = [
    'foo" OR "bar',
    "NEAR(a b)",
    "text:secret",
    "*",
    '"',
    ")",
    "AND",
    "-x",
    "{text}:secret",
    "secret*",
]


class Appends(Protocol):
    """What `fill` needs of a log (MessageLog or PgMessageLog)."""

    def append_many(self, msgs: Iterable[Message]) -> int: ...


def msg(i: int | str, text: str, **kw: object) -> Message:
    """Message `i` at T0 + i minutes (a non-numeric id: at T0)."""
    fields: dict[str, object] = {"timestamp": T0 + timedelta(minutes=int(i) if str(i).isdigit() else 0)}
    fields.update(kw)
    return Message(id=str(i), text=text, **fields)


def fill(log: Appends, start: int = 1000) -> None:
    """Ten unrelated messages, so that search statistics are not those of a one-row log."""
    log.append_many(msg(start + i, t) for i, t in enumerate(FILLER))


def ids(results: list[tuple[Message, float]]) -> list[str]:
    return [m.id for m, _ in results]
