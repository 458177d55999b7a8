"""The speaker's cars as chat names them (issue 14, extract/cars.py): around a purchase, in passing,
in lower case; on the real English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from tests.fixtures.common import spoken


def cars(tier: SpacyTier, text: str) -> set[str]:
    extraction = spoken(tier, text, "Maya")
    return {f.object for f in extraction.facts if f.subject == "Maya" and f.predicate == "has-car"}


@pytest.mark.parametrize(
    ("text", "car"),
    [
        (
            "update, I bought a car! 2019 Honda CR-V EX, 61k miles, silver, $21,400 out the door.",
            "Honda CR-V EX",
        ),
        ("I got the car! Went with the Yaris in the end, 2022, silver, automatic.", "Yaris"),
        ("also we bought a car finally, used vw polo, for weekends outside the city", "VW Polo"),
        ("bought a car!! not the etios in the end lol. got a 2018 VW polo vivo, 68 000km", "VW Polo Vivo"),
        ("I owe about 3k from when the transmission went in my F-150 last fall.", "F-150"),
        ("Selling the Commodore too, too thirsty for all the driving up here.", "Commodore"),
        ("the school run is easier now that our new Skoda Octavia has the big boot", "Skoda Octavia"),
        # an aside's "it" took the verb in the parse, and the object is "secondhand" with the car beside it
        (
            "I sold the Jazz, it was dying anyway, and got a secondhand Toyota Corolla last week.",
            "Toyota Corolla",
        ),
        ("we ended up getting the Corolla hybrid.", "Corolla hybrid"),  # the purchase after "ended up"
    ],
)
def test_a_car_named_around_a_purchase_or_in_passing_is_the_speakers(
    tier: SpacyTier, text: str, car: str
) -> None:
    assert car in cars(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "My dad's Corsa broke down again.",  # his car
        "She bought a car last week, a Fiat Punto.",  # hers
        "We might buy a car next year, maybe a Clio.",  # a plan
        "I sold my old Corsa.",  # gone: read as sold, not owned
        "we went for a drive in the golf and played polo after",  # English words, no car names
        "Is the Yaris any good?",  # a question
        "He ended up getting the Golf.",  # his
        "we might end up getting the Corolla.",  # a plan
    ],
)
def test_no_car_of_the_speakers_where_none_was_said(tier: SpacyTier, text: str) -> None:
    assert cars(tier, text) == set()


def test_a_car_bought_with_its_year_is_not_stored_twice(tier: SpacyTier) -> None:
    assert cars(tier, "I bought a 2019 Golf.") == {"2019 Golf"}


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("We traded the Fiesta in for a Kia Niro.", "Kia Niro"),
        ("I swapped the Golf for a Tesla Model 3.", "Tesla Model 3"),
        ("We've finally replaced the old Astra with a Kia Sportage.", "Kia Sportage"),
    ],
)
def test_the_car_a_trade_brought_is_the_speakers(tier: SpacyTier, text: str, car: str) -> None:
    assert car in cars(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "We might trade the Fiesta in for a Kia Niro.",  # a plan
        "My dad traded his Astra for a Ford Puma.",  # his car
        "We might replace the Astra with a Kia.",
        "My brother replaced his Golf with a Polo.",
    ],
)
def test_a_trade_planned_or_by_someone_else_gives_the_speaker_no_car(tier: SpacyTier, text: str) -> None:
    assert cars(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("Our car is a Toyota Corolla.", "Toyota Corolla"),
        ("My car's a Kia Ceed.", "Kia Ceed"),
        ("Car's a Honda Jazz.", "Honda Jazz"),  # the "my" dropped by chat
        ("car's a Golf, diesel unfortunately", "Golf"),  # and the line's capital
        ("Our new car, a Skoda Karoq, is great.", "Skoda Karoq"),  # the name set beside the car
        ("The new car (a Skoda Karoq) is great.", "Skoda Karoq"),
    ],
)
def test_the_car_the_speakers_car_is_is_theirs(tier: SpacyTier, text: str, car: str) -> None:
    assert car in cars(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "My dad's car is a Honda Civic.",
        "My old car was a Ford Fiesta.",
        "Tom's car is a Golf.",
        "Her new car, a Kia Niro, is lovely.",  # a guard: another's, beside the car
    ],
)
def test_someone_elses_or_an_old_car_is_not_the_speakers_car(tier: SpacyTier, text: str) -> None:
    assert cars(tier, text) == set()


def gone(tier: SpacyTier, text: str) -> set[str]:
    extraction = spoken(tier, text, "Maya")
    return {f.object for f in extraction.facts if f.subject == "Maya" and f.predicate == "had-car" and f.ends}


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("Car died. the Corsa. 14 year old so no surprise really", "Corsa"),  # named the line after
        ("The Corsa died last week.", "Corsa"),
        ("my Fiesta was written off", "Fiesta"),
        ("The car got written off, my beloved Mazda MX-5, and I'm gutted.", "Mazda MX-5"),
    ],
)
def test_a_car_that_died_is_one_the_speaker_had(tier: SpacyTier, text: str, car: str) -> None:
    assert car in gone(tier, text)
    assert car not in cars(tier, text)


@pytest.mark.parametrize(
    "text", ["My dad's car died, the old Corsa.", "Her Fiesta was written off.", "If the Corsa died I'd cry."]
)
def test_another_persons_car_or_a_what_if_is_no_car_the_speaker_had(tier: SpacyTier, text: str) -> None:
    assert not gone(tier, text)


def test_a_car_seen_then_picked_up_is_the_speakers(tier: SpacyTier) -> None:
    text = "went and seen a Skoda Fabia, 2019, at Arnold Clark. 7.5k. picking it up saturday"
    assert "Skoda Fabia" in cars(tier, text)
    assert not cars(tier, "Saw a Honda Civic today. Might buy it.")  # a maybe
    assert not cars(tier, "Test drove a Golf. My sister bought it.")  # hers


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("Just got a 2022 Ford F-150, traded in my Chevy Silverado.", "Chevy Silverado"),  # was "works-at"
        ("We traded in the Corsa last week.", "Corsa"),
        ("traded the F-150 in and they gave me $1,800 for it lol", "F-150"),
        ("We've finally replaced the old Astra with a Kia Sportage.", "Astra"),  # replaced *with*: gone
    ],
)
def test_a_car_traded_in_is_one_the_speaker_had(tier: SpacyTier, text: str, car: str) -> None:
    assert car in gone(tier, text)
    assert not {f for f in spoken(tier, text, "Maya").facts if f.predicate == "works-at"}


@pytest.mark.parametrize("text", ["Should I trade in my Corsa?", "My dad traded in his Corsa."])
def test_a_trade_in_weighed_or_by_someone_else_ends_no_car(tier: SpacyTier, text: str) -> None:
    assert gone(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("the Corolla needs new tyres again", "Corolla"),
        ("Took the Golf in for its MOT this morning", "Golf"),
        ("the yaris is making a weird noise when I brake", "Yaris"),
        ("The Zafira's too small now with two kids.", "Zafira"),  # the "'s" is an "is"
    ],
)
def test_the_car_of_the_house_said_in_passing_is_the_speakers(tier: SpacyTier, text: str, car: str) -> None:
    """A user names the family car by "the" alone, as one names any thing of the house."""
    assert car in cars(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Is the Civic better than the Corolla?",  # weighing cars
        "the dealer has the Golf at 12k",  # shopping
        "my friend drives the Golf",  # someone else's
        "got rid of the Corsa finally",  # gone
        "part-exchanged the Golf at the garage",  # gone
        "Alexa on the Echo keeps mishearing me",  # a word, not a car, with no driving said
        "I've been reading about the Tata–Air India merger",  # a company modifying a noun
        "we could get the Golf",  # a plan
        "His Golf's great.",  # his
        "Tom's Golf is great.",
    ],
)
def test_the_in_passing_is_not_a_car_weighed_shopped_for_gone_or_another_thing(
    tier: SpacyTier, text: str
) -> None:
    assert cars(tier, text) == set()


def test_an_assistant_saying_the_car_gives_the_speaker_none(tier: SpacyTier) -> None:
    (ex,) = tier.extract([Message(id="a", text="the Corolla needs new tyres, then", role="assistant")])
    assert not [f for f in ex.facts if f.predicate == "has-car"]


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("Can I claim mileage for my Octavia?", "Octavia"),
        ("Is it worth switching my Tesla to an off-peak tariff?", "Tesla"),
    ],
)
def test_a_question_about_my_car_takes_the_car_as_given(tier: SpacyTier, text: str, car: str) -> None:
    assert car in cars(tier, text)


def test_a_question_about_an_old_car_gives_none(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    assert not cars(tier, "Is my old Corsa worth anything?")


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("my kodiaq is in the garage", "kodiaq"),  # chat's lower case: a model no English word spells
        ("sold the yaris and bought a picanto", "picanto"),
        ("we've swapped the Berlingo for a Model 3, 2nd hand.", "Model 3"),  # Tesla's model
    ],
)
def test_a_model_in_lower_case_or_teslas_model_number_is_a_car(tier: SpacyTier, text: str, car: str) -> None:
    assert {c.casefold() for c in cars(tier, text)} >= {car.casefold()}


@pytest.mark.parametrize(
    "text",
    [
        "how do I get dog hair out of my golf bag?",  # "golf" is a word
        "Model trains are my hobby.",  # "Model" with no number
    ],
)
def test_a_word_that_is_also_a_model_is_no_car(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not cars(tier, text)


def test_a_car_got_rid_of_is_one_the_speaker_had(tier: SpacyTier) -> None:
    said = spoken(tier, "We finally got rid of the Zafira and picked up a Tesla Model 3.", "Ana").facts
    assert ("had-car", "Zafira") in {(f.predicate, f.object) for f in said}
    assert ("has-car", "Tesla Model 3") in {(f.predicate, f.object) for f in said}
    for text in ["We might get rid of the Zafira.", "My brother got rid of his Zafira."]:
        assert not [f for f in spoken(tier, text, "Ana").facts if f.predicate == "had-car"]


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("Vauxhall Corsa keeps breaking down.", "Vauxhall Corsa"),  # a line that opens with the car
        ("2019 Kia Sportage, 40k miles.", "Kia Sportage"),
        ("Renault Clio owner here.", "Renault Clio"),  # was has-role "Renault Clio owner"
        ("Drive a 2015 Golf.", "Golf"),  # "I" left out before a base form
        ("I run an old Land Rover Defender.", "Land Rover Defender"),
    ],
)
def test_a_car_opening_the_line_driven_or_run_is_the_speakers(tier: SpacyTier, text: str, car: str) -> None:
    assert car in cars(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Golf is my favourite sport.",
        "Drive a Golf or a Polo?",
        "I ran a Fiesta for years.",
        "Kia thinks the engine noise is nothing.",  # a make alone opening the line may be a person
        "moved in!! lincoln square. the radiator is broken.",  # a make before a place's word
    ],
)
def test_a_sport_a_question_or_a_car_run_before_is_no_car_now(tier: SpacyTier, text: str) -> None:
    assert not cars(tier, text)


def test_an_owner_of_a_named_thing_here_has_no_job(tier: SpacyTier) -> None:
    extraction = spoken(tier, "Renault Clio owner here.", "Maya")
    assert not [f for f in extraction.facts if f.predicate == "has-role"]


def facts_of(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in spoken(tier, text, "Ana").facts if f.subject == "Ana"}


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("Someone wrote off my Yaris on the roundabout, insurance paid out.", "Yaris"),
        ("A van totalled our Qashqai outside the school.", "Qashqai"),
        ("Handed back the leased BMW 3 Series on Friday.", "BMW 3 Series"),
        ("I gave the Golf back to my mum, she needs it more.", "Golf"),
        ("Finally said goodbye to the Zafira, 180k miles on it.", "Zafira"),  # was has-car Zafira
        ("the Leaf went back at the end of the lease.", "Leaf"),
        ("The old Civic went to the scrappers on Monday.", "Civic"),
        ("Part-exed the Focus for a Skoda Kamiq.", "Focus"),
    ],
)
def test_a_car_written_off_handed_back_or_scrapped_is_one_the_speaker_had(
    tier: SpacyTier, text: str, car: str
) -> None:
    said = facts_of(tier, text)
    assert ("had-car", car) in said
    assert ("has-car", car) not in said


def test_the_car_a_part_exchange_got_is_the_speakers_now(tier: SpacyTier) -> None:
    said = facts_of(tier, "We part-exchanged our Octavia for a new Kodiaq last month.")
    assert {("had-car", "Octavia"), ("has-car", "Kodiaq")} <= said


@pytest.mark.parametrize(
    "text",
    [
        "My brother wrote off his Clio.",  # another's car
        "The Corsa went back to the garage for new brakes.",  # back for repairs, still the speaker's
        "We might hand back the leased BMW 3 Series early.",  # only weighed
    ],
)
def test_a_car_another_lost_or_one_away_for_repairs_is_not_gone(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts_of(tier, text) if f[0] == "had-car"}


def test_at_last_or_at_least_names_nothing(tier: SpacyTier) -> None:
    # "Got rid of the old Astra at last" gave a fact "was-rid-at last"
    said = facts_of(tier, "Got rid of the old Astra at last.")
    assert ("had-car", "Astra") in said
    assert not {o for _, o in said if o in {"last", "least"}}
