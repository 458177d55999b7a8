"""Fusion and ranking formulas: RRF, half-life decay, MMR, adaptive count, thresholds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_engine.config import RetrievalConfig
from knowledge_engine.model.retrieval import RetrievalRequest, RetrievedItem
from knowledge_engine.retrieve.feedback import UtilityTracker
from knowledge_engine.retrieve.fuse import (
    adaptive_count,
    apply_boost,
    apply_threshold,
    half_life_factor,
    jaccard,
    mmr,
    recency_decay,
    rrf,
    rrf_max,
    tokens,
)
from knowledge_engine.retrieve.rank import rank_local
from knowledge_engine.retrieve.temporal import Window

REF = datetime(2023, 6, 1, 12, 0, tzinfo=UTC)


def item(
    id_: str, score: float = 0.0, text: str | None = None, ts: datetime | None = None, kind: str = "memory"
) -> RetrievedItem:
    return RetrievedItem(
        id=id_,
        kind=kind,
        source="memory",
        text=text or f"text {id_}",
        score=score,
        timestamp=ts,
    )


def test_rrf_scores_and_arm_scores() -> None:
    bm25 = [item("a", 7.0), item("b", 5.0), item("c", 1.0)]
    vec = [item("b", 0.9), item("d", 0.8)]
    fused = rrf([bm25, vec], k=60, names=["bm25", "vector"])
    by_id = {it.id: it for it in fused}
    assert fused[0].id == "b"  # in both lists
    assert by_id["b"].score == pytest.approx(1 / 62 + 1 / 61)
    assert by_id["a"].score == pytest.approx(1 / 61)
    assert by_id["d"].score == pytest.approx(1 / 62)
    assert by_id["b"].scores == {"bm25": 5.0, "vector": 0.9, "rrf": pytest.approx(1 / 62 + 1 / 61)}
    assert "vector" not in by_id["a"].scores
    assert [it.id for it in fused] == ["b", "a", "d", "c"]
    assert bm25[1].score == 5.0 and not bm25[1].scores  # inputs untouched


def test_rrf_edge_cases() -> None:
    assert rrf([]) == []
    assert rrf([[], []]) == []
    dup = rrf([[item("a"), item("a"), item("b")]])
    assert [it.id for it in dup] == ["a", "b"]
    assert dup[1].score == pytest.approx(1 / 63)  # b keeps its own rank 3
    assert rrf([[item("x")]], names=None)[0].scores["arm0"] == 0.0
    with pytest.raises(ValueError):
        rrf([[item("a")]], names=["one", "two"])
    assert rrf_max(2, 60) == pytest.approx(2 / 61)


def test_half_life_is_true_half_life() -> None:
    assert half_life_factor(0, 168) == 1.0
    assert half_life_factor(168, 168) == pytest.approx(0.5)
    assert half_life_factor(336, 168) == pytest.approx(0.25)
    assert half_life_factor(-50, 168) == 1.0  # future: no boost
    assert half_life_factor(168, 168, floor=0.2) == pytest.approx(0.6)


def test_recency_decay_uses_reference_time_not_wall_clock() -> None:
    old = item("old", 1.0, ts=REF - timedelta(hours=168))
    new = item("new", 0.8, ts=REF - timedelta(hours=1))
    undated = item("undated", 0.9)
    out = recency_decay([old, new, undated], 168, REF)
    by_id = {it.id: it for it in out}
    assert by_id["old"].score == pytest.approx(0.5)
    assert by_id["old"].scores["recency"] == pytest.approx(0.5)
    assert by_id["undated"].score == 0.9 and "recency" not in by_id["undated"].scores
    assert [it.id for it in out] == ["undated", "new", "old"]
    naive = item("naive", 1.0, ts=(REF - timedelta(hours=168)).replace(tzinfo=None))
    assert recency_decay([naive], 168, REF)[0].score == pytest.approx(0.5)


def test_recency_decay_only_selected_kinds() -> None:
    fact = item("f", 1.0, ts=REF - timedelta(days=365), kind="fact")
    out = recency_decay([fact], 168, REF, kinds=["memory"])
    assert out[0].score == 1.0
    with pytest.raises(ValueError):
        recency_decay([fact], 0, REF)


def test_mmr_prefers_diverse_items() -> None:
    a = item("a", 1.0, "alice works at acme corp in paris")
    a2 = item("a2", 0.95, "alice works at acme corp in paris france")
    b = item("b", 0.7, "bob bought a red bicycle yesterday")
    assert [it.id for it in mmr([a, a2, b], 0.7, 2)] == ["a", "b"]
    assert [it.id for it in mmr([a, a2, b], 1.0, 2)] == ["a", "a2"]  # lambda 1 = pure relevance
    assert mmr([a, b], 0.5, 0) == []
    assert mmr([], 0.5, 3) == []


def test_mmr_with_vectors_and_custom_similarity() -> None:
    a, b, c = item("a", 1.0, "x"), item("b", 0.9, "y"), item("c", 0.5, "z")
    vectors = {"a": [1.0, 0.0], "b": [0.99, 0.05], "c": [0.0, 1.0]}
    assert [it.id for it in mmr([a, b, c], 0.5, 2, vectors=vectors)] == ["a", "c"]
    assert [it.id for it in mmr([a, b, c], 0.5, 2, similarity=lambda x, y: 0.0)] == ["a", "b"]


def test_adaptive_count_ramp() -> None:
    strong = [item(str(i), 0.9 - i * 0.01) for i in range(10)]
    assert adaptive_count(strong, 8) == 8
    weak = [item("w", 0.1)]
    assert adaptive_count(weak, 8) == 0
    mid = [item(str(i), 0.3) for i in range(10)]
    n = adaptive_count(mid, 9)
    assert 1 <= n < 9
    assert adaptive_count([], 5) == 0
    assert adaptive_count(strong, 0) == 0
    assert adaptive_count(strong[:3], 8) == 3
    # RRF scores normalised by the best attainable fused score
    fused = rrf([[item("a"), item("b")], [item("a")]])
    assert adaptive_count(fused, 5, scale=rrf_max(2, 60)) == 2


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=20), st.integers(0, 30))
def test_adaptive_count_bounds(scores: list[float], max_count: int) -> None:
    items = [item(str(i), s) for i, s in enumerate(scores)]
    n = adaptive_count(items, max_count)
    assert 0 <= n <= min(len(items), max_count)


def test_threshold_absolute_and_relative() -> None:
    items = [item("a", 1.0), item("b", 0.5), item("c", 0.1)]
    assert [it.id for it in apply_threshold(items, 0.2)] == ["a", "b"]
    assert [it.id for it in apply_threshold(items, 0.0, relative=0.6)] == ["a"]
    assert apply_threshold([], 0.5, relative=0.5) == []


def test_boost_and_similarity_primitives() -> None:
    out = apply_boost([item("a", 1.0), item("b", 0.9)], {"b": 1.0}, 0.5, "temporal")
    assert [it.id for it in out] == ["b", "a"]
    assert out[0].score == pytest.approx(1.35) and out[0].scores["temporal"] == 1.0
    assert jaccard(tokens("The cat sat"), tokens("the CAT sat!")) == 1.0
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard(tokens("a b"), tokens("c d")) == 0.0


def test_rank_local_runs_the_pipeline_in_order_within_the_caps(tmp_path: Path) -> None:
    """rank_local is what the hook runs (Retriever.rank): decay, window, feedback, fusion, caps."""
    cfg = RetrievalConfig()
    old = item("old", 5.0, "alice joined acme in paris", ts=REF - timedelta(days=300))
    new = item("new", 4.45, "alice moved to lisbon last week", ts=REF - timedelta(hours=2))
    other = item("other", 3.0, "bob drinks jasmine tea daily", ts=REF - timedelta(days=1))
    fact = item("f1", 2.0, "alice works at acme", ts=REF - timedelta(days=200), kind="fact")
    items = [old, new, other, fact]

    def ranked(
        query: str,
        window: Window | None = None,
        feedback: UtilityTracker | None = None,
        config: RetrievalConfig = cfg,
    ) -> list[RetrievedItem]:
        request = RetrievalRequest(query=query, reference_time=REF, window=window)
        facts, memory = rank_local(items, request, config, feedback)
        return sorted(facts + memory, key=lambda it: -it.scores["rrf"])  # fused order (MMR picks otherwise)

    now = ranked("where is alice now")
    assert {it.id for it in now} == {"old", "new", "other", "f1"}
    by_id = {it.id: it for it in now}
    assert by_id["old"].scores["recency"] == pytest.approx(cfg.recency_floor, abs=1e-6)
    assert [it.id for it in now if it.kind == "memory"] == ["new", "old", "other"]  # decayed below new
    past = {it.id: it for it in ranked("where did alice work")}  # past tense: a higher recency floor
    assert past["old"].scores["recency"] == pytest.approx(cfg.past_recency_floor, abs=1e-6)
    assert past["old"].scores["rrf"] > past["new"].scores["rrf"]
    window = (REF - timedelta(days=3), REF)
    boosted = {it.id: it for it in ranked("where is alice", window=window)}
    assert boosted["new"].scores["temporal"] == 1.0 and "temporal" not in boosted["old"].scores

    tracker = UtilityTracker(tmp_path / "feedback.json")
    for turn in range(3):  # "other" was injected three times and cited each time
        tracker.record_injection(f"t{turn}", [other])
        tracker.record_reply(f"t{turn}", "bob drinks jasmine tea daily, as you said")
    strong = cfg.model_copy(update={"feedback_weight": 1.0})
    cited = ranked("where is alice now", feedback=tracker, config=strong)
    memories = [it for it in cited if it.kind == "memory"]
    assert memories[0].id == "other" and memories[0].scores["utility"] > 0

    capped = cfg.model_copy(update={"max_facts": 0, "max_memories": 1})
    facts, memory = rank_local(items, RetrievalRequest(query="alice", reference_time=REF), capped)
    assert facts == [] and [it.id for it in memory] == ["new"]  # the best memory only
    assert rank_local([], RetrievalRequest(query="alice", reference_time=REF), cfg) == ([], [])


def test_temporal_filter_drops_dated_items_outside_the_window() -> None:
    """`temporalFilter` (documented, default off) is honoured by the hook's pipeline: dated items
    outside the query's window go, undated ones stay (a fact with no date may still answer)."""
    cfg = RetrievalConfig(temporal_filter=True)
    items = [
        item("inside", 1.0, "alice moved to lisbon", ts=REF - timedelta(days=1)),
        item("outside", 2.0, "alice joined acme in paris", ts=REF - timedelta(days=300)),
        item("undated", 1.0, "alice likes lisbon"),
        item("old-fact", 1.0, "alice works at acme", ts=REF - timedelta(days=200), kind="fact"),
        item("fact", 1.0, "alice lives in lisbon", kind="fact"),
    ]
    window = (REF - timedelta(days=3), REF)
    facts, memory = rank_local(items, RetrievalRequest(query="alice", reference_time=REF, window=window), cfg)
    assert {it.id for it in facts + memory} == {"inside", "undated", "fact"}
    facts, memory = rank_local(items, RetrievalRequest(query="alice", reference_time=REF, window=None), cfg)
    assert len(facts + memory) == 5  # no time expression in the query: nothing is filtered
