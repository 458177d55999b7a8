"""Records share one pydantic fields-set per type (memory), and behave exactly as before."""

from __future__ import annotations

from pydantic import TypeAdapter

from knowledge_engine.model.records import Evidence, Fact, Message


def _facts() -> list[Fact]:
    raw = (
        b'[{"id":"f1","subject":"Ann","predicate":"likes","object":"tea","evidence":[{"message_id":"m1"}]},'
        b'{"id":"f2","subject":"Bo","predicate":"likes","object":"jazz","relevance":0.4}]'
    )
    return TypeAdapter(list[Fact]).validate_json(raw)


def test_loaded_records_share_one_fields_set() -> None:
    a, b = _facts()
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    assert a.__pydantic_fields_set__ == set(Fact.model_fields)
    assert a.evidence[0].__pydantic_fields_set__ is Evidence(message_id="x").__pydantic_fields_set__
    assert Message(id="m", text="hi").__pydantic_fields_set__ == set(Message.model_fields)


def test_assignment_copy_dump_and_equality_are_unchanged() -> None:
    a, b = _facts()
    a.relevance = 0.25
    assert b.relevance == 0.4 and a.relevance == 0.25
    assert a.__pydantic_fields_set__ == set(Fact.model_fields)  # assignment adds nothing new
    c = a.model_copy(update={"object": "coffee"})
    assert (c.object, a.object) == ("coffee", "tea")
    again = Fact.model_validate_json(a.model_dump_json(exclude_none=True))
    assert again == a
    assert again != b
