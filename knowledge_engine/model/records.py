"""Records kept in a workspace: entities, facts with evidence, and messages.

Times are timezone-aware UTC datetimes. Ids are stable strings so files, indexes and
exports can refer to each other.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

EntityType = Literal[
    "person", "organization", "location", "product", "date", "money", "email", "url", "concept", "unknown"
]
SourceTier = Literal["regex", "spacy", "llm", "manual", "import"]
Role = Literal["user", "assistant", "system", "tool"]

# Strength of a tier when voting on an entity's type or confidence of a fact.
TIER_STRENGTH: dict[str, int] = {"regex": 1, "spacy": 2, "llm": 3, "import": 3, "manual": 4}


# Starting importance by type (vainplex's values); unknown/concept names score higher when multi-word.
BASE_IMPORTANCE: dict[str, float] = {
    "organization": 0.8,
    "person": 0.7,
    "product": 0.6,
    "location": 0.5,
    "date": 0.4,
    "email": 0.4,
    "url": 0.4,
    "money": 0.4,
}


def initial_importance(type_: str, value: str) -> float:
    """Importance of a newly seen entity."""
    if type_ in BASE_IMPORTANCE:
        return BASE_IMPORTANCE[type_]
    return 0.5 if " " in value.strip() else 0.3


def utcnow() -> datetime:
    return datetime.now(UTC)


def canonical(value: str) -> str:
    """Lower-case, accent-folded, whitespace-collapsed form used in ids and matching."""
    text = unicodedata.normalize("NFKC", value).strip().strip(".,;:!?\"'()[]{}")
    text = re.sub(r"\s+", " ", text).lower()
    return text


def entity_id(type_: str, value: str) -> str:
    return f"{type_}:{canonical(value).replace(' ', '-')}"


def fact_id(subject: str, predicate: str, object_: str) -> str:
    """Content-derived id, so the same triple from two processes is the same record."""
    key = f"{canonical(subject)}\x1f{predicate}\x1f{canonical(object_)}".encode()
    return "f-" + hashlib.blake2b(key, digest_size=8).hexdigest()


_FIELDS_SET: dict[type[BaseModel], set[str]] = {}
_set_attr = object.__setattr__


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=False)

    def model_post_init(self, context: Any, /) -> None:
        """Share one `__pydantic_fields_set__` per record type instead of one set per instance.

        Why: pydantic keeps, on every instance, a set of the fields given at construction: 0.9 KB per
        fact with its evidence, 40% of a 100k-fact store's memory (94 of 229 MB). Nothing here reads it
        (no exclude_unset), and pydantic only ever adds field names to it, so a set that already holds
        every field name is correct for all of them. Swapping it right after construction frees each
        instance's set before the next is built, so the memory is reused instead of kept.
        """
        _set_attr(self, "__pydantic_fields_set__", _FIELDS_SET[type(self)])

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _FIELDS_SET[cls] = set(cls.model_fields)  # pydantic calls this once the fields are known


class Evidence(_Record):
    """Where a fact or entity was seen: the message it came from."""

    message_id: str
    session: str | None = None
    role: str | None = None
    timestamp: datetime | None = None
    # which tiers saw the entity (on mentions) or the fact (on a fact's evidence) in this message
    tiers: list[str] = Field(default_factory=list)


class Entity(_Record):
    id: str
    type: EntityType
    value: str
    aliases: list[str] = Field(default_factory=list)
    count: int = 1
    mentions: list[Evidence] = Field(default_factory=list)
    importance: float = 0.5
    first_seen: datetime = Field(default_factory=utcnow)
    last_seen: datetime = Field(default_factory=utcnow)
    sources: list[SourceTier] = Field(default_factory=list)
    type_votes: dict[str, int] = Field(default_factory=dict)
    # the type a relation it takes part in implies (the object of works-at is an organization, whoever
    # attends a school a person); it stays when later mentions are typed otherwise by the NER model
    relation_type: EntityType | None = None
    updated_at: datetime = Field(default_factory=utcnow)


class Fact(_Record):
    id: str
    subject: str
    predicate: str
    object: str
    subject_id: str | None = None
    object_id: str | None = None
    source: SourceTier = "spacy"  # the strongest tier that saw it
    sources: list[SourceTier] = Field(default_factory=list)  # every tier that saw it (empty in older files)
    confidence: float = 0.5
    relevance: float = 1.0
    created_at: datetime = Field(default_factory=utcnow)
    last_accessed: datetime = Field(default_factory=utcnow)
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    superseded_by: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    updated_at: datetime = Field(default_factory=utcnow)

    @property
    def is_valid(self) -> bool:
        return self.invalid_at is None

    @property
    def seen_by(self) -> list[SourceTier]:
        """Every tier that saw this fact (a fact stored before `sources` existed: its one `source`)."""
        return self.sources or [self.source]

    def text(self) -> str:
        return f"{self.subject} {self.predicate.replace('-', ' ')} {self.object}"


class Message(_Record):
    """One conversation message as kept in the message log."""

    id: str
    text: str
    role: str = "user"
    session: str | None = None
    speaker: str | None = None
    agent_id: str | None = None
    timestamp: datetime = Field(default_factory=utcnow)
