"""Fusion and ranking formulas: RRF, half-life decay, MMR, adaptive count, thresholds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_engine.retrieve.base import RetrievedItem
from knowledge_engine.retrieve.fuse import (
    adaptive_count,
    apply_boost,
    apply_threshold,
    half_life_factor,
    jaccard,
    mmr,
    rank,
    recency_decay,
    rrf,
    rrf_max,
    tokens,
)

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


def test_rank_pipeline_order_and_limits() -> None:
    from knowledge_engine.config import RetrievalConfig

    cfg = RetrievalConfig()
    old_match = item("old", 5.0, "alice joined acme in paris", ts=REF - timedelta(days=300))
    new_match = item("new", 4.0, "alice joined acme in paris last week", ts=REF - timedelta(hours=2))
    other = item("other", 3.0, "bob likes tea", ts=REF - timedelta(days=1))
    bm25, vec = [old_match, new_match, other], [old_match]
    plain = rank([bm25, vec], ["bm25", "vector"], cfg, 10)
    assert [it.id for it in plain] == ["old", "other", "new"]  # MMR puts the near-duplicate last
    out = rank([bm25, vec], ["bm25", "vector"], cfg, 10, reference_time=REF)
    assert out[0].id == "old"  # in both arms: the recency floor keeps it first
    assert out[0].scores["recency"] == pytest.approx(cfg.recency_floor, abs=1e-6)
    pure = cfg.model_copy(update={"recency_floor": 0.0})
    assert rank([bm25, vec], ["bm25", "vector"], pure, 10, reference_time=REF)[-1].id == "old"
    window = (REF - timedelta(days=3), REF)
    strong = cfg.model_copy(update={"temporal_weight": 2.0})
    boosted = rank([bm25, vec], ["bm25", "vector"], strong, 10, reference_time=REF, window=window)
    assert boosted[0].id == "new" and boosted[0].scores["temporal"] == 1.0
    assert len(rank([bm25, vec], ["bm25", "vector"], cfg, 2)) == 2
    strict = cfg.model_copy(update={"temporal_filter": True})
    assert {it.id for it in rank([bm25], ["bm25"], strict, 10, window=window)} == {"new", "other"}
    assert rank([[], []], ["bm25", "vector"], cfg, 10) == []
