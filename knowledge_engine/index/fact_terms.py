"""In-memory term and entity indexes over the currently valid facts, kept current incrementally.

Facts are short ("Alex works at Acme"), so a word-overlap ranking finds them better than BM25
and needs no database. The index follows the fact table's change log (`RecordTable.changed_since`):
a new or superseded fact costs a few dictionary updates, and only a reload or merge of the
whole table rebuilds it (about 1 s per 100k facts).
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from functools import lru_cache

from knowledge_engine.model.records import Fact
from knowledge_engine.store.keyword import MIN_TOKEN_CHARS, STOP_WORDS
from knowledge_engine.store.table import TableFollower, post, unpost

_TOKEN = re.compile(r"[^\W_]+")
_SUFFIXES = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """A light suffix strip so "work", "works" and "worked" meet."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def fact_terms(text: str) -> set[str]:
    """Stemmed content words of a fact or a query (the same rules on both sides)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return {
        _stem(tok)
        for tok in _TOKEN.findall(text.lower())
        if len(tok) >= MIN_TOKEN_CHARS and tok not in STOP_WORDS
    }


@lru_cache(maxsize=65536)
def _part_terms(part: str) -> frozenset[str]:
    return frozenset(fact_terms(part))


def terms_of_fact(fact: Fact) -> frozenset[str]:
    """`fact_terms(fact.text())`, from cached parts: subjects and predicates repeat across many facts."""
    return _part_terms(fact.subject) | _part_terms(fact.predicate) | _part_terms(fact.object)


class FactTermIndex(TableFollower[Fact]):
    """term -> fact ids and entity id -> fact ids over the valid facts of one table."""

    def __init__(self) -> None:
        super().__init__()
        self.valid: dict[str, Fact] = {}
        self.postings: dict[str, set[str]] = {}
        self.lengths: dict[str, int] = {}
        self.by_entity: dict[str, set[str]] = {}
        # fact id -> (terms, entity ids)
        self._terms_of: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}

    def _clear(self) -> None:
        self.valid, self.postings, self.lengths, self.by_entity, self._terms_of = {}, {}, {}, {}, {}

    def _add(self, fact: Fact) -> None:
        if fact.invalid_at is not None:
            return
        fid = fact.id
        words = terms_of_fact(fact)
        entities = tuple({e: None for e in (fact.subject_id, fact.object_id) if e})
        self.valid[fid] = fact
        self.lengths[fid] = max(1, len(words))
        self._terms_of[fid] = (words, entities)
        post(self.postings, words, fid)
        post(self.by_entity, entities, fid)

    def _remove(self, fid: str) -> None:
        known = self._terms_of.pop(fid, None)
        self.valid.pop(fid, None)
        self.lengths.pop(fid, None)
        if known is None:
            return
        words, entities = known
        unpost(self.postings, words, fid)
        unpost(self.by_entity, entities, fid)

    def overlap(self, terms: set[str]) -> dict[str, int]:
        hits: dict[str, int] = {}
        for t in terms:
            for fid in self.postings.get(t, ()):
                hits[fid] = hits.get(fid, 0) + 1
        return hits

    def rank(self, terms: set[str], limit: int) -> list[str]:
        """Fact ids sharing most query terms, normalised by fact length (ties by id: deterministic)."""
        return [fid for fid, _ in self.ranked(terms, limit)]

    def ranked(self, terms: set[str], limit: int) -> list[tuple[str, float]]:
        """(fact id, score) best first; score = query terms shared / sqrt(the fact's term count)."""
        hits = self.overlap(terms)
        lengths = self.lengths
        scored = ((fid, n / lengths[fid] ** 0.5) for fid, n in hits.items())
        return heapq.nsmallest(limit, scored, key=lambda kv: (-kv[1], kv[0]))
