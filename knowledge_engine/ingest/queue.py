"""The bounded ingest queue between the hooks and the extraction worker.

Why: `message_received` must return within a millisecond, so it only enqueues. One worker
thread drains the queue in batches (spaCy is much faster on batches). Overload policy:
when the queue is full the message is appended to the workspace's spill file
(`ingest-spill.jsonl`) and processed after the queue drains, so nothing is dropped. Only a
failing disk can drop a message, and that is counted and logged.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from knowledge_engine.exitwait import outlived
from knowledge_engine.fsio import write_atomic
from knowledge_engine.ingest.journal import IngestJournal, decode_message, encode_message
from knowledge_engine.ingest.redact import Gate, Tally, rewrite_jsonl
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, failure

log = logging.getLogger("knowledge_engine.ingest.queue")

SPILL_NAME = "ingest-spill.jsonl"
Processor = Callable[[Path, list[Message]], None]
RETRY_MAX_S = 5.0  # the longest wait between two tries of a batch the store could not take
RETRIES_WHILE_REACHABLE = 3  # a batch that fails while its store answers is poison, not an outage


class StoreUnavailable(Exception):
    """Raised by a processor when the store could not take the batch (a shared database is down).

    The batch is retried, with backoff, for as long as the outage lasts: it is not counted applied, so
    the journal keeps it until the store has it (a stop parks it; the next start replays it).
    `reachable()` tells an outage from a batch that fails on a store that answers (poison: after a few
    tries it is counted and logged like any failing batch, so one bad message cannot stall ingest)."""

    def __init__(self, what: str, reachable: Callable[[], bool]) -> None:
        super().__init__(what)
        self.reachable = reachable


class _Stopped(Exception):
    """stop() came while a batch waited for its store: the batch stays pending (journalled, parked)."""


class IngestQueue:
    """Accepts messages without blocking and feeds them to `process` in batches."""

    def __init__(
        self, process: Processor, maxsize: int, batch_size: int, journal: IngestJournal | None = None
    ) -> None:
        self._process = process
        self.journal = journal
        self._q: queue.Queue[tuple[Path, Message]] = queue.Queue(maxsize)
        self._batch = batch_size
        self._spill_lock = threading.Lock()
        self._spilled: set[Path] = set()
        self._inflight = 0
        self._spill_busy = False
        self._current: list[tuple[Path, Message]] = []
        self._idle = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.high_water = 0

    # ------------------------------------------------------------------ producer side
    def submit(self, folder: Path, msg: Message) -> bool:
        """Journal, then enqueue; on overflow spill to disk. False only if the message was dropped."""
        self._ensure_thread()
        if self.journal is not None:
            self.journal.append(folder, msg)
        try:
            self._q.put_nowait((folder, msg))
            counters.inc("ingest.accepted")
            self.high_water = max(self.high_water, self._q.qsize())
            return True
        except queue.Full:
            return self._spill(folder, msg)

    def park(self, folder: Path, msg: Message) -> bool:
        """Keep a message whose workspace cannot be opened now (its shared database is down) in the
        folder's spill file: opening the workspace (`recover`) processes it, in this process or the
        next. Not scheduled here: processing it needs the workspace. False only if it was dropped."""
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(folder / SPILL_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with self._spill_lock, os.fdopen(fd, "ab") as fh:
                fh.write(encode_message(msg))
        except OSError as exc:
            counters.inc("ingest.dropped")
            log.error("a message could not be parked (%s): dropped", failure(exc))
            return False
        counters.inc("ingest.accepted")
        counters.inc("ingest.parked")
        return True

    def _spill(self, folder: Path, msg: Message, count: bool = True) -> bool:
        try:
            line = encode_message(msg)
            with self._spill_lock, open(folder / SPILL_NAME, "ab") as fh:
                fh.write(line)
            self._spilled.add(folder)
            self._ensure_thread()
            if count:
                counters.inc("ingest.accepted")
                counters.inc("ingest.spilled")
            return True
        except OSError as exc:
            counters.inc("ingest.dropped")
            log.error(
                "ingest queue full and spill file not writable (%s): message dropped", type(exc).__name__
            )
            return False

    def recover(self, folder: Path) -> int:
        """At workspace open: what an earlier process left (its journal, spill file, and the `.work` file of
        a drain it was killed in) becomes one spill file holding each message once, all counted pending in
        the journal; returns how many messages will be replayed."""
        path, work = folder / SPILL_NAME, folder / (SPILL_NAME + ".work")
        left = _read_spill(work) + _read_spill(path)
        merged = self.journal.recover_with(folder, left) if self.journal is not None else None
        if merged is None:  # no journal of ours: process the files as they are
            if left:
                self._spilled.add(folder)
                self._ensure_thread()
            return len(left)
        with self._spill_lock:
            if merged:
                write_atomic(path, b"".join(encode_message(m) for m in merged), durable=False)
            else:
                path.unlink(missing_ok=True)
            work.unlink(missing_ok=True)  # its messages are in the new spill file
        if merged:
            self._spilled.add(folder)
            self._ensure_thread()
        return len(merged)

    # ------------------------------------------------------------------ worker side
    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="knowledge-engine-ingest", daemon=True)
            self._thread.start()

    def _take_batch(self) -> list[tuple[Path, Message]]:
        try:
            first = self._q.get(timeout=0.2)
        except queue.Empty:
            return []
        batch = [first]
        while len(batch) < self._batch:
            try:
                batch.append(self._q.get_nowait())
            except queue.Empty:
                break
        return batch

    def _run(self) -> None:
        while not self._stop.is_set():
            batch = self._take_batch()
            if batch:
                with self._idle:
                    self._inflight += len(batch)
                    self._current = batch
                try:
                    self._dispatch(batch)
                finally:
                    with self._idle:
                        self._inflight -= len(batch)
                        self._current = []
                        for _ in batch:
                            self._q.task_done()
                        self._idle.notify_all()
            elif self._spilled:
                with self._idle:
                    self._spill_busy = True
                try:
                    self._drain_spill()
                finally:
                    with self._idle:
                        self._spill_busy = False
                        self._idle.notify_all()
            else:
                with self._idle:
                    self._idle.notify_all()

    def _dispatch(self, batch: list[tuple[Path, Message]]) -> None:
        groups: dict[Path, list[Message]] = {}
        for folder, msg in batch:
            groups.setdefault(folder, []).append(msg)
        for folder, msgs in groups.items():
            done = True
            try:
                self._process_until_stored(folder, msgs)
                counters.inc("ingest.processed", len(msgs))
            except _Stopped:
                done = False  # not applied: its journal lines stay, and it is parked, for the next start
                for msg in msgs:
                    self._spill(folder, msg, count=False)
            except Exception as exc:
                counters.inc("ingest.failed", len(msgs))
                log.exception("processing a batch of %d messages failed: %s", len(msgs), type(exc).__name__)
            finally:  # a failing (poison) batch is not replayed forever: it is counted and logged instead
                if done and self.journal is not None:
                    self.journal.applied(folder, len(msgs))

    def _process_until_stored(self, folder: Path, msgs: list[Message]) -> None:
        """Process a batch; while its store is unavailable, wait and try again (applying is idempotent)."""
        delay, poison = 0.2, 0
        while True:
            try:
                self._process(folder, msgs)
                return
            except StoreUnavailable as exc:
                counters.inc("ingest.store_unavailable")
                poison += bool(exc.reachable())
                if poison >= RETRIES_WHILE_REACHABLE:
                    raise
                log.warning("the store could not take %d messages; retrying in %.1f s", len(msgs), delay)
                if self._stop.wait(delay):
                    raise _Stopped from exc
                delay = min(delay * 2, RETRY_MAX_S)

    def _drain_spill(self) -> None:
        for folder in list(self._spilled):
            path = folder / SPILL_NAME
            work = folder / (SPILL_NAME + ".work")
            with self._spill_lock:
                self._spilled.discard(folder)
            while True:  # a `.work` file first (none after recover()), then what was spilled meanwhile
                with self._spill_lock:
                    if not work.exists():
                        if not path.exists():
                            break
                        path.replace(work)
                msgs = _read_spill(work)
                for start in range(0, len(msgs), self._batch):
                    self._dispatch([(folder, m) for m in msgs[start : start + self._batch]])
                work.unlink(missing_ok=True)

    # ------------------------------------------------------------------ forget
    def forget(self, folder: Path, gate: Gate) -> Tally:
        """Apply a forget to this folder's messages waiting here: queued and in-flight ones are redacted
        in place (the gate keeps a forgotten one out of the stores), spill files rewritten."""
        redactor = gate.redactor
        tally = Tally()
        with self._idle:  # never both locks at once: drain() and the worker take them in the other order
            current = list(self._current)
        with self._q.mutex:
            queued = list(self._q.queue)
        waiting = [m for f, m in [*queued, *current] if f == folder]
        for msg in waiting:
            gate.watch(msg.id)
            tally.examined += 1
            verdict = redactor.message(msg)
            tally.redacted += verdict == "redacted"
            tally.dropped += verdict == "drop"
        with self._spill_lock:
            spilled = rewrite_jsonl(folder / SPILL_NAME, redactor, gate.watch)
            if spilled.dropped and self.journal is not None:
                self.journal.applied(folder, spilled.dropped)  # never processed now: not pending either
            tally.add(spilled)
            # a drain has this file (it reads it once, right after taking it): what it read, the gate filters
            tally.add(rewrite_jsonl(folder / (SPILL_NAME + ".work"), redactor, gate.watch))
        return tally

    # ------------------------------------------------------------------ control
    def pending(self) -> int:
        return self._q.qsize() + self._inflight + len(self._spilled) + int(self._spill_busy)

    def drain(self, timeout_s: float) -> bool:
        """Wait until everything accepted so far is processed; False on timeout."""
        if self._thread is None:
            return True
        deadline = time.monotonic() + timeout_s
        with self._idle:
            while self.pending() > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(min(left, 0.05))
        return True

    def stop(self, timeout_s: float) -> bool:
        """Drain within the budget; whatever is left is spilled to disk for the next start."""
        drained = self.drain(timeout_s)
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=0.5)
            outlived(self._thread)  # mid-batch: parked below; the interpreter's exit waits for it
        leftovers: list[tuple[Path, Message]] = []
        with self._idle:
            leftovers.extend(self._current)  # still being processed: parked too (apply is idempotent)
        while True:
            try:
                leftovers.append(self._q.get_nowait())
            except queue.Empty:
                break
        for folder, msg in leftovers:
            self._spill(folder, msg)
            counters.inc("ingest.parked_at_stop")
        if leftovers:
            log.warning(
                "stopped before %d messages were extracted; they are parked in %s and processed "
                "on the next start",
                len(leftovers),
                SPILL_NAME,
            )
        return drained


def _read_spill(path: Path) -> list[Message]:
    """The messages of a spill file; a line torn by a kill is counted, logged and skipped."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    msgs = []
    for i, line in enumerate(raw.splitlines(), 1):
        msg = decode_message(line)
        if msg is None:
            counters.inc("ingest.spill_bad_line")
            log.error("spill file line %d unreadable; skipped", i)
        else:
            msgs.append(msg)
    return msgs
