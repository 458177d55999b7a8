"""The fact term index follows the fact table incrementally and always equals a fresh rebuild."""

from __future__ import annotations

import random
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.index.fact_terms import FactTermIndex, fact_terms, terms_of_fact
from knowledge_engine.store.workspace import Workspace


def _ws(tmp_path: Path) -> Workspace:
    cfg = load_config({"facts": {"singleValuedPredicates": ["lives-in"]}, "storage": {"writeDebounceMs": 0}})
    return Workspace(tmp_path, cfg)


def _same_as_rebuild(index: FactTermIndex, ws: Workspace) -> None:
    fresh = FactTermIndex()
    fresh.refresh(ws.facts.table)
    assert set(index.valid) == set(fresh.valid)
    assert index.postings == fresh.postings
    assert index.by_entity == fresh.by_entity
    assert index.lengths == fresh.lengths


def test_terms_are_stemmed_content_words() -> None:
    assert fact_terms("Alex works at the Acme offices") == {"alex", "work", "acme", "offic"}
    assert fact_terms("Ｃａｆé") == {"café"}  # NFKC folds full-width letters


def test_new_and_superseded_facts_update_without_rebuild(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    ws.facts.add("Alex", "lives-in", "Berlin", subject_id="person:alex")
    index = FactTermIndex()
    index.refresh(ws.facts.table)
    assert index.rebuilds == 1
    assert index.rank(fact_terms("where does alex live berlin"), 5)

    ws.facts.add("Alex", "lives-in", "Lisbon", subject_id="person:alex")  # supersedes Berlin
    index.refresh(ws.facts.table)
    assert index.rebuilds == 1
    assert [index.valid[f].object for f in index.rank({"lisbon"}, 5)] == ["Lisbon"]
    assert index.rank({"berlin"}, 5) == []
    assert "berlin" not in index.postings
    assert len(index.by_entity["person:alex"]) == 1
    _same_as_rebuild(index, ws)


def test_deletes_and_random_changes_match_a_rebuild(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    rnd = random.Random(3)
    index = FactTermIndex()
    ids: list[str] = []
    for step in range(300):
        if ids and rnd.random() < 0.3:
            ws.facts.forget(ids.pop(rnd.randrange(len(ids))))
        else:
            fact, _ = ws.facts.add(f"person {rnd.randrange(20)}", rnd.choice(["likes", "lives-in"]),
                                   f"thing {rnd.randrange(50)}")
            ids.append(fact.id)
        if step % 17 == 0:
            index.refresh(ws.facts.table)
    index.refresh(ws.facts.table)
    assert index.rebuilds == 1
    _same_as_rebuild(index, ws)


def test_reload_from_disk_rebuilds(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    ws.facts.add("Sam", "likes", "jazz")
    index = FactTermIndex()
    index.refresh(ws.facts.table)
    ws.flush()
    other = Workspace(tmp_path, ws.config)
    other.facts.add("Sam", "likes", "opera")
    other.flush()
    ws.facts.table.refresh()  # adopts the other process's write: a new generation
    index.refresh(ws.facts.table)
    assert index.rebuilds == 2
    assert index.rank({"opera"}, 5)


def test_change_log_answers_only_what_it_knows(tmp_path: Path) -> None:
    table = _ws(tmp_path).facts.table
    gen, ver = table.generation, table.version
    assert table.changed_since(gen, ver) == set()
    assert table.changed_since(gen + 1, ver) is None
    assert table.changed_since(gen, ver + 5) is None


def test_cached_fact_terms_equal_terms_of_the_text(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    fact, _ = ws.facts.add("Dr. Émile Zola-Smith", "moved-to", "the Côte d'Azur in 1990")
    assert terms_of_fact(fact) == fact_terms(fact.text())
