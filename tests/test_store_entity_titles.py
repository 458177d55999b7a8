"""A person written with a title ("Mrs Baird", "Prof. Raghavan") and the surname alone are one
entity when only one titled person has that surname; one word of an organisation's name the model calls
a person is that organisation (issue 14: two entities for one teacher, one school)."""

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


def test_one_word_of_an_organisation_called_a_person_joins_it(workspace: Path) -> None:
    store = make_store(workspace)
    org = store.observe("Tallgrass Software", "organization", "spacy")
    word = store.observe("Tallgrass", "person", "spacy")
    assert word.id == org.id and word.type == "organization" and len(store) == 1


def test_a_person_seen_first_keeps_her_type_when_a_school_named_like_her_turns_up(workspace: Path) -> None:
    store = make_store(workspace)
    child = store.observe("Brooke", "person", "spacy")
    school = store.observe("Brooke Academy", "organization", "spacy")
    assert child.type == "person" and school.type == "organization" and child.id != school.id


def test_a_person_and_an_organisation_named_after_them_stay_apart_when_typed_so(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Bruno Lima", "person", "spacy")
    store.observe("Bruno", "organization", "spacy")  # an organisation's word does not join a person
    store.observe("Paris Hilton", "person", "spacy")
    store.observe("Paris", "location", "spacy")
    assert len(store) == 4


def test_two_titles_are_two_people(workspace: Path) -> None:
    """The fuzzy match took "Mr Baird" for "Mrs Baird" (one letter apart)."""
    store = make_store(workspace)
    mrs = store.observe("Mrs Baird", "person", "spacy")
    mr = store.observe("Mr Baird", "person", "spacy")
    assert mr.id != mrs.id and len(store) == 2
    assert store.observe("Mrs. Baird", "person", "spacy").id == mrs.id  # the same title, written otherwise
