"""Write-ahead inbox of the LLM tier: messages waiting in a batch survive kill -9.

Why: the LLM tier holds messages in memory until a batch is full or quiet (batchSize,
cooldownMs), while their local facts are already stored and the ingest journal may have
dropped them. Each message handed to the tier is appended here (one write, no fsync, like the
journal) and stays until its batch is owned elsewhere: parked in its own file, or delivered
and then written by a store flush. The next process re-queues whatever is left; applying an
LLM extraction twice is idempotent, so a replay never duplicates.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from knowledge_engine.fsio import write_atomic
from knowledge_engine.ingest.journal import decode_message, encode_message
from knowledge_engine.ingest.redact import FORGOTTEN_LINE, Redactor, Tally, message_line
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

log = logging.getLogger("knowledge_engine.llm")

INBOX_NAME = "inbox.jsonl"


class LlmInbox:
    """An append-only file of waiting messages, trimmed from the head once they are owned."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._order: deque[str] = deque()  # message ids, in file order
        self._waiting: set[str] = set()
        self._owned: set[str] = set()

    def recover(self) -> list[Message]:
        """The messages an earlier process left waiting; they stay in the file until owned."""
        msgs: list[Message] = []
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return msgs
        except OSError as exc:
            counters.inc("llm.inbox_errors")
            log.error("LLM inbox unreadable (%s); its messages get no LLM facts", type(exc).__name__)
            return msgs
        for line in raw.splitlines():
            if line + b"\n" == FORGOTTEN_LINE:
                continue  # a message forgotten while it waited
            msg = decode_message(line)
            if msg is None:
                counters.inc("llm.inbox_bad_line")  # a line torn by the kill itself
            elif msg.id not in self._waiting:
                msgs.append(msg)
                self._waiting.add(msg.id)
                self._order.append(msg.id)
        try:
            self._rewrite([encode_message(m) for m in msgs])  # without the torn lines
        except OSError as exc:
            counters.inc("llm.inbox_errors")
            log.error("LLM inbox not rewritten (%s)", type(exc).__name__)
        if msgs:
            counters.inc("llm.inbox_replayed", len(msgs))
            log.warning("re-queueing %d messages left waiting for the LLM tier by an unclean stop", len(msgs))
        return msgs

    def append(self, msg: Message) -> bool:
        """Record one waiting message; False if it is already waiting (a replay: do not queue it twice)."""
        with self._lock:
            if msg.id in self._waiting:
                return False
            try:
                line = encode_message(msg)
                with open(self.path, "ab") as fh:
                    fh.write(line)
            except (OSError, TypeError) as exc:
                counters.inc("llm.inbox_errors")
                log.error("LLM inbox not writable (%s); the message is queued without it", type(exc).__name__)
                return True
            self._waiting.add(msg.id)
            self._order.append(msg.id)
            return True

    def owned(self, ids: Iterable[str]) -> None:
        """These messages' batch is parked on disk or delivered to the store."""
        with self._lock:
            self._owned.update(i for i in ids if i in self._waiting)

    def checkpoint(self) -> int:
        """Taken just before a store flush: how many head lines that flush makes redundant."""
        with self._lock:
            n = 0
            for rid in self._order:
                if rid not in self._owned:
                    break
                n += 1
            return n

    def release(self, n: int) -> None:
        """After a successful flush: drop the first n lines."""
        if n <= 0:
            return
        with self._lock:
            for _ in range(min(n, len(self._order))):
                rid = self._order.popleft()
                self._waiting.discard(rid)
                self._owned.discard(rid)
            try:
                rest = self.path.read_bytes().splitlines(keepends=True)[n:] if self._order else []
                self._rewrite(rest)
            except OSError as exc:  # the lines stay: a replay is idempotent, only time is lost
                counters.inc("llm.inbox_errors")
                log.error("LLM inbox not trimmed (%s)", type(exc).__name__)

    def forget(self, redactor: Redactor, seen: Callable[[str], None] | None = None) -> Tally:
        """Redact waiting messages in place; a forgotten one leaves a placeholder line (the line count is
        what checkpoints trim by) and counts as owned, so the lines after it can still be released."""
        tally = Tally()
        with self._lock:
            try:
                lines = self.path.read_bytes().splitlines()
            except FileNotFoundError:
                return tally
            out: list[bytes] = []
            dropped: list[str] = []
            for line in lines:
                new = message_line(line, redactor, tally, seen, keep=True)
                if new == FORGOTTEN_LINE and line + b"\n" != FORGOTTEN_LINE:
                    msg = decode_message(line)
                    if msg is not None:
                        dropped.append(msg.id)
                out.append(new or FORGOTTEN_LINE)
            if tally.redacted or tally.dropped:
                write_atomic(self.path, b"".join(out))
            self._owned.update(i for i in dropped if i in self._waiting)
        return tally

    def __len__(self) -> int:
        return len(self._order)

    def _rewrite(self, lines: list[bytes]) -> None:
        if not lines:
            if self.path.exists():
                self.path.write_bytes(b"")
            return
        write_atomic(self.path, b"".join(lines), durable=False)  # no fsync, like the appends
