"""Sample messages and facts for the vector index tests (Chroma and pgvector): the same small corpus
for both backends, so their cases read alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from knowledge_engine.model.records import Fact, Message, fact_id

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
TOPICS = ["the budget meeting", "my cat Luna", "a trip to Lisbon", "the database migration", "lunch plans"]


def sample_messages(n: int, start: int = 0) -> list[Message]:
    """Messages `start`..`start+n-1`, one a minute from T0: topics, roles, sessions and speakers cycle."""
    return [
        Message(
            id=f"m{i}",
            text=f"Message {i} about {TOPICS[i % len(TOPICS)]}",
            role="user" if i % 2 == 0 else "assistant",
            session=f"s{i % 3}",
            speaker="alice" if i % 2 == 0 else "bot",
            timestamp=T0 + timedelta(minutes=i),
        )
        for i in range(start, start + n)
    ]


def fact(s: str, p: str, o: str, **kw: Any) -> Fact:
    return Fact(id=fact_id(s, p, o), subject=s, predicate=p, object=o, subject_id=f"person:{s.lower()}", **kw)


def sample_facts() -> list[Fact]:
    return [
        fact("Alice", "works-at", "Acme"),
        fact("Alice", "lives-in", "Lisbon"),
        fact("Bob", "has-role", "database administrator"),
    ]


# metadata filters over the sample messages, checked by both index suites
WHERE_FILTERS: list[dict[str, Any]] = [
    {"session": "s1"},
    {"role": "assistant", "session": "s2"},
    {"timestamp": {"$gte": (T0 + timedelta(minutes=40)).timestamp()}},
    {"$or": [{"speaker": "alice"}, {"session": {"$in": ["s0"]}}]},
    {"session": {"$nin": ["s0", "s1"]}, "role": {"$ne": "user"}},
]
