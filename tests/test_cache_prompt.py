"""Prompt cache: exact and fuzzy hits, TTL on an injected clock, LRU, per-agent isolation."""

from __future__ import annotations

from knowledge_engine import observe
from knowledge_engine.retrieve.cache import PromptCache


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(
    ttl: float = 300, size: int = 3, threshold: float = 0.85
) -> tuple[PromptCache[dict[str, str]], Clock]:
    clock = Clock()
    return PromptCache(ttl, size, threshold, clock=clock), clock


def test_exact_hit_and_whitespace_insensitive() -> None:
    cache, _ = make()
    result = {"appendSystemContext": "block"}
    cache.set("main", "Where does Alice work?", result)
    before = observe.counters.get("retrieval.cache.hit_exact")
    assert cache.get("main", "  Where does   Alice work? ") == result
    assert observe.counters.get("retrieval.cache.hit_exact") == before + 1
    assert cache.get("main", "where does alice live?") is None


def test_fuzzy_hit_over_word_tokens() -> None:
    cache, _ = make(threshold=0.8)
    cache.set("main", "what did we decide about the halcyon launch date in the meeting", {"r": "1"})
    # the word "so" is filler, so the strict guard allows this near-duplicate
    # same words, different case and punctuation -> Jaccard 1.0
    assert cache.get("main", "What did we decide about the Halcyon launch date, in the meeting?") == {
        "r": "1"
    }
    # one extra word out of 11 -> 10/11 = 0.91 >= 0.8
    assert cache.get("main", "so what did we decide about the halcyon launch date in the meeting") == {
        "r": "1"
    }
    # a different question with a few shared words is a miss
    assert cache.get("main", "what did alice say about the budget") is None


def test_fuzzy_can_be_disabled_by_threshold_above_one() -> None:
    cache, _ = make(threshold=1.01)
    cache.set("main", "a b c", {"r": "1"})
    assert cache.get("main", "c b a") is None
    assert cache.get("main", "a b c") == {"r": "1"}


def test_ttl_expiry_uses_injected_clock() -> None:
    cache, clock = make(ttl=10)
    cache.set("main", "question one", {"r": "1"})
    clock.now += 9.9
    assert cache.get("main", "question one") == {"r": "1"}
    clock.now += 0.2
    assert cache.get("main", "question one") is None
    assert len(cache) == 0


def test_lru_eviction_per_agent() -> None:
    cache, _ = make(size=2)
    cache.set("main", "q1 alpha", {"r": "1"})
    cache.set("main", "q2 beta", {"r": "2"})
    assert cache.get("main", "q1 alpha") is not None  # q1 is now most recent
    cache.set("main", "q3 gamma", {"r": "3"})
    assert cache.get("main", "q2 beta") is None
    assert cache.get("main", "q1 alpha") == {"r": "1"}
    cache.set("other", "q2 beta", {"r": "other"})  # another agent does not evict main's entries
    assert cache.get("main", "q3 gamma") == {"r": "3"}
    assert cache.get("other", "q2 beta") == {"r": "other"}
    assert cache.get("other", "q1 alpha") is None


def test_empty_results_are_cached_and_twice_per_turn_absorbed() -> None:
    cache, _ = make()
    cache.set("main", "anything relevant?", {})
    assert cache.get("main", "anything relevant?") == {}


def test_disabled_and_clear() -> None:
    cache, _ = make(ttl=0)
    cache.set("main", "q", {"r": "1"})
    assert cache.get("main", "q") is None and not cache.enabled
    cache, _ = make()
    cache.set("main", "q", {"r": "1"})
    cache.set("b", "q", {"r": "2"})
    cache.clear("main")
    assert cache.get("main", "q") is None and cache.get("b", "q") == {"r": "2"}
    cache.clear()
    assert len(cache) == 0


def test_default_threshold_substitution_boundary() -> None:
    clock = Clock()
    loose: PromptCache[str] = PromptCache(300, 10, 0.85, clock=clock, strict=False)
    shared = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11"
    loose.set("main", shared + " alice", "alice")
    assert loose.get("main", shared + " bob") is None  # 11 shared: 11/13 < 0.85
    loose.set("main", shared + " w12 alice", "alice12")
    assert loose.get("main", shared + " w12 bob") == "alice12"  # 12 shared: 12/14 >= 0.85


def test_strict_fuzzy_never_swaps_a_content_word() -> None:
    cache, _ = make(threshold=0.5)
    long_q = "can you remind me what exactly we decided about the quarterly budget for the marketing team"
    cache.set("main", long_q + " alice", {"r": "alice"})
    assert cache.get("main", long_q + " bob") is None  # same length, one name differs: never a hit
    assert cache.get("main", long_q.replace("budget", "deadline") + " alice") is None
    assert cache.get("main", "please " + long_q + " alice") == {"r": "alice"}  # filler only
    cache.set("main", "what happened in 2022", {"r": "2022"})
    assert cache.get("main", "what happened in 2023") is None
