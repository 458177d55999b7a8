"""Messages reach the vector index moments after they are stored, not at the next sync.

Why: the scheduled sync runs every `embeddings.syncIntervalMinutes` (15 by default) and on flush. Until
then a new message could be found by its words (the keyword arm) but not by its meaning: "Where do I
live?" right after "I moved to Lisbon" found nothing. The live indexer embeds each stored batch on a
thread of its own, off the hook path, with the metadata and content hash a sync writes (`index.sync.
index_messages`), so the next sync finds those records unchanged and embeds nothing twice.

It reads the batch back from the message log before embedding, under the index's lock: a message
forgotten or redacted meanwhile is indexed as the log holds it now, or not at all. A failure is logged
and counted, never raised into ingestion; the scheduled sync is the safety net (it is idempotent), and so
is a full queue (`maxPending` messages waiting: the batch is left to the sync, and counted).

The facts a batch stored or changed follow the same way: "Where do I live?" should find the fact
lives-in Lisbon, not only the message. The engine hands over the fact table's position before the batch
(`mark`); the thread asks the table's change log what changed since (new, reinforced, superseded, ended,
corrected away) and writes those facts as a sync would (`index.sync.index_facts`: the same text,
metadata and hash, deletes for the gone, the hash cache kept valid), so a superseded fact is marked
invalid in the index at once and the next sync has nothing to do. When the change log cannot say (the
table was reloaded) or more than `maxPending` facts changed, they are left to the sync, and counted.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge_engine.exitwait import outlived
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit

if TYPE_CHECKING:
    from knowledge_engine.index.vector_index import VectorIndex
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.index")
Mark = tuple[int, int]  # a fact table's (generation, version): where its change log stood


class LiveIndexer:
    """One background thread per engine; `submit` never blocks ingestion."""

    def __init__(self, index_for: Callable[[Workspace], VectorIndex], max_pending: int) -> None:
        self._index_for = index_for
        self._max_pending = max_pending
        self._pending: dict[Path, tuple[Workspace, list[str]]] = {}
        self._waiting = 0  # message ids in _pending
        self._facts: dict[Path, tuple[Workspace, Mark]] = {}  # facts changed since the mark, to index
        self._indexed: dict[Path, Mark] = {}  # the fact table's mark when the thread last read it
        self._busy = False  # a batch is being embedded
        self._stopping = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, ws: Workspace, messages: list[Message]) -> None:
        """Queue stored messages for indexing; over `max_pending` waiting, leave them to the next sync."""
        if not messages:
            return
        with self._cond:
            if self._stopping:
                return
            if self._waiting + len(messages) > self._max_pending:
                counters.inc("index.live_skipped", len(messages))
                return
            _, ids = self._pending.setdefault(ws.folder, (ws, []))
            ids.extend(m.id for m in messages)
            self._waiting += len(messages)
            self._start()
            self._cond.notify()

    @staticmethod
    def mark(ws: Workspace) -> Mark:
        """Where the workspace's fact table stands now: taken before a batch is applied."""
        table = ws.facts.table
        with table.mutex:
            return table.generation, table.version

    def submit_facts(self, ws: Workspace, since: Mark) -> None:
        """Queue the facts changed since `since` (see `mark`) for indexing; none changed, none queued."""
        unchanged = self.mark(ws) == since  # the table's lock is not taken under ours
        with self._cond:
            if self._stopping:
                return
            queued = self._facts.get(ws.folder)
            if queued is None and unchanged:
                return
            if queued is not None and queued[1][0] != since[0]:  # reloaded meanwhile: the change log
                counters.inc("index.live_facts_skipped")  # cannot say what changed before; the sync can
            # from the earliest known point: what changed between two batches (an LLM batch, upkeep) too
            for earlier in (self._indexed.get(ws.folder), queued[1] if queued else None):
                if earlier is not None and earlier[0] == since[0] and earlier[1] < since[1]:
                    since = earlier
            self._facts[ws.folder] = (ws, since)
            self._start()
            self._cond.notify()

    def wait_idle(self, timeout_s: float) -> bool:
        """Whether everything submitted so far was indexed (or failed) within `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._pending or self._facts or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def stop(self, timeout_s: float) -> None:
        """Finish the batch in hand (within `timeout_s`); what still waits is left to the next sync."""
        with self._cond:
            self._stopping = True
            left = self._waiting
            facts_left = len(self._facts)
            self._pending.clear()
            self._facts.clear()
            self._waiting = 0
            self._cond.notify_all()
            thread = self._thread
        if left:
            counters.inc("index.live_left_to_sync", left)
        if facts_left:  # workspaces whose changed facts were not indexed yet
            counters.inc("index.live_facts_left_to_sync", facts_left)
        if thread is not None:
            thread.join(max(0.0, timeout_s))
            outlived(thread)  # still embedding: the interpreter's exit waits for it (exitwait.py)

    # ------------------------------------------------------------------ the thread
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="knowledge-engine-live-index", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._facts and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    self._cond.notify_all()
                    return
                batch = list(self._pending.values())
                facts = list(self._facts.values())
                self._pending.clear()
                self._facts.clear()
                self._waiting = 0
                self._busy = True
            try:
                for ws, ids in batch:
                    if not self._stopped_meanwhile("index.live_left_to_sync", len(ids)):
                        self._index(ws, ids)
                for ws, since in facts:
                    if not self._stopped_meanwhile("index.live_facts_left_to_sync", 1):
                        self._index_facts(ws, since)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _stopped_meanwhile(self, counter: str, n: int) -> bool:
        """stop() came during the batch: what is not started yet is left to the next sync, counted as
        stop() counts what was still waiting (messages; workspaces whose changed facts wait)."""
        with self._cond:
            if not self._stopping:
                return False
        counters.inc(counter, n)
        return True

    def _index(self, ws: Workspace, ids: list[str]) -> None:
        from knowledge_engine.index.sync import index_messages

        t0 = time.perf_counter()
        written = self._write(
            ws,
            "messages",
            len(ids),
            lambda index: index_messages(index, ws.messages.get_many(ids), ws.messages),
        )
        if written is None:
            return
        counters.inc("index.live_indexed", written)
        emit("index.live", messages=written, duration_ms=round((time.perf_counter() - t0) * 1000, 2))

    def _write(self, ws: Workspace, what: str, count: int, write: Callable[[VectorIndex], int]) -> int | None:
        """Run one write on the workspace's index under its lock (a sync's diff, or forget's delete,
        never interleaves with it); None when it failed: logged, counted, left to the next sync."""
        try:
            index = self._index_for(ws)
            with index.lock:
                return write(index)
        except Exception as exc:
            counters.inc("index.live_failed", count)
            log.warning(
                "live indexing of %d %s failed (%s); left to the next sync", count, what, type(exc).__name__
            )
            return None

    def _changed_facts(self, ws: Workspace, since: Mark) -> set[str] | None:
        """The ids of the facts put or deleted since `since` (None: unknown, or too many), and note
        where the table stood, so the next batch starts there."""
        table = ws.facts.table
        with table.mutex:
            now = (table.generation, table.version)
            changed = table.changed_since(*since)
        with self._cond:
            self._indexed[ws.folder] = now
        if changed is None or len(changed) > self._max_pending:
            counters.inc("index.live_facts_skipped")  # the table was reloaded, or upkeep touched many
            return None
        return changed

    def _index_facts(self, ws: Workspace, since: Mark) -> None:
        from knowledge_engine.index.sync import index_facts

        changed = self._changed_facts(ws, since)
        if not changed:
            return
        t0 = time.perf_counter()
        found = {fid: ws.facts.get(fid) for fid in sorted(changed)}
        current = [f for f in found.values() if f is not None]
        gone = [fid for fid, f in found.items() if f is None]
        written = self._write(ws, "facts", len(changed), lambda index: index_facts(index, current, gone))
        if written is None:
            return
        counters.inc("index.live_facts_indexed", written)
        emit(
            "index.live_facts",
            facts=written,
            gone=len(gone),
            duration_ms=round((time.perf_counter() - t0) * 1000, 2),
        )
