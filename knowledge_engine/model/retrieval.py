"""Shared shapes of retrieval: the request, one retrieved item, one source's result."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

ItemKind = Literal["fact", "memory", "document", "graph"]


class RetrievalRequest(BaseModel):
    """A cleaned query plus what sources need to know about the turn."""

    query: str
    agent_id: str = "default"
    session_key: str | None = None
    run_id: str | None = None
    reference_time: datetime | None = None  # "now" for time expressions and recency decay
    window: tuple[datetime, datetime] | None = None  # from a time expression in the query


class RetrievedItem(BaseModel):
    """One candidate for injection, from any source."""

    id: str
    kind: ItemKind
    source: str  # "facts", "memory", "pgvector", "lightrag"
    text: str
    score: float = 0.0
    scores: dict[str, float] = Field(default_factory=dict)  # per arm: bm25, vector, rrf, ...
    speaker: str | None = None
    role: str | None = None
    timestamp: datetime | None = None
    session: str | None = None
    message_ids: list[str] = Field(default_factory=list)  # evidence / the message itself
    file_path: str | None = None
    collection: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class SourceResult(BaseModel):
    """What one source returned (or why it returned nothing)."""

    source: str
    items: list[RetrievedItem] = Field(default_factory=list)
    text: str | None = None  # free text context (LightRAG)
    duration_ms: float = 0.0
    status: Literal["ok", "error", "timeout", "cooldown", "disabled", "skipped"] = "ok"
    error: str | None = None  # an error category, never content
    mock: bool = False


class Source(Protocol):
    name: str

    async def search(self, request: RetrievalRequest) -> SourceResult: ...


def as_utc(ts: datetime) -> datetime:
    """Naive datetimes are taken as UTC (the store writes UTC)."""
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts
