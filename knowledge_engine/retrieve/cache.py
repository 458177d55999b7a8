"""Prompt cache: the final hook result per agent, by exact then fuzzy query match.

Hosts fire the prompt hook twice per turn (model-resolve, then prompt-build phase), and
users rephrase; both would otherwise pay full retrieval again within seconds. Entries
expire after a TTL, and each agent keeps at most `max_entries` (least recently used
evicted), so one agent's traffic cannot evict another's.

A fuzzy hit reuses the result of a query that differs by a few words, which is only
safe when those words do not carry the meaning: "where does Alice work" and "where does
Bob work" must not share a result however long the question. So, unless `strict=False`,
a fuzzy match additionally requires every differing token to be a filler word (articles,
"please", "can you", ...) or a one/two-letter token without digits.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from knowledge_engine import observe
from knowledge_engine.retrieve.fuse import jaccard, tokens

V = TypeVar("V")

_FILLER = frozenset(
    {
        "the", "a", "an", "and", "or", "so", "to", "of", "in", "on", "at", "for", "is", "are", "was", "be",
        "it", "its", "me", "my", "i", "you", "your", "please", "pls", "can", "could", "would", "will", "do",
        "tell", "about", "again", "just", "now", "then", "hey", "hi", "ok", "okay", "um", "uh", "well",
        "also",
    }
)


def _only_filler(a: frozenset[str], b: frozenset[str]) -> bool:
    """True when the tokens that differ between two queries carry no meaning."""
    return all(t in _FILLER or (len(t) <= 2 and not any(c.isdigit() for c in t)) for t in a ^ b)


@dataclass
class _Entry(Generic[V]):
    value: V
    tokens: frozenset[str]
    expires: float


class PromptCache(Generic[V]):
    """Exact + fuzzy (Jaccard over lower-cased word tokens) LRU cache with TTL, per agent."""

    strict: bool

    def __init__(
        self,
        ttl_s: float,
        max_entries: int = 200,
        fuzzy_threshold: float = 0.85,
        clock: Callable[[], float] = time.monotonic,
        strict: bool = True,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.fuzzy_threshold = fuzzy_threshold
        self._clock = clock
        self.strict = strict
        self._lock = threading.Lock()
        self._agents: dict[str, OrderedDict[str, _Entry[V]]] = {}

    @property
    def enabled(self) -> bool:
        return self.ttl_s > 0 and self.max_entries > 0

    @staticmethod
    def _key(query: str) -> str:
        return " ".join(query.split())

    def _purge(self, entries: OrderedDict[str, _Entry[V]], now: float) -> None:
        for key in [k for k, e in entries.items() if e.expires <= now]:
            del entries[key]

    def get(self, agent_id: str, query: str) -> V | None:
        """The cached value for this query (exact, else best fuzzy match), or None."""
        if not self.enabled:
            return None
        key, now = self._key(query), self._clock()
        with self._lock:
            entries = self._agents.get(agent_id)
            if not entries:
                observe.counters.inc("retrieval.cache.miss")
                return None
            self._purge(entries, now)
            if key in entries:
                entries.move_to_end(key)
                observe.counters.inc("retrieval.cache.hit_exact")
                return entries[key].value
            match = self._best_fuzzy(entries, tokens(key))
            if match is None:
                observe.counters.inc("retrieval.cache.miss")
                return None
            entries.move_to_end(match)
            observe.counters.inc("retrieval.cache.hit_fuzzy")
            return entries[match].value

    def _best_fuzzy(self, entries: OrderedDict[str, _Entry[V]], toks: frozenset[str]) -> str | None:
        if self.fuzzy_threshold > 1 or not toks:
            return None
        best_key, best = None, -1.0
        for k, e in entries.items():
            s = jaccard(toks, e.tokens)
            if s >= self.fuzzy_threshold and s > best and (not self.strict or _only_filler(toks, e.tokens)):
                best_key, best = k, s
        return best_key

    def set(self, agent_id: str, query: str, value: V) -> None:
        """Store the final result (empty results too: "nothing relevant" is worth caching)."""
        if not self.enabled:
            return
        key, now = self._key(query), self._clock()
        with self._lock:
            entries = self._agents.setdefault(agent_id, OrderedDict())
            entries[key] = _Entry(value, tokens(key), now + self.ttl_s)
            entries.move_to_end(key)
            self._purge(entries, now)
            while len(entries) > self.max_entries:
                entries.popitem(last=False)

    def clear(self, agent_id: str | None = None) -> None:
        """Forget one agent's entries (e.g. after its store changed), or everything."""
        with self._lock:
            if agent_id is None:
                self._agents.clear()
            else:
                self._agents.pop(agent_id, None)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(e) for e in self._agents.values())
