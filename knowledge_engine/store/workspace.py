"""A per-agent workspace: its folder, its stores, debounced durable writes.

The folder is resolved from the host context (`workspaceDir`, `agentId`) and the configured
template, never from the process's working directory, so two agents never share a store.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knowledge_engine.config import EngineConfig
from knowledge_engine.extract.corrections import Correction, parse_correction
from knowledge_engine.gcpause import freeze_on_resume, gc_paused
from knowledge_engine.model.extraction import TITLE_PREDICATES, Extraction, FactCandidate, Mention
from knowledge_engine.model.predicates import (
    ACCEPTED_OFFER,
    DECLINED_OFFER,
    INTERVIEW_PREDICATE,
    OFFER_PREDICATE,
    OFFERED_PAY,
    OFFERED_ROLE,
    PROSPECTIVE_MANAGER,
)
from knowledge_engine.model.records import Entity, Evidence, Fact, Message, canonical, utcnow
from knowledge_engine.observe import counters, emit, failure
from knowledge_engine.store import backend as store_backend
from knowledge_engine.store.entities import EntityStore, vote_weight
from knowledge_engine.store.facts import FactStore, began, last_said
from knowledge_engine.store.offers import accepted_job, declined, offer_started
from knowledge_engine.store.persistence import WorkspaceLock, secure_tree

if TYPE_CHECKING:
    from knowledge_engine.store.message_common import MessageLogContract

log = logging.getLogger("knowledge_engine.store")

# a store this large is moved out of the collector's sight once loaded (see gcpause)
FREEZE_AFTER_LOAD = 20000
APPLIED_WINDOW = 20000  # far more than a journal holds between two checkpoints
# How long a prompt waits for the look for other nodes' changes it started: a look takes milliseconds
# when the database answers; one still running after this means it does not, and the prompt goes on
PROMPT_FOLLOW_WAIT_S = 0.25
_SAFE_AGENT = re.compile(r"[^A-Za-z0-9._-]+")
_OPEN: weakref.WeakSet[Workspace] = weakref.WeakSet()


def safe_agent_id(agent_id: str | None) -> str:
    """An agent id usable as a folder name (no separators, no dot-dot), one folder per id.

    A safe id (letters, digits, `.`, `_`, `-`, at most 100) is its own folder name. Any other id is
    cleaned and gets `~` and a hash of the original: `~` never occurs in a safe id, so an escaped id
    can never take a safe id's folder ("team/a" vs "team_a-9e1f3725"), and the 64-bit hash keeps
    ids that clean alike ("team/a", "team:a") apart.
    """
    raw = agent_id or "default"
    cleaned = _SAFE_AGENT.sub("_", raw).strip("._") or "default"
    if cleaned != raw or len(raw) > 100:
        cleaned = f"{cleaned[:90]}~{hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()}"
    return cleaned


def resolve_workspace_dir(config: EngineConfig, agent_id: str | None, workspace_dir: str | None) -> Path:
    """Where an agent's knowledge lives: explicit `workspace`, else the template, else the root."""
    agent = safe_agent_id(agent_id)
    if config.workspace:
        return Path(config.workspace.replace("{agentId}", agent)).expanduser().resolve()
    template = config.workspace_template
    if workspace_dir and "{workspaceDir}" in template:
        return (
            Path(template.replace("{workspaceDir}", workspace_dir).replace("{agentId}", agent))
            .expanduser()
            .resolve()
        )
    if "{workspaceDir}" not in template:
        return Path(template.replace("{agentId}", agent)).expanduser().resolve()
    return (Path(config.workspace_root).expanduser() / agent).resolve()


class Workspace:
    """Facts, entities and the message log of one agent, with debounced flushing."""

    def __init__(self, folder: Path, config: EngineConfig, agent_id: str = "default") -> None:
        self.folder = folder
        self.agent_id = agent_id
        self.config = config
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        secure_tree(folder)  # personal data: owner-only, also for workspaces made before this rule
        self.lock = WorkspaceLock(folder / ".store.lock")
        self.shared = store_backend.is_shared(config.storage)
        self.facts = FactStore(folder, self.lock, config.storage, config.decay, config.facts, agent_id)
        self.entities = EntityStore(
            folder, self.lock, config.storage, config.facts.fuzzy_threshold, agent=agent_id
        )
        # what a failed write raises: a disk error, or (shared store) a database error
        self._write_errors: tuple[type[Exception], ...] = (OSError, *_database_errors(self.shared))
        self._followed_at = -1e18  # monotonic seconds of the last look at other nodes' changes
        self._follow_lock = threading.Lock()
        self._follow_thread: threading.Thread | None = None  # a prompt's look, run in the background
        self._follow_started: float | None = None  # monotonic start of that look while it runs
        self._messages: MessageLogContract | None = None
        self._timer: threading.Timer | None = None
        self._timer_lock = threading.Lock()
        self.flush_errors = 0
        self.closed = False
        # held by apply() across a message's records and its applied key, and by flush() across both file
        # writes: a flush never persists a key without the records it stands for (issue 13)
        self.write_lock = threading.RLock()
        # forgets a host applied to messages pending then (ingest.redact.Gate), checked under write_lock
        self.gates: list[Any] = []
        # (checkpoint before, release after) a successful flush: the engine's ingest journal and LLM inbox
        self.flush_hooks: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []
        with gc_paused():
            self._load()
            if len(self.facts) + len(self.entities) >= FREEZE_AFTER_LOAD:
                freeze_on_resume()
        _OPEN.add(self)

    def _load(self) -> None:
        self.facts.load()
        # the last APPLIED_WINDOW "message|tiers" keys, persisted with the facts they produced: a message
        # replayed after an unclean stop is recognised and not counted twice (files: facts.json's meta;
        # shared store: ke_applied, written in the transaction of the facts)
        keys = self.facts.table.applied_keys(APPLIED_WINDOW)
        self._applied: OrderedDict[str, None] = OrderedDict.fromkeys(keys)
        self._applied_lock = threading.Lock()
        self.entities.load()
        self._followed_at = time.monotonic()

    # ------------------------------------------------------------------ message log
    @property
    def messages(self) -> MessageLogContract:
        """The message log (SQLite + FTS5 in the folder, or the shared database), opened on first use."""
        if self._messages is None:
            self._messages = store_backend.message_log(self.config, self.folder, self.agent_id)
        return self._messages

    @property
    def has_message_log(self) -> bool:
        """Whether there is a message log to read without making one: always on the shared store, on
        files once messages.sqlite3 exists (readers must not create it)."""
        from knowledge_engine.store.messages import MESSAGES_FILE

        return self.shared or (self.folder / MESSAGES_FILE).exists()

    # ------------------------------------------------------------------ applying extractions
    def was_applied(self, message_id: str, tiers: str) -> bool:
        """Whether this message's extraction by these tiers (comma-joined, sorted) is in the store."""
        with self._applied_lock:
            return _applied_key(message_id, tiers) in self._applied

    def applied_messages(self) -> list[str]:
        """The ids of the messages whose extraction the store remembers holding, one per applied key
        (a message applied by two tier sets counts twice), oldest first; at most APPLIED_WINDOW."""
        with self._applied_lock:
            return [_applied_message(key) for key in self._applied]

    def entity_write_lost(self) -> list[str]:
        """When `entities.json` alone was recovered from its last good copy: the ids of the messages
        its lost write held (the applied keys the facts' own last write added: entities are written
        first, facts last, so the two files' newest writes hold the same messages). Their applied keys
        are forgotten, so they can be applied again (idempotent for facts: a replay; entities get the
        mentions back). Empty when nothing was recovered or the facts were recovered too (then every
        unapplied message goes through again anyway)."""
        if self.entities.table.recovered is None or self.facts.table.recovered is not None:
            return []
        before = self.facts.table.backup_applied_keys()
        held = set(before) if before is not None else set()
        with self._applied_lock:
            lost = [k for k in self._applied if k not in held]
            for key in lost:
                del self._applied[key]
        return list(dict.fromkeys(_applied_message(key) for key in lost))

    def apply(self, message: Message, extractions: Iterable[Extraction]) -> tuple[int, int]:
        """Merge what the tiers found in one message; returns (entities seen, facts stored)."""
        ev = Evidence(
            message_id=message.id, session=message.session, role=message.role, timestamp=message.timestamp
        )
        if self.closed:
            return 0, 0  # a worker that outlived stop(): its messages were parked for the next start
        n_ent = n_fact = 0
        extractions = list(extractions)
        tiers = sorted(
            {m.tier for ex in extractions for m in ex.mentions}
            | {f.tier for ex in extractions for f in ex.facts}
        )
        # the user corrects what was said; an assistant's "sorry, X not Y" does not rewrite the user's facts
        fix = parse_correction(message.text) if message.text and message.role == "user" else None
        key = _applied_key(message.id, ",".join(tiers) or "correction")
        with self.write_lock:
            if (not tiers and fix is None) or self._is_applied(key):
                return 0, 0  # a replay (journal, spill, parked work): already in the store
            for gate in list(self.gates):  # pending when it was forgotten: nothing forgotten comes back
                extractions = gate.filter(message, extractions)
            mentions = _not_in_titles(
                [m for ex in extractions for m in ex.mentions], [f for ex in extractions for f in ex.facts]
            )
            # strongest evidence first, so a new entity is created with its best type (and id); a concept
            # (NORP, event, language: the tagger's least specific class, and its usual misfire on a
            # company's first word) last, so "Helix" finds "Helix Robotics" to be the short form of
            mentions.sort(key=lambda m: (_WEAK_TYPES.get(m.type, 0), -vote_weight(m.tier, m.type)))
            observed: dict[str, Entity] = {}
            for m in mentions:
                ent = self.entities.observe(m.value, m.type, m.tier, ev, m.importance)
                observed[ent.id] = ent
                n_ent += 1
            self._join_short_forms(observed.values())
            added: list[Fact] = []
            for ex in extractions:
                # an acceptance after the offers: "Helix offered me a job and I took it"
                for said in sorted(ex.facts, key=lambda c: c.predicate == ACCEPTED_OFFER):
                    if fix is not None and _states_wrong(said, fix):
                        continue  # "I meant Leeds not Leicester" says nothing of Leicester
                    for cand in (
                        self._accepted_job(said) if said.predicate == ACCEPTED_OFFER else self._job_said(said)
                    ):
                        fact = self.add_fact(cand, ev)
                        if fact is not None:
                            added.append(fact)
                            n_fact += 1
                            if fact.predicate == DECLINED_OFFER:
                                self._end_declined(fact)
            if fix is not None:
                n_fact += self._correct(fix, message, ev, added)
            self._mark_applied(key)  # last: the key never stands for records not yet in memory
        if n_ent or n_fact:
            self.schedule_flush()
        return n_ent, n_fact

    def _is_applied(self, key: str) -> bool:
        with self._applied_lock:
            return key in self._applied

    def _mark_applied(self, key: str) -> None:
        with self._applied_lock:
            self._applied[key] = None
            while len(self._applied) > APPLIED_WINDOW:
                self._applied.popitem(last=False)
            self.facts.table.note_applied(key, self._applied.keys())

    def _accepted_job(self, cand: FactCandidate) -> list[FactCandidate]:
        """An acceptance naming no employer -> works-at the subject's offer and has-role the role it
        named (store/offers.py), else a counted skip."""
        keys = self._subject_keys(cand)

        def subjects(predicate: str, history: bool = False) -> list[Fact]:
            return self._facts_of(keys, predicate, history)

        job = accepted_job(
            cand,
            subjects(OFFER_PREDICATE),
            subjects(OFFERED_ROLE),
            subjects(OFFERED_PAY),
            self._jobs_of(keys),
            subjects(INTERVIEW_PREDICATE),
            subjects(PROSPECTIVE_MANAGER),
        )
        counters.inc("facts.acceptances" if job else "facts.acceptances_unresolved")
        return job

    def _job_said(self, cand: FactCandidate) -> list[FactCandidate]:
        """A fact as said; a job at an offer's employer with the terms the offer named (store/offers.py)."""
        if cand.predicate not in ("works-at", "works-for") or cand.ends:
            return [cand]
        keys = self._subject_keys(cand)
        offers = self._facts_of(keys, OFFER_PREDICATE)
        if not offers:
            return [cand]
        roles, pay = self._facts_of(keys, OFFERED_ROLE), self._facts_of(keys, OFFERED_PAY)
        bosses = self._facts_of(keys, PROSPECTIVE_MANAGER)
        terms = offer_started(cand, offers, roles, pay, self._jobs_of(keys), bosses)
        if terms:
            counters.inc("facts.offers_started")
        return [cand, *terms]

    def _subject_keys(self, cand: FactCandidate) -> set[str]:
        """The keys a candidate's subject is stored under: its canonical name, and the person entity
        it resolves to (id and name)."""
        person = self.entities.resolve(cand.subject.strip(), "person")
        return {canonical(cand.subject), *((person.id, canonical(person.value)) if person else ())}

    def _jobs_of(self, keys: set[str]) -> list[Fact]:
        """The subject's employer facts of every predicate of the employer family, with history."""
        employer = [p for p, name in self.facts.family.items() if name == "employer"]
        return [f for p in employer for f in self._facts_of(keys, p, history=True)]

    def _end_declined(self, decline: Fact) -> None:
        """An offer turned down is no offer any more: the subject's offers it names end."""
        keys = {k for k in (decline.subject_id, canonical(decline.subject)) if k}
        for offer in declined(decline, self._facts_of(keys, OFFER_PREDICATE)):
            self.facts.end(offer, began(decline), by=decline.id)

    def _facts_of(self, keys: set[str], predicate: str, history: bool = False) -> list[Fact]:
        """The facts of `predicate` whose subject is one of `keys` (an entity id or a canonical name)."""
        return [
            f
            for f in self.facts.query(predicate=predicate, include_history=history)
            if f.subject_id in keys or canonical(f.subject) in keys
        ]

    def _join_short_forms(self, entities: Iterable[Entity]) -> None:
        """A long name that joined one of its stored short forms takes the others too ("Toyota" and
        "Highlander", then "Toyota Highlander"): their facts point to it, their names become aliases.
        Fact texts stay as they were said; only the entity they point to changes."""
        for ent in entities:
            for short in self.entities.short_forms_of(ent):
                for f in self.facts.all():
                    if short.id in (f.subject_id, f.object_id):
                        self.facts.table.put(
                            f.model_copy(
                                update={
                                    "subject_id": ent.id if f.subject_id == short.id else f.subject_id,
                                    "object_id": ent.id if f.object_id == short.id else f.object_id,
                                }
                            )
                        )
                self.entities.merge_into(ent.id, short.id, manual=False)
                counters.inc("entities.short_forms_joined")

    def add_fact(self, cand: FactCandidate, ev: Evidence) -> Fact | None:
        """Resolve the triple's ends to entities and store it."""
        subj, obj = cand.subject.strip(), cand.object.strip()
        if not subj or not obj or not cand.predicate or len(subj) > 200 or len(obj) > 300:
            counters.inc("facts.rejected")
            return None
        subj_ent = self._link(subj, cand.subject_type, cand, ev, create=True)
        obj_ent = self._link(obj, cand.object_type, cand, ev, create=cand.object_type is not None)
        if subj_ent is not None and cand.subject_type and cand.subject_type_implied:
            subj_ent = self.entities.constrain_type(subj_ent.id, cand.subject_type) or subj_ent
        if obj_ent is not None and cand.object_type and cand.object_type_implied:
            obj_ent = self.entities.constrain_type(obj_ent.id, cand.object_type) or obj_ent
        fact, _status = self.facts.add(
            subj_ent.value if subj_ent else subj,
            cand.predicate,
            obj_ent.value if obj_ent else obj,
            source=cand.tier,
            confidence=cand.confidence,
            evidence=[ev],
            valid_at=cand.valid_at,
            subject_id=subj_ent.id if subj_ent else None,
            object_id=obj_ent.id if obj_ent else None,
            now=ev.timestamp or utcnow(),
            ends=cand.ends,
        )
        return fact

    def _correct(self, fix: Correction, message: Message, ev: Evidence, added: list[Fact]) -> int:
        """Apply a correction (extract.corrections): a swap replaces the wrong value in the facts of the
        last message that stated it (as subject or object, whatever the relation); a restatement's
        facts replace what they ended. Wrong facts are forgotten, not kept in history
        (FactStore.correct). Returns the number of corrected facts."""
        if not fix.is_swap:
            gone = [fid for f in added for fid in self.facts.forget_replaced(f, message.id)]
            if gone:
                counters.inc("facts.corrected", len(gone))
            return 0
        assert fix.wrong is not None and fix.right is not None
        wrong, right = canonical(fix.wrong), fix.right
        said = [
            f
            for f in self.facts.all()
            if message.id not in {e.message_id for e in f.evidence}
            and (_has_words(f.object, wrong) or _has_words(f.subject, wrong))
        ]
        if not said:
            return 0

        newest = max(last_said(f) for f in said)
        n = 0
        for old in [f for f in said if last_said(f) == newest]:
            subj, obj = old.subject, old.object
            if _has_words(obj, wrong):
                obj = _swap_words(obj, wrong, right)
            else:
                subj = _swap_words(subj, wrong, right)
            subj_ent = self._entity_for(subj, old.subject, old.subject_id, ev, old)
            obj_ent = self._entity_for(obj, old.object, old.object_id, ev, old)
            self.facts.correct(
                old,
                subj_ent.value if subj_ent else subj,
                obj_ent.value if obj_ent else obj,
                subject_id=subj_ent.id if subj_ent else None,
                object_id=obj_ent.id if obj_ent else None,
                evidence=[ev],
                now=ev.timestamp or utcnow(),
            )
            n += 1
        counters.inc("facts.corrected", n)
        return n

    def _entity_for(self, value: str, was: str, was_id: str | None, ev: Evidence, old: Fact) -> Entity | None:
        """The entity of one end of a corrected fact: unchanged, or the corrected value's (found, or
        created with the wrong value's type)."""
        if value == was:
            return self.entities.get(was_id) if was_id else None
        prior = self.entities.get(was_id) if was_id else None
        type_ = prior.type if prior is not None else None
        ent = self.entities.resolve(value, type_)
        if ent is None and prior is not None:
            ent = self.entities.observe(value, prior.type, old.source, ev)
        if ent is not None and prior is not None and prior.relation_type is not None:
            # "I meant Dennistoun not Dalmarnock": the place the relation named, whatever NER says
            ent = self.entities.constrain_type(ent.id, prior.relation_type) or ent
        return ent

    def _link(
        self, name: str, type_: str | None, cand: FactCandidate, ev: Evidence, create: bool
    ) -> Entity | None:
        ent = self.entities.resolve(name, type_)  # type: ignore[arg-type]
        if ent is not None and not create and self.entities.is_shorter(ent, name):
            return None  # a value ("QA lead") is not the shorter name its first word is ("QA")
        if ent is None and create:
            ent = self.entities.observe(name, type_ or "unknown", cand.tier, ev)  # type: ignore[arg-type]
        return ent

    # ------------------------------------------------------------------ persistence
    def schedule_flush(self) -> None:
        """Debounced write: coalesce changes for writeDebounceMs. On the shared store at most followMs: a
        flush there writes only the changed rows (milliseconds, not a whole file), and other nodes can
        only follow what is written, so a fact reaches them within about two followMs."""
        if self.closed:
            return
        storage = self.config.storage
        delay = storage.write_debounce_ms / 1000
        if self.shared:
            delay = min(delay, storage.postgres.follow_ms / 1000)
        if delay <= 0:
            self.flush()
            return
        with self._timer_lock:
            if self._timer is not None:
                return
            self._timer = threading.Timer(delay, self._timer_fired)
            self._timer.daemon = True
            self._timer.start()

    def _timer_fired(self) -> None:
        with self._timer_lock:
            self._timer = None
        self.flush()

    def flush(self) -> bool:
        """Write pending changes now; a disk error is logged once and retried on the next flush."""
        if self.closed:  # close() flushed; a worker that outlived stop() changes nothing after it
            return True
        with self._timer_lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        hooks = list(self.flush_hooks)  # the engine may add one while this flush runs
        tokens = [checkpoint() for checkpoint, _ in hooks]
        try:
            # entities first, facts (which carry the applied keys) last, with no apply() in between
            with self.write_lock:
                wrote_e = self.entities.flush()
                wrote_f = self.facts.flush()
        except self._write_errors as exc:
            self.flush_errors += 1
            counters.inc("store.flush_errors")
            if self.flush_errors == 1 and self.shared:  # the message names host:port/db, no URL, no content
                log.error("%s; changes stay in memory and are retried", exc)
            elif self.flush_errors == 1:
                log.error(
                    "could not write the store in %s (%s); changes stay in memory and are retried",
                    self.folder,
                    failure(exc),  # 'OSError: Read-only file system' says what to fix; 'OSError' did not
                )
            return False
        for (_, release), token in zip(hooks, tokens, strict=True):
            release(token)  # what this flush made durable leaves the ingest journal and the LLM inbox
        if self.flush_errors:
            log.warning(
                "store writes in %s recovered after %d failed attempts", self.folder, self.flush_errors
            )
            self.flush_errors = 0
        if wrote_e or wrote_f:
            emit("store.flush", facts=len(self.facts), entities=len(self.entities))
        return wrote_e or wrote_f

    def prune(self) -> tuple[list[str], list[str]]:
        """Facts above maxFacts, then entities above maxEntities that no remaining fact refers to."""
        facts = self.facts.prune()
        used = {i for f in self.facts.all() for i in (f.subject_id, f.object_id) if i}
        return facts, self.entities.prune(keep=used)

    def refresh(self) -> None:
        """Adopt what other processes (the CLI, a maintenance job, other nodes) wrote."""
        self.facts.table.refresh()
        self.entities.table.refresh()
        if self.shared:
            self.entities.catch_up()  # only what changed: this runs before prompts (follow)
        else:
            self.entities.reindex()
        self._followed_at = time.monotonic()

    def follow(self) -> None:
        """Shared store: adopt other nodes' changes, at most every storage.postgres.followMs, and return
        when that look is done. The file store has one writer that matters here: nothing to do."""
        if not self._follow_due():
            return
        self.refresh()  # a database error is logged and counted there, never raised

    def follow_for_prompt(self, now: bool = False) -> None:
        """Before a prompt: start the look of `follow` in the background (at most one at a time) and
        wait for it at most PROMPT_FOLLOW_WAIT_S. A database that stopped answering keeps the look
        waiting for the connect timeout; the prompt does not wait with it (`store_down` is true while
        the look runs past that wait) and answers from memory; the look's outcome serves later prompts.
        `now`: look even if the last look was less than followMs ago (a read just hung)."""
        if not self._follow_due(now):
            return
        with self._follow_lock:
            thread = self._follow_thread
            if thread is None or not thread.is_alive():
                thread = threading.Thread(target=self._follow_in_background, name="ke-follow", daemon=True)
                self._follow_thread, self._follow_started = thread, time.monotonic()
                thread.start()
            started = self._follow_started or 0.0
        if not self.store_down:  # known down: the prompt answers from memory at once
            thread.join(max(0.0, started + PROMPT_FOLLOW_WAIT_S - time.monotonic()))

    def _follow_due(self, now: bool = False) -> bool:
        if not self.shared or self.closed:
            return False
        return now or time.monotonic() - self._followed_at >= self.config.storage.postgres.follow_ms / 1000

    def _follow_in_background(self) -> None:
        try:
            self.refresh()  # due, or asked for now (follow_for_prompt decided)
        except Exception as exc:  # a bug, not the database (refresh counts those): the prompt goes on
            counters.inc("store.follow_errors")
            log.error("looking for other nodes' changes failed (%s)", type(exc).__name__)
        finally:
            with self._follow_lock:
                self._follow_started = None

    @property
    def following(self) -> bool:
        """Whether a prompt's look for other nodes' changes is still running."""
        return self._follow_started is not None

    @property
    def store_down(self) -> bool:
        """Shared store: the last follow failed, or a prompt's look has run past the prompt's wait, so
        reads from the database (the message log, vectors) would each wait for its timeout; what is in
        memory (facts, entities) still answers."""
        if not self.shared:
            return False
        if not (self.facts.table.reachable and self.entities.table.reachable):
            return True
        started = self._follow_started
        return started is not None and time.monotonic() - started >= PROMPT_FOLLOW_WAIT_S

    def close(self) -> None:
        self.flush()
        self.closed = True
        _OPEN.discard(self)  # the exit's flush must not write a folder its owner has let go of
        if self._messages is not None:
            self._messages.close()
            self._messages = None

    def screen(self, message: Message, extraction: Extraction) -> Extraction:
        """An extraction without what a forget made while its message waited (the gates filter it
        again when it is applied): the tiers' session memory must not learn the forgotten name."""
        for gate in list(self.gates):
            kept = gate.filter(message, [extraction])
            extraction = kept[0] if kept else Extraction(message_id=extraction.message_id)
        return extraction

    def _keeps(self, message: Message) -> bool:
        """Whether the message log takes this message (memory on, its role kept, not forgotten meanwhile)."""
        if self.closed or not self.config.memory.enabled or message.role not in self.config.memory.roles:
            return False
        return all(gate.admit(message) for gate in list(self.gates))

    def store_message(self, message: Message) -> bool:
        return self._keeps(message) and bool(self.messages.append(message))

    def store_messages(self, messages: Iterable[Message]) -> int:
        """Append a batch in one write (one transaction, one round trip on the shared database)."""
        kept = [m for m in messages if self._keeps(m)]
        return self.messages.append_many(kept) if kept else 0

    def stats(self) -> dict[str, object]:
        by_type: dict[str, int] = {}
        for e in self.entities.all():
            by_type[e.type] = by_type.get(e.type, 0) + 1
        by_tier: dict[str, int] = {}
        valid = 0
        for f in self.facts.all():
            by_tier[f.source] = by_tier.get(f.source, 0) + 1
            valid += f.invalid_at is None
        return {
            "workspace": str(self.folder),
            "entities": len(self.entities),
            "entities_by_type": by_type,
            "facts": len(self.facts),
            "facts_valid": valid,
            "facts_superseded": len(self.facts) - valid,
            "facts_by_tier": by_tier,
        }


def _database_errors(shared: bool) -> tuple[type[Exception], ...]:
    """The shared store's error type, imported only when it is used (psycopg stays unloaded otherwise)."""
    if not shared:
        return ()
    from knowledge_engine.store.postgres.connect import StoreDatabaseError

    return (StoreDatabaseError,)


def _not_in_titles(mentions: list[Mention], facts: list[FactCandidate]) -> list[Mention]:
    """Untyped names that are words of a job title of the same message ("Head", "Design" of "I'm
    now Head of Design") are not entities; typed ones (an organisation spaCy saw) stay."""
    titles = [f" {canonical(f.object)} " for f in facts if f.predicate in TITLE_PREDICATES]
    if not titles:
        return mentions
    return [
        m for m in mentions if m.type != "unknown" or not any(f" {canonical(m.value)} " in t for t in titles)
    ]


def _has_words(value: str, words: str) -> bool:
    """`words` (canonical) in `value` as whole words."""
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", canonical(value)) is not None


def _swap_words(value: str, wrong: str, right: str) -> str:
    """`value` with the wrong words (any case) replaced by the right ones: "Leicester Royal Infirmary"
    -> "Leeds Royal Infirmary"; the whole value when it is only the wrong words."""
    if canonical(value) == wrong:
        return right
    return re.sub(rf"(?<!\w){re.escape(wrong)}(?!\w)", right, value, count=1, flags=re.IGNORECASE)


def _states_wrong(cand: FactCandidate, fix: Correction) -> bool:
    """A fact of a correcting message that states the value it takes back."""
    if not fix.is_swap or fix.wrong is None:
        return False
    wrong = canonical(fix.wrong)
    return _has_words(cand.object, wrong) or _has_words(cand.subject, wrong)


_WEAK_TYPES = {"unknown": 1, "concept": 2}


def _applied_key(message_id: str, tiers: str) -> str:
    """How the store remembers that a message's extraction by these tiers was applied."""
    return f"{message_id}|{tiers}"


def _applied_message(key: str) -> str:
    """The message id of an applied key (`_applied_key`)."""
    return key.rpartition("|")[0]


def flush_all_open() -> None:
    """atexit: nothing acknowledged is lost on a normal interpreter exit."""
    for ws in list(_OPEN):
        try:
            ws.flush()
        except Exception:  # pragma: no cover - best effort at exit
            log.exception("flush at exit failed for %s", ws.folder)


atexit.register(flush_all_open)


def now_or(value: datetime | None) -> datetime:
    return value or utcnow()
