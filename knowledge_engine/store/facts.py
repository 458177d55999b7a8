"""The fact store: add with de-duplication, temporal supersession, decay, pruning, queries.

Relevance rules (kept in this one place): a new fact starts at 1.0; reinforcement and
access move it halfway to 1.0; decay multiplies it by (1 - rate) per elapsed interval,
computed from the time since the last decay so a process that was down catches up
exactly; it never falls below the floor.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from knowledge_engine.config import DecayConfig, FactsConfig, StorageConfig
from knowledge_engine.model.records import Evidence, Fact, SourceTier, canonical, fact_id, utcnow
from knowledge_engine.store.factquery import FactQuery, select
from knowledge_engine.store.persistence import WorkspaceLock
from knowledge_engine.store.table import RecordTable

AddStatus = Literal["new", "reinforced", "revalidated"]


def boost(relevance: float) -> float:
    """Reinforcement/access boost: halfway to 1.0."""
    return min(1.0, relevance + (1.0 - relevance) / 2)


def merge_evidence(existing: list[Evidence], new: Iterable[Evidence], cap: int) -> list[Evidence]:
    """Append new evidence (no duplicate message ids), keeping the newest `cap`."""
    seen = {e.message_id for e in existing}
    out = list(existing)
    for ev in new:
        if ev.message_id not in seen:
            out.append(ev)
            seen.add(ev.message_id)
    return out[-cap:]


class FactStore:
    """Facts of one workspace, persisted in facts.json."""

    def __init__(
        self,
        folder: Path,
        lock: WorkspaceLock,
        storage: StorageConfig,
        decay: DecayConfig,
        facts: FactsConfig,
    ) -> None:
        self.table: RecordTable[Fact] = RecordTable(folder / "facts.json", "facts", Fact, lock)
        self.storage = storage
        self.decay_cfg = decay
        self.single_valued = set(facts.single_valued_predicates)
        # (subject key, predicate) -> fact ids: supersession looks at one slot, not every fact
        self._slots: dict[tuple[str, str], set[str]] = {}
        self._slot_of: dict[str, tuple[str, str]] = {}
        self._slots_gen = -1
        self.table.on_put = self._slot_put
        self.table.on_delete = self._slot_delete

    @staticmethod
    def _slot_key(fact: Fact) -> tuple[str, str]:
        return (fact.subject_id or canonical(fact.subject), fact.predicate)

    def _slot_put(self, fact: Fact) -> None:
        if self._slots_gen != self.table.generation:
            return  # rebuilt on next use
        key = self._slot_key(fact)
        old = self._slot_of.get(fact.id)
        if old is not None and old != key:
            self._slots.get(old, set()).discard(fact.id)
        self._slots.setdefault(key, set()).add(fact.id)
        self._slot_of[fact.id] = key

    def _slot_delete(self, fid: str) -> None:
        key = self._slot_of.pop(fid, None)
        if key is not None:
            self._slots.get(key, set()).discard(fid)

    def _slot(self, fact: Fact) -> list[Fact]:
        """Facts sharing this fact's subject and predicate (current index, rebuilt after a reload)."""
        if self._slots_gen != self.table.generation:
            self._slots, self._slot_of = {}, {}
            for f in self.table.records.values():
                key = self._slot_key(f)
                self._slots.setdefault(key, set()).add(f.id)
                self._slot_of[f.id] = key
            self._slots_gen = self.table.generation
        ids = self._slots.get(self._slot_key(fact), set())
        found = (self.table.records.get(i) for i in list(ids))
        return [other for other in found if other is not None]

    # ------------------------------------------------------------------ basics
    def load(self) -> None:
        self.table.load()

    def __len__(self) -> int:
        return len(self.table)

    def all(self) -> list[Fact]:
        return list(self.table)

    def get(self, fid: str, access: bool = False, now: datetime | None = None) -> Fact | None:
        fact = self.table.get(fid)
        if fact is not None and access:
            self.touch([fid], now)
        return fact

    # ------------------------------------------------------------------ adding
    def add(
        self,
        subject: str,
        predicate: str,
        object_: str,
        *,
        source: SourceTier = "spacy",
        confidence: float = 0.5,
        evidence: Iterable[Evidence] = (),
        valid_at: datetime | None = None,
        subject_id: str | None = None,
        object_id: str | None = None,
        now: datetime | None = None,
    ) -> tuple[Fact, AddStatus]:
        """Store a fact, or reinforce it if the same triple exists; supersede contradicted ones."""
        now = now or utcnow()
        with self.table.mutex:
            fid = fact_id(subject, predicate, object_)
            ev = list(evidence)
            existing = self.table.get(fid)
            if existing is not None:
                existing.subject_id = existing.subject_id or subject_id
                existing.object_id = existing.object_id or object_id
                status = self._reinforce(existing, source, confidence, ev, valid_at, now)
                fact = existing
            else:
                fact = Fact(
                    id=fid,
                    subject=subject.strip(),
                    predicate=predicate,
                    object=object_.strip(),
                    subject_id=subject_id,
                    object_id=object_id,
                    source=source,
                    confidence=confidence,
                    relevance=1.0,
                    created_at=now,
                    last_accessed=now,
                    valid_at=valid_at,
                    evidence=ev[-self.storage.max_evidence :],
                    updated_at=now,
                )
                self.table.put(fact)
                status = "new"
            if predicate in self.single_valued:
                self._supersede_others(fact, ev, now)
            return fact, status

    def _reinforce(
        self,
        fact: Fact,
        source: SourceTier,
        confidence: float,
        ev: list[Evidence],
        valid_at: datetime | None,
        now: datetime,
    ) -> AddStatus:
        status: AddStatus = "reinforced"
        known = {e.message_id for e in fact.evidence}
        if ev and all(e.message_id in known for e in ev) and fact.invalid_at is None:
            return status  # the same message processed again (a replay): idempotent, no boost
        if fact.invalid_at is not None:
            fact.invalid_at = None
            fact.superseded_by = None
            status = "revalidated"
        fact.relevance = boost(fact.relevance)
        fact.confidence = max(fact.confidence, confidence)
        from knowledge_engine.model.records import TIER_STRENGTH

        if TIER_STRENGTH.get(source, 0) > TIER_STRENGTH.get(fact.source, 0):
            fact.source = source
        if valid_at and (fact.valid_at is None or status == "revalidated"):
            fact.valid_at = valid_at
        fact.evidence = merge_evidence(fact.evidence, ev, self.storage.max_evidence)
        fact.last_accessed = now
        fact.updated_at = now
        self.table.put(fact)
        return status

    def _supersede_others(self, new: Fact, ev: list[Evidence], now: datetime) -> None:
        when = new.valid_at or (ev[-1].timestamp if ev and ev[-1].timestamp else now)
        for other in self._slot(new):
            if other.id == new.id or other.invalid_at is not None:
                continue
            newer_than_new = other.valid_at and new.valid_at and other.valid_at > new.valid_at
            if newer_than_new:
                # the incoming fact is older news: it is history, not the current truth
                new.invalid_at = other.valid_at
                new.superseded_by = other.id
                new.updated_at = now
                self.table.put(new)
                continue
            other.invalid_at = when
            other.superseded_by = new.id
            other.updated_at = now
            self.table.put(other)

    # ------------------------------------------------------------------ queries
    def query(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object_: str | None = None,
        entity: str | None = None,
        text: str | None = None,
        include_history: bool = False,
        min_relevance: float = 0.0,
        limit: int | None = None,
    ) -> list[Fact]:
        """Facts matching every given filter, most relevant first (currently valid unless history)."""
        query = FactQuery(
            subject=subject,
            predicate=predicate,
            object_=object_,
            entity=entity,
            text=text,
            history=include_history,
            min_relevance=min_relevance,
        )
        return select(self.table, query, "relevance", limit)

    def history(self, fid: str) -> list[Fact]:
        """The chain of facts this one superseded or was superseded by (same subject and predicate)."""
        fact = self.table.get(fid)
        if fact is None:
            return []
        key = fact.subject_id or canonical(fact.subject)
        chain = [
            f
            for f in self.table
            if f.predicate == fact.predicate and (f.subject_id or canonical(f.subject)) == key
        ]
        return sorted(chain, key=lambda f: f.valid_at or f.created_at)

    # ------------------------------------------------------------------ upkeep
    def touch(self, ids: Iterable[str], now: datetime | None = None) -> None:
        """Access boost for facts that were retrieved."""
        now = now or utcnow()
        with self.table.mutex:
            for fid in ids:
                f = self.table.get(fid)
                if f is None:
                    continue
                f.relevance = boost(f.relevance)
                f.last_accessed = now
                f.updated_at = now
                self.table.put(f, structural=False)

    def forget(self, fid: str) -> bool:
        return self.table.delete(fid)

    def forget_where(self, entity_id: str) -> list[str]:
        ids = [f.id for f in self.table if entity_id in (f.subject_id, f.object_id)]
        for fid in ids:
            self.table.delete(fid)
        return ids

    def decay(self, now: datetime | None = None) -> int:
        """Apply every whole decay interval elapsed since the last run; returns intervals applied."""
        now = now or utcnow()
        cfg = self.decay_cfg
        interval = timedelta(hours=cfg.interval_hours)
        with self.table.mutex:
            last_raw = self.table.meta.get("last_decay_at")
            if not last_raw:
                self.table.set_meta("last_decay_at", now.isoformat())
                return 0
            last = datetime.fromisoformat(last_raw)
            n = math.floor((now - last) / interval)
            if n <= 0:
                return 0
            factor = (1.0 - cfg.rate) ** n
            for f in self.table:
                new = max(cfg.floor, f.relevance * factor)
                if new != f.relevance:
                    f.relevance = new
                    # updated_at stays: decay is background upkeep, so a reinforcement another process
                    # made meanwhile (newer updated_at) wins the merge instead of being rolled back
                    self.table.put(f, structural=False)
            self.table.set_meta("last_decay_at", (last + n * interval).isoformat())
            return n

    def prune(self, max_facts: int | None = None) -> list[str]:
        """Drop the excess above max_facts: lowest relevance first, then least recently accessed."""
        limit = max_facts or self.storage.max_facts
        with self.table.mutex:
            excess = len(self.table) - limit
            if excess <= 0:
                return []
            order = sorted(self.table, key=lambda f: (f.relevance, f.last_accessed))
            gone = [f.id for f in order[:excess]]
            for fid in gone:
                self.table.delete(fid)
            return gone

    def flush(self) -> bool:
        return self.table.flush()


def ensure_utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
