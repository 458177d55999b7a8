"""The fact store: add with de-duplication, temporal supersession, decay, pruning, queries.

Relevance rules (kept in this one place): a new fact starts at 1.0; reinforcement and
access move it halfway to 1.0; decay multiplies it by (1 - rate) per elapsed interval,
computed from the time since the last decay so a process that was down catches up
exactly; it never falls below the floor.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from knowledge_engine.config import DecayConfig, FactsConfig, StorageConfig
from knowledge_engine.model.predicates import DISTRICT_FACT, GENERIC_VALUES, MOVE_PREDICATES, ended_families
from knowledge_engine.model.records import (
    TIER_STRENGTH,
    Evidence,
    Fact,
    SourceTier,
    canonical,
    fact_id,
    utcnow,
)
from knowledge_engine.store import backend as store_backend
from knowledge_engine.store.factquery import FactQuery, select
from knowledge_engine.store.persistence import WorkspaceLock
from knowledge_engine.store.table import BaseTable

AddStatus = Literal["new", "reinforced", "revalidated"]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def boost(relevance: float) -> float:
    """Reinforcement/access boost: halfway to 1.0."""
    return min(1.0, relevance + (1.0 - relevance) / 2)


def with_tier(ev: Evidence, tier: str | None) -> Evidence:
    """`ev` naming `tier` among the tiers that saw the fact in its message (a copy: `ev` may be shared)."""
    if tier is None or tier in ev.tiers:
        return ev
    return _with_tiers(ev, [tier])


def _with_tiers(ev: Evidence, tiers: Iterable[str]) -> Evidence:
    return Evidence(
        message_id=ev.message_id,
        session=ev.session,
        role=ev.role,
        timestamp=ev.timestamp,
        tiers=sorted({*ev.tiers, *tiers}),
    )


def merge_evidence(
    existing: list[Evidence], new: Iterable[Evidence], cap: int, tier: str | None = None
) -> list[Evidence]:
    """Append new evidence (one entry per message id: a known message gains the new tier), keeping the
    newest `cap`."""
    where = {e.message_id: i for i, e in enumerate(existing)}
    out = list(existing)
    for ev in new:
        ev = with_tier(ev, tier)
        i = where.get(ev.message_id)
        if i is None:
            where[ev.message_id] = len(out)
            out.append(ev)
        elif not set(ev.tiers) <= set(out[i].tiers):
            out[i] = _with_tiers(out[i], ev.tiers)
    return out[-cap:]


def _stamp(ev: Evidence) -> datetime:
    return ensure_utc(ev.timestamp) if ev.timestamp is not None else _EPOCH


def union_evidence(
    mine: list[Evidence], theirs: list[Evidence], base: list[Evidence], cap: int
) -> list[Evidence]:
    """Three-way union by message id: what either side added since `base`, less what either side
    removed (a forgotten message stays forgotten); a message both have keeps the tiers of both; oldest
    dropped first above `cap`. Without a base (the file store) it is the plain union."""
    base_ids = {e.message_id for e in base}
    removed = base_ids - {e.message_id for e in mine}
    theirs_ids = {e.message_id for e in theirs}
    kept = [e for e in theirs if e.message_id not in removed]
    extra = [e for e in mine if e.message_id in theirs_ids or e.message_id not in base_ids]
    out = merge_evidence(kept, extra, len(kept) + len(extra))
    out.sort(key=_stamp)
    return out[-cap:]


def _validity(fact: Fact) -> tuple[datetime | None, datetime | None, str | None]:
    return fact.valid_at, fact.invalid_at, fact.superseded_by


def _ended_first(mine: Fact, theirs: Fact) -> Fact:
    """Of two sides that both changed a fact's validity, the one that ended it wins (the earlier end
    when both did): a supersession seen by either node is not undone by the other."""
    if mine.invalid_at is None:
        return theirs if theirs.invalid_at is not None else mine
    if theirs.invalid_at is None:
        return mine
    return mine if ensure_utc(mine.invalid_at) <= ensure_utc(theirs.invalid_at) else theirs


def merge_facts(mine: Fact, theirs: Fact, base: Fact | None, cap: int) -> Fact:
    """One fact changed by two writers (two nodes) since `base`, the version both started from: no
    reinforcement is lost (evidence, sources and tiers are unions, relevance and confidence the
    higher), the newest access and update are kept, and a supersession by either side holds."""
    out = theirs.model_copy()
    out.evidence = union_evidence(mine.evidence, theirs.evidence, base.evidence if base else [], cap)
    out.sources = list(dict.fromkeys([*theirs.seen_by, *mine.seen_by]))
    out.source = max((theirs.source, mine.source), key=lambda t: TIER_STRENGTH.get(t, 0))
    out.confidence = max(mine.confidence, theirs.confidence)
    out.relevance = max(mine.relevance, theirs.relevance)
    out.last_accessed = max(ensure_utc(mine.last_accessed), ensure_utc(theirs.last_accessed))
    out.created_at = min(ensure_utc(mine.created_at), ensure_utc(theirs.created_at))
    out.updated_at = max(ensure_utc(mine.updated_at), ensure_utc(theirs.updated_at))
    out.subject_id = theirs.subject_id or mine.subject_id
    out.object_id = theirs.object_id or mine.object_id
    if base is None:  # who changed it is unknown: the newer version's validity
        if ensure_utc(mine.updated_at) >= ensure_utc(theirs.updated_at):
            out.valid_at, out.invalid_at, out.superseded_by = _validity(mine)
    elif _validity(mine) != _validity(base):
        side = _ended_first(mine, theirs) if _validity(theirs) != _validity(base) else mine
        out.valid_at, out.invalid_at, out.superseded_by = _validity(side)
    return out


def began(fact: Fact) -> datetime:
    """When a fact became true, as far as the store knows: its `valid_at`, else when it was first stored
    (the time of the first message that said it)."""
    if fact.valid_at is not None:
        return ensure_utc(fact.valid_at)
    said = [ensure_utc(e.timestamp) for e in fact.evidence if e.timestamp is not None]
    return min([*said, ensure_utc(fact.created_at)])


class FactStore:
    """Facts of one workspace, persisted in facts.json.

    Supersession (single-valued facts): every predicate of a family in `facts.predicateFamilies` (or a
    legacy `singleValuedPredicates` entry, a family of its own) holds one current value per subject. A
    new or re-stated fact ends the current facts of the same subject in its family, except: the same
    value (`moved-to Leeds` agrees with `lives-in Leeds`), a fact said in one message with it (two
    values stated together are both true: "we live in Bristol, in Clifton"), nested values (a stored
    `X is-in Y`, or "Clifton, Bristol" beside "Bristol"), and facts that began later than it: then
    the new fact is the older news and goes to history itself. A new employer also ends the old
    job's title and pay (`_BOUND`): people change title and pay with their job, and the new ones
    are often never said with the new firm's name.
    """

    def __init__(
        self,
        folder: Path,
        lock: WorkspaceLock,
        storage: StorageConfig,
        decay: DecayConfig,
        facts: FactsConfig,
        agent: str = "default",
    ) -> None:
        self.table: BaseTable[Fact] = store_backend.record_table(storage, folder, agent, "facts", Fact, lock)
        self.table.merge = lambda mine, theirs, base: merge_facts(mine, theirs, base, storage.max_evidence)
        self.table.merge_blind = True
        self.storage = storage
        self.decay_cfg = decay
        self.family = facts.family_of()
        self.part_of = frozenset(facts.part_of_predicates)
        # (subject key, family) -> fact ids: supersession looks at one slot, not every fact
        self._slots: dict[tuple[str, str], set[str]] = {}
        self._slot_of: dict[str, tuple[str, str]] = {}
        # fact id -> the (canonical) pair of a stored "X is-in Y", and how many facts state each pair:
        # nested values, which coexist
        self._nested: dict[str, frozenset[str]] = {}
        self._pairs: Counter[frozenset[str]] = Counter()
        # places a stored "X is-a district" names: a home there stays beside the home city
        self._districts = Districts()
        self._slots_gen = -1
        self.table.on_put = self._slot_put
        self.table.on_delete = self._slot_delete

    def _slot_key(self, fact: Fact) -> tuple[str, str]:
        family = self.family.get(fact.predicate, "=" + fact.predicate)
        return (fact.subject_id or canonical(fact.subject), family)

    def _slot_put(self, fact: Fact) -> None:
        if self._slots_gen != self.table.generation:
            return  # rebuilt on next use
        self._index(fact)

    def _index(self, fact: Fact) -> None:
        key = self._slot_key(fact)
        old = self._slot_of.get(fact.id)
        if old is not None and old != key:
            self._slots.get(old, set()).discard(fact.id)
        self._slots.setdefault(key, set()).add(fact.id)
        self._slot_of[fact.id] = key
        nested = fact.predicate in self.part_of and not (fact.subject_id or "").startswith("person:")
        if nested and fact.id not in self._nested:
            pair = frozenset((canonical(fact.subject), canonical(fact.object)))
            self._nested[fact.id] = pair
            self._pairs[pair] += 1
        self._districts.add(fact)

    def _slot_delete(self, fid: str) -> None:
        key = self._slot_of.pop(fid, None)
        if key is not None:
            self._slots.get(key, set()).discard(fid)
        pair = self._nested.pop(fid, None)
        if pair is not None:
            self._pairs[pair] -= 1
            if self._pairs[pair] <= 0:
                del self._pairs[pair]
        self._districts.remove(fid)

    def _slot(self, fact: Fact) -> list[Fact]:
        """Facts sharing this fact's subject and predicate family (current index, rebuilt after a reload)."""
        self._fresh_index()
        ids = self._slots.get(self._slot_key(fact), set())
        found = (self.table.records.get(i) for i in list(ids))
        return [other for other in found if other is not None]

    def _fresh_index(self) -> None:
        if self._slots_gen != self.table.generation:
            self._slots, self._slot_of, self._nested, self._pairs = {}, {}, {}, Counter()
            self._districts = Districts()
            for f in self.table.records.values():
                self._index(f)
            self._slots_gen = self.table.generation

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
        ends: bool = False,
    ) -> tuple[Fact, AddStatus]:
        """Store a fact, or reinforce it if the same triple exists; supersede contradicted ones.

        `ends`: the message said the relation ended ("I no longer work at X", "I left X"): the
        subject's current fact with the same object in a family this past wording can end ends too
        (at `valid_at`, the date the sentence gives, else the message's time)."""
        now = now or utcnow()
        valid_at = ensure_utc(valid_at) if valid_at is not None else None
        with self.table.mutex:
            fid = fact_id(subject, predicate, object_)
            ev = list(evidence)
            existing = self.table.get(fid)
            restated = existing is not None and existing.invalid_at is None
            if existing is not None:
                existing.subject_id = existing.subject_id or subject_id
                existing.object_id = existing.object_id or object_id
                status, news = self._reinforce(existing, source, confidence, ev, valid_at, now)
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
                    sources=[source],
                    confidence=confidence,
                    relevance=1.0,
                    created_at=now,
                    last_accessed=now,
                    valid_at=valid_at,
                    evidence=merge_evidence([], ev, self.storage.max_evidence, source),
                    updated_at=now,
                )
                self.table.put(fact)
                status, news = "new", True
            when = ensure_utc(valid_at or (ev[-1].timestamp if ev and ev[-1].timestamp else now))
            if news and predicate in self.family and not restated:
                self._supersede_others(fact, when, now)
            if ends:
                self._end_same(fact, when, now)
                if predicate in self.family and fact.invalid_at is None:
                    self._end_itself(fact, when, now)
            if status == "new" and _states_district(fact):
                self._undo_district_endings(canonical(fact.subject), now)
            return fact, status

    def _reinforce(
        self,
        fact: Fact,
        source: SourceTier,
        confidence: float,
        ev: list[Evidence],
        valid_at: datetime | None,
        now: datetime,
    ) -> tuple[AddStatus, bool]:
        """Reinforce a stored fact; returns its status and whether this is news (not only a message seen
        before, replayed or confirmed by another tier)."""
        known = {e.message_id for e in fact.evidence}
        if ev and all(e.message_id in known for e in ev):
            # a message already counted: a replay (idempotent), or another tier confirming what one saw
            # in it (recorded, without a boost, and no revalidation: it is not newer than what ended it)
            seen = {e.message_id: e for e in fact.evidence}
            if source in fact.seen_by and all(source in seen[e.message_id].tiers for e in ev):
                return "reinforced", False
            self._add_tier(fact, source, confidence)
            if valid_at and fact.valid_at is None and fact.invalid_at is None:
                fact.valid_at = valid_at
            fact.evidence = merge_evidence(fact.evidence, ev, self.storage.max_evidence, source)
            fact.updated_at = now
            self.table.put(fact)
            return "reinforced", False
        status: AddStatus = "reinforced"
        if fact.invalid_at is not None:
            fact.invalid_at = None
            fact.superseded_by = None
            status = "revalidated"
            # true again from this message on (the supersession below may send it back to history)
            fact.valid_at = valid_at or (ev[-1].timestamp if ev and ev[-1].timestamp else now)
        elif valid_at and fact.valid_at is None:
            fact.valid_at = valid_at
        fact.relevance = boost(fact.relevance)
        self._add_tier(fact, source, confidence)
        fact.evidence = merge_evidence(fact.evidence, ev, self.storage.max_evidence, source)
        fact.last_accessed = now
        fact.updated_at = now
        self.table.put(fact)
        return status, True

    @staticmethod
    def _add_tier(fact: Fact, source: SourceTier, confidence: float) -> None:
        fact.confidence = max(fact.confidence, confidence)
        seen = fact.seen_by  # a fact from before `sources` starts the list with its `source`
        if source not in seen or not fact.sources:
            fact.sources = [*seen, source] if source not in seen else list(seen)
        if TIER_STRENGTH.get(source, 0) > TIER_STRENGTH.get(fact.source, 0):
            fact.source = source

    def _coexists(self, new: Fact, other: Fact) -> bool:
        """Whether two current facts of one subject and family are both true (see the class docstring)."""
        if _same_object(new, other):
            return True
        a, b = canonical(new.object), canonical(other.object)
        if {e.message_id for e in new.evidence} & {e.message_id for e in other.evidence}:
            return True
        if b in (p.strip() for p in a.split(",")) or a in (p.strip() for p in b.split(",")):
            return True  # "Clifton, Bristol" and "Bristol"
        return frozenset((a, b)) in self._pairs

    def _is_district(self, fact: Fact) -> bool:
        return canonical(fact.object) in self._districts

    def _rivals(self, new: Fact, current: list[Fact]) -> list[Fact]:
        """The current facts `new` ends. A value already current said again ends nothing ("I live in
        Berlin now" keeps Kreuzberg). A district ends only another district, never the city; a move
        to a city, or another city said, ends every home not inside it; a city said while only
        districts are current ends nothing."""
        if any(_same_object(new, o) for o in current):
            return []
        rivals = [o for o in current if not self._coexists(new, o)]
        if self._is_district(new):
            return [o for o in rivals if self._is_district(o)]
        if new.predicate in MOVE_PREDICATES or any(not self._is_district(o) for o in rivals):
            return rivals
        return []

    def _undo_district_endings(self, place: str, now: datetime) -> None:
        """A place just learned to be a district ("Kreuzberg is a lively area") gives back the city
        homes its arrival ended: a district never ends its city."""
        self._fresh_index()
        enders = {f.id for f in self.table.records.values() if canonical(f.object) == place}
        for victim in [f for f in self.table.records.values() if f.superseded_by in enders]:
            ender = self.table.records.get(victim.superseded_by or "")
            if ender is None or self._is_district(victim) or victim.invalid_at != began(ender):
                continue
            if ender.invalid_at is None and self._slot_key(ender) == self._slot_key(victim):
                victim.invalid_at, victim.superseded_by, victim.updated_at = None, None, now
                self.table.put(victim)

    def _supersede_others(self, new: Fact, when: datetime, now: datetime) -> None:
        current = [o for o in self._slot(new) if o.id != new.id and o.invalid_at is None]
        rivals = self._rivals(new, current)
        if not rivals or new.invalid_at is not None:
            return
        later = [other for other in rivals if began(other) > when]
        if later:
            # the incoming fact is older news: it is history, not the current truth
            first = min(later, key=began)
            end = began(first)
            new.invalid_at = max(end, ensure_utc(new.valid_at)) if new.valid_at else end
            new.superseded_by = first.id
            new.updated_at = now
            self.table.put(new)
            return
        for other in rivals:
            self._ended_by(other, new.id, when, now)
        bound = _BOUND.get(self.family.get(new.predicate, ""), ())
        if bound:
            said = self._messages_naming(new)  # 'Acme offered me Senior Data Scientist, £61,000'
            self._end_with_the_job(new, bound, when, max(last_said(r) for r in rivals), said, now)

    def _messages_naming(self, new: Fact) -> set[str]:
        """The messages that said a fact of `new`'s subject with `new`'s object."""
        subject, firm = self._slot_key(new)[0], canonical(new.object)
        return {
            e.message_id
            for f in self.table.records.values()
            if canonical(f.object) == firm and self._slot_key(f)[0] == subject
            for e in f.evidence
        }

    def _end_with_the_job(
        self,
        new: Fact,
        bound: tuple[str, ...],
        when: datetime,
        old_job_said: datetime,
        keep: set[str],
        now: datetime,
    ) -> None:
        """A job's end (a new employer, or one left) ends the subject's title and pay of it (both go
        with a job): those told no later than the old employer was last said, and by none of the
        messages `keep` (those that named the new employer: 'I start at Acme as Head of Design, £70k').
        A title or pay told between the two may be the new job's, unnamed ("Got it!! 55k"): it stays."""
        subject = self._slot_key(new)[0]
        for family in bound:
            for fid in list(self._slots.get((subject, family), ())):
                other = self.table.records.get(fid)
                if other is None or other.invalid_at is not None or began(other) > old_job_said:
                    continue
                if not keep & {e.message_id for e in other.evidence}:
                    self._ended_by(other, new.id, when, now)

    def _ended_by(self, other: Fact, by: str, when: datetime, now: datetime) -> None:
        """`other` ends at `when` (not before its own date), superseded by the fact `by`."""
        other.invalid_at = max(when, ensure_utc(other.valid_at)) if other.valid_at else when
        other.superseded_by = by
        other.updated_at = now
        self.table.put(other)

    def end(self, fact: Fact, when: datetime, by: str, now: datetime | None = None) -> None:
        """End a current fact at `when` (not before it began), naming the fact that ended it: an offer
        a decline turned down (store/offers.py)."""
        with self.table.mutex:
            if fact.invalid_at is not None:
                return
            self._ended_by(fact, by, ensure_utc(when), now or utcnow())

    def _end_itself(self, fact: Fact, when: datetime, now: datetime) -> None:
        """An ending said in a present wording ("my ex-husband Mark": is-married-to Mark, ended; "Gareth
        was my manager": has-manager Gareth, ended) is history itself, whether the store held it as
        current before or learns it now: it ends when the ending says, never before it began."""
        fact.invalid_at = max(when, began(fact))
        fact.updated_at = now
        self.table.put(fact)

    def _end_same(self, ending: Fact, when: datetime, now: datetime) -> None:
        """End the current facts an explicit ending names: same subject, a family `ending`'s wording
        can end, the same object ("Northwind" ends "works-at Northwind Labs": one name holds the
        other's words). A fact that began after the ending is later news and stays; one the next job
        already ended later than the ending says keeps its successor and ends at the earlier date."""
        self._fresh_index()
        subject = ending.subject_id or canonical(ending.subject)
        for family in ended_families(ending.predicate):
            slot = [f for i in self._slots.get((subject, family), ()) if (f := self.table.records.get(i))]
            slot = [f for f in slot if f.id != ending.id]
            if canonical(ending.object) in GENERIC_VALUES.get(family, ()):
                # "I quit my job": the one current value of the family, when there is exactly one
                current = [f for f in slot if f.invalid_at is None]
                targets = current if len(current) == 1 else []
            else:
                targets = [f for f in slot if _same_thing(ending, f)]
            for other in targets:
                if began(other) > when or (other.invalid_at is not None and other.invalid_at <= when):
                    continue
                if other.invalid_at is None and family in _BOUND:  # "I quit Acme": its title and pay too
                    keep = {e.message_id for e in ending.evidence}  # "..., now a freelance designer"
                    self._end_with_the_job(ending, _BOUND[family], when, when, keep, now)  # no next job yet
                end = max(when, ensure_utc(other.valid_at)) if other.valid_at else when
                # already ended by the next job, later than the last day said: the end moves to that day
                other.superseded_by = other.superseded_by if other.invalid_at is not None else ending.id
                other.invalid_at = end
                other.updated_at = now
                self.table.put(other)

    # ------------------------------------------------------------------ corrections
    def correct(
        self,
        old: Fact,
        subject: str,
        object_: str,
        *,
        subject_id: str | None,
        object_id: str | None,
        evidence: Iterable[Evidence],
        now: datetime | None = None,
    ) -> Fact:
        """Replace a wrong fact by its corrected form ("sorry, I meant Leeds not Leicester").

        The wrong fact is forgotten, not kept in history: it was never true, so history must not say
        it was. The corrected fact takes its place: same predicate, validity (valid_at, invalid_at,
        superseded_by) and source, the wrong fact's evidence plus the correcting message's; facts the
        wrong one had ended now name the corrected one. When the corrected triple is already stored,
        the wrong fact merges into it.
        """
        now = now or utcnow()
        with self.table.mutex:
            fid = fact_id(subject, old.predicate, object_)
            ev = [*old.evidence, *evidence]
            fact = self.table.get(fid)
            if fact is None:
                fact = old.model_copy(
                    update={
                        "id": fid,
                        "subject": subject.strip(),
                        "object": object_.strip(),
                        "subject_id": subject_id,
                        "object_id": object_id,
                        "evidence": merge_evidence([], ev, self.storage.max_evidence),
                        "updated_at": now,
                    }
                )
            else:
                fact.evidence = merge_evidence(fact.evidence, ev, self.storage.max_evidence)
                if old.valid_at is not None and fact.valid_at is None:
                    fact.valid_at = old.valid_at
                if old.invalid_at is None:
                    fact.invalid_at, fact.superseded_by = None, None
                fact.updated_at = now
            if fid != old.id:
                self.table.delete(old.id)
                for other in self.table:
                    if other.superseded_by == old.id:
                        other.superseded_by = fid
                        other.updated_at = now
                        self.table.put(other)
            self.table.put(fact)
            if fact.invalid_at is None and fact.predicate in self.family:
                self._supersede_others(fact, began(fact), now)
            return fact

    def forget_replaced(self, fact: Fact, message_id: str) -> list[str]:
        """A restated correction ("correction: my manager is Dana"): the facts of the same subject and
        family that `fact` ended, stated before the correcting message, were never true: forgotten.
        For a predicate of no family, the most recent fact of the same subject and predicate said in an
        earlier message of the same session goes instead."""
        with self.table.mutex:
            before = [
                o
                for o in self._slot(fact)
                if o.id != fact.id and message_id not in {e.message_id for e in o.evidence}
            ]
            if fact.predicate in self.family:
                gone = [o for o in before if o.superseded_by == fact.id]
            else:
                session = {e.session for e in fact.evidence if e.message_id == message_id}
                same = [
                    o for o in before if o.invalid_at is None and {e.session for e in o.evidence} & session
                ]
                gone = [max(same, key=last_said)] if same else []
            for o in gone:
                self.table.delete(o.id)
            return [o.id for o in gone]

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
        """The chain of facts this one superseded or was superseded by (same subject and predicate family)."""
        fact = self.table.get(fid)
        if fact is None:
            return []
        return sorted(self._slot(fact), key=began)

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


def _states_district(fact: Fact) -> bool:
    return (fact.predicate, canonical(fact.object)) == DISTRICT_FACT


class Districts:
    """The places stored facts state to be districts ("X is-a district"), kept in step with a fact table
    (`add` each fact put, `remove` each id deleted); `place in districts` for a canonical name. Shared by
    the store's supersession and retrieval's stale test."""

    def __init__(self) -> None:
        self._place_of: dict[str, str] = {}  # fact id -> the place it names
        self._count: Counter[str] = Counter()  # place -> facts naming it

    def add(self, fact: Fact) -> None:
        if _states_district(fact) and fact.id not in self._place_of:
            self._place_of[fact.id] = canonical(fact.subject)
            self._count[canonical(fact.subject)] += 1

    def remove(self, fid: str) -> None:
        place = self._place_of.pop(fid, None)
        if place is not None:
            self._count[place] -= 1
            if self._count[place] <= 0:
                del self._count[place]

    def __contains__(self, place: object) -> bool:
        return place in self._count


def _same_object(a: Fact, b: Fact) -> bool:
    return canonical(a.object) == canonical(b.object) or (
        a.object_id is not None and a.object_id == b.object_id
    )


def _same_thing(a: Fact, b: Fact) -> bool:
    """Whether two facts' objects name one thing: the same entity, or one name's words hold the other's."""
    return _same_object(a, b) or same_words(a, b)


def same_words(a: Fact, b: Fact) -> bool:
    """Whether one fact's object holds the other's words ("Northwind" and "Northwind Labs")."""
    x, y = set(canonical(a.object).split()), set(canonical(b.object).split())
    return bool(x and y) and (x <= y or y <= x)


# Families whose current value goes with another's: a new employer ends the old job's title and pay
# (FactStore._end_with_the_job). Measured and left out: a new home ending the old rent (a rent is
# often told for the home to come, before the move) and a new employer ending the manager.
_BOUND: dict[str, tuple[str, ...]] = {"employer": ("role", "salary")}


def last_said(fact: Fact) -> datetime:
    """When a message last stated the fact (its creation when no evidence has a time)."""
    return max(
        (ensure_utc(e.timestamp) for e in fact.evidence if e.timestamp), default=ensure_utc(fact.created_at)
    )


def ensure_utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
