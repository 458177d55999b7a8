"""Batches messages for the LLM tier in a worker thread, and never loses a batch.

A batch leaves the queue when it reaches batchSize, when cooldownMs passes without a new
message, or on flush(). It costs exactly one LLM call when the call succeeds; failures are
retried with exponential backoff, and after failureThreshold consecutive failures the tier
cools down (no calls at all). A batch that cannot be processed is parked (`extract.parked`:
one JSON file in `pending_dir`, or a row of the shared database that any node may send) and
retried later, also by the next process, and deleted only after its sink has succeeded: an
outage or a restart costs time, not facts. With `inbox=True` (the engine) the messages still
waiting in memory are journalled too (`extract.inbox`), and a delivered batch is released only
by the store flush that made its facts durable (`checkpoint()` / `release()`), so even kill -9
costs no LLM facts.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from knowledge_engine.config import LlmConfig
from knowledge_engine.extract.inbox import INBOX_NAME, LlmInbox
from knowledge_engine.extract.llm import LlmTier
from knowledge_engine.extract.parked import FileParked, ParkedStore
from knowledge_engine.ingest.redact import Gate, Tally
from knowledge_engine.llm.errors import LlmError
from knowledge_engine.model.extraction import Extraction
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit

Sink = Callable[[list[Message], list[Extraction]], None]
KnownEntities = Callable[[], list[tuple[str, str]]]
MAX_BACKOFF_S = 60.0
PENDING_VERSION = 1
# The server answered, so the batch itself is the problem: retrying it unchanged rarely helps.
CONTENT_FAILURES = frozenset({"bad_output", "truncated"})


@dataclass(eq=False)
class _Batch:
    messages: list[Message]
    id: str = field(default_factory=lambda: f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}")
    key: str | None = None  # set once the batch is parked (its key in the parked store)
    lock: threading.RLock = field(default_factory=threading.RLock)
    done: bool = False  # the sink succeeded
    content_failures: int = 0  # unusable outputs so far (kept in the pending file)
    last_failure: str = ""
    abandoned: bool = False  # stop() parked it while in flight: the file owns it now
    live: bool = False  # taken from the in-memory queue (its messages are in the inbox)


class LlmBatcher:
    """Queue -> batches -> one LlmTier call each -> sink(messages, extractions)."""

    def __init__(
        self,
        config: LlmConfig,
        tier: LlmTier,
        pending_dir: Path,
        sink: Sink,
        known_entities: KnownEntities,
        inbox: bool = False,
        parked: ParkedStore | None = None,
    ) -> None:
        self._config = config
        self._tier = tier
        self._pending_dir = Path(pending_dir)
        self._parked: ParkedStore = parked if parked is not None else FileParked(self._pending_dir)
        self._sink = sink
        self._known_entities = known_entities
        self._queue: list[Message] = []
        self._cond = threading.Condition()
        self._last_add = time.monotonic()
        self._flush_requested = False
        self._busy = 0  # batches being processed (worker or retry_pending caller)
        self._inflight: set[_Batch] = set()
        self._send_lock = threading.RLock()  # one batch in flight at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._consecutive_failures = 0
        self._ever_succeeded = False  # evidence that the model can answer at all
        self._cooling_until = 0.0
        self._next_pending_try: float | None = None
        self._counts: Counter[str] = Counter()
        self._inbox = LlmInbox(self._pending_dir / INBOX_NAME) if inbox else None
        self._delivered: set[str] = set()  # parked batches whose facts wait for a store flush (claimed)
        self._gates: list[Gate] = []  # forgets applied while this batcher ran (see forget())
        self._write_lock = threading.Lock()  # a parked write (scrub + write) or a forget's rewrite, not both
        self._retry_lock = threading.Lock()  # one retry pass at a time: a second one waits, never races
        self._retried_unreported = 0  # parked batches delivered since the last take_retried()

    # ------------------------------------------------------------------ public API

    def start(self) -> None:
        """Start the worker; it first retries whatever a previous process parked."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        with contextlib.suppress(OSError):  # an unwritable folder is reported when a batch must be parked
            self._pending_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._parked.prepare()
        if self._pending_files():
            self._next_pending_try = time.monotonic()
        if self._inbox is not None:
            waiting = self._inbox.recover()
            with self._cond:
                self._queue[:0] = waiting
                if waiting:
                    self._last_add = 0.0  # their quiet time is long over: send them now
        self._thread = threading.Thread(target=self._run, name="llm-batcher", daemon=True)
        self._thread.start()

    def add(self, message: Message) -> None:
        """Queue one message; never blocks on the LLM."""
        if self._stop.is_set():
            self._park(_Batch([message]))  # after stop(): straight to disk, nothing is lost
            return
        if not all(gate.admit(message) for gate in list(self._gates)):
            return  # pending when it was forgotten: it gets no LLM extraction
        if self._inbox is not None and not self._inbox.append(message):
            counters.inc("llm.already_waiting")  # a replayed message that the inbox re-queued already
            return
        with self._cond:
            self._queue.append(message)
            self._last_add = time.monotonic()
            self._cond.notify_all()

    def flush(self, timeout: float) -> bool:
        """Send every queued message now; True when the queue is empty and nothing is in flight."""
        deadline = time.monotonic() + max(0.0, timeout)
        if self._stop.is_set():  # stopped: nothing more is sent (waiting would wait for an abandoned call)
            with self._cond:
                return not self._queue and not self._busy
        if self._thread is None or not self._thread.is_alive():
            self._drain_inline(deadline)
        with self._cond:
            self._flush_requested = True
            self._cond.notify_all()
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def stop(self, timeout: float) -> None:
        """Flush within most of `timeout`, then park whatever is still queued or in flight."""
        deadline = time.monotonic() + max(0.0, timeout)
        again = self._stop.is_set()  # stopped before (e.g. stop(0)): its abandoned call is not waited for
        if not again and self._thread is not None and self._thread.is_alive():
            self.flush(max(0.0, timeout) * 0.8)
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and not again:
            self._thread.join(max(0.0, deadline - time.monotonic()))
        self._park_leftovers(deadline)
        if not again:
            emit("llm.batcher_stopped", **self.stats())

    def retry_pending(self) -> int:
        """Process parked batches, oldest first; stop at the first failure that is the server's
        (outage, cool-down), go on past one that is the batch's own (it is split). Returns deliveries.
        A pass already running here (the worker's, at start) is waited for, not raced."""
        with self._retry_lock:
            delivered = self._retry_pass()
            self._retried_unreported += delivered
        return delivered

    def take_retried(self) -> int:
        """Parked batches delivered by every retry pass since the last call (the worker's own too)."""
        with self._retry_lock:
            n, self._retried_unreported = self._retried_unreported, 0
        return n

    def _retry_pass(self) -> int:
        delivered = 0
        self._next_pending_try = None  # a failure below schedules the next try
        for key in self._pending_files():
            if self._stop.is_set() or self._cooling():
                break
            with self._send_lock:  # load under the lock: a concurrent caller may have just delivered it
                if not self._parked.claim(key):
                    continue  # another process (a host, a CLI's maintenance run, another node) is sending it
                batch = self._load(key)
                if batch is None:
                    self._parked.unclaim(key)
                    continue
                ok = self._process(batch)
                if key not in self._delivered:  # kept claimed until the store flush releases it
                    self._parked.unclaim(key)
            if ok:
                delivered += 1
            elif self._cooling() or batch.last_failure not in CONTENT_FAILURES:
                break  # the server is the problem: wait for the next try
        if self._pending_files():
            self._schedule_pending_retry()
        if delivered:
            emit("llm.pending_retried", delivered=delivered, left=len(self._pending_files()))
        return delivered

    def checkpoint(self) -> tuple[int, list[str]]:
        """Taken just before a store flush: what that flush will make durable."""
        with self._cond:
            files = list(self._delivered)
        return (self._inbox.checkpoint() if self._inbox is not None else 0), files

    def release(self, token: tuple[int, list[str]]) -> None:
        """After a successful store flush: drop the inbox lines and parked batches it covered."""
        n, keys = token
        if self._inbox is not None:
            self._inbox.release(n)
        for key in keys:
            with contextlib.suppress(OSError):  # left parked: sent again later (idempotent)
                self._parked.remove(key)
            with self._cond:
                self._delivered.discard(key)

    def forget(self, gate: Gate) -> Tally:
        """Apply a forget to every message waiting for the LLM: queued, in flight, in the inbox, parked.

        Only forgotten content goes: a forgotten message leaves its batch, a name is redacted in the
        others, and a parked file is removed only when no message is left in it. The gate is kept, so
        a batch parked later (a failed call) is written without the forgotten content too.
        """
        self._gates.append(gate)
        redactor = gate.redactor
        tally = Tally()
        with self._cond:
            kept = []
            for msg in self._queue:
                gate.watch(msg.id)
                tally.examined += 1
                verdict = redactor.message(msg)
                tally.redacted += verdict == "redacted"
                tally.dropped += verdict == "drop"
                if verdict != "drop":
                    kept.append(msg)
            self._queue[:] = kept
            for batch in list(self._inflight):  # already sent: the gate filters what comes back
                for msg in batch.messages:
                    gate.watch(msg.id)
                    redactor.message(msg)
        if self._inbox is not None:
            tally.add(self._inbox.forget(redactor, gate.watch))
        with self._write_lock:  # a batch scrubbed before the gate must not land after this rewrite
            tally.add(self._parked.forget(redactor, gate.watch))
        return tally

    def _scrub(self, messages: list[Message]) -> list[Message]:
        """The messages of a batch about to be written, without forgotten content."""
        gates = list(self._gates)
        return [m for m in messages if all(g.admit(m) for g in gates)] if gates else messages

    def stats(self) -> dict[str, Any]:
        with self._cond:
            queued = len(self._queue)
            in_flight = sum(len(b.messages) for b in list(self._inflight))
        return {
            "queued": queued,
            "in_flight_messages": in_flight,
            "inbox": len(self._inbox) if self._inbox is not None else 0,
            "pending_batches": len(self._pending_files()),
            "failed_batches": self._parked.failed_count(),
            "sent_batches": self._counts["sent_batches"],
            "delivered_messages": self._counts["delivered_messages"],
            "calls": self._counts["calls"],
            "failures": self._counts["failures"],
            "parked_batches": self._counts["parked_batches"],
            "overflow_batches": self._counts["overflow_batches"],
            "cooling_down": self._cooling(),
        }

    # ------------------------------------------------------------------ worker

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception as exc:  # keep the worker alive; a dead worker would silently stop the tier
                counters.inc("llm.worker_errors")
                emit("llm.worker_error", logging.ERROR, error=type(exc).__name__)
                self._stop.wait(1.0)

    def _step(self) -> None:
        if self._pending_due():
            self.retry_pending()
            return
        batch = self._next_batch()
        if batch is None:
            return
        ok = self._process(batch)
        if ok and self._next_pending_try is not None:
            self._next_pending_try = time.monotonic()  # the LLM is back: drain the parked ones

    def _pending_due(self) -> bool:
        due = self._next_pending_try
        return due is not None and time.monotonic() >= due and not self._cooling()

    def _next_batch(self) -> _Batch | None:
        """Wait for a full batch, a quiet cooldown, a flush or a pending retry; take it under the lock."""
        with self._cond:
            while not self._stop.is_set():
                now = time.monotonic()
                quiet_at = self._last_add + self._config.cooldown_ms / 1000
                n = len(self._queue)
                if n >= self._config.batch_size or (n and (self._flush_requested or now >= quiet_at)):
                    taken = self._queue[: self._config.batch_size]
                    del self._queue[: self._config.batch_size]
                    if not self._queue:
                        self._flush_requested = False
                    self._busy += 1  # released in _process
                    return _Batch(taken, live=True)
                if not n:
                    self._flush_requested = False
                    self._cond.notify_all()
                wakeups = [quiet_at] if n else []
                if self._next_pending_try is not None:
                    wakeups.append(max(self._next_pending_try, self._cooling_until))
                if wakeups and min(wakeups) <= now:
                    return None
                self._cond.wait(min(wakeups) - now if wakeups else None)
            return None

    def _drain_inline(self, deadline: float) -> None:
        """flush() without a running worker: process the queue in the caller's thread."""
        while time.monotonic() < deadline:
            with self._cond:
                if not self._queue:
                    return
                taken = self._queue[: self._config.batch_size]
                del self._queue[: self._config.batch_size]
                self._busy += 1
            self._process(_Batch(taken, live=True), counted=True)

    # ------------------------------------------------------------------ one batch

    def _process(self, batch: _Batch, counted: bool | None = None) -> bool:
        """Deliver one batch (calls, retries, cool-down); park it if that is impossible."""
        if counted is None:
            counted = batch.key is None  # live batches were counted as busy by _next_batch
        if not counted:
            with self._cond:
                self._busy += 1
        try:
            with self._send_lock:
                self._inflight.add(batch)
                try:
                    return self._attempts(batch)
                finally:
                    self._inflight.discard(batch)
        finally:
            with self._cond:
                self._busy -= 1
                self._cond.notify_all()

    def _attempts(self, batch: _Batch) -> bool:
        attempt = 0
        while True:
            if self._cooling():
                self._park(batch, reason="cooling_down")
                return False
            extractions = self._call(batch, attempt)
            if extractions is not None:
                return self._deliver(batch, extractions)
            if batch.abandoned:
                return False
            if self._should_split(batch):
                self._park(batch, reason=batch.last_failure)
                self._split_or_set_aside(batch)
                return False
            if self._cooling() or attempt >= self._config.max_retries:
                self._park(batch, reason="cooling_down" if self._cooling() else "retries_exhausted")
                return False
            delay = min(MAX_BACKOFF_S, self._config.retry_backoff_ms / 1000 * (2**attempt))
            if self._stop.wait(delay):
                self._park(batch, reason="stopping")
                return False
            attempt += 1

    def _call(self, batch: _Batch, attempt: int) -> list[Extraction] | None:
        """One LLM call; None on failure (counted, and the breaker updated)."""
        try:
            known = self._known_entities()
        except Exception as exc:
            counters.inc("llm.known_entities_failed")
            emit("llm.known_entities_failed", logging.WARNING, error=type(exc).__name__)
            known = []
        self._counts["calls"] += 1
        try:
            extractions = self._tier.extract(batch.messages, known)
        except LlmError as exc:
            batch.last_failure = exc.reason
            if exc.reason in CONTENT_FAILURES:
                batch.content_failures += 1
            self._failed(exc.reason, attempt, exc.status, breaker=not self._should_split(batch))
            return None
        except Exception as exc:  # a bug, not an outage; only the type is logged (messages may hold text)
            emit("llm.unexpected_error", logging.ERROR, error=type(exc).__name__)
            batch.last_failure = "unexpected"
            self._failed("unexpected", attempt, None)
            return None
        self._consecutive_failures = 0
        self._ever_succeeded = True
        return extractions

    def _should_split(self, batch: _Batch) -> bool:
        """Split when the batch's own output keeps failing: always for truncation (too big), and for bad
        JSON only once the model has shown it can answer (else a wrong model would shred every batch)."""
        if batch.content_failures < self._config.split_after_bad_outputs:
            return False
        if batch.last_failure == "truncated":
            return True
        return batch.last_failure in CONTENT_FAILURES and self._ever_succeeded

    def _failed(self, reason: str, attempt: int, status: int | None, breaker: bool = True) -> None:
        self._counts["failures"] += 1
        self._consecutive_failures += 1
        counters.inc(f"llm.failure.{reason}")
        emit("llm.call_failed", logging.WARNING, reason=reason, status=status, attempt=attempt,
             consecutive=self._consecutive_failures)
        if breaker and self._consecutive_failures >= self._config.failure_threshold:
            self._cooling_until = time.monotonic() + self._config.failure_cooldown_ms / 1000
            counters.inc("llm.cooldowns")
            emit("llm.cooling_down", logging.WARNING, seconds=self._config.failure_cooldown_ms / 1000,
                 consecutive=self._consecutive_failures)

    def _deliver(self, batch: _Batch, extractions: list[Extraction]) -> bool:
        with batch.lock:
            if batch.abandoned:
                return False
            try:
                self._sink(batch.messages, extractions)
            except Exception as exc:
                counters.inc("llm.sink_failed")
                emit("llm.sink_failed", logging.ERROR, error=type(exc).__name__, messages=len(batch.messages))
                self._park(batch, reason="sink_failed")
                return False
            batch.done = True
            self._owned(batch)
        self._counts["sent_batches"] += 1
        self._counts["delivered_messages"] += len(batch.messages)
        if batch.key is not None:
            if self._inbox is not None:  # the facts are in memory: the batch goes with the next store flush
                with self._cond:
                    self._delivered.add(batch.key)
            else:
                with contextlib.suppress(OSError):
                    self._parked.remove(batch.key)
        return True

    def _owned(self, batch: _Batch) -> None:
        if self._inbox is not None and batch.live:
            self._inbox.owned(m.id for m in batch.messages)

    # ------------------------------------------------------------------ pending store

    def _cooling(self) -> bool:
        return time.monotonic() < self._cooling_until

    def _pending_files(self) -> list[str]:
        return [k for k in self._parked.waiting() if k not in self._delivered]

    def _park(self, batch: _Batch, reason: str = "failed") -> None:
        """Write the batch to disk once (atomically); bounded, overflow counted and logged."""
        with batch.lock:
            if batch.done:
                return
            if batch.key is not None:  # already parked: just keep its failure count current
                with contextlib.suppress(OSError):  # only the failure count is lost
                    self._write(batch, batch.key, reason, create=False)
                self._schedule_pending_retry()
                return
            try:
                self._make_room()
                self._write(batch, batch.id, reason, create=True)
            except OSError as exc:  # disk full or read-only: the loss is counted and logged, loudly
                counters.inc("llm.lost_messages", len(batch.messages))
                emit("llm.park_failed", logging.ERROR, error=type(exc).__name__, messages=len(batch.messages))
                return
            batch.key = batch.id
            self._owned(batch)
        self._counts["parked_batches"] += 1
        counters.inc("llm.parked_batches")
        emit("llm.batch_parked", reason=reason, messages=len(batch.messages))
        self._schedule_pending_retry()

    def _write(self, batch: _Batch, key: str, reason: str, create: bool) -> None:
        """Scrub and write under the write lock: a forget's rewrite of the same file comes wholly
        before (the scrub then sees its gate) or wholly after (it redacts what this wrote)."""
        with self._write_lock:
            self._write_scrubbed(batch, key, reason, create)

    def _write_scrubbed(self, batch: _Batch, key: str, reason: str, create: bool) -> None:
        messages = self._scrub(batch.messages)
        if not messages:  # every message in it was forgotten
            if not create:
                self._parked.remove(key)
            return
        body = {
            "version": PENDING_VERSION,
            "id": batch.id,
            "reason": reason,
            "content_failures": batch.content_failures,
            "messages": [m.model_dump(mode="json") for m in messages],
        }
        self._parked.write(key, orjson.dumps(body), create)

    def _split_or_set_aside(self, batch: _Batch) -> None:
        """A batch the model cannot answer: halve it (written before the original is removed);
        a single message is renamed to .failed, kept for inspection, counted and logged."""
        if batch.key is None:
            return
        if len(batch.messages) == 1:
            counters.inc("llm.set_aside")  # before the batch shows as failed: readers see both agree
            with contextlib.suppress(OSError):
                self._parked.set_aside(batch.key, "failed")
            self._consecutive_failures = 0
            emit("llm.batch_set_aside", logging.WARNING, reason=batch.last_failure, messages=1)
            return
        half = len(batch.messages) // 2
        for suffix, part in (("a", batch.messages[:half]), ("b", batch.messages[half:])):
            self._park(_Batch(part, id=f"{batch.id}-{suffix}"), reason="split")
        with contextlib.suppress(OSError):
            self._parked.remove(batch.key)
        self._consecutive_failures = 0  # the server answered; the halves are a new trial
        counters.inc("llm.split_batches")
        emit("llm.batch_split", reason=batch.last_failure, messages=len(batch.messages))
        self._next_pending_try = time.monotonic()  # the server answers: try the halves right away

    def _schedule_pending_retry(self) -> None:
        if self._next_pending_try is None:
            self._next_pending_try = time.monotonic() + self._config.failure_cooldown_ms / 1000

    def _make_room(self) -> None:
        """Drop the oldest parked batches beyond maxPendingBatches (never silently)."""
        files = self._pending_files()
        excess = len(files) - self._config.max_pending_batches + 1
        for key in files[: max(0, excess)]:
            lost = self._message_count(key)
            with contextlib.suppress(OSError):
                self._parked.remove(key)
            self._counts["overflow_batches"] += 1
            counters.inc("llm.overflow")
            counters.inc("llm.overflow_messages", lost)
            emit("llm.pending_overflow", logging.WARNING, dropped_batches=1, dropped_messages=lost,
                 limit=self._config.max_pending_batches)

    def _message_count(self, key: str) -> int:
        try:
            return len(orjson.loads(self._parked.read(key) or b"{}").get("messages", []))
        except (OSError, orjson.JSONDecodeError, AttributeError):
            return 0

    def _load(self, key: str) -> _Batch | None:
        try:
            raw = self._parked.read(key)
            if raw is None:
                return None
            body = orjson.loads(raw)
            messages = [Message.model_validate(m) for m in body["messages"]]
        except Exception:
            counters.inc("llm.pending_corrupt")
            emit("llm.pending_corrupt", logging.ERROR, file=f"batch-{key}")
            with contextlib.suppress(OSError):
                self._parked.set_aside(key, "corrupt")
            return None
        failures = body.get("content_failures", 0)
        failures = failures if isinstance(failures, int) else 0
        return _Batch(messages, id=key, key=key, content_failures=failures)

    def _park_leftovers(self, deadline: float) -> None:
        with self._cond:
            queued, self._queue = self._queue, []
        size = self._config.batch_size
        for i in range(0, len(queued), size):
            self._park(_Batch(queued[i : i + size], live=True), reason="stopped")
        for batch in list(self._inflight):
            if batch.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                try:
                    if not batch.done:  # a parked one keeps its file: its late answer must not be
                        if batch.key is None:  # delivered to a closed store and the file deleted
                            self._park(batch, reason="stopped_in_flight")
                        batch.abandoned = True
                finally:
                    batch.lock.release()
