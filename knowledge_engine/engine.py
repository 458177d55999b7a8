"""KnowledgeEngine: owns the per-agent workspaces and wires extract, store, index and retrieve.

Hooks, the CLI and the maintenance job all go through this class; none of them touches
store files or tiers directly.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from knowledge_engine.config import EmbeddingsConfig, EngineConfig
from knowledge_engine.extract.pipeline import ExtractionPipeline
from knowledge_engine.index.embeddings.local import LocalEmbedder
from knowledge_engine.index.live import LiveIndexer, Mark
from knowledge_engine.ingest.journal import IngestJournal
from knowledge_engine.ingest.queue import IngestQueue, StoreUnavailable
from knowledge_engine.ingest.reapply import extract_again
from knowledge_engine.ingest.unlogged import LogBacklog
from knowledge_engine.model.extraction import Extraction
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit, failure
from knowledge_engine.store.backend import is_shared, parked_store
from knowledge_engine.store.sessions import SessionMemory
from knowledge_engine.store.workspace import APPLIED_WINDOW, Workspace, resolve_workspace_dir, safe_agent_id

if TYPE_CHECKING:  # built on first use (importing them costs seconds a hook must not wait for)
    from knowledge_engine.extract.batcher import LlmBatcher
    from knowledge_engine.index.embeddings.base import Embedder
    from knowledge_engine.index.sync import Progress, SyncReport
    from knowledge_engine.index.vector_index import VectorIndex

log = logging.getLogger("knowledge_engine")
_Part = TypeVar("_Part")


class KnowledgeEngine:
    """One per process and configuration; any number of agents."""

    def __init__(
        self, config: EngineConfig, pipeline: ExtractionPipeline | None = None, *, ingest_owner: bool = True
    ) -> None:
        """`ingest_owner=False` is for processes such as the CLI that open a workspace a host may be
        using: they neither write nor replay the host's ingest journal, spill file or LLM inbox."""
        self.config = config
        self._ingest_owner = ingest_owner
        self._pipeline = pipeline
        self._pipeline_lock = threading.Lock()
        self.sessions = SessionMemory()  # what the tiers remember between messages, across restarts
        self._workspaces: dict[Path, Workspace] = {}
        self._parked: dict[Path, str] = {}  # folder -> agent: messages wait there for the shared store (park)
        self._by_context: dict[tuple[str | None, str | None], Workspace] = {}
        self._ws_lock = threading.Lock()
        self._batchers: dict[Path, LlmBatcher] = {}
        self._embedders: dict[str, Embedder] = {}
        self._indexes: dict[Path, VectorIndex] = {}
        self._index_lock = threading.Lock()
        self._index_build_lock = threading.Lock()  # one Chroma client build at a time (see chroma())
        self.index_read_only = False  # inspections (CLI): a missing collection reads as empty, is not made
        self._live: LiveIndexer | None = None  # built on the first stored batch (see _index_live)
        self._parts: dict[tuple[type, Path | None], object] = {}  # see part()
        self._parts_lock = threading.RLock()  # a part's build may ask for another part
        self.journal = IngestJournal()
        self.queue = IngestQueue(
            self._process,
            config.extraction.queue_size,
            config.extraction.spacy.batch_size,
            self.journal if ingest_owner else None,
        )
        self.unlogged = LogBacklog(self.journal if ingest_owner else None)
        self._stopped = False
        self._closing = False  # set by stop(): tiers built after it close their workers at once
        # the maintenance scheduler: workspace_opened(engine, ws), engine_stopping(engine, timeout_s)
        self.lifecycle_hooks: list[object] = []
        if ingest_owner:  # applies `forget` requests to the pending work this process owns
            from knowledge_engine.forget.coord import ForgetWatcher

            self.lifecycle_hooks.append(ForgetWatcher())

    def _notify(self, event: str, *args: Any) -> None:
        for hook in list(self.lifecycle_hooks):
            handler = getattr(hook, event, None)  # a hook implements only the events it cares about
            if handler is None:
                continue
            try:
                handler(self, *args)
            except Exception as exc:
                log.error("lifecycle hook %s failed: %s", event, type(exc).__name__)

    # ------------------------------------------------------------------ parts
    @property
    def pipeline(self) -> ExtractionPipeline:
        """The local tiers, built on first use (loading spaCy takes about a second)."""
        with self._pipeline_lock:
            if self._pipeline is None:
                self._pipeline = ExtractionPipeline(self.config.extraction, embedder=LocalEmbedder)
                if self._closing:  # stop() ran while the tiers were loading: no workers outlive it
                    self._close_pipeline(self._pipeline, 1.0)
            return self._pipeline

    def warm_up(self) -> None:
        """Load the local tiers in the background so the first message does not wait for spaCy."""
        threading.Thread(target=lambda: self.pipeline, name="knowledge-engine-warmup", daemon=True).start()

    def workspace(self, agent_id: str | None = None, workspace_dir: str | None = None) -> Workspace:
        """The agent's workspace; the folder is resolved once per (agent, workspaceDir), since every
        message hook asks and resolving a path costs about 20 us of a ~30 us hook."""
        key = (agent_id, workspace_dir)
        ws = self._by_context.get(key)
        if ws is None:
            folder = resolve_workspace_dir(self.config, agent_id, workspace_dir)
            ws = self.open_workspace(folder, safe_agent_id(agent_id))
            self._by_context[key] = ws
        return ws

    def open_workspace(self, folder: Path, agent_id: str = "default") -> Workspace:
        with self._ws_lock:
            ws = self._workspaces.get(folder)
            if ws is None:
                ws = Workspace(folder, self.config, agent_id)
                self._workspaces[folder] = ws
                self._parked.pop(folder, None)
                owner = self._claim_ingest(folder)
                if owner:
                    journal = self.journal
                    ws.flush_hooks.append(
                        (lambda: journal.checkpoint(folder), lambda token: journal.release(folder, token))
                    )
                    self.sessions.opened(folder)  # before the replay below reads messages into it
                    ws.flush_hooks.append(  # after the journal's: the memory covers what it releases
                        (
                            lambda: self.sessions.checkpoint(self._pipeline, folder),
                            lambda memory: self.sessions.release(folder, memory),
                        )
                    )
                    self.queue.recover(folder)  # journal + spill + a killed drain's work, each message once
                    self._reapply(ws, folder)
                self._start_llm(ws, inbox=owner)
            else:
                return ws
        self._notify("workspace_opened", ws)
        return ws

    def _reapply(self, ws: Workspace, folder: Path) -> None:
        """A store file found corrupt was replaced by its last good copy: the messages the lost write
        held go through extraction again (ingest/reapply.py), so nothing stored is lost for good."""
        loaded = ws.facts.table.recovered or ws.entities.table.recovered
        if loaded is None:
            return
        again = extract_again(ws, APPLIED_WINDOW)
        for msg in again:
            self.queue.submit(folder, msg)
        counters.inc("ingest.reapplied", len(again))
        emit("store.recovered", level=logging.WARNING, loaded=loaded, reapplied=len(again))

    def workspaces(self) -> list[Workspace]:
        with self._ws_lock:
            return list(self._workspaces.values())

    def part(self, kind: type[_Part], folder: Path | None, build: Callable[[], _Part]) -> _Part:
        """The engine's one `kind` object for a workspace folder (None: for the whole engine), built on
        first use: the parts of the layers above the engine (a workspace's retriever, the retrieval
        warm-up), which it must not import. Owned here, they live no longer than the engine, and stop()
        drops them: module-level caches keyed by id(engine) kept every stopped engine alive (and an id
        can be reused by a new engine)."""
        with self._parts_lock:
            found = self._parts.get((kind, folder))
            if isinstance(found, kind):
                return found
            made = build()
            self._parts[(kind, folder)] = made
            return made

    # ------------------------------------------------------------------ semantic layer
    def embedder_for(self, config: EmbeddingsConfig) -> Embedder:
        """One embedder per provider configuration per engine (the local model loads once)."""
        from knowledge_engine.index.embeddings import make_embedder

        key = config.model_dump_json()
        with self._index_lock:
            emb = self._embedders.get(key)
            if emb is None:
                emb = make_embedder(config)
                self._embedders[key] = emb
            return emb

    @property
    def embedder(self) -> Embedder:
        return self.embedder_for(self.config.embeddings)

    def chroma(self, ws: Workspace) -> VectorIndex:
        """The workspace's vector index, opened on first use: Chroma (embedded or server), or pgvector
        on the postgres backend (index.vector_index chooses)."""
        from knowledge_engine.index.vector_index import open_vector_index

        with self._index_lock:
            index = self._indexes.get(ws.folder)
        if index is not None:
            return index
        # Built once, under its own lock: racing builds of embedded clients on one folder tore down
        # chromadb's shared system ("Could not connect to tenant"). Not under _index_lock, which
        # `self.embedder` takes and which must not wait for a slow Chroma open.
        with self._index_build_lock:
            with self._index_lock:
                index = self._indexes.get(ws.folder)
            if index is None:
                index = open_vector_index(
                    ws.folder, ws.agent_id, self.config, self.embedder, create=not self.index_read_only
                )
                with self._index_lock:
                    self._indexes[ws.folder] = index
        return index

    def sync(self, ws: Workspace, progress: Progress | None = None, rebuild: bool = False) -> SyncReport:
        """Bring the workspace's Chroma index in line with its store (incremental)."""
        from knowledge_engine.index import sync as sync_mod

        index = self.chroma(ws)
        messages = ws.messages.iter() if ws.has_message_log else iter(())
        run = sync_mod.rebuild if rebuild else sync_mod.sync
        return run(index, ws.facts.all(), messages, progress)

    def _claim_ingest(self, folder: Path) -> bool:
        """Whether this process journals and replays the workspace's accepted messages."""
        if not self._ingest_owner:
            return False
        if self.journal.claim(folder):
            return True
        counters.inc("ingest.journal_not_owner")
        log.warning(
            "the ingest journal of %s is not this process's (another process owns it, or its lock file "
            "is not writable); this one runs without it (a kill -9 here can lose queued messages)",
            folder,
        )
        return False

    # ------------------------------------------------------------------ ingest
    def forget_session_memory(self, folder: Path, names: Callable[[str], bool], session: str | None) -> None:
        """A forget applied by this host: the workspace's session memory drops the people it names
        (or the session), in the tiers and in its file. Nothing remembered, nothing loaded."""
        if self._pipeline is None and not self.sessions.waiting(folder):
            return
        self.sessions.forget(self.pipeline, folder, names, session)

    def submit(self, ws: Workspace, message: Message) -> bool:
        """Non-blocking: queue a message for extraction (the hook path)."""
        return self.queue.submit(ws.folder, message)

    def store_unreachable(self, exc: Exception) -> bool:
        """Whether `exc` (from opening or writing a workspace) is the shared database being down."""
        return self._store_down(exc)

    def park(self, agent_id: str | None, workspace_dir: str | None, msg: Message, why: Exception) -> bool:
        """Keep a message for a workspace that cannot open now (its shared database is down, `why`) in
        the agent's local folder; the workspace's open processes it (else an accepted message was
        lost). Logged once per folder until it opens; counted (`ingest.parked`)."""
        folder = resolve_workspace_dir(self.config, agent_id, workspace_dir)
        parked = self.queue.park(folder, msg)
        if parked and folder not in self._parked:
            self._parked[folder] = safe_agent_id(agent_id)
            log.warning("%s: messages are parked in %s until the workspace opens", why, folder)
        return parked

    def add_parked(self, folder: Path, agent_id: str) -> None:
        """A folder holding work for a workspace not open here (left by an earlier process)."""
        if folder not in self._workspaces:
            self._parked.setdefault(folder, agent_id)

    def open_parked(self) -> int:
        """Open the folders `park` left messages in, so a drain stores them once the database answers;
        the ones whose store is still unreachable wait for the next try. Returns how many opened."""
        opened = 0
        for folder, agent in list(self._parked.items()):
            try:
                self.open_workspace(folder, agent)
                opened += 1
            except Exception as exc:
                if not self._store_down(exc):
                    raise
        return opened

    def ingest(self, ws: Workspace, messages: Iterable[Message]) -> int:
        """Blocking: run messages through the same pipeline as the hooks (CLI, tests)."""
        if ws.config.memory.enabled and ws.has_message_log:  # one that can only be read here: its
            ws.messages.require_writable()  # clear error now, not a failed write per batch
        batch: list[Message] = []
        n = 0
        size = self.config.extraction.spacy.batch_size
        for msg in messages:
            batch.append(msg)
            if len(batch) >= size:
                self._process(ws.folder, batch)
                n += len(batch)
                batch = []
        if batch:
            self._process(ws.folder, batch)
            n += len(batch)
        return n

    def _process(self, folder: Path, messages: list[Message]) -> None:
        ws = self.open_workspace(folder)
        t0 = time.perf_counter()

        down: list[Exception] = []  # the shared database could not take a message: the batch waits

        def store_messages() -> None:  # runs while the spaCy workers parse the batch
            self.unlogged.retry(ws)  # what the log could not take before goes first
            try:
                ws.store_messages(messages)  # one write for the batch
            except Exception as exc:
                if self._store_down(exc):
                    _append_failed(exc)
                    down.append(exc)
                    return  # the whole batch is tried again (appending and applying are idempotent)
            else:
                self._index_live(ws, messages)
                return
            stored: list[Message] = []
            failed = 0
            for msg in messages:  # one message spoiled the batch's write: the others are kept
                try:
                    ws.store_message(msg)
                    stored.append(msg)
                except Exception as exc:
                    failed += 1
                    _append_failed(exc)
                    if self._store_down(exc):
                        down.append(exc)
                        break
            if failed == len(messages) and not down:  # the log is broken, not one message: hold them
                self.unlogged.hold(folder, messages)
            self._index_live(ws, stored)

        meanwhile: Callable[[], None] | None = store_messages
        if self._pipeline is None:  # the tiers are still loading (seconds): the log need not wait for them
            store_messages()
            meanwhile = None
        pipeline = self.pipeline
        self.sessions.before_batch(pipeline, folder)
        results = pipeline.run(messages, meanwhile=meanwhile, scope=str(folder), screen=ws.screen)
        if down:
            raise self._unavailable("the message log")
        n_ent = n_fact = 0
        since = LiveIndexer.mark(ws)  # the facts this batch stores or changes are indexed at once too
        try:
            for msg in messages:
                exs = results.get(msg.id)
                if exs:
                    e, f = ws.apply(msg, exs)
                    n_ent += e
                    n_fact += f
        except Exception as exc:
            if self._store_down(exc):
                raise self._unavailable("the store") from exc
            raise
        self._index_live(ws, [], facts_since=since)
        batcher = self._batchers.get(folder)
        if batcher is not None:
            for msg in messages:
                if msg.id in results and not ws.was_applied(msg.id, "llm"):  # a replay the LLM has done
                    batcher.add(msg)
        ws.schedule_flush()  # debounced; its checkpoint also trims the ingest journal
        emit(
            "extract.batch",
            messages=len(messages),
            entities=n_ent,
            facts=n_fact,
            duration_ms=round((time.perf_counter() - t0) * 1000, 2),
        )

    def _store_down(self, exc: Exception) -> bool:
        """Whether an ingest failure is the shared database's (then the batch waits and is retried)."""
        if not is_shared(self.config.storage):
            return False
        from knowledge_engine.store.postgres.connect import StoreDatabaseError

        return isinstance(exc, StoreDatabaseError)

    def _unavailable(self, what: str) -> StoreUnavailable:
        cfg = self.config.storage.postgres

        def reachable() -> bool:  # the database answers: the batch itself fails (poison), not an outage
            from knowledge_engine.store.postgres.connect import connection

            try:
                with connection(cfg) as conn:
                    conn.execute("SELECT 1")
                return True
            except Exception:
                return False

        return StoreUnavailable(f"{what} could not be written to the shared database", reachable)

    # ------------------------------------------------------------------ LLM tier
    def _start_llm(self, ws: Workspace, inbox: bool) -> None:
        cfg = self.config.extraction.llm
        if not cfg.enabled:
            return
        from knowledge_engine.extract.batcher import LlmBatcher
        from knowledge_engine.extract.llm import LlmTier
        from knowledge_engine.llm import make_client

        tier = LlmTier(cfg, make_client(cfg))

        def sink(msgs: list[Message], extractions: list[Extraction]) -> None:
            by_id = {m.id: m for m in msgs}
            since = LiveIndexer.mark(ws)
            for ex in extractions:
                msg = by_id.get(ex.message_id)
                if msg is not None:
                    ws.apply(msg, [ex])
            self._index_live(ws, [], facts_since=since)
            ws.schedule_flush()  # the flush that makes these facts durable releases the batch's inbox lines

        def known() -> list[tuple[str, str]]:
            # a wider pool than the prompt shows: the tier lists those the batch names first
            ents = sorted(ws.entities.all(), key=lambda e: -e.importance)[: cfg.max_known_entities * 20]
            return [(e.value, e.type) for e in ents]

        parked = parked_store(ws.config.storage, ws.folder, ws.agent_id)
        batcher = LlmBatcher(cfg, tier, ws.folder / "llm-pending", sink, known, inbox=inbox, parked=parked)
        if inbox:
            ws.flush_hooks.append((batcher.checkpoint, batcher.release))
        batcher.start()
        self._batchers[ws.folder] = batcher

    def llm_batcher(self, ws: Workspace) -> LlmBatcher | None:
        """The workspace's LLM batcher (None when the tier is off): `ingest` waits for it."""
        return self._batchers.get(ws.folder)

    def llm_stats(self, ws: Workspace) -> dict[str, Any] | None:
        b = self._batchers.get(ws.folder)
        return b.stats() if b is not None else None

    # ------------------------------------------------------------------ lifecycle
    def _close_tiers(self, timeout_s: float) -> None:
        """Stop the tiers' worker processes (the spaCy pool). A pipeline still being built by
        the warm-up thread closes its tiers itself when done (it sees _closing)."""
        self._closing = True
        if not self._pipeline_lock.acquire(timeout=min(1.0, timeout_s)):
            return
        try:
            pipeline = self._pipeline
        finally:
            self._pipeline_lock.release()
        self._close_pipeline(pipeline, timeout_s)

    def _close_pipeline(self, pipeline: ExtractionPipeline | None, timeout_s: float) -> None:
        for tier in pipeline.tiers if pipeline is not None else []:
            close = getattr(tier, "close", None)
            if callable(close):
                try:
                    close(min(1.0, timeout_s))
                except Exception as exc:
                    log.error("closing extraction tier %s failed: %s", tier.name, type(exc).__name__)

    def _index_live(self, ws: Workspace, messages: list[Message], facts_since: Mark | None = None) -> None:
        """Hand stored messages, and the facts changed since `facts_since` (LiveIndexer.mark), to the
        live indexer (index/live.py), so they are found by meaning soon."""
        emb = self.config.embeddings
        if not (messages or facts_since) or not emb.enabled or not emb.live_index:
            return
        if self.index_read_only or self._closing:
            return
        live = self._live
        if live is None:
            with self._index_lock:
                if self._live is None:
                    self._live = LiveIndexer(self.chroma, emb.live_index_max_pending)
                live = self._live
        live.submit(ws, messages)
        if facts_since is not None:
            live.submit_facts(ws, facts_since)

    def flush(self, timeout_s: float = 5.0, sync: bool = True) -> bool:
        """Process everything queued, send partial LLM batches, write every store, sync the index."""
        deadline = time.monotonic() + timeout_s
        self._notify("engine_flushing")  # e.g. the plugin hands over messages still waiting for a folder
        ok = self.queue.drain(max(0.0, deadline - time.monotonic()) * 0.6)
        for b in list(self._batchers.values()):
            ok = b.flush(max(0.05, (deadline - time.monotonic()) * 0.5)) and ok
        if sync and self._live is not None:  # then the sync finds those messages indexed, not to embed again
            self._live.wait_idle(max(0.0, deadline - time.monotonic()) * 0.5)
        for ws in self.workspaces():
            ws.flush()
            ok = ok and ws.flush_errors == 0
            if sync and self.config.embeddings.enabled:
                ok = self._sync_quietly(ws) and ok
        return ok

    def _sync_quietly(self, ws: Workspace) -> bool:
        """Index sync on flush; a failure is logged and left for the next run (it is idempotent)."""
        try:
            self.sync(ws)
            return True
        except Exception as exc:
            counters.inc("sync.failed")
            log.error(
                "chroma sync of %s failed (%s); it is retried on the next flush or schedule",
                ws.folder,
                type(exc).__name__,
            )
            return False

    def stop(self, timeout_s: float = 4.5) -> bool:
        """Flush and stop every worker within the host's budget; leftovers are parked on disk."""
        if self._stopped:
            return True
        deadline = time.monotonic() + timeout_s
        self._notify("engine_stopping", min(1.5, timeout_s / 3))
        drained = self.queue.stop(max(0.1, (deadline - time.monotonic()) * 0.5))
        if self._live is not None:  # what it has not indexed yet is in the log: the next sync's
            self._live.stop(max(0.05, (deadline - time.monotonic()) * 0.2))
        for b in list(self._batchers.values()):
            b.stop(max(0.05, (deadline - time.monotonic()) * 0.5))
        for ws in self.workspaces():
            ws.close()
        self._close_tiers(max(0.1, deadline - time.monotonic()))
        self.journal.close()
        with self._parts_lock:  # the retrievers and their caches go with the engine
            self._parts.clear()
        self._stopped = True
        emit(
            "engine.stop",
            drained=drained,
            duration_ms=round((timeout_s - (deadline - time.monotonic())) * 1000),
        )
        return drained


def _append_failed(exc: Exception) -> None:
    """Count and log a message the log could not take. A MessageLogError's text is the log's path and
    SQLite's or the system's reason, never content ('database disk image is malformed' says what to
    fix; 'MessageLogError' did not); anything else is named by its class."""
    from knowledge_engine.store.messages import MessageLogError

    counters.inc("memory.append_failed")
    why = str(exc) if isinstance(exc, MessageLogError) else failure(exc)
    log.error("message log append failed: %s", why)
