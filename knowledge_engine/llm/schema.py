"""The output the LLM is asked for, as pydantic models, and the JSON schema sent with each request.

The same models validate the answer item by item (see parse.py), so the schema the server
constrains decoding with and the checks applied to its answer cannot drift apart.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

LLM_ENTITY_TYPES = ("person", "organization", "location", "product", "date", "money", "concept", "unknown")
_KEBAB_STRIP = re.compile(r"[^a-z0-9]+")


def kebab(predicate: str) -> str:
    """`Works At` / `works_at` / `works at` -> `works-at`."""
    return _KEBAB_STRIP.sub("-", predicate.strip().lower()).strip("-")


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class LlmEntity(_Item):
    name: str = Field(min_length=1, max_length=200, description="The entity as written in the conversation.")
    type: str = Field(
        json_schema_extra={"enum": list(LLM_ENTITY_TYPES)},
        description="One of the listed entity types.",
    )
    importance: float | None = Field(None, description="0..1, how central the entity is.")

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> Any:
        if isinstance(v, str):
            t = v.strip().lower()
            return t if t in LLM_ENTITY_TYPES else "unknown"
        return v

    @field_validator("importance")
    @classmethod
    def _clamp(cls, v: float | None) -> float | None:
        return None if v is None else min(1.0, max(0.0, v))


class LlmFact(_Item):
    message_index: int = Field(ge=0, description="The [n] of the message the fact comes from.")
    message_id: SkipJsonSchema[str | None] = Field(None, description="Accepted instead of message_index.")
    subject: str = Field(
        min_length=1,
        max_length=300,
        description="A name, never a pronoun: I/me/my/we/our is the message's speaker as listed.",
    )
    predicate: str = Field(
        min_length=1, max_length=100, description="kebab-case verb phrase, e.g. works-at, lives-in, has-role."
    )
    object: str = Field(
        min_length=1, max_length=300, description="A name or value; a known entity's listed name."
    )
    valid_at: str | None = Field(
        None,
        description="ISO date (YYYY-MM-DD) the fact became true, from the message's date, or null.",
    )
    confidence: float | None = Field(None, description="0..1")

    @field_validator("predicate")
    @classmethod
    def _predicate(cls, v: str) -> str:
        k = kebab(v)
        if not k:
            raise ValueError("empty predicate")
        return k

    @field_validator("confidence")
    @classmethod
    def _conf(cls, v: float | None) -> float | None:
        return None if v is None else min(1.0, max(0.0, v))


class LlmFactById(LlmFact):
    """Lenient variant: a model that cites `message_id` instead of the index is still understood."""

    message_index: int = Field(-1)
    message_id: str | None = Field(None)


class LlmOutput(_Item):
    entities: list[LlmEntity] = Field(default_factory=list)
    facts: list[LlmFact] = Field(default_factory=list)


# Validation bounds stay in pydantic: several servers reject them in a strict schema.
_DROP_KEYS = frozenset({"title", "default", "minLength", "maxLength", "minimum", "maximum"})


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(copy.deepcopy(defs[ref.rsplit("/", 1)[1]]), defs)
        return {k: _inline(v, defs) for k, v in node.items() if k not in _DROP_KEYS}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _strict(node: Any) -> Any:
    """Every object closed and every property required: what OpenAI `strict` mode demands."""
    if isinstance(node, dict):
        out = {k: _strict(v) for k, v in node.items()}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_strict(v) for v in node]
    return node


def output_schema() -> dict[str, Any]:
    """Self-contained JSON schema (no $ref: llama.cpp grammars and some servers mishandle them)."""
    raw = LlmOutput.model_json_schema()
    defs = raw.pop("$defs", {})
    return _strict(_inline(raw, defs))
