"""Prompts of the LLM extraction tier, kept as data so they can be read, diffed and tuned alone.

A short worked example (made-up names) follows the instructions: small local models answered
empty lists without one. The message block is line oriented:
`[n] id=<id> <ISO time> <weekday> <role> (<speaker>): <text>`, continuation lines indented.
The index is what the model cites (short, hard to garble); the timestamp lets it resolve
"yesterday"; the speaker lets it resolve "I".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from knowledge_engine.model.records import Message

INSTRUCTIONS = """\
You extract durable knowledge from a conversation for a long-term memory.
Return one JSON object and nothing else: {"entities": [...], "facts": [...]}.

entities: people, organizations, locations, products, dates, amounts and important concepts
that are named in the messages. Each has "name" (as written), "type" (person, organization,
location, product, date, money, concept or unknown) and "importance" (0..1).

facts: statements that stay true for a while (jobs, homes, relationships, preferences,
plans, decisions, ownership, roles). Each fact has:
- "message_index": the [n] of the message that states it,
- "subject" and "object": specific names, never pronouns; "I", "me" and "my" mean that
  message's speaker, "you" means the other party,
- "predicate": a short lower-case kebab-case verb phrase such as works-at, lives-in,
  likes, is-married-to, has-role, moved-to, uses, owns,
- "valid_at": the date (YYYY-MM-DD) the fact became true when the message says so;
  resolve relative dates ("yesterday", "last week") against that message's timestamp;
  otherwise null,
- "confidence": 0..1.
Skip greetings, questions, small talk, hypotheticals and negated statements.
When a known entity is meant, use its name exactly as listed.
If there is nothing to extract, return {"entities": [], "facts": []}."""

SPEAKERS_HEADER = "Speakers:"
KNOWN_HEADER = "Known entities (reuse these names):"
MESSAGES_HEADER = "Messages ([n] id time weekday role (speaker): text):"
CLOSING = "Extract the entities and facts of these messages. Answer with JSON only."
CONTINUATION_INDENT = "    "
TRUNCATION_MARK = " [...]"


def one_line(value: str) -> str:
    """Names from the host or the store must not break the line format."""
    return " ".join(value.split())


def speaker_of(message: Message) -> str:
    return one_line((message.speaker or message.role).replace("(", "[").replace(")", "]")) or message.role


def message_line(index: int, message: Message, max_chars: int) -> str:
    text = message.text if len(message.text) <= max_chars else message.text[:max_chars] + TRUNCATION_MARK
    text = text.strip().replace("\r\n", "\n").replace("\n", "\n" + CONTINUATION_INDENT)
    stamp = message.timestamp.isoformat(timespec="seconds")
    weekday = message.timestamp.strftime("%a")  # lets the model resolve "last Friday"
    role = one_line(message.role) or "user"
    return f"[{index}] id={one_line(message.id)} {stamp} {weekday} {role} ({speaker_of(message)}): {text}"


def build_user_prompt(
    messages: Sequence[Message],
    known_entities: Sequence[tuple[str, str]],
    *,
    max_known: int,
    max_message_chars: int,
) -> str:
    """The user part of the request: speakers, known entities (capped), numbered messages."""
    speakers: dict[str, str] = {}
    for m in messages:
        speakers.setdefault(speaker_of(m), m.role)
    lines = [SPEAKERS_HEADER, *(f"- {name} ({role})" for name, role in speakers.items()), ""]
    known = list(known_entities)[:max_known]
    if known:
        lines += [KNOWN_HEADER, *(f"- {one_line(name)} ({one_line(type_)})" for name, type_ in known), ""]
    lines.append(MESSAGES_HEADER)
    lines += [message_line(i, m, max_message_chars) for i, m in enumerate(messages)]
    lines += ["", CLOSING]
    return "\n".join(lines)


# A worked example: small local models answered empty lists for every batch without one. Generic
# made-up names, built with `message_line` so it always shows the format the real messages have.
_T = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
EXAMPLE_MESSAGES = (
    Message(
        id="ex-1",
        role="user",
        speaker="Dana",
        timestamp=_T,
        text="I moved to Lisbon yesterday and started at Northwind as a designer.",
    ),
    Message(
        id="ex-2", role="assistant", timestamp=_T.replace(minute=1), text="Congratulations! How is Lisbon?"
    ),
    Message(
        id="ex-3",
        role="user",
        speaker="Dana",
        timestamp=_T.replace(minute=2),
        text="Lovely. My sister Eva lives in Porto, maybe I will visit her.",
    ),
)
EXAMPLE_ANSWER = {
    "entities": [
        {"name": "Dana", "type": "person", "importance": 0.8},
        {"name": "Lisbon", "type": "location", "importance": 0.6},
        {"name": "Northwind", "type": "organization", "importance": 0.6},
        {"name": "Eva", "type": "person", "importance": 0.5},
        {"name": "Porto", "type": "location", "importance": 0.4},
    ],
    "facts": [
        {
            "message_index": 0,
            "subject": "Dana",
            "predicate": "moved-to",
            "object": "Lisbon",
            "valid_at": "2026-03-01",
            "confidence": 0.9,
        },
        {
            "message_index": 0,
            "subject": "Dana",
            "predicate": "works-at",
            "object": "Northwind",
            "valid_at": "2026-03-01",
            "confidence": 0.9,
        },
        {
            "message_index": 0,
            "subject": "Dana",
            "predicate": "has-role",
            "object": "designer",
            "valid_at": None,
            "confidence": 0.8,
        },
        {
            "message_index": 2,
            "subject": "Eva",
            "predicate": "is-sibling-of",
            "object": "Dana",
            "valid_at": None,
            "confidence": 0.9,
        },
        {
            "message_index": 2,
            "subject": "Eva",
            "predicate": "lives-in",
            "object": "Porto",
            "valid_at": None,
            "confidence": 0.9,
        },
    ],
}
EXAMPLE_HEADER = "Example (made-up names, not part of any conversation you are given):"


def example_block() -> str:
    lines = [EXAMPLE_HEADER, *(message_line(i, m, 500) for i, m in enumerate(EXAMPLE_MESSAGES))]
    return "\n".join([*lines, "Answer:", json.dumps(EXAMPLE_ANSWER)])


SYSTEM_PROMPT = INSTRUCTIONS + "\n\n" + example_block()
