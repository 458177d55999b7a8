"""fuse_messages: weighted reciprocal rank fusion of the memory arms, on message ids (fuse.rrf_votes,
the one RRF that fuse.rrf also runs on items)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from knowledge_engine.model.records import Message
from knowledge_engine.retrieve.fuse import rrf
from knowledge_engine.retrieve.sources.local import fuse_messages, memory_item

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _msgs(*ids: str) -> dict[str, Message]:
    return {i: Message(id=i, text=f"text {i}", role="user", session="s", speaker="Ann", timestamp=T0)
            for i in ids}


def test_scores_are_weighted_reciprocal_ranks_with_each_arms_own_score() -> None:
    msgs = _msgs("a", "b", "c")
    out = fuse_messages([[("a", 9.0), ("b", 5.0)], [("b", 0.8), ("c", 0.7)]], [1.0, 0.5], ["bm25", "vector"],
                        60, msgs)
    by = {i.id: i for i in out}
    assert by["a"].score == pytest.approx(1 / 61)
    assert by["b"].score == pytest.approx(1 / 62 + 0.5 / 61)
    assert by["c"].score == pytest.approx(0.5 / 62)
    assert [i.id for i in out] == ["b", "a", "c"]
    assert by["b"].scores == {"bm25": 5.0, "vector": 0.8, "rrf": pytest.approx(by["b"].score)}
    assert by["b"].kind == "memory" and by["b"].message_ids == ["b"] and by["b"].speaker == "Ann"


def test_one_item_per_message_duplicates_count_once_and_unknown_ids_are_dropped() -> None:
    msgs = _msgs("a", "b")
    out = fuse_messages([[("a", 3.0), ("a", 2.0), ("ghost", 1.0), ("b", 1.0)]], [1.0], ["bm25"], 60, msgs)
    assert [i.id for i in out] == ["a", "b"]
    assert out[0].score == pytest.approx(1 / 61) and out[0].scores["bm25"] == 3.0  # the best rank only
    assert out[1].score == pytest.approx(1 / 64)  # ranks are positions in the arm as given
    assert fuse_messages([[], []], [1.0, 1.0], ["x", "y"], 60, msgs) == []


def test_same_ranking_as_weighted_rrf_over_items() -> None:
    msgs = _msgs(*"abcdef")
    arms = [[("a", 1.0), ("b", 1.0), ("c", 1.0)], [("d", 1.0), ("b", 1.0), ("e", 1.0)],
            [("f", 1.0), ("a", 1.0)]]
    weights = [1.0, 0.85, 0.85]
    names = ["bm25", "vector", "speaker_vector"]
    ids = fuse_messages(arms, weights, names, 60, msgs)
    items = rrf([[memory_item(msgs[i], s) for i, s in arm] for arm in arms], 60, names, weights=weights)
    assert [(i.id, i.score, i.scores) for i in ids] == [(i.id, i.score, i.scores) for i in items]


def test_weighted_ties_go_to_the_better_plain_vote_then_to_first_appearance() -> None:
    """fact@4 x 1.5 and turn@2 both score 0.25 at k=2: the turn ranks better unweighted, so it leads
    (as rank_local has always fused them); equal plain votes keep the order the lists gave."""
    facts = [memory_item(m) for m in _msgs("f1", "f2", "f3", "f4").values()]
    turns = [memory_item(m) for m in _msgs("t1", "t2").values()]
    fused = rrf([facts, turns], 2, ["facts", "memory"], weights=[1.5, 1.0])
    order = [i.id for i in fused]
    assert fused[order.index("f4")].score == fused[order.index("t2")].score == 0.25
    assert order.index("t2") < order.index("f4")
    even = rrf([facts[:1], turns[:1]], 2, ["facts", "memory"], weights=[1.0, 1.0])
    assert [i.id for i in even] == ["f1", "t1"]
