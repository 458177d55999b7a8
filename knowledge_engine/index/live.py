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
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit

if TYPE_CHECKING:
    from knowledge_engine.index.vector_index import VectorIndex
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.index")


class LiveIndexer:
    """One background thread per engine; `submit` never blocks ingestion."""

    def __init__(self, index_for: Callable[[Workspace], VectorIndex], max_pending: int) -> None:
        self._index_for = index_for
        self._max_pending = max_pending
        self._pending: dict[Path, tuple[Workspace, list[str]]] = {}
        self._waiting = 0  # message ids in _pending
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

    def wait_idle(self, timeout_s: float) -> bool:
        """Whether everything submitted so far was indexed (or failed) within `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._pending or self._busy:
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
            self._pending.clear()
            self._waiting = 0
            self._cond.notify_all()
            thread = self._thread
        if left:
            counters.inc("index.live_left_to_sync", left)
        if thread is not None:
            thread.join(max(0.0, timeout_s))

    # ------------------------------------------------------------------ the thread
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="knowledge-engine-live-index", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    self._cond.notify_all()
                    return
                batch = list(self._pending.values())
                self._pending.clear()
                self._waiting = 0
                self._busy = True
            try:
                for ws, ids in batch:
                    self._index(ws, ids)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _index(self, ws: Workspace, ids: list[str]) -> None:
        from knowledge_engine.index.sync import index_messages

        t0 = time.perf_counter()
        try:
            index = self._index_for(ws)
            with index.lock:  # a sync's diff, or forget's delete, never interleaves with these writes
                written = index_messages(index, ws.messages.get_many(ids), ws.messages)
        except Exception as exc:  # the scheduled sync indexes them later
            counters.inc("index.live_failed", len(ids))
            log.warning(
                "live indexing of %d messages failed (%s); left to the next sync",
                len(ids),
                type(exc).__name__,
            )
            return
        counters.inc("index.live_indexed", written)
        emit("index.live", messages=written, duration_ms=round((time.perf_counter() - t0) * 1000, 2))
