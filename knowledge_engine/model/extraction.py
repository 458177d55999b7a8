"""What every extraction tier returns, and the small protocol tiers implement."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, Field

from knowledge_engine.model.records import EntityType, Message, SourceTier


class Mention(BaseModel):
    """An entity seen in a message by one tier."""

    value: str
    type: EntityType
    tier: SourceTier
    start: int = -1
    end: int = -1
    importance: float | None = None


# Predicates whose object is a value, not a thing: a job title ("Head of Design") or a class. The
# words of such a value are no entities of their own ("Head", "Design" from the regex tier).
TITLE_PREDICATES = frozenset({"has-role", "works-as", "has-title", "has-job-title", "is-a", "was-a"})


class FactCandidate(BaseModel):
    """A subject-predicate-object triple proposed by one tier, not yet resolved to entities."""

    subject: str
    predicate: str  # kebab-case lemma, e.g. "works-at"
    object: str
    tier: SourceTier
    confidence: float = 0.5
    valid_at: datetime | None = None
    subject_type: EntityType | None = None
    object_type: EntityType | None = None
    # The type follows from the predicate (the object of works-at is an organization, a child is a
    # person): the store counts it as strong evidence for the entity, not one more NER guess.
    subject_type_implied: bool = False
    object_type_implied: bool = False
    # The message says the relation ended ("I no longer work at X", "I left X", "we sold the Golf"), not
    # only that it held once ("I worked at X on Friday"): the store ends the current fact it names.
    ends: bool = False


class Extraction(BaseModel):
    """Everything one tier found in one message."""

    message_id: str
    mentions: list[Mention] = Field(default_factory=list)
    facts: list[FactCandidate] = Field(default_factory=list)


class Extractor(Protocol):
    """A synchronous tier: many messages in, one Extraction per message out (same order)."""

    name: str

    def extract(self, messages: list[Message]) -> list[Extraction]: ...
