"""The speaker's pets named by what they are (issue 14, extract/pets.py): "Jess is the dog", "we have
dog, paçoca", a name made a breed by a he/she ("Banjo ... he's a red kelpie"); on the real English
pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.pets import pet_of_breed
from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import spoken


def pets(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    extraction = spoken(tier, text, "Eamon")
    return {
        (f.predicate, f.object)
        for f in extraction.facts
        if f.subject == "Eamon" and f.predicate in {"has-dog", "has-cat", "has-rabbit", "has-horse"}
    }


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("Too big for one man and a dog. Jess is the dog, an old sheepdog cross.", ("has-dog", "Jess")),
        ("also we have dog, paçoca, vira-lata, can dog fly to europe?", ("has-dog", "Paçoca")),
        ("I have a cat, Mochi.", ("has-cat", "Mochi")),
        ("Moved in! Banjo's already found the beach. he's a red kelpie, 4", ("has-dog", "Banjo")),
        # a name that is also a word, tagged an adjective: after "called", or beside "our cockapoo"
        ("We've got a dog called Bramble.", ("has-dog", "Bramble")),
        ("Bramble, our cockapoo, hates the rain.", ("has-dog", "Bramble")),
    ],
)
def test_a_pet_named_by_what_it_is_is_the_speakers(tier: SpacyTier, text: str, pet: tuple[str, str]) -> None:
    assert pet in pets(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Tom is a boxer.",  # a person's trade, though a breed too
        "Her neighbour Tom, he's a boxer.",
        "Rex is her dog.",  # hers
        "We have a dog and Tom.",  # a list of two, not a name for the dog
        "Do you have a dog, Rex?",  # the assistant's, asked
        "Jess is the dog lover in the family.",  # a person
        "Honestly, our dog is a menace.",  # a capital that opens the sentence
        "We've got a dog called bramble.",  # no capital: no name to read
    ],
)
def test_no_pet_of_the_speakers_where_none_was_said(tier: SpacyTier, text: str) -> None:
    assert pets(tier, text) == set()


def test_a_breed_that_is_also_a_persons_word_names_no_animal() -> None:
    assert pet_of_breed("red kelpie") == "dog"
    assert pet_of_breed("boxer") is None
    assert pet_of_breed("civil engineer") is None


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("I'm exhausted, the new puppy Ziggy has us up every single night.", ("has-puppy", "Ziggy")),
        ("We have a hamster Krümel.", ("has-hamster", "Krümel")),
        ("We got a kitten Luna last week.", ("has-kitten", "Luna")),  # "kitten" tagged an adjective
        ("We have one dog, his name is Paçoca.", ("has-dog", "Paçoca")),
    ],
)
def test_an_animal_word_before_a_name_or_its_name_said_after(
    tier: SpacyTier, text: str, pet: tuple[str, str]
) -> None:
    extraction = spoken(tier, text, "Eamon")
    assert pet in {(f.predicate, f.object) for f in extraction.facts if f.subject == "Eamon"}


@pytest.mark.parametrize(
    "text",
    [
        "the dog Rex barks at night.",  # whose dog is not said
        "My neighbour has a dog, his name is Rex.",
        "I met a guy called Tom, his name is funny.",
    ],
)
def test_no_pet_from_anothers_animal_or_a_persons_name(tier: SpacyTier, text: str) -> None:
    extraction = spoken(tier, text, "Eamon")
    assert not [f for f in extraction.facts if f.subject == "Eamon" and f.predicate.startswith("has-")]


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("Asking for Nala, my tabby, her skin's a bit flaky.", ("has-cat", "Nala")),
        ("Buster, our labrador, is 12 now.", ("has-dog", "Buster")),
        ("Max the dog chewed my shoes.", ("has-dog", "Max")),
    ],
)
def test_a_name_beside_the_households_animal_word(tier: SpacyTier, text: str, pet: tuple[str, str]) -> None:
    extraction = spoken(tier, text, "Eamon")
    assert pet in {(f.predicate, f.object) for f in extraction.facts if f.subject == "Eamon"}


@pytest.mark.parametrize("text", ["Her dog Rex, my favourite, is old.", "Paris the city is lovely."])
def test_no_pet_beside_anothers_animal_or_a_place(tier: SpacyTier, text: str) -> None:
    extraction = spoken(tier, text, "Eamon")
    assert not [f for f in extraction.facts if f.predicate in {"has-dog", "has-cat", "has-city"}]


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("we got a puppy! his name is Milo", ("has-puppy", "Milo")),
        ("We adopted a cat last week, her name is Luna", ("has-cat", "Luna")),
        ("We got a kitten! Named her Pepper.", ("has-kitten", "Pepper")),  # "We" dropped before "Named"
        ("The puppy's name is Luna.", ("has-puppy", "Luna")),  # the household's animal's name
        ("Our dog's name is Bo.", ("has-dog", "Bo")),  # a guard: read before by another rule
        ("New puppy! His name is Otis.", ("has-puppy", "Otis")),  # a line that is only the new animal
    ],
)
def test_a_pet_got_then_named_by_his_or_her_name(tier: SpacyTier, text: str, pet: tuple[str, str]) -> None:
    assert pet in {(f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts if f.subject == "Eamon"}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I met a guy at the gym. His name is Tom.", "Tom"),
        ("We got a puppy for my son. His name is Leo.", "Leo"),
        ("Her dog's name is Rex.", "Rex"),  # another's animal
        ("The puppy's name will be Luna.", "Luna"),  # not named yet
        ("My sister's new puppy! His name is Otis.", "Otis"),  # hers
        ("New neighbours! His name is Dave.", "Dave"),
    ],
)
def test_a_person_named_after_the_animal_is_no_pet(tier: SpacyTier, text: str, name: str) -> None:
    facts = spoken(tier, text, "Eamon").facts
    # "a puppy for my son. His name is Leo": the son's name (has-child), never the animal's
    named = {f.predicate for f in facts if f.object == name and f.predicate.startswith("has-")}
    assert not named - {"has-child"}


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("our labrador Max is getting old", ("has-dog", "Max")),  # "our" was only a family's
        ("our dog Rex", ("has-dog", "Rex")),
        ("me and my pup Scout went hiking", ("has-dog", "Scout")),  # was "has-pup", in no family
        ("my kitty Luna", ("has-cat", "Luna")),
        ("my tortoise Sheldon", ("has-tortoise", "Sheldon")),
    ],
)
def test_a_household_or_chat_word_pet(tier: SpacyTier, text: str, pet: tuple[str, str]) -> None:
    assert pet in {(f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts if f.subject == "Eamon"}


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("took Biscuit to the vet, the dog has an ear infection", ("has-dog", "Biscuit")),
        ("Max has been such a good dog this week", ("has-dog", "Max")),
        ("can't make standup, Biscuit (the dog) ate a sock, at the vet w him", ("has-dog", "Biscuit")),
    ],
)
def test_the_one_name_beside_the_households_animal_is_the_pet(
    tier: SpacyTier, text: str, pet: tuple[str, str]
) -> None:
    assert pet in pets(tier, text)


@pytest.mark.parametrize(
    "text", ["Took Biscuit to the vet this morning.", "We had to take Biscuit to the vets."]
)
def test_what_the_speaker_takes_to_the_vet_is_a_pet(tier: SpacyTier, text: str) -> None:
    facts = spoken(tier, text, "Eamon").facts
    assert ("Eamon", "has-pet", "Biscuit") in {(f.subject, f.predicate, f.object) for f in facts}


@pytest.mark.parametrize(
    "text",
    [
        "Tom walked the dog",  # a person acting on the animal
        "the cat and Leo are best friends",  # two things
        "my son Leo and the dog are inseparable",  # a name the sentence makes a person
        "we might call the puppy Milo",  # a plan
        "dog-sitting for my neighbour, Bruno is such a sweet dog",  # someone else's
        "We took the dog to Brighton",  # a place
        "My sister took Bruno to the vet",  # another's animal
        "I took Tom to the doctor",  # a person
    ],
)
def test_no_pet_from_a_person_a_place_or_a_plan_beside_the_animal(tier: SpacyTier, text: str) -> None:
    assert not {p for p in pets(tier, text) if p[1] in {"Tom", "Leo", "Milo", "Bruno", "Brighton"}}


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("My puppy Ziggy is lovely.", ("has-puppy", "Ziggy")),  # "puppy" parsed a modifier of the name
        ("Our new puppy Ziggy is a menace.", ("has-puppy", "Ziggy")),
        ("My new kitten Miso is so cute.", ("has-kitten", "Miso")),  # "kitten" tagged an adjective
        ("Our pup Ziggy is a menace.", ("has-dog", "Ziggy")),  # "pup Ziggy" tagged one person
    ],
)
def test_an_animal_word_parsed_as_the_names_modifier(
    tier: SpacyTier, text: str, pet: tuple[str, str]
) -> None:
    facts = {(f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts if f.subject == "Eamon"}
    assert pet in facts


@pytest.mark.parametrize("text", ["Her puppy Ziggy is lovely.", "My puppy training class is fun."])
def test_no_pet_from_anothers_animal_word_or_no_name(tier: SpacyTier, text: str) -> None:
    facts = spoken(tier, text, "Eamon").facts
    assert not [f for f in facts if f.subject == "Eamon" and f.predicate.startswith("has-")]


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        (
            "also me n tavo adopted a dog from ACS. hes a pit mix named nacho. our complex allows dogs.",
            "Nacho",
        ),
        ("We got a kitten last week. She's a little tabby called Mochi.", "Mochi"),
    ],
)
def test_an_animal_got_then_said_to_be_something_called_a_name_is_the_pet(
    tier: SpacyTier, text: str, pet: str
) -> None:
    assert pet in {name for _, name in pets(tier, text)}


def test_a_person_said_to_be_something_called_a_name_is_no_pet(tier: SpacyTier) -> None:
    assert not pets(tier, "I met Tom at the gym. He's a personal trainer called Tom Jones.")


@pytest.mark.parametrize("text", ["Mum's our dog sitter", "Jo's my dog walker when I'm away"])
def test_a_pets_carer_is_no_pet(tier: SpacyTier, text: str) -> None:
    assert pets(tier, text) == set()  # "sitter" after "our dog" is no lower-case name


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("Got a rescue dog! She's called Poppy.", "Poppy"),  # the name in a sentence of its own
        ("We got a dog. He's named Rufus.", "Rufus"),
        ("Rolo our lab is 7 now.", "Rolo"),  # a name right before "our <animal>"
        ("Meet Pickle, our new cat!", "Pickle"),  # was "Meet Pickle"
    ],
)
def test_a_pet_named_after_it_was_got_or_before_our_animal(tier: SpacyTier, text: str, pet: str) -> None:
    assert pet in {name for _, name in pets(tier, text)}


@pytest.mark.parametrize(
    "text",
    [
        "My sister got a dog. She's called Poppy.",  # another's animal
        "My sister adopted a kitten, named her Biscuit.",
        "Got a dog! She might be called Poppy.",
        "Met my new boss. She's called Priya.",
    ],
)
def test_an_animal_anothers_or_a_name_supposed_or_a_persons_is_no_pet(tier: SpacyTier, text: str) -> None:
    assert pets(tier, text) == set()


def test_a_breed_the_model_took_for_a_name_still_names_our_dog(tier: SpacyTier) -> None:
    # "Shepherd" is tagged a proper noun: "Rex" was read as a child by his age instead
    text = "Rex, our German Shepherd, turns 9 next week."
    assert ("has-dog", "Rex") in pets(tier, text)
    assert not [f for f in spoken(tier, text, "Eamon").facts if f.predicate == "has-child"]


def test_one_name_after_a_pet_got_for_the_kids_is_no_child(tier: SpacyTier) -> None:
    said = spoken(tier, "we got a hamster for the kids, Nibbles", "Eamon").facts
    facts = {(f.predicate, f.object) for f in said}
    assert ("has-child", "Nibbles") not in facts
    # two names listed after the kids are the kids, pet or not
    listed = spoken(tier, "We bought a puppy for the kids, Mia and Sam, for Christmas.", "Eamon").facts
    assert {("has-child", "Mia"), ("has-child", "Sam")} <= {(f.predicate, f.object) for f in listed}


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("Just picked up our new puppy! Cockapoo, named him Teddy.", ("has-puppy", "Teddy")),
        ("We brought home a kitten yesterday, named her Luna.", ("has-kitten", "Luna")),
        ("Collected the puppy on Saturday. We named her Poppy.", ("has-puppy", "Poppy")),
    ],
)
def test_an_animal_picked_up_or_brought_home_then_named_is_the_speakers(
    tier: SpacyTier, text: str, pet: tuple[str, str]
) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts if f.subject == "Eamon"}
    assert pet in said


def test_a_person_picked_up_and_nicknamed_is_no_pet(tier: SpacyTier) -> None:
    text = "Picked up my sister from the station, named her Queen of Lateness."
    assert not [
        f for f in spoken(tier, text, "Eamon").facts if f.predicate.startswith("has-") and "Queen" in f.object
    ]
