"""The local source's ranking, from candidates to the facts and memories the block will hold.

The one ranking pipeline: the hook (Retriever.rank) and the tests both run this function.
Steps, in order: the relevance cut-off and filler rule on memories -> recency decay of memories
(a higher floor for past-tense questions) ->
speaker boost -> time-window boost (or filter, `temporalFilter`) -> feedback boost -> the facts
of the asked subject and relation to the head of the fact list -> heads of both lists ->
weighted RRF of facts and memories -> `minScore` -> adaptive count -> MMR -> the caps and the
character budget of the block (relation facts first among the facts kept). A compact block (a
small budget, `compactBelowChars`) cuts long turns to the sentences that match the query and
packs the turns before the facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from knowledge_engine.config import RetrievalConfig
from knowledge_engine.inject.budget import focus_text
from knowledge_engine.inject.format import render_block, render_item
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem
from knowledge_engine.retrieve.fuse import (
    adaptive_count,
    apply_boost,
    apply_threshold,
    mmr,
    recency_decay,
    rrf,
    rrf_max,
)
from knowledge_engine.retrieve.temporal import temporal_boost
from knowledge_engine.store.keyword import STOP_WORDS

if TYPE_CHECKING:
    from knowledge_engine.retrieve.feedback import UtilityTracker


def rank_local(
    items: list[RetrievedItem],
    request: RetrievalRequest,
    rc: RetrievalConfig,
    feedback: UtilityTracker | None = None,
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    """(facts, memories) to inject, each best first, within `maxFacts`, `maxMemories` and the budget."""
    facts = [i for i in items if i.kind == "fact"]
    memory = [i for i in items if i.kind == "memory"]
    ref = request.reference_time or datetime.now(UTC)
    floor = rc.recency_floor
    if asks_about_past(request.query):
        floor = max(floor, rc.past_recency_floor)
    memory = relevant(memory, request.query, rc)
    memory = recency_decay(memory, rc.half_life_hours, ref, floor=floor)
    speaking = {i.id: 1.0 for i in memory if i.scores.get("speaker")}
    if speaking and rc.speaker_weight > 0:
        memory = apply_boost(memory, speaking, rc.speaker_weight, "speaker")
    if request.window is not None:
        facts = temporal_boost(facts, request.window, rc.temporal_weight, hard=rc.temporal_filter)
        memory = temporal_boost(memory, request.window, rc.temporal_weight, hard=rc.temporal_filter)
    if feedback is not None:
        facts = feedback.boost(facts, rc.feedback_weight)
        memory = feedback.boost(memory, rc.feedback_weight)
    # The facts of the subject and relation the question asks about (scores["relation"], set by the
    # local source, retrieve/relations.py) lead the fact list whatever the boosts did.
    facts = _relation_first(facts)
    # Only the head of each list can make the block: every later step copies its items.
    facts, memory = facts[: 3 * rc.max_facts], memory[: 3 * rc.max_memories]
    fused = rrf([facts, memory], rc.rrf_k, ["facts", "memory"], weights=[rc.fact_weight, 1.0])
    if rc.min_score > 0:
        fused = apply_threshold(fused, rc.min_score)
    limit = rc.max_facts + rc.max_memories
    if rc.adaptive:
        scale = rrf_max(2, rc.rrf_k) * max(rc.fact_weight, 1.0)
        limit = adaptive_count(fused, limit, scale=scale, min_count=min(3, limit))
    # MMR costs O(pool x picks) similarities: the caps' worth of picks from a pool of 2x that,
    # not the generic 5x (~35k Jaccards per turn at 42 picks, ~30 ms).
    chosen = mmr(fused, rc.mmr_lambda, limit, pool_factor=2)
    # Relation facts are not diversified away: the previous manager is the answer to "who was my
    # manager?" however much it looks like the current one.
    asked = [i for i in fused if i.kind == "fact" and "relation" in i.scores]
    if asked:
        ids = {i.id for i in asked}
        chosen = asked + [i for i in chosen if i.id not in ids]
    out_f, out_m = _budgeted(chosen, request.query, rc)
    return _relation_first(out_f), out_m


def _budgeted(
    chosen: list[RetrievedItem], query: str, rc: RetrievalConfig
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    """(facts, memories) of `chosen` within the caps and the block's character budget. A compact block
    (`compactBelowChars`) first cuts long turns to what matches the query (`compactItemShare`) and
    packs facts by `compactFacts`; a large block keeps the fused order."""
    compact = is_compact(rc)
    asked = content_stems(query) if compact else set()
    cut = int(rc.compact_item_share * min(rc.max_inject_chars, rc.total_max_chars))
    if compact and cut > 0:  # a share of the budget: the cut grows with it, no step at one size
        chosen = [_focused(i, asked, cut, rc.max_item_chars) for i in chosen]
    budget = min(rc.max_inject_chars, rc.total_max_chars - block_overhead(rc.format, compact))

    def size(item: RetrievedItem) -> int:
        return len(render_item(item, rc.format, rc.max_item_chars, compact)) + 1

    mode = rc.compact_facts if compact else "fused"
    if mode == "after_turns":
        return _pack_turns_first(chosen, budget, size, rc)
    if mode != "fused":
        keep = mode == "matching"
        chosen = [i for i in chosen if i.kind != "fact" or (keep and _fact_matches(i, asked))]
    return _pack(chosen, budget, size, rc)


def _fact_matches(fact: RetrievedItem, asked: set[str]) -> bool:
    """Whether the fact's relation or value (not its subject: the query names that person in any fact
    about them) shares a content word with the query; a fact without a triple is judged by its text."""
    ex = fact.extra
    told = " ".join(str(ex.get(k) or "") for k in ("predicate", "object")).replace("-", " ")
    return bool(content_stems(told if told.strip() else fact.text) & asked)


def is_compact(rc: RetrievalConfig) -> bool:
    """Whether the block is small enough to be rendered compact (`compactBelowChars`)."""
    return rc.total_max_chars < rc.compact_below_chars


def _focused(item: RetrievedItem, asked: set[str], max_chars: int, read_chars: int) -> RetrievedItem:
    """A long turn cut to its sentences sharing most content words (`asked`) with the query; facts
    stay whole."""
    if item.kind != "memory" or len(item.text) <= max_chars:
        return item
    # a huge message is read only as far as 8 large-block items (1500 each by default): bounded cost
    text = focus_text(item.text[: 8 * read_chars], max_chars, lambda s: len(content_stems(s) & asked))
    return item.model_copy(update={"text": text})


def _pack(
    chosen: list[RetrievedItem], budget: int, size: Callable[[RetrievedItem], int], rc: RetrievalConfig
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    """(facts, memories) in `chosen` order within the caps and the budget; an item that does not fit is
    passed over and a smaller one after it may still fit."""
    out_f: list[RetrievedItem] = []
    out_m: list[RetrievedItem] = []
    used = 0
    for item in chosen:
        bucket, cap = (out_f, rc.max_facts) if item.kind == "fact" else (out_m, rc.max_memories)
        cost = size(item)
        if len(bucket) >= cap or used + cost > budget:
            continue
        bucket.append(item)
        used += cost
    return out_f, out_m


def _pack_turns_first(
    chosen: list[RetrievedItem], budget: int, size: Callable[[RetrievedItem], int], rc: RetrievalConfig
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    """(facts, memories) for a small block: the turns are packed first, then the facts, best first, in
    the room they leave. Letting a fact displace the weakest turns when its fused score beat theirs
    together cost recall on LoCoMo dev at 1,000 characters (docs/benchmarks.md): facts rarely carry
    the evidence, and their fused rank says little about that."""
    turns = _pack([i for i in chosen if i.kind == "memory"], budget, size, rc)[1]
    left = budget - sum(size(i) for i in turns)
    return _pack([i for i in chosen if i.kind == "fact"], left, size, rc)[0], turns


def relevant(memory: list[RetrievedItem], query: str, rc: RetrievalConfig) -> list[RetrievedItem]:
    """The turns worth injecting at all: `relevanceCutoff` (scores["relevance"], set by the local source;
    an item without it is kept) and, with `dropFiller`, no short assistant filler sharing no content
    word with the query. The budget then fills with what is left, or stays partly unused."""
    cut = rc.relevance_cutoff
    if cut > 0:
        memory = [i for i in memory if i.scores.get("relevance", 1.0) >= cut]
    if rc.drop_filler:
        asked = content_stems(query)
        memory = [i for i in memory if not is_filler(i, asked)]
    return memory


FILLER_WORDS = 4  # a turn with more content words than this is never filler
_CONTENT = re.compile(r"[^\W\d_]+|\d+")


def content_stems(text: str) -> set[str]:
    """Content words (stop words and single letters dropped), cut to 5 letters: a crude stem under
    which 'painted' meets 'paint' and 'sister's' meets 'sister'."""
    return {w[:5] for w in _CONTENT.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS}


def is_filler(item: RetrievedItem, asked: set[str]) -> bool:
    """A short assistant turn (at most FILLER_WORDS content words) sharing no content word with the
    query: "Glad to hear it. And your partner?", "Sounds great, enjoy!"."""
    if item.kind != "memory" or item.role != "assistant":
        return False
    words = content_stems(item.text)
    return len(words) <= FILLER_WORDS and not (words & asked)


def _relation_first(facts: list[RetrievedItem]) -> list[RetrievedItem]:
    """Facts with a relation match first, by that score; the others keep their order after them."""
    if not any("relation" in i.scores for i in facts):
        return facts
    return sorted(facts, key=lambda i: -i.scores.get("relation", 0.0))


_OVERHEAD: dict[tuple[Any, bool], int] = {}
_PAST = re.compile(
    r"\b(did|was|were|had|went|used to|ago|before|earlier|previously|originally|first|back then|once)\b", re.I
)


def asks_about_past(query: str) -> bool:
    """A question in the past tense ("when did...", "what was...") wants old evidence as much as new:
    recency decay should then only break ties, not bury the answer under later chatter."""
    return bool(_PAST.search(query or ""))


def block_overhead(fmt: Any, compact: bool = False) -> int:
    """Characters the block spends around the local sections (preamble, both section headers, END
    marker), so local items are budgeted to what the block can really hold."""
    key = (fmt, compact)
    if key not in _OVERHEAD:
        probe = [
            RetrievedItem(id="p", kind="memory", source="memory", text="x"),
            RetrievedItem(id="q", kind="fact", source="facts", text="y"),
        ]
        sections = {"facts": probe[1:], "memory": probe[:1]}
        items = sum(len(render_item(i, fmt, compact=compact)) + 1 for i in probe)
        _OVERHEAD[key] = len(render_block(sections, fmt, compact=compact)) - items
    return _OVERHEAD[key]
