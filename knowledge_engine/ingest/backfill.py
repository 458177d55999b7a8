"""One `ingest` run: which transcript messages are new, already stored or in conflict, what the run
added, and the wait for the LLM tier.

Why: the message log keeps the first text stored under an id. A transcript line that reuses an id
with other text would be dropped without a word while counted as ingested; it is reported with its
line number instead and left out (the stored message stays as it is). A message already stored with
the same text goes through the pipeline again: applying is idempotent, and a run killed before its
store flush gets its facts on the next run. Entity and fact counts are what this run added, next to
the workspace totals.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from knowledge_engine.model.records import Message

if TYPE_CHECKING:
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

POLL_S = 0.5
LlmProgress = Callable[[int, int], None]  # (messages the LLM has answered or parked, messages it had to do)


@dataclass(frozen=True)
class Conflict:
    """A transcript line whose id is stored (or earlier in the file) with a different text."""

    line: int
    id: str
    first_line: int | None  # None: stored before this run

    def describe(self) -> str:
        where = f"line {self.first_line} of this file" if self.first_line else "the workspace before this run"
        return f"line {self.line}: id {self.id!r} is already in {where} with a different text"


@dataclass
class Tally:
    new: int = 0
    already_stored: int = 0
    conflicts: list[Conflict] = field(default_factory=list)


@dataclass(frozen=True)
class LlmOutcome:
    waited: bool  # False: --no-wait-llm or the timeout parked what was left
    delivered_batches: int
    delivered_messages: int
    pending_batches: int  # files in llm-pending after the run (whoever parked them)
    failed_batches: int  # set aside (.failed) after repeated unusable answers
    failed_calls: int  # calls that failed (retried, or their batch parked)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).digest()


class Backfill:
    """Feeds numbered transcript messages to the engine and counts what happened to each."""

    def __init__(self, engine: KnowledgeEngine, ws: Workspace) -> None:
        self.engine = engine
        self.ws = ws
        self.tally = Tally()
        self._seen: dict[str, tuple[int, bytes]] = {}  # id -> (first line, text digest), this run
        self._entities = {e.id for e in ws.entities.all()}
        self._facts = {f.id for f in ws.facts.all()}

    def add(self, numbered: Iterable[tuple[int, Message]]) -> int:
        """Classify a batch, ingest the new and already stored ones; returns how many went in."""
        batch = list(numbered)
        stored = self._stored_texts([m.id for _, m in batch])
        keep: list[Message] = []
        for line, msg in batch:
            digest = _digest(msg.text)
            first = self._seen.get(msg.id)
            if first is not None:
                if first[1] != digest:
                    self.tally.conflicts.append(Conflict(line, msg.id, first[0]))
                else:
                    self.tally.already_stored += 1  # the same line twice: once is enough
                continue
            self._seen[msg.id] = (line, digest)
            before = stored.get(msg.id)
            if before is not None and before != digest:
                self.tally.conflicts.append(Conflict(line, msg.id, None))
                continue
            if before is None:
                self.tally.new += 1
            else:
                self.tally.already_stored += 1
            keep.append(msg)
        return self.engine.ingest(self.ws, keep) if keep else 0

    def _stored_texts(self, ids: list[str]) -> dict[str, bytes]:
        """Digests of the texts the message log holds under these ids (none without a message log)."""
        if not self.ws.config.memory.enabled:
            return {}
        return {m.id: _digest(m.text) for m in self.ws.messages.get_many(ids)}

    def added(self) -> dict[str, int]:
        """Entities and facts this run added, and the workspace totals."""
        entities = {e.id for e in self.ws.entities.all()}
        facts = {f.id for f in self.ws.facts.all()}
        return {
            "entities_added": len(entities - self._entities),
            "facts_added": len(facts - self._facts),
            "entities_total": len(entities),
            "facts_total": len(facts),
        }

    # ------------------------------------------------------------------ the LLM tier
    def wait_llm(self, timeout_s: float | None, progress: LlmProgress | None = None) -> bool:
        """Wait until the LLM tier answered every queued message (no limit when `timeout_s` is None);
        then, or at once with timeout 0, park what is left. True when nothing was left."""
        batcher = self.engine.llm_batcher(self.ws)
        if batcher is None:
            return True
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        total = _left(batcher)
        while True:
            step = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
            if batcher.flush(max(0.0, step)):
                done = True
                break
            left = _left(batcher)
            total = max(total, left)
            if progress is not None:
                progress(total - left, total)
            if deadline is not None and time.monotonic() >= deadline:
                done = False
                break
        if progress is not None:
            progress(total, total)
        if not done:
            batcher.stop(0)  # queued and in-flight batches go to llm-pending at once
        return done

    def llm_outcome(self, waited: bool) -> LlmOutcome | None:
        batcher = self.engine.llm_batcher(self.ws)
        if batcher is None:
            return None
        s = batcher.stats()
        return LlmOutcome(
            waited=waited,
            delivered_batches=int(s["sent_batches"]),
            delivered_messages=int(s["delivered_messages"]),
            pending_batches=int(s["pending_batches"]),
            failed_batches=int(s["failed_batches"]),
            failed_calls=int(s["failures"]),
        )


def _left(batcher: Any) -> int:
    s = batcher.stats()
    return int(s["queued"]) + int(s["in_flight_messages"])
