"""The second hop of conversation memory (retrieval.hopWeight, retrieve/hop.py), on a real message log,
a real entity store and the real retriever.

Alice mentions a hike with Marisol in one session; weeks later she says where Marisol drove them, in
words the question "Where did Alice go hiking?" does not share. The keyword arm finds the first turn
only (the vector arm is off here, so nothing else brings the second); the hop follows the name the
best hit holds to the turn that carries the answer. Default off (it did not carry on LoCoMo):
nothing changes unless retrieval.hopWeight is set.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.retrieve.hop import plan_hop
from knowledge_engine.retrieve.retriever import Retriever

T0 = datetime(2026, 4, 4, 10, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=20)
TURNS: list[tuple[str, datetime, str, str]] = [
    ("s1", T0, "Alice", "We went hiking with Marisol last weekend, it was great."),
    ("s1", T0, "Bob", "Sounds lovely."),
    ("s1", T0, "Bob", "Anything else new with you?"),
    ("s2", LATER, "Bob", "The weather turned cold this week."),
    ("s2", LATER, "Alice", "I finished the quilt for my niece."),
    ("s2", LATER, "Bob", "My car needs new tyres soon."),
    ("s2", LATER, "Alice", "Marisol drove us up to Mount Tamalpais before dawn."),
    ("s2", LATER, "Bob", "Our cat knocked a plant off the shelf again."),
    ("s2", LATER, "Alice", "The bakery on Elm Street closes early on Sundays."),
]
ANSWER = "m6"
QUESTION = "Where did Alice go hiking?"


def _config(folder: Path, **retrieval: Any) -> Any:
    return load_config(
        {
            "workspaceTemplate": "{workspaceDir}/ke",
            "workspaceRoot": str(folder / "agents"),
            "extraction": {"llm": {"enabled": False}},
            "embeddings": {"enabled": False},  # the keyword arm alone: only the hop can bring the answer
            "retrieval": {"cacheTtlMs": 0, "neighbours": 0, **retrieval},
        }
    )


def _messages() -> list[Message]:
    return [
        Message(
            id=f"m{i}",
            text=text,
            role="user",
            session=session,
            speaker=speaker,
            timestamp=at + timedelta(minutes=i),
        )
        for i, (session, at, speaker, text) in enumerate(TURNS)
    ]


@pytest.fixture(scope="module")
def hike_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("hop")
    engine = KnowledgeEngine(_config(folder))
    ws = engine.workspace("alice", str(folder))
    ws.messages.append_many(_messages())
    # what the extraction tiers record for a name in a turn (hopResolve follows only known entities)
    ws.entities.observe("Marisol", "person", "spacy", Evidence(message_id="m0", session="s1"))
    ws.entities.flush()
    engine.stop(10)
    yield folder


def _shown(folder: Path, query: str, **retrieval: Any) -> set[str]:
    """Ids of the turns in the block the hook would inject for `query`."""
    engine = KnowledgeEngine(_config(folder, **retrieval))
    try:
        ws = engine.workspace("alice", str(folder))
        block, report = asyncio.run(Retriever(engine, ws).context(query))
        ids = {str(it["id"]) for it in report["items"] if it.get("kind") == "memory"}
        assert all(f" #{i}]" in block for i in ids)  # the report names what the block shows
        return ids
    finally:
        engine.stop(10)


def test_hop_injects_the_turn_naming_what_the_best_hit_names(hike_dir: Path) -> None:
    off = _shown(hike_dir, QUESTION)  # the default: no hop
    assert "m0" in off and ANSWER not in off
    on = _shown(hike_dir, QUESTION, hopWeight=1.0)  # the other hop keys at their defaults
    assert {"m0", ANSWER} <= on
    known = _shown(hike_dir, QUESTION, hopWeight=1.0, hopResolve=True)  # names the entity store knows
    assert {"m0", ANSWER} <= known


def test_hop_from_the_query_alone_needs_a_name_in_the_query(hike_dir: Path) -> None:
    assert ANSWER not in _shown(hike_dir, QUESTION, hopWeight=1.0, hopFrom="query")
    # a question naming the entity reaches its turns without sharing another word with them
    assert ANSWER in _shown(hike_dir, "What did Marisol and Alice do?", hopWeight=1.0, hopFrom="query")


def test_resolved_hop_skips_names_the_entity_store_does_not_know(tmp_path: Path) -> None:
    engine = KnowledgeEngine(_config(tmp_path))
    ws = engine.workspace("alice", str(tmp_path))
    ws.messages.append_many(_messages())  # no entity observed: Marisol is only a capitalised word
    engine.stop(10)
    assert ANSWER in _shown(tmp_path, QUESTION, hopWeight=1.0)
    assert ANSWER not in _shown(tmp_path, QUESTION, hopWeight=1.0, hopResolve=True)


def test_speakers_sentence_starts_and_unknown_names_are_not_hops(hike_dir: Path) -> None:
    engine = KnowledgeEngine(_config(hike_dir))
    try:
        ws = engine.workspace("alice", str(hike_dir))
        speakers = {"alice": {"Alice"}, "bob": {"Bob"}}
        hit = "We saw Ali there. Later we met Bob, Marisol and Quentin at the Harbour Cafe."
        item = RetrievedItem(id="x", kind="memory", source="memory", text=hit)
        raw = plan_hop(ws, "Where did Alice go?", [item], 1, "hits", speakers, resolve=False)
        # "We" and "Later" start sentences; "Ali" is a short form of a speaker's name; Bob speaks
        assert set(raw.names) == {"Marisol", "Quentin", "Harbour Cafe"}
        known = plan_hop(ws, "Where did Alice go?", [item], 1, "hits", speakers, resolve=True)
        assert known.names == ("Marisol",)  # only the entity the store knows
        assert plan_hop(ws, "Where did Alice go?", [item], 0, "hits", speakers).empty
    finally:
        engine.stop(10)
