"""Speaker-aware conversation retrieval of the local source, on a real message log and real Chroma.

A question that names a speaker ("What does Alice bake?") wants that speaker's own turns. The
name is no search word: in a chat the other side's turns are full of it ("Thanks, Alice!").
These tests check, with the real local MiniLM embedder and an embedded Chroma index, that
- the vector arm embeds the question without the name (`vectorTopic`), so name-heavy turns
  addressed to the speaker do not outrank what the speaker said;
- the named speaker's turns get a vector arm of their own (`speakerArm`) from a twice-as-deep
  query, so they are reached even when other speakers' turns fill the plain arm's pool;
- without a named speaker nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Message
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem
from knowledge_engine.retrieve.sources.local import LocalSource
from knowledge_engine.store.workspace import Workspace

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
# Bob talks about food all the time and greets Alice by name; Alice said one thing about baking,
# with no word in common with the question below.
BOB = [
    "Alice, Alice! Good morning Alice, how are you Alice?",
    "Thanks Alice, you are the best, Alice.",
    "I really enjoy food, any food, food is what I enjoy most.",
    "My favourite food is pizza, I enjoy pizza every day.",
    "What food do you enjoy? I enjoy spicy food.",
    "Food markets are fun, I enjoy tasting food there.",
    "I cooked food for friends, we enjoyed the food.",
    "Street food is the food I enjoy the most.",
]
ALICE = ["Sourdough loaves and cinnamon rolls come out of my oven every weekend."]
QUESTION = "What food does Alice enjoy making?"


def _messages() -> list[Message]:
    out = []
    for i, text in enumerate([*BOB, *ALICE]):
        speaker = "Alice" if text in ALICE else "Bob"
        out.append(Message(id=f"m{i}", text=text, role="user", session="s1", speaker=speaker,
                           timestamp=T0 + timedelta(minutes=i)))
    return out


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One message log + Chroma index shared by the tests (built once: embedding is the slow part)."""
    folder = tmp_path_factory.mktemp("speakers")
    engine = KnowledgeEngine(_config(folder, {}))
    ws = engine.workspace("alice-bob", str(folder))
    ws.messages.append_many(_messages())
    engine.sync(ws)
    engine.stop(10)
    yield folder


def _config(folder: Path, retrieval: dict[str, Any]) -> Any:
    return load_config({
        "workspaceTemplate": "{workspaceDir}/ke", "workspaceRoot": str(folder / "agents"),
        "extraction": {"llm": {"enabled": False}},
        "retrieval": {"candidatePool": 5, "neighbours": 0, **retrieval},
    })


def _search(folder: Path, query: str, **retrieval: Any) -> list[RetrievedItem]:
    engine = KnowledgeEngine(_config(folder, retrieval))
    try:
        ws: Workspace = engine.workspace("alice-bob", str(folder))
        return [i for i in LocalSource(engine, ws).search_sync(RetrievalRequest(query=query))
                if i.kind == "memory"]
    finally:
        engine.stop(10)


def _vector_rank(items: list[RetrievedItem], arm: str = "vector") -> list[str]:
    """Ids in the order of one arm's own score (the arm's ranking before fusion)."""
    return [i.id for i in sorted((i for i in items if arm in i.scores), key=lambda i: -i.scores[arm])]


def test_speaker_arm_reaches_the_named_speakers_turn_beyond_the_plain_pool(log_dir: Path) -> None:
    alice_turn = f"m{len(BOB)}"
    on = _search(log_dir, QUESTION)
    arm = [i for i in on if "speaker_vector" in i.scores]
    assert arm and all(i.speaker == "Alice" for i in arm)
    assert alice_turn in {i.id for i in arm}
    # the plain vector arm (pool 5) is full of Bob's food turns; only the speaker arm brings Alice's
    plain_off = _search(log_dir, QUESTION, speakerArm=False)
    assert alice_turn not in {i.id for i in plain_off}
    assert not any("speaker_vector" in i.scores for i in plain_off)
    assert alice_turn in {i.id for i in on}


def test_no_named_speaker_no_speaker_arm(log_dir: Path) -> None:
    items = _search(log_dir, "Which food is enjoyed the most?")
    assert items
    assert not any("speaker_vector" in i.scores for i in items)
    assert len(_vector_rank(items)) <= 5  # the plain arm keeps its pool when no one is named


def test_vector_query_without_the_name_demotes_turns_addressed_to_the_speaker(log_dir: Path) -> None:
    greeting_ids = {"m0", "m1"}  # Bob's turns that are mostly "Alice"
    with_name = _vector_rank(_search(log_dir, QUESTION, vectorTopic=False, speakerArm=False))
    without = _vector_rank(_search(log_dir, QUESTION, vectorTopic=True, speakerArm=False))
    assert greeting_ids & set(with_name[:2])  # the name dominates the question's embedding
    assert not greeting_ids & set(without[:2])


def test_speaker_turns_are_marked_for_the_speaker_boost(log_dir: Path) -> None:
    items = _search(log_dir, QUESTION)
    marked = {i.id for i in items if i.scores.get("speaker")}
    assert marked == {i.id for i in items if i.speaker == "Alice"}
