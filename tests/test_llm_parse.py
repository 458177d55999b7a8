"""Defensive parsing of LLM output, without a server: every kind of damage real models produce."""

from __future__ import annotations

import json

import pytest

from knowledge_engine.llm.errors import LlmBadOutput, LlmHttpError, LlmTruncated
from knowledge_engine.llm.parse import decode_json, load_body, ollama_content, openai_content, parse_output
from knowledge_engine.llm.schema import LlmOutput, kebab, output_schema
from knowledge_engine.observe import counters

GOOD = {
    "entities": [{"name": "Alex", "type": "Person", "importance": 0.9}],
    "facts": [
        {
            "message_index": 0,
            "subject": "Alex",
            "predicate": "Works At",
            "object": "Acme",
            "valid_at": None,
            "confidence": 0.8,
        }
    ],
}


def test_plain_json_is_validated_and_normalised() -> None:
    out = parse_output(json.dumps(GOOD))
    assert out.entities[0].type == "person"
    assert out.facts[0].predicate == "works-at"
    assert out.facts[0].message_index == 0


@pytest.mark.parametrize(
    "text",
    [
        "```json\n" + json.dumps(GOOD) + "\n```",
        "Sure! Here you go:\n```\n" + json.dumps(GOOD) + "\n```\nAnything else?",
        json.dumps({"response": json.dumps(GOOD)}),
        json.dumps(GOOD) + "\n\nI hope this helps!",
        json.dumps(GOOD).replace('"facts": [', '"facts": [', 1)[:-1] + ",}",  # trailing comma
    ],
    ids=["fence", "fence-prose", "response-wrapper", "trailing-garbage", "trailing-comma"],
)
def test_damaged_but_recoverable_output(text: str) -> None:
    out = parse_output(text)
    assert [f.object for f in out.facts] == ["Acme"]


def test_invalid_escape_is_repaired() -> None:
    text = json.dumps(GOOD).replace('"Acme"', '"Acme \\q Corp"')
    assert "\\q" in text
    out = parse_output(text)
    assert out.facts[0].object == "Acme \\q Corp"


@pytest.mark.parametrize("text", ["", "no json here", '{"entities": [{"name": ', "[1, 2]", '{"other": 1}'])
def test_unusable_output_raises(text: str) -> None:
    with pytest.raises(LlmBadOutput):
        parse_output(text)


def test_invalid_items_are_dropped_one_by_one_and_counted() -> None:
    data = json.loads(json.dumps(GOOD))
    data["facts"] += [
        {"message_index": 0, "subject": "", "predicate": "x", "object": "y"},
        {"message_index": "zero", "subject": "A", "predicate": "b", "object": "C"},
        {"message_index": 0, "subject": "A", "predicate": "!!!", "object": "C"},
        "a string",
    ]
    data["entities"] += [{"name": 3}, {"type": "person"}]
    before = counters.get("llm.invalid_items")
    out = parse_output(json.dumps(data))
    assert len(out.facts) == 1 and len(out.entities) == 1
    assert counters.get("llm.invalid_items") - before == 6


def test_fact_may_cite_message_id_instead_of_index() -> None:
    out = parse_output(
        json.dumps({"facts": [{"message_id": "m-7", "subject": "A", "predicate": "likes", "object": "B"}]})
    )
    assert out.facts[0].message_id == "m-7"


def test_unknown_entity_type_becomes_unknown_and_scores_are_clamped() -> None:
    out = parse_output(
        json.dumps(
            {
                "entities": [{"name": "Zorp", "type": "alien", "importance": 7}],
                "facts": [
                    {"message_index": 0, "subject": "A", "predicate": "p", "object": "B", "confidence": -2}
                ],
            }
        )
    )
    assert out.entities[0].type == "unknown" and out.entities[0].importance == 1.0
    assert out.facts[0].confidence == 0.0


def test_error_bodies_raise_even_with_status_200() -> None:
    with pytest.raises(LlmHttpError):
        ollama_content(load_body(b'{"error": "model not found"}'), 200, generate=False)
    with pytest.raises(LlmHttpError):
        openai_content({"error": {"message": "bad key"}}, 200)
    ndjson = b'{"message": {"content": "{\\"ent"}, "done": false}\n{"error": "runner crashed"}\n'
    with pytest.raises(LlmHttpError):
        ollama_content(load_body(ndjson), 200, generate=False)


def test_truncation_is_an_error() -> None:
    with pytest.raises(LlmTruncated):
        ollama_content(
            [{"response": '{"facts": [', "done": True, "done_reason": "length"}], 200, generate=True
        )
    with pytest.raises(LlmTruncated):
        openai_content({"choices": [{"message": {"content": "{"}, "finish_reason": "length"}]}, 200)


def test_streamed_ndjson_is_concatenated() -> None:
    lines = [
        {"message": {"content": '{"facts": '}, "done": False},
        {"message": {"content": "[]}"}, "done": True, "done_reason": "stop"},
    ]
    raw = b"\n".join(json.dumps(x).encode() for x in lines)
    assert decode_json(ollama_content(load_body(raw), 200, generate=False)) == {"facts": []}


def test_schema_is_strict_self_contained_and_matches_the_model() -> None:
    schema = output_schema()
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    fact = schema["properties"]["facts"]["items"]
    assert fact["additionalProperties"] is False
    assert (
        set(fact["required"])
        == set(fact["properties"])
        == {"message_index", "subject", "predicate", "object", "valid_at", "confidence"}
    )
    assert "message_id" not in fact["properties"]
    entity = schema["properties"]["entities"]["items"]
    assert "person" in entity["properties"]["type"]["enum"]
    assert set(LlmOutput.model_fields) == set(schema["properties"])


@pytest.mark.parametrize(
    ("raw", "want"), [("Works At", "works-at"), ("lives_in", "lives-in"), ("  likes ", "likes")]
)
def test_kebab(raw: str, want: str) -> None:
    assert kebab(raw) == want
