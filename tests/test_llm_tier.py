"""LlmTier: one call per batch, answers mapped back to every message of the batch."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from knowledge_engine.config import LlmConfig
from knowledge_engine.extract.llm import LlmTier, parse_valid_at
from knowledge_engine.extract.prompts import EXAMPLE_ANSWER, EXAMPLE_HEADER, EXAMPLE_MESSAGES, message_line
from knowledge_engine.llm.errors import LlmBadOutput, LlmError, LlmHttpError, LlmTruncated
from knowledge_engine.llm.factory import make_client
from knowledge_engine.llm.parse import parse_output
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from tests.servers.ollama_server import FakeOllamaServer

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def person(i: int) -> str:
    """Distinct capitalised names the fake server's patterns recognise (no digits)."""
    return "N" + "".join(chr(97 + int(d)) for d in str(i))


def make_messages(n: int, start: int = 0) -> list[Message]:
    return [
        Message(
            id=f"m{i}",
            text=f"{person(i)} works at Company{i}.",
            speaker="Alex",
            timestamp=T0 + timedelta(minutes=i),
        )
        for i in range(start, start + n)
    ]


def tier_for(server: FakeOllamaServer, suffix: str = "", **kw: object) -> LlmTier:
    config = LlmConfig.model_validate({"endpoint": server.url + suffix, "enabled": True, **kw})
    return LlmTier(config, make_client(config))


@pytest.mark.parametrize("suffix", ["", "/api/generate", "/v1"])
def test_every_message_gets_its_own_facts_from_one_call(
    ollama_server: FakeOllamaServer, suffix: str
) -> None:
    messages = make_messages(6)
    results = tier_for(ollama_server, suffix).extract(messages, [])
    assert len(ollama_server.calls()) == 1
    assert [r.message_id for r in results] == [m.id for m in messages]
    for i, r in enumerate(results):
        assert [(f.subject, f.predicate, f.object, f.tier) for f in r.facts] == [
            (person(i), "works-at", f"Company{i}", "llm")
        ]
        assert r.facts[0].subject_type == "person" and r.facts[0].object_type == "organization"
        assert {m.value for m in r.mentions} == {person(i), f"Company{i}"}
        assert all(m.tier == "llm" for m in r.mentions)


def test_prompt_carries_speakers_timestamps_ids_and_capped_known_entities(
    ollama_server: FakeOllamaServer,
) -> None:
    messages = [
        Message(id="a1", text="I started at Acme yesterday.", role="user", speaker="Alex", timestamp=T0),
        Message(id="a2", text="Congratulations!", role="assistant", speaker=None, timestamp=T0),
    ]
    known = [(f"Known{i}", "organization") for i in range(10)]
    results = tier_for(ollama_server, maxKnownEntities=3).extract(messages, known)
    user = ollama_server.calls()[0].body["messages"][1]["content"]
    assert "- Alex (user)" in user and "- assistant (assistant)" in user
    assert '[0] id=a1 2026-11-29T10:00:00+00:00 Sun user (Alex): "I started at Acme yesterday."' in user
    assert "Known2 (organization)" in user and "Known3" not in user
    (fact,) = results[0].facts
    assert (fact.subject, fact.object) == ("Alex", "Acme")  # "I" resolved to the speaker
    assert fact.valid_at == datetime(2026, 11, 28, tzinfo=UTC)  # "yesterday" against the timestamp
    assert fact.confidence == pytest.approx(0.9)
    assert results[1].facts == []


def test_default_confidence_and_long_messages_cut(ollama_server: FakeOllamaServer) -> None:
    long = Message(id="x", text="Sam works at Initech. " + "blah " * 500, speaker="Sam", timestamp=T0)
    before = counters.get("llm.message_truncated")
    tier_for(ollama_server, maxMessageChars=100).extract([long], [])
    user = ollama_server.calls()[0].body["messages"][1]["content"]
    assert "blah " * 30 not in user and "[...]" in user
    assert counters.get("llm.message_truncated") - before == 1


@pytest.mark.parametrize(
    "behaviour", ["fenced", "wrapper", "trailing_garbage", "invalid_escape", "invalid_items"]
)
def test_recoverable_responses_still_deliver(ollama_server: FakeOllamaServer, behaviour: str) -> None:
    ollama_server.script(behaviour)
    before = counters.get("llm.unknown_message")
    results = tier_for(ollama_server).extract(make_messages(3), [])
    assert [len(r.facts) for r in results] == [1, 1, 1]
    if behaviour == "invalid_items":  # the fact citing message 99 is dropped and counted
        assert counters.get("llm.unknown_message") - before == 1


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        ("malformed", LlmBadOutput),
        ("empty", LlmBadOutput),
        ("truncated", LlmTruncated),
        ("error_body", LlmHttpError),
        ("http500", LlmHttpError),
        ("mid_stream_error", LlmHttpError),
    ],
)
def test_unusable_responses_raise(
    ollama_server: FakeOllamaServer, behaviour: str, error: type[LlmError]
) -> None:
    ollama_server.script(behaviour)
    with pytest.raises(error):
        tier_for(ollama_server).extract(make_messages(2), [])


def test_empty_batch_makes_no_call(ollama_server: FakeOllamaServer) -> None:
    assert tier_for(ollama_server).extract([], []) == []
    assert ollama_server.calls() == []


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC)),
        ("2026-03-01T12:00:00Z", datetime(2026, 3, 1, 12, tzinfo=UTC)),
        (None, None),
        ("", None),
        ("last tuesday", None),
    ],
)
def test_parse_valid_at(raw: str | None, want: datetime | None) -> None:
    assert parse_valid_at(raw) == want


class _Canned:
    """A client returning a fixed answer: isolates the mapping logic from HTTP."""

    api = "canned"

    def __init__(self, content: str) -> None:
        self.content = content

    def complete(self, system: str, user: str, schema: dict[str, object]) -> str:
        return self.content

    def close(self) -> None:
        pass


def test_mapping_dedupes_places_mentions_and_accepts_message_ids() -> None:
    answer = {
        "entities": [
            {"name": "acme", "type": "organization", "importance": 0.8},
            {"name": "Nobody Here", "type": "person", "importance": None},
        ],
        "facts": [
            {"message_index": 0, "subject": "Alex", "predicate": "works-at", "object": "Acme"},
            {"message_index": 0, "subject": "alex", "predicate": "Works at", "object": "ACME"},
            {"message_id": "b2", "subject": "Sam", "predicate": "likes", "object": "tea"},
        ],
    }
    messages = [
        Message(id="b1", text="I joined ACME today.", speaker="Alex", timestamp=T0),
        Message(id="b2", text="Sam likes tea.", speaker="Sam", timestamp=T0),
    ]
    before = counters.get("llm.unplaced_entities")
    results = LlmTier(LlmConfig(), _Canned(json.dumps(answer))).extract(messages, [])
    assert [(f.subject, f.object) for f in results[0].facts] == [("Alex", "Acme")]
    assert results[0].facts[0].confidence == pytest.approx(0.85)  # config default when the model gives none
    assert results[0].facts[0].object_type == "organization"
    assert [(f.subject, f.predicate, f.object) for f in results[1].facts] == [("Sam", "likes", "tea")]
    (mention,) = results[0].mentions
    assert (mention.value, mention.start, mention.end) == ("acme", 9, 13)
    assert messages[0].text[mention.start : mention.end] == "ACME"
    assert counters.get("llm.unplaced_entities") - before == 1


def test_the_system_prompt_shows_a_worked_example_in_the_real_message_format(
    ollama_server: FakeOllamaServer,
) -> None:
    """A small model answered empty lists for every batch until the prompt showed one worked example."""
    tier_for(ollama_server).extract(make_messages(1), [])
    body = ollama_server.calls()[0].body
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert EXAMPLE_HEADER in system and EXAMPLE_HEADER not in user
    for i, msg in enumerate(EXAMPLE_MESSAGES):  # the same line format as the messages to answer for
        assert message_line(i, msg, 500) in system
    assert "id=ex-1" not in user
    answer = parse_output(system.split("\nAnswer:\n", 1)[1])  # an answer the parser accepts in full
    assert len(answer.facts) == len(EXAMPLE_ANSWER["facts"]) >= 3
    assert len(answer.entities) == len(EXAMPLE_ANSWER["entities"])
    assert {f.message_index for f in answer.facts} <= set(range(len(EXAMPLE_MESSAGES)))


def test_a_past_tense_fact_from_the_model_is_an_ending(ollama_server: FakeOllamaServer) -> None:
    # the prompt asks for the past tense only for what is no longer true, so the store may end the job
    messages = [
        Message(id="m1", text="Maya works at Northwind.", speaker="Maya", timestamp=T0),
        Message(id="m2", text="Maya no longer works at Northwind.", speaker="Maya", timestamp=T0),
    ]
    results = tier_for(ollama_server).extract(messages, [])
    assert [(f.predicate, f.ends) for f in results[0].facts] == [("works-at", False)]
    assert [(f.predicate, f.ends) for f in results[1].facts] == [("worked-at", True)]
