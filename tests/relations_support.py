"""A retriever over a small told story, and the Known Facts lines it injects: shared by the relation tests
(tests/test_retrieve_relations.py) and the vocabulary tests (tests/test_predicate_vocabulary.py).

Facts go in through the store API, the message log holds the conversation they came from, and the real
local embedder and Chroma index feed the vector arm, as in the hook.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.retrieve.retriever import Retriever, retriever_for

# (day, text, facts stated by that message), Maya speaking
Story = list[tuple[int, str, list[tuple[str, str, str]]]]


@contextmanager
def story_retriever(root: Path, story: Story, t0: datetime, speaker: str = "Maya") -> Iterator[Retriever]:
    """Maya's workspace under `root` holding `story` (day d, message i at t0 + d days + i minutes), synced.
    The log's speaker is `speaker`; the facts name Maya as the entity "Maya" (its id as subject_id)."""
    engine = KnowledgeEngine(load_config({
        "workspaceTemplate": "{workspaceDir}/ke", "workspaceRoot": str(root / "agents"),
        "extraction": {"llm": {"enabled": False}},
        "retrieval": {"cacheTtlMs": 0},
    }))
    ws = engine.workspace("maya", str(root))
    messages = []
    for i, (day, text, facts) in enumerate(story):
        ts = t0 + timedelta(days=day, minutes=i)
        messages.append(Message(id=f"m{i}", text=text, role="user", speaker=speaker, session=f"s{day}",
                                timestamp=ts))
        for s, p, o in facts:
            ev = Evidence(message_id=f"m{i}", session=f"s{day}", role="user", timestamp=ts)
            sid = ws.entities.observe(s, "person", "spacy", ev).id if s == "Maya" else None
            ws.facts.add(s, p, o, evidence=[ev], confidence=0.6, now=ts, subject_id=sid)
    ws.messages.append_many(messages)
    engine.sync(ws)
    r = retriever_for(engine, ws)
    assert r.wait_ready(120)
    try:
        yield r
    finally:
        engine.stop(10)


def known_facts(r: Retriever, question: str, now: datetime) -> list[str]:
    """The lines of the Known Facts section the hook injects for `question` at `now` ([] without one)."""
    block, _ = asyncio.run(r.context(question, reference_time=now))
    if "### Known Facts" not in block:
        return []
    section = block.split("### Known Facts", 1)[1].split("###", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]
