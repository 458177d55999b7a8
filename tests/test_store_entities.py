"""Entity store: resolution (exact, alias, conservative fuzzy, first names), type voting, merge."""

from __future__ import annotations

from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence
from knowledge_engine.store.entities import EntityStore, match_key
from knowledge_engine.store.persistence import WorkspaceLock


def make_store(folder: Path) -> EntityStore:
    cfg = load_config({})
    store = EntityStore(folder, WorkspaceLock(folder / ".lock"), cfg.storage, cfg.facts.fuzzy_threshold)
    store.load()
    return store


def test_legal_suffixes_and_case_resolve_to_one_organisation(workspace: Path) -> None:
    store = make_store(workspace)
    a = store.observe("Acme Corp", "organization", "regex")
    b = store.observe("Acme", "organization", "spacy")
    c = store.observe("ACME Corp.", "organization", "llm")
    assert a.id == b.id == c.id == "organization:acme"
    assert len(store) == 1 and a.count == 3
    assert set(a.aliases) == {"Acme", "ACME Corp."}


def test_similar_but_different_names_stay_apart(workspace: Path) -> None:
    store = make_store(workspace)
    alex = store.observe("Alex", "person", "spacy")
    alexa = store.observe("Alexa", "person", "spacy")
    assert alex.id != alexa.id


def test_conservative_fuzzy_match_joins_a_typo(workspace: Path) -> None:
    store = make_store(workspace)
    a = store.observe("Siemens Healthineers", "organization", "spacy")
    b = store.observe("Siemens Healthiners", "organization", "spacy")
    assert a.id == b.id


def test_first_name_joins_the_only_full_name(workspace: Path) -> None:
    store = make_store(workspace)
    full = store.observe("Alex Smith", "person", "spacy")
    short = store.observe("Alex", "person", "spacy")
    assert short.id == full.id and full.value == "Alex Smith"


def test_ambiguous_first_name_is_not_guessed(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Alex Smith", "person", "spacy")
    store.observe("Alex Jones", "person", "spacy")
    assert store.resolve("Alex") is None


def test_short_then_full_name_keeps_the_fuller_display_value(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Priya", "person", "spacy")
    ent = store.observe("Priya", "person", "llm")
    assert ent.value == "Priya" and ent.count == 2


def test_type_is_voted_by_tier_strength(workspace: Path) -> None:
    store = make_store(workspace)
    ent = store.observe("Lisbon", "unknown", "regex")
    assert ent.type == "unknown"
    ent = store.observe("Lisbon", "location", "spacy")
    assert ent.type == "location"
    store.observe("Lisbon", "location", "spacy")
    store.observe("Lisbon", "organization", "spacy")
    assert store.resolve("Lisbon").type == "location"  # type: ignore[union-attr]
    store.observe("Lisbon", "organization", "llm")
    store.observe("Lisbon", "organization", "llm")
    assert store.resolve("Lisbon").type == "organization"  # type: ignore[union-attr]


def test_a_second_tier_on_the_same_message_votes_but_does_not_count(workspace: Path) -> None:
    store = make_store(workspace)
    ev = Evidence(message_id="m1")
    store.observe("Globex Corp", "organization", "regex", ev)
    ent = store.observe("Globex", "location", "spacy", ev)
    assert ent.count == 1 and ent.type == "organization"
    assert ent.mentions[0].tiers == ["regex", "spacy"]
    again = store.observe("Globex", "location", "spacy", ev)  # replay of the same message
    assert again.count == 1 and again.type_votes == ent.type_votes


def test_dates_and_emails_never_merge_fuzzily(workspace: Path) -> None:
    store = make_store(workspace)
    a = store.observe("2024-05-01", "date", "regex")
    b = store.observe("2024-05-02", "date", "regex")
    assert a.id != b.id


def test_mentions_are_capped_and_deduplicated(workspace: Path) -> None:
    store = make_store(workspace)
    for i in range(30):
        ent = store.observe("Maya", "person", "spacy", Evidence(message_id=f"m{i % 25}"))
    assert len(ent.mentions) == 20
    assert len({m.message_id for m in ent.mentions}) == 20


def test_operator_merge_moves_names_into_the_kept_entity(workspace: Path) -> None:
    store = make_store(workspace)
    keep = store.observe("Robert Miller", "person", "spacy")
    drop = store.observe("Bob", "person", "spacy")
    merged = store.merge_into(keep.id, drop.id)
    assert merged is not None and "Bob" in merged.aliases
    assert store.get(drop.id) is None
    assert store.resolve("Bob").id == keep.id  # type: ignore[union-attr]


def test_match_key_strips_suffix_and_punctuation() -> None:
    assert match_key("ACME Corp.") == match_key("Acme, Inc.") == "acme"
    assert match_key("Jean-Luc Picard") == "jean-luc picard"


def test_prune_keeps_entities_that_facts_refer_to(workspace: Path) -> None:
    from knowledge_engine.store.workspace import Workspace

    ws = Workspace(workspace, load_config({"storage": {"maxEntities": 2, "writeDebounceMs": 0}}))
    for name in ("Ann", "Bob", "Cid", "Dee"):
        ws.entities.observe(name, "person", "spacy")
    ws.facts.add("Ann", "likes", "tea", subject_id="person:ann")
    ws.facts.add("Bob", "likes", "tea", subject_id="person:bob")
    _, gone = ws.prune()
    assert set(gone) == {"person:cid", "person:dee"}
    assert {e.id for e in ws.entities.all()} == {"person:ann", "person:bob"}


def test_names_that_differ_only_in_numbers_stay_apart(workspace: Path) -> None:
    store = make_store(workspace)
    a = store.observe("Company1", "organization", "spacy")
    b = store.observe("Company12", "organization", "spacy")
    c = store.observe("Acme Project 7", "concept", "spacy")
    d = store.observe("Acme Project 8", "concept", "spacy")
    assert a.id != b.id and c.id != d.id


def test_two_writers_keep_the_type_a_relation_gave() -> None:
    """One writer learned from a relation that Callum is a person, the other only counted NER
    guesses since: the merged entity is a person, with both sides' votes."""
    from knowledge_engine.model.records import Entity
    from knowledge_engine.store.entities import merge_entities

    base = Entity(id="e", type="organization", value="Callum", type_votes={"organization": 2})
    mine = base.model_copy(
        update={"type": "person", "relation_type": "person", "type_votes": {"organization": 2, "person": 5}}
    )
    theirs = base.model_copy(update={"type_votes": {"organization": 4}})
    out = merge_entities(mine, theirs, base, cap=10)
    assert (out.type, out.relation_type) == ("person", "person")
    assert out.type_votes == {"organization": 4, "person": 5}
    assert merge_entities(theirs, mine, base, cap=10).relation_type == "person"  # either side's
