"""The local knowledge source: facts and conversation memory of one workspace.

Each kind is searched by several arms (facts: entity match, keyword overlap, vector;
memory: BM25 and vector) and the arms are fused with reciprocal rank fusion, so no score
needs calibrating against another.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from knowledge_engine.index.fact_terms import FactTermIndex, fact_terms
from knowledge_engine.model.records import Fact, Message, canonical
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem, SourceResult
from knowledge_engine.observe import counters
from knowledge_engine.retrieve.fuse import rrf, rrf_votes, sort_items
from knowledge_engine.retrieve.hop import hop_arm, plan_hop
from knowledge_engine.retrieve.relations import (
    SubjectIndex,
    UserNames,
    parse_relation,
    relation_facts,
)
from knowledge_engine.retrieve.warmup import Step, Warmup, engine_stopping, warm_engine
from knowledge_engine.store.keyword import QueryBuilder
from knowledge_engine.store.messages import MessageLogError

if TYPE_CHECKING:
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.retrieve")
_CAPS = re.compile(r"\b[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*")
_KEYWORDS = QueryBuilder()
_WORD = re.compile(r"[^\W\d_][\w'-]*")
SPEAKER_REFRESH_S = 10.0
# The speaker arm reads this many times the pool from one vector query: the named speakers' turns
# below the plain arm's cut. 1.5x found as much evidence on LoCoMo as 2x, and a deeper HNSW
# query costs ~1.5 ms per extra 50 hits at 50k messages.
SPEAKER_DEPTH = 1.5
FACT_POOL = 40  # candidates per fact arm: at most maxFacts (12) are injected
# During warm-up the source answers by SOFT_LIMIT x its time limit (what is ready by then), and the
# full search gets at least FULL_RESERVE_S of that (a third at most) once warm-up ends.
SOFT_LIMIT = 0.85
FULL_RESERVE_S = 0.5
VECTOR_READY = "chroma"  # the warm-up step after which the vector arms cost no loading


OWN_FACTS = 4  # the asked subject's other facts led in after the relation's own


def fact_item(fact: Fact, score: float = 0.0) -> RetrievedItem:
    """Built without validation: the fields come from validated records, and validating a few
    hundred candidates per query cost more than the vector search at 50k messages."""
    return RetrievedItem.model_construct(
        id=fact.id, kind="fact", source="facts", text=fact.text(), score=score, scores={},
        timestamp=fact.valid_at or fact.created_at, speaker=None, role=None, session=None,
        message_ids=[e.message_id for e in fact.evidence], file_path=None, collection=None,
        extra={"subject": fact.subject, "predicate": fact.predicate, "object": fact.object,
               "valid_at": fact.valid_at, "invalid_at": fact.invalid_at, "confidence": fact.confidence,
               "tier": fact.source, "relevance": fact.relevance},
    )


def memory_item(msg: Message, score: float = 0.0) -> RetrievedItem:
    return RetrievedItem.model_construct(
        id=msg.id, kind="memory", source="memory", text=msg.text, score=score, scores={}, speaker=msg.speaker,
        role=msg.role, timestamp=msg.timestamp, session=msg.session, message_ids=[msg.id],
        file_path=None, collection=None, extra={},
    )


def fuse_messages(
    arms: list[list[tuple[str, float]]], weights: list[float], names: list[str], k: int,
    messages: dict[str, Message],
) -> list[RetrievedItem]:
    """Weighted RRF (fuse.rrf_votes) over arms of (message id, arm score), one item built per
    distinct message: a turn found by several arms is loaded and wrapped once instead of once per
    arm and then copied (a few hundred candidates per turn)."""
    totals, arm_scores = rrf_votes(arms, names, k, weights, keep=messages)
    items = []
    for mid, total in totals.items():
        item = memory_item(messages[mid], total)
        item.scores = {**arm_scores[mid], "rrf": total}
        items.append(item)
    return sort_items(items)


class SpeakerNames:
    """The speakers of the message log, so a query can name one without matching every greeting.

    In a chat, a speaker's own turns rarely contain their name while the other side's turns
    ("Thanks, Caroline!") do: a name in the query is a filter on who spoke, not a keyword.
    Refreshed at most every SPEAKER_REFRESH_S seconds (MessageLog.speakers)."""

    def __init__(self) -> None:
        self.at = -1e9
        self.by_word: dict[str, set[str]] = {}

    def refresh(self, ws: Workspace) -> None:
        now = time.monotonic()
        if now - self.at < SPEAKER_REFRESH_S:
            return
        self.at = now
        try:
            names = ws.messages.speakers(limit=1000)
        except Exception as exc:  # a missing or busy log only disables the speaker signal
            log.warning("speaker list unavailable (%s)", type(exc).__name__)
            return
        by_word: dict[str, set[str]] = {}
        for name in names:
            words = [w.lower() for w in _WORD.findall(name)]
            for w in words[:1] + (["_".join(words)] if len(words) > 1 else []):
                if len(w) >= 3 and w not in ("user", "assistant", "system", "unknown"):
                    by_word.setdefault(w, set()).add(name)
        self.by_word = by_word

    def named(self, query: str) -> tuple[set[str], str]:
        """(speakers named in the query, the query without those names)."""
        found: set[str] = set()
        kept: list[str] = []
        for tok in re.split(r"(\s+)", query):
            core = tok.lower().strip(".,;:!?\"()")
            core = core[:-2] if core.endswith(("'s", "’s")) else core
            hit = self.by_word.get(core)
            if hit:
                found |= hit
            else:
                kept.append(tok)
        return found, "".join(kept).strip()


class LocalSource:
    """Facts + conversation memory of one workspace (runs in a worker thread)."""

    name = "local"

    def __init__(self, engine: KnowledgeEngine, ws: Workspace, pool: int | None = None) -> None:
        self.engine = engine
        self.ws = ws
        self.pool = pool or engine.config.retrieval.candidate_pool
        self.last_embed_ms = 0.0
        self.terms = FactTermIndex()
        self.speakers = SpeakerNames()
        self.subjects = SubjectIndex()
        self.users = UserNames()
        self.warmup = Warmup("workspace", self._warm_steps(), lambda: engine_stopping(engine))

    # ------------------------------------------------------------------ warm-up
    def _warm_steps(self) -> list[Step]:
        """The vector arm's parts first (VECTOR_READY marks them done), then the fact index, which the
        keyword arms build themselves if a turn needs it sooner."""
        steps: list[Step] = [("engine", lambda: warm_engine(self.engine).wait())]
        if self.engine.config.embeddings.enabled:
            steps.append((VECTOR_READY, lambda: self.engine.chroma(self.ws)))
        steps.append(("fact_index", lambda: self._refresh_fact_indexes()))
        return steps

    def _refresh_fact_indexes(self) -> None:
        self.terms.refresh(self.ws.facts.table)
        self.subjects.refresh(self.ws.facts.table)

    @property
    def warming(self) -> bool:
        """Whether a search now would pay for loading (gather_sources keeps such timeouts off the breaker)."""
        return self.warmup.warming

    @property
    def time_limit_s(self) -> float:
        """What gather_sources gives this source: its own timeout within the retrieval budget."""
        rc = self.engine.config.retrieval
        return min(rc.local_timeout_ms, rc.budget_ms) / 1000

    # ------------------------------------------------------------------ search
    async def search(self, request: RetrievalRequest) -> SourceResult:
        t0 = time.perf_counter()
        keyword_only = False
        if self.warmup.reached(VECTOR_READY).is_set():
            items = await asyncio.to_thread(self.search_sync, request)
        else:
            items, keyword_only = await self._search_warming(request, t0)
        return SourceResult(
            source=self.name,
            items=items,
            duration_ms=(time.perf_counter() - t0) * 1000,
            error="warming" if keyword_only else None,  # the hook does not cache this answer
        )

    async def _search_warming(self, request: RetrievalRequest, t0: float) -> tuple[list[RetrievedItem], bool]:
        """Before warm-up ends: the keyword arms (no model) start at once; the full search runs only if
        the vector arm's parts are loaded early enough to leave it time. Returns (items, whether they
        are the keyword arms only)."""
        self.warmup.start()
        if not self.engine.config.embeddings.enabled:  # nothing to wait for but the fact index
            return await asyncio.to_thread(self.search_sync, request), False
        limit = self.time_limit_s * SOFT_LIMIT
        keyword = asyncio.ensure_future(asyncio.to_thread(self.search_sync, request, False))
        keyword.add_done_callback(_consume)
        wait_s = max(0.0, limit - min(FULL_RESERVE_S, limit / 3) - (time.perf_counter() - t0))
        if await asyncio.to_thread(self.warmup.reached(VECTOR_READY).wait, wait_s):
            full = asyncio.ensure_future(asyncio.to_thread(self.search_sync, request))
            full.add_done_callback(_consume)
            await asyncio.wait({full}, timeout=max(0.0, t0 + limit - time.perf_counter()))
            if full.done() and full.exception() is None:
                return full.result(), False
        counters.inc("retrieve.keyword_only_warming")
        return await keyword, True

    def search_sync(self, request: RetrievalRequest, semantic: bool = True) -> list[RetrievedItem]:
        """Every arm; `semantic=False` leaves out the vector arms (no embedder, no Chroma)."""
        self.ws.follow_for_prompt()  # shared store: other nodes' changes, looked for in the background
        if self.ws.store_down:  # the shared database is down: answer from the facts in memory at once
            counters.inc("retrieve.store_down")
            return self._facts(request, None, request.query)
        rc = self.engine.config.retrieval
        named: set[str] = set()
        topic = request.query
        if rc.speaker_names and self.ws.has_message_log:
            self.speakers.refresh(self.ws)
            named, rest = self.speakers.named(request.query)
            topic = rest if named and _KEYWORDS.build(rest).terms else request.query
        vector = self._query_vector(topic if rc.vector_topic else request.query) if semantic else None
        facts = self._facts(request, vector, topic)
        memory = self._memory(request, vector, topic, named)
        return facts + memory

    # ------------------------------------------------------------------ arms
    def _query_vector(self, query: str) -> list[float] | None:
        if not self.engine.config.embeddings.enabled:
            return None
        t0 = time.perf_counter()
        try:
            vec = self.engine.embedder.embed_query(query)
        except Exception as exc:
            counters.inc("retrieve.embed_failed")
            log.warning("query embedding failed (%s); vector arms skipped", type(exc).__name__)
            vec = None
        self.last_embed_ms = (time.perf_counter() - t0) * 1000
        return vec

    def _vector_hits(
        self, kind: str, vector: list[float] | None, where: dict[str, Any] | None, k: int | None = None
    ) -> list[Any]:
        if vector is None:
            return []
        try:
            index = self.engine.chroma(self.ws)
            # ids and scores are all the arms use: reading the hits' metadata was most of the query
            if kind == "facts":
                return index.query_facts(vector, k or self.pool, where, metadata=False)
            return index.query_messages(vector, k or self.pool, where, metadata=False)
        except Exception as exc:
            counters.inc("retrieve.vector_failed")
            log.warning("vector search failed (%s); keyword arm only", type(exc).__name__)
            return []

    def _facts(
        self, request: RetrievalRequest, vector: list[float] | None, topic: str
    ) -> list[RetrievedItem]:
        self.terms.refresh(self.ws.facts.table)
        by_id = self.terms.valid
        if not by_id:
            return []
        pool = min(self.pool, FACT_POOL)
        entity_ids = {e.id for e in self.ws.entities.search(_CAPS.findall(request.query))}
        terms = fact_terms(topic)  # the same rules as for the facts it is matched against
        overlap = self.terms.overlap(terms) if topic != request.query else {}
        # Facts of a named entity, those sharing the query's other words first; when the query names
        # an entity AND asks about something, a fact sharing none of those words is off topic.
        of_entities = {fid for eid in entity_ids for fid in self.terms.by_entity.get(eid, ())}
        ent_arm = sorted((by_id[fid] for fid in of_entities
                          if fid in by_id and (not overlap or fid in overlap)),
                         key=lambda f: (-overlap.get(f.id, 0), -f.relevance, f.id))[:pool]
        # No `valid` filter in Chroma: a filtered HNSW query cost ~30 ms at 10k facts; invalid hits
        # are dropped here instead (by_id holds only valid facts).
        hits = self._vector_hits("facts", vector, None, pool)
        # Each arm's own score per fact: entity = query words shared + relevance (the arm's order),
        # keyword = shared terms / sqrt(length), vector = cosine. One item per fact (building one per arm
        # cost ~15 us each); the fused copies get the arms' scores afterwards.
        arms = {
            "entity": {f.id: overlap.get(f.id, 0) + f.relevance for f in ent_arm},
            "keyword": dict(self.terms.ranked(terms, pool)),
            "vector": {h.id: h.score for h in hits if h.id in by_id},
        }
        made = {fid: fact_item(by_id[fid]) for arm in arms.values() for fid in arm}
        lists = [[made[fid] for fid in arm] for arm in arms.values()]
        fused = rrf(lists, k=self.engine.config.retrieval.rrf_k, names=list(arms))
        for item in fused:
            item.scores.update({name: arm[item.id] for name, arm in arms.items() if item.id in arm})
        return self._with_relation(request.query, entity_ids, fused)

    def _with_relation(
        self, query: str, entity_ids: set[str], fused: list[RetrievedItem]
    ) -> list[RetrievedItem]:
        """The facts of the subject and relation the question asks about first (retrieve/relations.py),
        each marked with `scores["relation"]`; facts stale for the question dropped."""
        rq = parse_relation(query)
        if rq.empty:
            return fused
        self.subjects.refresh(self.ws.facts.table)
        users = self.users.refresh(self.ws) if rq.first_person else set()
        hits, stale = relation_facts(rq, self.subjects, users, entity_ids, query)
        if not hits and not stale:
            return fused
        by_id = {i.id: i for i in fused}
        head: list[RetrievedItem] = []
        for n, hit in enumerate(hits):
            item = by_id.pop(hit.fact.id, None) or fact_item(hit.fact)
            item.scores["relation"] = hit.level - n / (10 * len(hits))  # the order within a level
            if hit.past:
                item.extra = {**item.extra, "past": True}
            head.append(item)
        counters.inc("retrieve.relation_facts")
        # then the asked subject's other facts ("where does Tom work?": Tom's other facts may say it
        # in a wording no family holds), in the fused order, before everyone else's
        asked = {canonical(h.fact.subject) for h in hits if h.level >= 3}
        rest = [i for i in fused if i.id in by_id and i.id not in stale]
        own = [i for i in rest if canonical(str(i.extra.get("subject", ""))) in asked][:OWN_FACTS]
        for n, item in enumerate(own):
            item.scores["relation"] = 0.5 - n / (10 * len(own))
        mine = {i.id for i in own}
        return head + own + [i for i in rest if i.id not in mine]

    def _memory(
        self, request: RetrievalRequest, vector: list[float] | None, topic: str, named: set[str]
    ) -> list[RetrievedItem]:
        ws = self.ws
        if not ws.has_message_log:
            return []
        rc = self.engine.config.retrieval
        bm25 = ws.messages.search(topic, limit=self.pool)
        msgs = {m.id: m for m, _ in bm25}
        arms, weights, names = [[(m.id, sc) for m, sc in bm25]], [1.0], ["bm25"]
        for name, arm in self._vector_arms(vector, named, msgs).items():
            arms.append(arm)
            weights.append(rc.vector_weight)
            names.append(name)
        fused = fuse_messages(arms, weights, names, rc.rrf_k, msgs)
        if rc.hop_weight > 0:
            fused = self._with_hop(request.query, fused, (arms, weights, names), msgs)
        mark_relevance(fused, names)
        if rc.neighbours > 0 and rc.neighbour_factor > 0:
            fused = self._with_neighbours(fused, rc.neighbours, rc.neighbour_factor)
        for item in fused:
            if named and item.speaker in named:
                item.scores["speaker"] = 1.0
        return fused

    def _vector_arms(
        self, vector: list[float] | None, named: set[str], msgs: dict[str, Message]
    ) -> dict[str, list[tuple[str, float]]]:
        """The plain vector arm and, when the query names a speaker, the speaker arm: that speaker's turns
        among a query SPEAKER_DEPTH x the pool deep. Loads the turns they need into `msgs`."""
        deep = bool(named) and self.engine.config.retrieval.speaker_arm
        hits = self._vector_hits("messages", vector, None, int(self.pool * SPEAKER_DEPTH) if deep else None)
        plain = hits[: self.pool]
        # Hits beyond the pool only feed the speaker arm: they are loaded from the log, which says who
        # spoke (Chroma is asked for no metadata: reading it cost more than these loads). An index that
        # returns metadata anyway (pgvector reads it with the row) lets the other speakers' turns be skipped.
        deeper = [h for h in hits[self.pool :]
                  if "speaker" not in h.metadata or h.metadata["speaker"] in named] if deep else []
        missing = [h.id for h in (*plain, *deeper) if h.id not in msgs]
        if missing:
            msgs.update((m.id, m) for m in self.ws.messages.get_many(missing))
        arms = {"vector": [(h.id, h.score) for h in plain]}
        if deep:
            own = [(h.id, h.score) for h in (*plain, *deeper) if h.id in msgs and msgs[h.id].speaker in named]
            arms["speaker_vector"] = own[: self.pool]
        return arms

    def _with_hop(
        self, query: str, fused: list[RetrievedItem],
        arms_: tuple[list[list[tuple[str, float]]], list[float], list[str]], msgs: dict[str, Message],
    ) -> list[RetrievedItem]:
        """The fusion again with the second-hop arm (retrieve/hop.py): turns naming what the query or the
        best hits name. Extends `arms_` and `msgs` in place; the fusion unchanged when there is no hop."""
        rc = self.engine.config.retrieval
        arms, weights, names = arms_
        try:
            plan = plan_hop(self.ws, query, fused, rc.hop_anchors, rc.hop_from, self.speakers.by_word,
                            rc.hop_resolve)
            found = hop_arm(self.ws, plan, self.pool)
        except MessageLogError as exc:  # the shared log is busy or down: the first hop still answers
            counters.inc("retrieve.hop_failed")
            log.warning("second hop unavailable (%s)", type(exc).__name__)
            return fused
        if not found:
            return fused
        counters.inc("retrieve.hop")
        msgs.update((m.id, m) for m, _ in found if m.id not in msgs)
        arms.append([(m.id, sc) for m, sc in found])
        weights.append(rc.hop_weight)
        names.append("hop")
        return fuse_messages(arms, weights, names, rc.rrf_k, msgs)

    def _with_neighbours(self, fused: list[RetrievedItem], top: int, factor: float) -> list[RetrievedItem]:
        """The turns right before and after each of the `top` best hits, scored `factor` x their anchor.

        An answer often shares no word with the question while the turn it answers does ("How was the
        trip?" - "Amazing, we hiked every day"): the neighbour carries the evidence."""
        by_id = {i.id: i for i in fused}
        added: list[RetrievedItem] = []
        for anchor in fused[:top]:
            if anchor.timestamp is None:
                continue
            log_ = self.ws.messages
            after = list(log_.iter(session=anchor.session, since=anchor.timestamp, limit=2))
            before = list(log_.iter(session=anchor.session, until=anchor.timestamp, order="desc", limit=1))
            for msg in [*before, *after]:
                score = anchor.score * factor
                have = by_id.get(msg.id)
                relevance = anchor.scores.get("relevance", 1.0) * factor
                if have is None:
                    item = memory_item(msg, score)
                    item.scores["neighbour"] = score
                    item.scores["relevance"] = relevance
                    by_id[msg.id] = item
                    added.append(item)
                else:
                    if have.score < score and "neighbour" in have.scores:
                        have.score = score
                    if have.scores.get("relevance", 1.0) < relevance:
                        have.scores["relevance"] = relevance
        return sort_items([*fused, *added]) if added else fused


def mark_relevance(items: list[RetrievedItem], arms: list[str]) -> None:
    """scores["relevance"] of each fused turn: its best arm's own score as a share of that arm's best
    candidate (BM25 and cosine are on no common scale; a share of the best is). A fused RRF score says
    only where a turn ranked, and in a short log every turn ranks somewhere; this says how close it
    came to the best match (retrieval.relevanceCutoff reads it)."""
    tops = {name: max((i.scores.get(name, 0.0) for i in items), default=0.0) for name in arms}
    for item in items:
        shares = (max(0.0, item.scores[name]) / top for name, top in tops.items()
                  if top > 0 and name in item.scores)
        item.scores["relevance"] = max(shares, default=0.0)


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a search nobody awaits any more (no 'exception never retrieved')."""
    if not task.cancelled():
        task.exception()


def newest_time(ws: Workspace) -> datetime | None:
    """The newest message time: the reference "now" of a replayed conversation; None (counted,
    logged) when the shared database cannot say."""
    try:
        return read_newest_time(ws)
    except MessageLogError as exc:  # the shared database is down: the prompt is still answered
        note_newest_time_error(exc)
        return None


def read_newest_time(ws: Workspace) -> datetime | None:
    """`newest_time`, raising MessageLogError: a caller that must react to a database gone down
    (the prompt starts a look at it) tells a failed read from an empty log."""
    if not ws.has_message_log or ws.store_down:
        return None
    newest = list(ws.messages.iter(order="desc", limit=1))
    if not newest:
        return None
    ts: datetime = newest[0].timestamp
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def note_newest_time_error(exc: MessageLogError) -> None:
    counters.inc("retrieve.newest_time_errors")
    log.warning("the newest message time is unavailable (%s); the clock is used", type(exc).__name__)
