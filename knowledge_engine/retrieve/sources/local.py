"""The local knowledge source: facts and conversation memory of one workspace.

Each kind is searched by several arms (facts: entity match, keyword overlap, vector;
memory: BM25 and vector) and the arms are fused with reciprocal rank fusion, so no score
needs calibrating against another.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from knowledge_engine.index.keyword import QueryBuilder
from knowledge_engine.observe import counters
from knowledge_engine.retrieve.base import RetrievalRequest, RetrievedItem, SourceResult
from knowledge_engine.retrieve.fuse import rrf
from knowledge_engine.store.records import Fact, Message

if TYPE_CHECKING:
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.retrieve")
_CAPS = re.compile(r"\b[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*")
_KEYWORDS = QueryBuilder()


def fact_item(fact: Fact, score: float = 0.0) -> RetrievedItem:
    return RetrievedItem(
        id=fact.id, kind="fact", source="facts", text=fact.text(), score=score,
        timestamp=fact.valid_at or fact.created_at,
        message_ids=[e.message_id for e in fact.evidence],
        extra={"subject": fact.subject, "predicate": fact.predicate, "object": fact.object,
               "valid_at": fact.valid_at, "invalid_at": fact.invalid_at, "confidence": fact.confidence,
               "tier": fact.source, "relevance": fact.relevance},
    )


def memory_item(msg: Message, score: float = 0.0) -> RetrievedItem:
    return RetrievedItem(
        id=msg.id, kind="memory", source="memory", text=msg.text, score=score, speaker=msg.speaker,
        role=msg.role, timestamp=msg.timestamp, session=msg.session, message_ids=[msg.id],
    )


def _stem(word: str) -> str:
    """A light suffix strip so "work", "works" and "worked" meet (facts are short; BM25 is not used here)."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _terms(query: str) -> set[str]:
    return {_stem(t) for t in _KEYWORDS.build(query).terms}


class FactTermIndex:
    """Inverted index term -> fact ids, rebuilt only when the facts changed."""

    def __init__(self) -> None:
        self.sig: tuple[int, float] = (-1, 0.0)
        self.postings: dict[str, set[str]] = {}
        self.lengths: dict[str, int] = {}

    def refresh(self, facts: list[Fact]) -> None:
        sig = (len(facts), max((f.updated_at.timestamp() for f in facts), default=0.0))
        if sig == self.sig:
            return
        self.postings, self.lengths = {}, {}
        for f in facts:
            words = _terms(f.text())
            self.lengths[f.id] = max(1, len(words))
            for w in words:
                self.postings.setdefault(w, set()).add(f.id)
        self.sig = sig

    def rank(self, terms: set[str], limit: int) -> list[str]:
        hits: dict[str, int] = {}
        for t in terms:
            for fid in self.postings.get(t, ()):
                hits[fid] = hits.get(fid, 0) + 1
        ranked = sorted(hits.items(), key=lambda kv: -kv[1] / self.lengths[kv[0]] ** 0.5)
        return [fid for fid, _ in ranked[:limit]]


class LocalSource:
    """Facts + conversation memory of one workspace (runs in a worker thread)."""

    name = "local"

    def __init__(self, engine: KnowledgeEngine, ws: Workspace, pool: int = 40) -> None:
        self.engine = engine
        self.ws = ws
        self.pool = pool
        self.last_embed_ms = 0.0
        self.terms = FactTermIndex()

    async def search(self, request: RetrievalRequest) -> SourceResult:
        t0 = time.perf_counter()
        items = await asyncio.to_thread(self.search_sync, request)
        return SourceResult(source=self.name, items=items, duration_ms=(time.perf_counter() - t0) * 1000)

    def search_sync(self, request: RetrievalRequest) -> list[RetrievedItem]:
        vector = self._query_vector(request.query)
        facts = self._facts(request, vector)
        memory = self._memory(request, vector)
        return facts + memory

    # ------------------------------------------------------------------ arms
    def _query_vector(self, query: str) -> list[float] | None:
        if not self.engine.config.embeddings.enabled:
            return None
        t0 = time.perf_counter()
        try:
            vec = self.engine.embedder.embed_query(query)
        except Exception as exc:
            counters.inc("retrieve.embed_failed")
            log.warning("query embedding failed (%s); vector arms skipped", type(exc).__name__)
            vec = None
        self.last_embed_ms = (time.perf_counter() - t0) * 1000
        return vec

    def _vector_hits(self, kind: str, vector: list[float] | None, where: dict[str, Any] | None) -> list[Any]:
        if vector is None:
            return []
        try:
            index = self.engine.chroma(self.ws)
            if kind == "facts":
                return index.query_facts(vector, self.pool, where)
            return index.query_messages(vector, self.pool, where)
        except Exception as exc:
            counters.inc("retrieve.vector_failed")
            log.warning("vector search failed (%s); keyword arm only", type(exc).__name__)
            return []

    def _facts(self, request: RetrievalRequest, vector: list[float] | None) -> list[RetrievedItem]:
        valid = [f for f in self.ws.facts.all() if f.invalid_at is None]
        if not valid:
            return []
        by_id = {f.id: f for f in valid}
        entity_ids = {e.id for e in self.ws.entities.search(_CAPS.findall(request.query))}
        terms = _terms(request.query)
        ent_arm = sorted((f for f in valid if entity_ids & {f.subject_id, f.object_id}),
                         key=lambda f: -f.relevance)[: self.pool]
        self.terms.refresh(valid)
        kw_arm = [by_id[fid] for fid in self.terms.rank(terms, self.pool)]
        hits = self._vector_hits("facts", vector, {"valid": True})
        vec_arm = [by_id[h.id] for h in hits if h.id in by_id]
        lists = [[fact_item(f, f.relevance) for f in arm] for arm in (ent_arm, kw_arm, vec_arm)]
        return rrf(lists, k=self.engine.config.retrieval.rrf_k, names=["entity", "keyword", "vector"])

    def _memory(self, request: RetrievalRequest, vector: list[float] | None) -> list[RetrievedItem]:
        ws = self.ws
        if not (ws.folder / "messages.sqlite3").exists():
            return []
        bm25 = [memory_item(m, s) for m, s in ws.messages.search(request.query, limit=self.pool)]
        hits = self._vector_hits("messages", vector, None)
        found = {m.id: m for m in ws.messages.get_many([h.id for h in hits])} if hits else {}
        vec = [memory_item(found[h.id], h.score) for h in hits if h.id in found]
        return rrf([bm25, vec], k=self.engine.config.retrieval.rrf_k, names=["bm25", "vector"])


def newest_time(ws: Workspace) -> datetime | None:
    """The newest message time: the reference "now" of a replayed conversation."""
    if not (ws.folder / "messages.sqlite3").exists():
        return None
    newest = list(ws.messages.iter(order="desc", limit=1))
    if not newest:
        return None
    ts: datetime = newest[0].timestamp
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)
