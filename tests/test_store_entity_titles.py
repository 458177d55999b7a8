"""A person written with a title ("Mrs Baird", "Prof. Raghavan") and the surname alone are one
entity when only one titled person has that surname (issue 14: two entities for one teacher)."""

from __future__ import annotations

from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.store.entities import EntityStore
from knowledge_engine.store.persistence import WorkspaceLock


def make_store(folder: Path) -> EntityStore:
    cfg = load_config({})
    store = EntityStore(folder, WorkspaceLock(folder / ".lock"), cfg.storage, cfg.facts.fuzzy_threshold)
    store.load()
    return store


def test_the_surname_joins_the_titled_name(workspace: Path) -> None:
    store = make_store(workspace)
    teacher = store.observe("Mrs Baird", "person", "spacy")
    again = store.observe("Baird", "unknown", "regex")
    assert again.id == teacher.id and len(store) == 1
    prof = store.observe("Prof. Raghavan", "person", "spacy")
    assert store.observe("raghavan", "person", "spacy").id == prof.id
    assert len(store) == 2


def test_the_titled_name_joins_the_surname_seen_first(workspace: Path) -> None:
    store = make_store(workspace)
    short = store.observe("Raghavan", "person", "spacy")
    long = store.observe("Prof. Raghavan", "person", "spacy")
    assert long.id == short.id and len(store) == 1


def test_two_titled_people_with_one_surname_stay_apart(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Dr Baird", "person", "spacy")
    store.observe("Professor Baird", "person", "spacy")
    assert store.resolve("Baird") is None
    assert len(store) == 2
