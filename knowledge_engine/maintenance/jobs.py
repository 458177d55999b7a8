"""What each maintenance job does to one workspace, returning counts of what changed.

Jobs never take locks or write run records themselves (see `runs`); store jobs (decay, prune,
compact) only change the in-memory tables, and the runner flushes them under the meta lock
right after a refresh, so a stale copy of `last_decay_at` can never overwrite a newer one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_engine.model.records import utcnow
from knowledge_engine.store.backend import is_shared, parked_store

if TYPE_CHECKING:
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

STALE_TMP_S = 3600  # a temp file this old belongs to a writer that died


class Cancelled(Exception):
    """The process is stopping: the job stopped at a safe point."""


class SkipJob(Exception):
    """Nothing to do by configuration (recorded as `skipped` with this reason)."""


@dataclass
class RunContext:
    """When the run happens (frozen in tests) and how a stop request reaches it."""

    now: datetime = field(default_factory=utcnow)
    cancel: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        if self.cancel.is_set():
            raise Cancelled()

    def progress(self, done: int, total: int) -> None:
        """Sync's per-chunk callback: the place a long sync stops between two durable chunks."""
        self.check()


JobFn = Callable[["Workspace", "KnowledgeEngine", RunContext], dict[str, int]]


@dataclass(frozen=True)
class JobSpec:
    name: str
    fn: JobFn
    store: bool  # changes facts/entities: run under the meta lock and flushed by the runner
    help: str


def decay(ws: Workspace, engine: KnowledgeEngine, ctx: RunContext) -> dict[str, int]:
    """Every whole interval elapsed since the last decay, applied in one step (exact catch-up)."""
    if not engine.config.decay.enabled:
        raise SkipJob("decay disabled")
    before = len(ws.facts.table.dirty)
    intervals = ws.facts.decay(ctx.now)
    return {"intervals": intervals, "facts_updated": len(ws.facts.table.dirty) - before}


def prune(ws: Workspace, engine: KnowledgeEngine, ctx: RunContext) -> dict[str, int]:
    """Facts and entities above storage.maxFacts / maxEntities, least relevant first."""
    facts, entities = ws.prune()
    return {"facts_pruned": len(facts), "entities_pruned": len(entities)}


def compact(ws: Workspace, engine: KnowledgeEngine, ctx: RunContext) -> dict[str, int]:
    """VACUUM the message log, trim evidence and mentions to their caps, drop old tombstones;
    the runner then rewrites the store files."""
    out = _vacuum(ws)
    storage = engine.config.storage
    cutoff = ctx.now - timedelta(days=engine.config.maintenance.tombstone_days)
    trimmed = 0
    with ws.facts.table.mutex:
        for f in ws.facts.table:
            if len(f.evidence) > storage.max_evidence:
                f.evidence = f.evidence[-storage.max_evidence:]
                ws.facts.table.put(f)
                trimmed += 1
    with ws.entities.table.mutex:
        for e in ws.entities.table:
            if len(e.mentions) > storage.max_mentions:
                e.mentions = e.mentions[-storage.max_mentions:]
                ws.entities.table.put(e)
                trimmed += 1
    tombs = ws.facts.table.drop_tombstones(cutoff) + ws.entities.table.drop_tombstones(cutoff)
    return {**out, "records_trimmed": trimmed, "tombstones_dropped": tombs,
            "temp_files_removed": _remove_stale_tmp(ws.folder)}


def _vacuum(ws: Workspace) -> dict[str, int]:
    """Deleted (retained-out, forgotten) message text made physically gone from the log (SQLite or
    PostgreSQL: VACUUM FULL of ke_messages)."""
    if not ws.has_message_log:
        return {"messages_vacuumed": 0}
    clean = ws.messages.vacuum()
    return {"messages_vacuumed": 1, "wal_busy": int(not clean)}


def _remove_stale_tmp(folder: Path) -> int:
    """Temp files of atomic writes whose writer was killed (never a live writer's: they are old)."""
    n = 0
    limit = time.time() - STALE_TMP_S
    for p in folder.glob(".*.tmp"):
        try:
            if p.is_file() and p.stat().st_mtime < limit:
                p.unlink()
                n += 1
        except OSError:
            continue
    return n


def sync(ws: Workspace, engine: KnowledgeEngine, ctx: RunContext) -> dict[str, int]:
    """Incremental Chroma sync; stops between durable chunks when the process is stopping."""
    if not engine.config.embeddings.enabled:
        raise SkipJob("embeddings disabled")
    ws.refresh()
    report: Any = engine.sync(ws, progress=ctx.progress)
    return {"embedded": report.embedded, "upserted": report.upserted, "deleted": report.deleted,
            "unchanged": report.unchanged, "skipped": report.skipped}


def retention(ws: Workspace, engine: KnowledgeEngine, ctx: RunContext) -> dict[str, int]:
    """memory.retentionDays / maxMessages, then the same ids out of Chroma (sync would do it later)."""
    cfg = engine.config.memory
    if not cfg.enabled or not (cfg.retention_days or cfg.max_messages):
        raise SkipJob("no retention limits configured")
    if not ws.has_message_log:
        return {"messages_deleted": 0}
    ids = ws.messages.retain(cfg.retention_days, cfg.max_messages, now=ctx.now)
    out = {"messages_deleted": len(ids), "index_deleted": 0}
    if ids and _has_index(ws, engine):
        out["index_deleted"] = engine.chroma(ws).delete_messages(ids)
    return out


def _has_index(ws: Workspace, engine: KnowledgeEngine) -> bool:
    cfg = engine.config
    shared = is_shared(cfg.storage)  # the vectors are in pgvector (index.vector_index), not Chroma
    return cfg.embeddings.enabled and bool(shared or cfg.chroma.url or (ws.folder / "chroma").is_dir())


def llm_retry(ws: Workspace, engine: KnowledgeEngine, ctx: RunContext) -> dict[str, int]:
    """Parked LLM batches sent again (an outage costs time, not facts). `delivered` counts every parked
    batch this process delivered since this job last ran: by this run, or by the tier's own retry (its
    worker retries at start and after an outage, and this run waits for a pass it has under way)."""
    batcher = engine._batchers.get(ws.folder)
    if batcher is None:
        if parked_store(ws.config.storage, ws.folder, ws.agent_id).waiting():
            raise SkipJob("llm disabled; parked batches kept")
        raise SkipJob("llm disabled")
    batcher.retry_pending()
    return {"delivered": batcher.take_retried(), "pending": int(batcher.stats()["pending_batches"])}


JOBS: dict[str, JobSpec] = {
    s.name: s
    for s in (
        JobSpec("decay", decay, True, "Relevance decay, catching up exactly after downtime."),
        JobSpec("prune", prune, True, "Drop facts and entities above their limits."),
        JobSpec("compact", compact, True, "Rewrite files, trim evidence, drop tombstones, VACUUM."),
        JobSpec("retention", retention, False, "Delete messages beyond memory.retentionDays / maxMessages."),
        # on the shared store the parked batches are rows any node may send (one node at a time by the
        # advisory lock; each batch claimed by one node); on files the lock is local anyway
        JobSpec("llm_retry", llm_retry, False, "Send parked LLM batches again."),
        JobSpec("sync", sync, False, "Bring the Chroma index in line with the store."),
    )
}
# One pass: store changes first so sync sees them; compact last, after retention, and its rewrite
# carries every run record into the facts file's meta (what `stats` shows).
JOB_ORDER: tuple[str, ...] = ("llm_retry", "retention", "decay", "prune", "sync", "compact")
