"""before_prompt_build, end to end: query -> skip -> cache -> sources in parallel -> rank -> block.

One Retriever per workspace and engine, owned by the engine (KnowledgeEngine.part): its caches
and breakers survive the host's re-registrations, which reuse the engine, and go when it stops.
Nothing here raises into the host: every failure degrades to "inject less", and with every
source down the turn runs as if the plugin were not there.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from knowledge_engine.config import EngineConfig
from knowledge_engine.extract.text import prepare
from knowledge_engine.host.types import parse_timestamp, payload_field
from knowledge_engine.inject.format import render_block
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem, Source, SourceResult
from knowledge_engine.observe import counters, emit
from knowledge_engine.retrieve.cache import PromptCache
from knowledge_engine.retrieve.cooldown import Breaker
from knowledge_engine.retrieve.fuse import apply_threshold
from knowledge_engine.retrieve.parallel import WARMING, gather_sources
from knowledge_engine.retrieve.query import content_text, query_text
from knowledge_engine.retrieve.rank import is_compact, rank_local
from knowledge_engine.retrieve.skip import should_skip
from knowledge_engine.retrieve.sources.local import (
    LocalSource,
    newest_time,
    note_newest_time_error,
    read_newest_time,
)
from knowledge_engine.retrieve.temporal import parse_time_window
from knowledge_engine.store.messages import MessageLogError

if TYPE_CHECKING:
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.retrieve")
ProvenanceCallback = Callable[[dict[str, Any]], None]
MAX_QUERY_CHARS = 2000  # bounds the cost of skip rules, time parsing and both search arms


def retriever_for(engine: KnowledgeEngine, ws: Workspace) -> Retriever:
    """The workspace's retriever, built on first use and kept by the engine."""
    return engine.part(Retriever, ws.folder, lambda: Retriever(engine, ws))


def turn_query(event: Any, ctx: Any, cfg: EngineConfig) -> tuple[str, str | None]:
    """(query, skip reason or None) of a turn, as the hook decides them; shared with the `context`
    command so it shows exactly what the hook would do (envelope stripped, truncated, skip rules)."""
    # envelope already stripped; cleaned as stored text is (a lone surrogate, as Node writes an emoji
    # cut in half, made the query embedding fail and cost the vector arms)
    query, cut = prepare(query_text(event) or "", MAX_QUERY_CHARS)
    if cut:
        counters.inc("retrieval.query_truncated")  # a pasted document is not a better question
    reason = should_skip(query, ctx, cfg.retrieval.skip)  # counts retrieval.skip.<reason>
    return query, reason or (None if query else "no_text")


class Retriever:
    """Finds, ranks and formats what the agent should know before a turn."""

    def __init__(self, engine: KnowledgeEngine, ws: Workspace) -> None:
        self.engine = engine
        self.ws = ws
        cfg: EngineConfig = engine.config
        self.cfg = cfg
        rc = cfg.retrieval
        self.cache: PromptCache[tuple[dict[str, str] | None, dict[str, Any]]] = PromptCache(
            rc.cache_ttl_ms / 1000, rc.cache_size, rc.fuzzy_cache_threshold
        )
        self.local = LocalSource(engine, ws)
        self.remote: list[Source] = self._remote_sources()
        self.breakers = {s.name: Breaker(name=s.name) for s in [self.local, *self.remote]}
        self.timeouts = {
            "local": rc.local_timeout_ms,
            "pgvector": cfg.pgvector.timeout_ms,
            "lightrag": cfg.lightrag.timeout_ms,
        }
        self.on_provenance: ProvenanceCallback | None = None
        self.last_provenance: dict[str, Any] | None = None
        self._feedback = None
        if rc.feedback:
            from knowledge_engine.retrieve.feedback import UtilityTracker

            self._feedback = UtilityTracker(ws.folder / "feedback.json")

    def _remote_sources(self) -> list[Source]:
        try:
            from knowledge_engine.retrieve.sources.factory import make_remote_sources

            return make_remote_sources(self.cfg, self.engine.embedder_for)
        except Exception as exc:
            log.error("remote sources unavailable: %s", type(exc).__name__)
            return []

    # ------------------------------------------------------------------ the hook
    async def hook(self, event: Any, ctx: Any) -> dict[str, str] | None:
        """The before_prompt_build handler body: a hook result dict, or None to inject nothing."""
        t0 = time.perf_counter()
        query, reason = turn_query(event, ctx, self.cfg)
        if reason:
            emit("skip", reason=reason, queryLength=len(query))
            return None
        agent = self.ws.agent_id
        cached = self.cache.get(agent, query)
        if cached is not None:
            emit("timing", cacheHit=True, totalMs=round((time.perf_counter() - t0) * 1000, 2))
            return cached[0]
        ref = _event_time(event) or await self._newest_time() or datetime.now(UTC)
        block, provenance = await self.context(query, reference_time=ref, ctx=ctx)
        result: dict[str, str] | None = {str(self.cfg.retrieval.injection_target): block} if block else None
        if _degraded(provenance):  # a source failed: do not serve this answer after it recovers
            counters.inc("retrieval.cache_skipped_degraded")
        else:
            self.cache.set(agent, query, (result, provenance))
        emit(
            "timing",
            cacheHit=False,
            injected=bool(block),
            chars=len(block),
            totalMs=round((time.perf_counter() - t0) * 1000, 2),
            target=self.cfg.retrieval.injection_target,
        )
        return result

    async def _newest_time(self) -> datetime | None:
        """The newest message's time. On the shared store, None when the read fails or does not come
        within a quarter of the prompt's budget: a database that has just stopped fails the read on
        a connection it killed, or makes it wait out its pool's timeout (5 s, more than the budget).
        Either way the clock is "now" (counted), and a look at the database starts at once, so the
        sources know it down and answer from memory instead of each waiting for it in turn."""
        if not self.ws.shared:
            return newest_time(self.ws)  # a local file: milliseconds
        wait_s = self.cfg.retrieval.budget_ms / 1000 / 4
        try:
            return await asyncio.wait_for(asyncio.to_thread(read_newest_time, self.ws), timeout=wait_s)
        except TimeoutError:
            counters.inc("retrieve.newest_time_timeouts")
        except MessageLogError as exc:
            note_newest_time_error(exc)
        await asyncio.to_thread(self.ws.follow_for_prompt, True)
        return None

    async def context(
        self, query: str, reference_time: datetime | None = None, ctx: Any = None
    ) -> tuple[str, dict[str, Any]]:
        """What the hook would inject for `query`, and its provenance report."""
        ref = reference_time or newest_time(self.ws) or datetime.now(UTC)
        request = RetrievalRequest(
            query=query,
            agent_id=self.ws.agent_id,
            reference_time=ref,
            session_key=payload_field(ctx, "sessionKey", "session_key"),
            run_id=payload_field(ctx, "runId", "run_id"),
            window=parse_time_window(query, ref) if self.cfg.retrieval.temporal else None,
        )
        results = await gather_sources(
            [self.local, *self.remote], request, self.cfg.retrieval.budget_ms, self.timeouts, self.breakers
        )
        sections = self.rank(results, request)
        block = render_block(
            sections,
            self.cfg.retrieval.format,
            max_chars=self.cfg.retrieval.total_max_chars,
            section_chars={
                "pgvector": self.cfg.retrieval.max_inject_chars,
                "lightrag": self.cfg.lightrag.max_chars,
            },
            max_item_chars=self.cfg.retrieval.max_item_chars,
            compact=is_compact(self.cfg.retrieval),
        )
        provenance = self._provenance(sections, results, block)
        self._after_injection(sections, request)
        return block, provenance

    # ------------------------------------------------------------------ ranking
    def rank(self, results: list[SourceResult], request: RetrievalRequest) -> dict[str, Any]:
        """Fuse, re-rank and budget each source's items into the block's sections."""
        by_source = {r.source: r for r in results}
        sections: dict[str, Any] = {}
        local = by_source.get("local")
        if local is not None and local.items:
            facts, memory = rank_local(local.items, request, self.cfg.retrieval, self._feedback)
            if facts:
                sections["facts"] = facts
            if memory:
                sections["memory"] = memory
        pg = by_source.get("pgvector")
        if pg is not None and pg.items:
            sections["pgvector"] = apply_threshold(pg.items, self.cfg.pgvector.score_threshold)
        lr = by_source.get("lightrag")
        if lr is not None and lr.text:
            sections["lightrag"] = [graph_context_item(lr)]
        elif lr is not None and lr.items:
            sections["lightrag"] = lr.items
        return sections

    # ------------------------------------------------------------------ after the turn
    def _after_injection(self, sections: dict[str, Any], request: RetrievalRequest) -> None:
        fact_ids = [i.id for i in sections.get("facts", [])]
        if fact_ids:
            self.ws.facts.touch(fact_ids)
            self.ws.schedule_flush()
        if self._feedback is not None and request.session_key:
            injected = [i for key in ("facts", "memory") for i in sections.get(key, [])]
            self._feedback.record_injection(request.session_key, injected)

    def warm_up(self) -> None:
        """Load what the first turn needs in the background (session start): the embedder and chromadb
        (process-wide, usually started by `register`), this workspace's Chroma collections and its fact
        index (about 0.15 s at 10k facts and 1.5 s at 100k). A turn before it ends answers from what is
        ready (retrieve/warmup.py)."""
        self.local.warmup.start()

    def wait_ready(self, timeout_s: float | None = None) -> bool:
        """Warm up and wait for it (the CLI: its own start-up must not time its one question out)."""
        return self.local.warmup.wait(timeout_s)

    def record_reply(self, event: Any, ctx: Any) -> None:
        """agent_end / message_sent: which injected items the reply used (feedback signal)."""
        if self._feedback is None:
            return
        key = payload_field(ctx, "sessionKey", "session_key")
        messages = payload_field(event, "messages") or []
        reply = ""
        for m in reversed(messages if isinstance(messages, list) else []):
            if isinstance(m, dict) and m.get("role") == "assistant":
                reply = content_text(m.get("content"))
                break
        if key and reply:
            self._feedback.record_reply(key, reply)

    def _provenance(
        self, sections: dict[str, Any], results: list[SourceResult], block: str
    ) -> dict[str, Any]:
        mode = self.cfg.retrieval.provenance_report
        items = []
        for key, value in sections.items():
            if isinstance(value, str):
                items.append({"section": key, "source": key, "context": True})
                continue
            for it in value:
                rec: dict[str, Any] = {
                    "section": key,
                    "id": it.id,
                    "source": it.source,
                    "kind": it.kind,
                    "score": round(it.score, 4),
                    "message_ids": it.message_ids,
                    "file_path": it.file_path,
                    **_file_paths(it),
                    "collection": it.collection,
                    "timestamp": it.timestamp.isoformat() if it.timestamp else None,
                }
                if mode == "full":
                    rec["text"] = it.text[:2000]
                items.append(rec)
        report = {
            "v": 1,
            "chars": len(block),
            "target": self.cfg.retrieval.injection_target,
            "sources": {
                r.source: {
                    "status": r.status,
                    "count": len(r.items),
                    "duration_ms": round(r.duration_ms, 2),
                    "error": r.error,
                    "mock": r.mock,
                }
                for r in results
            },
            "items": items,
        }
        self.last_provenance = report
        if mode != "off" and self.on_provenance is not None:
            try:
                self.on_provenance(report)
            except Exception as exc:
                log.warning("provenance callback failed: %s", type(exc).__name__)
        return report


def _degraded(provenance: dict[str, Any]) -> bool:
    """True when a source failed, timed out or answered from its keyword arms while warming up (a
    cooling-down source is a steady state, not a failure)."""
    return any(
        s.get("status") in ("error", "timeout") or s.get("error") == WARMING
        for s in provenance.get("sources", {}).values()
    )


def _event_time(event: Any) -> datetime | None:
    return parse_timestamp(payload_field(event, "timestamp"))


def graph_context_item(lr: SourceResult) -> RetrievedItem:
    """LightRAG's context as one item; its file paths (first one as `file_path`) are provenance."""
    refs = [{"reference_id": i.extra.get("reference_id"), "file_path": i.file_path} for i in lr.items]
    refs = [r for r in refs if r["file_path"]]
    return RetrievedItem(
        id="lightrag-context",
        kind="graph",
        source="lightrag",
        text=lr.text or "",
        file_path=refs[0]["file_path"] if refs else None,
        extra={"references": refs},
    )


def _file_paths(item: RetrievedItem) -> dict[str, list[str]]:
    """`file_paths` for a graph context item: every reference path, not only the first."""
    refs = item.extra.get("references") if item.kind == "graph" else None
    if not isinstance(refs, list):
        return {}
    return {"file_paths": [r["file_path"] for r in refs if isinstance(r, dict) and r.get("file_path")]}
