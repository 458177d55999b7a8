"""The LLM extraction tier: one structured-output call for a whole batch of messages.

The answer is mapped back to the messages it cites, so every message of the batch gets
its own Extraction (the vainplex plugin lost batched results; this is the fix).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any, cast

from knowledge_engine.config import LlmConfig
from knowledge_engine.extract.prompts import SYSTEM_PROMPT, build_user_prompt, fit_lengths, message_budget
from knowledge_engine.llm.client import LlmClient
from knowledge_engine.llm.parse import parse_output
from knowledge_engine.llm.schema import LlmEntity, LlmFact, LlmOutput, output_schema
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.predicates import ended_families, llm_renames
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters, emit

# What models write for the relations of the store's single-valued families -> the predicate the
# local tiers give, so "Tom works for X" from the LLM and "Tom works at Y" from spaCy are one predicate
# and the newer ends the older. Inverse wordings swap subject and object ("Leo is-son-of Maya" ->
# "Maya has-child Leo"). Predicates not listed pass unchanged. Derived from the one vocabulary
# (model/predicates.py).
PREDICATE_MAP: dict[str, tuple[str, bool]] = llm_renames()


def canonical(subject: str, predicate: str, obj: str) -> tuple[str, str, str]:
    """The fact in the local tiers' vocabulary (see PREDICATE_MAP)."""
    mapped = PREDICATE_MAP.get(predicate)
    if mapped is None:
        return subject, predicate, obj
    name, swap = mapped
    return (obj, name, subject) if swap else (subject, name, obj)


def parse_valid_at(value: str | None) -> datetime | None:
    """ISO date or datetime -> aware UTC datetime; anything else is dropped (and counted)."""
    if not value:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), tzinfo=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        counters.inc("llm.invalid_valid_at")
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class LlmTier:
    """`extract(messages, known_entities)` -> one Extraction per message, same order.

    Raises LlmError when the call or its output fails as a whole; the batcher retries.
    """

    name = "llm"

    def __init__(self, config: LlmConfig, client: LlmClient) -> None:
        self._config = config
        self._client = client
        self._schema = output_schema()

    @property
    def client(self) -> LlmClient:
        return self._client

    def extract(
        self, messages: Sequence[Message], known_entities: Sequence[tuple[str, str]] = ()
    ) -> list[Extraction]:
        if not messages:
            return []
        max_known = self._config.max_known_entities
        skeleton = build_user_prompt(messages, known_entities, max_known=max_known, max_message_chars=0)
        budget = message_budget(self._config.num_ctx, len(SYSTEM_PROMPT) + len(skeleton))
        caps = fit_lengths([len(m.text) for m in messages], budget, self._config.max_message_chars)
        cut = sum(1 for m, cap in zip(messages, caps, strict=True) if len(m.text) > cap)
        if cut:
            counters.inc("llm.message_truncated", cut)
        user = build_user_prompt(
            messages,
            known_entities,
            max_known=max_known,
            max_message_chars=caps,
        )
        output = parse_output(self._client.complete(SYSTEM_PROMPT, user, self._schema))
        return self._map(list(messages), output)

    def _map(self, messages: list[Message], output: LlmOutput) -> list[Extraction]:
        results = [Extraction(message_id=m.id) for m in messages]
        by_id = {m.id: i for i, m in enumerate(messages)}
        types = {e.name.casefold(): cast(EntityType, e.type) for e in output.entities}
        unplaced = 0
        seen: set[tuple[int, str, str, str]] = set()
        for fact in output.facts:
            index = self._index_of(fact, len(messages), by_id)
            if index is None:
                unplaced += 1
                continue
            subject, predicate, obj = canonical(fact.subject, fact.predicate, fact.object)
            fact = fact.model_copy(update={"subject": subject, "predicate": predicate, "object": obj})
            key = (index, fact.subject.casefold(), fact.predicate, fact.object.casefold())
            if key in seen:  # the same triple twice for one message is one fact
                continue
            seen.add(key)
            results[index].facts.append(self._candidate(fact, types))
        if unplaced:
            counters.inc("llm.unknown_message", unplaced)
        lost = sum(0 if self._place_entity(e, messages, results) else 1 for e in output.entities)
        if lost:
            counters.inc("llm.unplaced_entities", lost)
        emit(
            "llm.extracted",
            messages=len(messages),
            facts=sum(len(r.facts) for r in results),
            entities=len(output.entities),
            dropped_facts=unplaced,
        )
        return results

    @staticmethod
    def _index_of(fact: LlmFact, n: int, by_id: dict[str, int]) -> int | None:
        if fact.message_id and fact.message_id in by_id:
            return by_id[fact.message_id]
        if 0 <= fact.message_index < n:
            return fact.message_index
        return None

    def _candidate(self, fact: LlmFact, types: dict[str, EntityType]) -> FactCandidate:
        return FactCandidate(
            subject=fact.subject,
            predicate=fact.predicate,
            object=fact.object,
            tier="llm",
            confidence=fact.confidence if fact.confidence is not None else self._config.confidence,
            valid_at=parse_valid_at(fact.valid_at),
            subject_type=types.get(fact.subject.casefold()),
            object_type=types.get(fact.object.casefold()),
            # the prompt asks for the past tense only for what is no longer true: an ending
            ends=bool(ended_families(fact.predicate)),
        )

    @staticmethod
    def _place_entity(entity: LlmEntity, messages: list[Message], results: list[Extraction]) -> bool:
        """Attach the mention to the messages that contain it, else to those whose facts name it."""
        needle = entity.name.casefold()
        pattern = re.compile(re.escape(entity.name), re.IGNORECASE)
        spans = {i: pattern.search(m.text) for i, m in enumerate(messages)}
        hits = [i for i, found in spans.items() if found]
        if not hits:
            hits = [
                i
                for i, r in enumerate(results)
                if any(needle in (f.subject.casefold(), f.object.casefold()) for f in r.facts)
            ]
        for i in hits:
            mention: dict[str, Any] = {"value": entity.name, "type": entity.type, "tier": "llm"}
            found = spans[i]
            if found:
                mention.update(start=found.start(), end=found.end())
            if entity.importance is not None:
                mention["importance"] = entity.importance
            results[i].mentions.append(Mention.model_validate(mention))
        return bool(hits)
