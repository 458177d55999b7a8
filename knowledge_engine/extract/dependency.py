"""spaCy dependency-parse fact tier (placeholder until the facts work lands)."""

from __future__ import annotations

from typing import Any

from knowledge_engine.extract.base import FactCandidate
from knowledge_engine.store.records import Message


def extract_triples(doc: Any, message: Message) -> list[FactCandidate]:
    """Triples from one parsed message; the speaker resolves first-person subjects."""
    return []
