"""Fact store: de-duplication, supersession, decay catch-up, pruning, queries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time

from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence
from knowledge_engine.store.facts import FactStore, boost
from knowledge_engine.store.persistence import WorkspaceLock


def make_store(folder: Path, **overrides: object) -> FactStore:
    cfg = load_config(overrides)  # type: ignore[arg-type]
    store = FactStore(folder, WorkspaceLock(folder / ".lock"), cfg.storage, cfg.decay, cfg.facts)
    store.load()
    return store


def ev(mid: str, when: datetime | None = None) -> Evidence:
    return Evidence(message_id=mid, session="s1", role="user", timestamp=when)


def test_same_triple_reinforces_instead_of_duplicating(workspace: Path) -> None:
    store = make_store(workspace)
    f1, s1 = store.add("Alex", "likes", "jazz", evidence=[ev("m1")])
    f1.relevance = 0.5
    f2, s2 = store.add("alex", "likes", "Jazz", evidence=[ev("m2")])
    assert (s1, s2) == ("new", "reinforced")
    assert f1.id == f2.id and len(store) == 1
    assert f2.relevance == pytest.approx(0.75)
    assert [e.message_id for e in f2.evidence] == ["m1", "m2"]


def test_evidence_is_capped_to_the_newest(workspace: Path) -> None:
    store = make_store(workspace, storage={"maxEvidence": 3})
    for i in range(6):
        fact, _ = store.add("Alex", "likes", "jazz", evidence=[ev(f"m{i}")])
    assert [e.message_id for e in fact.evidence] == ["m3", "m4", "m5"]


def test_single_valued_predicate_supersedes_and_keeps_history(workspace: Path) -> None:
    store = make_store(workspace)
    t1 = datetime(2024, 1, 1, tzinfo=UTC)
    t2 = datetime(2024, 6, 1, tzinfo=UTC)
    old, _ = store.add("Maya", "lives-in", "Berlin", evidence=[ev("m1", t1)])
    new, _ = store.add("Maya", "lives-in", "Lisbon", evidence=[ev("m2", t2)])
    assert old.invalid_at == t2 and old.superseded_by == new.id
    assert [f.object for f in store.query(subject="Maya")] == ["Lisbon"]
    assert {f.object for f in store.query(subject="Maya", include_history=True)} == {"Berlin", "Lisbon"}
    assert [f.object for f in store.history(new.id)] == ["Berlin", "Lisbon"]


def test_multi_valued_predicate_accumulates(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Maya", "likes", "jazz")
    store.add("Maya", "likes", "climbing")
    assert len(store.query(subject="Maya")) == 2


def test_reasserting_an_old_value_revalidates_it(workspace: Path) -> None:
    store = make_store(workspace)
    _berlin, _ = store.add("Maya", "lives-in", "Berlin")
    store.add("Maya", "lives-in", "Lisbon")
    again, status = store.add("Maya", "lives-in", "Berlin")
    assert status == "revalidated" and again.invalid_at is None
    assert [f.object for f in store.query(subject="Maya", predicate="lives-in")] == ["Berlin"]


def test_decay_catches_up_exactly_after_downtime(workspace: Path) -> None:
    with freeze_time("2025-01-01 00:00:00"):
        store = make_store(workspace, decay={"rate": 0.1, "intervalHours": 24})
        store.add("A", "likes", "B")
        assert store.decay() == 0  # first run only records the start
        store.flush()
    with freeze_time("2025-01-04 12:00:00"):  # 3.5 days later: three whole intervals
        store = make_store(workspace, decay={"rate": 0.1, "intervalHours": 24})
        assert store.decay() == 3
        assert store.all()[0].relevance == pytest.approx(0.9**3)
        assert store.decay() == 0  # the half interval is not applied twice
    with freeze_time("2025-01-05 00:00:01"):
        assert store.decay() == 1
        assert store.all()[0].relevance == pytest.approx(0.9**4)


def test_decay_never_goes_below_the_floor(workspace: Path) -> None:
    with freeze_time("2025-01-01"):
        store = make_store(workspace, decay={"rate": 0.5, "floor": 0.1})
        store.add("A", "likes", "B")
        store.decay()
    with freeze_time("2025-03-01"):
        store.decay()
        assert store.all()[0].relevance == pytest.approx(0.1)


def test_prune_drops_lowest_relevance_then_least_recently_accessed(workspace: Path) -> None:
    store = make_store(workspace, storage={"maxFacts": 2})
    base = datetime(2025, 1, 1, tzinfo=UTC)
    a, _ = store.add("A", "likes", "1", now=base)
    b, _ = store.add("B", "likes", "2", now=base + timedelta(hours=1))
    c, _ = store.add("C", "likes", "3", now=base + timedelta(hours=2))
    a.relevance = b.relevance = 0.3
    c.relevance = 0.9
    gone = store.prune()
    assert gone == [a.id]
    assert {f.id for f in store.all()} == {b.id, c.id}


def test_access_boost_moves_relevance_halfway(workspace: Path) -> None:
    store = make_store(workspace)
    fact, _ = store.add("A", "likes", "B")
    fact.relevance = 0.2
    store.get(fact.id, access=True)
    assert fact.relevance == pytest.approx(boost(0.2)) == pytest.approx(0.6)


def test_query_filters(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Maya", "works-at", "Acme", subject_id="person:maya", object_id="organization:acme")
    store.add("Sam", "likes", "tea")
    assert [f.subject for f in store.query(entity="organization:acme")] == ["Maya"]
    assert [f.subject for f in store.query(predicate="likes")] == ["Sam"]
    assert [f.subject for f in store.query(text="tea")] == ["Sam"]
    assert store.query(min_relevance=1.1) == []


def test_store_survives_a_reload(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Maya", "works-at", "Acme", evidence=[ev("m1", datetime(2024, 1, 1, tzinfo=UTC))])
    store.flush()
    again = make_store(workspace)
    (fact,) = again.all()
    assert fact.text() == "Maya works at Acme"
    assert fact.evidence[0].timestamp == datetime(2024, 1, 1, tzinfo=UTC)


def test_supersession_index_follows_reloads_and_deletions(workspace: Path) -> None:
    store = make_store(workspace)
    a, _ = store.add("Maya", "lives-in", "Lisbon")
    store.flush()
    other = make_store(workspace)  # another process adds a newer value
    other.add("Maya", "lives-in", "Porto")
    other.flush()
    store.table.refresh()  # adopt it: the slot index is rebuilt
    store.forget(a.id)
    c, _ = store.add("Maya", "lives-in", "Berlin")
    assert [f.object for f in store.query(subject="Maya")] == ["Berlin"]
    assert {f.object for f in store.query(subject="Maya", include_history=True)} == {"Porto", "Berlin"}
    assert c.invalid_at is None
