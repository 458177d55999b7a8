"""Homes said the way people say them in chat (issue 14): a home by its kind beside its place ("a
shared house in Headingley": the place, not "shared house"), and a move told by its arrival ("Hello
again from Knocknacarra! ... The move went grand", "We made it to Denver!! Living in Wash Park");
on the real English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import said_by, spoken


def homes(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    extraction = spoken(tier, text, "Eamon")
    return {
        (f.predicate, f.object)
        for f in extraction.facts
        if f.subject == "Eamon" and f.predicate in {"lives-in", "moved-to", "lived-in"}
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in a shared house in Headingley.", {("lives-in", "Headingley")}),
        ("We live in a small town in Ohio.", {("lives-in", "Ohio")}),
        ("I live in a flat in Leith.", {("lives-in", "Leith")}),
        ("I live in a flat in Leith with two mates", {("lives-in", "Leith")}),  # "flat" tagged an adjective
        (
            "I'm living in Ballina in County Mayo in the same house we bought in 1974.",
            {("lives-in", "Ballina"), ("lives-in", "County Mayo")},
        ),
        # no place said: nothing (a "lives-in flat" would end the city the user lives in)
        ("I live in a flat.", set()),
    ],
)
def test_a_home_said_by_its_kind_gives_its_place(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert homes(tier, text) == expected


@pytest.mark.parametrize(
    ("text", "place"),
    [
        (
            "Hello again from Knocknacarra! I'm here a week and a half now. The move went grand.",
            "Knocknacarra",
        ),
        ("We made it to Denver!! Living in Wash Park, renting a little house for $2,900 a month", "Denver"),
    ],
)
def test_a_move_told_by_its_arrival_is_a_move(tier: SpacyTier, text: str, place: str) -> None:
    assert ("moved-to", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Hello from Paris! The hotel is lovely.",  # a trip
        "Hello from Lisbon! The flat we rented for the holiday is lovely.",  # a trip, though a flat
        "Hi from Tom and the kids! We're settling in.",  # a greeting from people
        "They made it to Leeds, the move went fine.",  # someone else's move
        "We made it to the final!! The house is buzzing.",  # no place
    ],
)
def test_no_move_where_none_was_said(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in homes(tier, text) if p == "moved-to"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Home is Cardiff these days.", "Cardiff"),
        ("My home is Leeds now.", "Leeds"),
        ("Home is Glasgow these days.", "Glasgow"),  # the town tagged a person
        ("I'm back in Cardiff for good.", "Cardiff"),  # back in a town: home again
        ("We live just outside Bath.", "Bath"),  # the town one names for home
        ("I live near York.", "York"),
        ("We're in a flat in Leith.", "Leith"),  # in a home in a place: no stay
        ("Still in the same flat in Clapham.", "Clapham"),  # no verb: was a move
    ],
)
def test_home_named_as_a_place_is_where_one_lives(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Home was Leeds back then.",
        "Home is where the heart is.",
        "My old home is Leeds, I think.",
        "Home is Sarah's place.",
        "We're back in Leeds for Christmas.",  # a visit
        "Back in Leeds for the weekend.",
        "I might be back in Leeds next year.",  # a plan
        "We live near the school.",  # no town
        "I'd love to live near Brighton.",  # a wish
        "They're in a flat in Leith.",  # theirs
        "We're in a hotel in Paris.",  # a stay
    ],
)
def test_a_home_that_was_or_is_no_place_gives_none(tier: SpacyTier, text: str) -> None:
    assert homes(tier, text) == set()


def test_settled_in_a_place_is_a_home(tier: SpacyTier) -> None:
    extraction = spoken(tier, "We're settled in Brighton.", "Eamon")
    assert ("Eamon", "settled-in", "Brighton") in {
        (f.subject, f.predicate, f.object) for f in extraction.facts
    }


def test_living_somewhere_said_after_a_move_is_the_home(tier: SpacyTier) -> None:
    text = "We moved to Bristol last month, living in Clifton now."
    assert {("moved-to", "Bristol"), ("lives-in", "Clifton")} <= homes(tier, text)
    # a part of the city moved to: the store keeps the city beside it (tests/test_facts_semantics.py)
    facts = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts}
    assert {("Clifton", "is-a", "district"), ("Clifton", "is-in", "Bristol")} <= facts


def test_a_big_place_lived_in_after_a_move_is_no_district(tier: SpacyTier) -> None:
    facts = {
        (f.subject, f.predicate)
        for f in spoken(tier, "We moved to the UK, living in Leeds now.", "Eamon").facts
    }
    assert ("Leeds", "is-a") not in facts


def test_a_home_hoped_for_after_a_move_is_none(tier: SpacyTier) -> None:
    assert ("lives-in", "Clifton") not in homes(tier, "We moved to Bristol, hoping to live in Clifton.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live with my boyfriend Marco in Bath.", ("lives-in", "Bath")),
        ("I'm living with my parents in Swindon at the moment.", ("lives-in", "Swindon")),
        ("I lived with my aunt in Cork.", ("lived-in", "Cork")),
    ],
)
def test_the_place_hung_on_whom_one_lives_with_is_the_home(
    tier: SpacyTier, text: str, expected: tuple[str, str]
) -> None:
    assert expected in homes(tier, text)


def test_living_with_someone_somewhere_as_a_plan_is_no_home(tier: SpacyTier) -> None:
    assert homes(tier, "I might live with my sister in Leeds.") == set()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I'm so relieved we finally moved to Vancouver, the last year was chaos.", "Vancouver"),
        ("I'm so happy we moved to Leeds.", "Leeds"),
    ],
)
def test_a_move_told_through_a_feeling_about_it_is_a_move(tier: SpacyTier, text: str, place: str) -> None:
    assert ("moved-to", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm not happy we moved to Leeds.",  # kept out: a negated feeling asserts nothing here
        "I'd be so glad if we moved to Leeds.",
        "I'm worried we'll have to move to Hull.",
    ],
)
def test_a_feeling_about_a_move_that_may_not_happen_is_no_move(tier: SpacyTier, text: str) -> None:
    assert not homes(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Been living in Newcastle for ten years now.", ("lives-in", "Newcastle")),  # "I've" dropped
        ("I'm so lonely since moving to Phoenix, I know no one here.", ("moved-to", "Phoenix")),
        ("After moving to Leeds we got a dog.", ("moved-to", "Leeds")),
        ("Since moving to Bristol, I've been happier.", ("moved-to", "Bristol")),  # the city tagged a firm
    ],
)
def test_a_home_said_without_its_subject_or_as_what_a_clause_dates_from(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in homes(tier, text)


@pytest.mark.parametrize(
    "text", ["Since moving to Bristol, Tom has been happier.", "I'd be happier after moving to York."]
)
def test_a_move_that_is_someone_elses_or_wished_is_not_mine(tier: SpacyTier, text: str) -> None:
    assert not homes(tier, text)


def test_a_past_clause_of_time_happened_and_a_present_one_is_a_plan(tier: SpacyTier) -> None:
    said = spoken(tier, "we used to live in Swindon before we bought the house in Marlborough", "Eamon")
    assert ("Eamon", "moves-to", "Marlborough") in {(f.subject, f.predicate, f.object) for f in said.facts}
    plan = spoken(tier, "Before we move to Leeds we need to sell the flat.", "Eamon")
    assert not [f for f in plan.facts if f.object == "Leeds"]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Rent's gone up to $580 a week in Bondi, we're cooked.", "Bondi"),
        ("I'm on 95 grand now but the mortgage in Auckland eats the lot.", "Auckland"),
    ],
)
def test_the_speakers_rent_or_mortgage_somewhere_is_their_home(
    tier: SpacyTier, text: str, place: str
) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Rents in London are crazy.",
        "The rent in Paris was awful when I lived there.",
        "Would the rent in Leeds be cheaper?",
        "My sister's rent in York is 900.",
        "my cousin keeps saying rent is cheaper up in Hilliard by Columbus but nah.",  # a comparison
    ],
)
def test_rent_somewhere_that_is_not_the_speakers_now_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not {o for p, o in homes(tier, text) if p == "lives-in"}


@pytest.mark.parametrize("text", ["Moved. Bath now. Tiny flat.", "Moved. Bath."])
def test_a_terse_move_then_a_known_place_is_the_new_home(tier: SpacyTier, text: str) -> None:
    assert ("lives-in", "Bath") in homes(tier, text)  # the model reads "Bath" as the noun


def triples_of(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts}


@pytest.mark.parametrize(
    ("text", "district", "city", "predicate"),
    [
        (
            "rent is $1,150 for a 3 bedroom duplex in Belmont, thats in Dayton.",
            "Belmont",
            "Dayton",
            "lives-in",
        ),
        ("Our new flat is in Chorlton, south Manchester.", "Chorlton", "Manchester", "lives-in"),
        ("We've moved to Headingley, it's a suburb of Leeds.", "Headingley", "Leeds", "moved-to"),
        ("I live in Kreuzberg, a district of Berlin.", "Kreuzberg", "Berlin", "lives-in"),
        ("we got a place in Ponsonby, Auckland.", "Ponsonby", "Auckland", "moves-to"),
    ],
)
def test_the_city_after_a_homes_district_is_a_home_too(
    tier: SpacyTier, text: str, district: str, city: str, predicate: str
) -> None:
    got = triples_of(tier, text)
    assert {("Eamon", predicate, district), ("Eamon", predicate, city), (district, "is-in", city)} <= got
    assert (district, "is-a", "district") in got
    assert ("Eamon", "lived-in", city) not in got


@pytest.mark.parametrize(
    "text",
    [
        "We live in Leeds, England.",  # a city and its country
        "I live in Manchester, near Chorlton.",  # a district after its (larger) city
        "We live in Belmont, and my sister works in Dayton.",
    ],
)
def test_no_district_where_the_place_after_is_no_city_around_the_home(tier: SpacyTier, text: str) -> None:
    got = triples_of(tier, text)
    assert not any(p == "is-a" and o == "district" for _, p, o in got)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("yeah I'm not moving the kids, Dayton's home.", "Dayton"),
        ("Leeds is home now.", "Leeds"),
        ("Bristol has always been home.", "Bristol"),
    ],
)
def test_a_town_called_home_is_where_the_speaker_lives(tier: SpacyTier, text: str, place: str) -> None:
    got = triples_of(tier, text)
    assert ("Eamon", "lives-in", place) in got
    assert (place, "is-a", "home") not in got


@pytest.mark.parametrize(
    "text",
    [
        "Austin's home from uni this week.",  # someone back home
        "Austin's home.",  # a town of the gazetteer, but a first name: whose home, unknown
        "Leeds is home to 800,000 people.",
        "London's home office is hiring.",
    ],
)
def test_home_said_of_no_home_of_the_speakers_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not any(p == "lives-in" for _, p, _ in triples_of(tier, text))


def moves(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts if f.subject == "Eamon"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("We sold the flat in Hackney and moved to a little terrace in Margate.", ("lived-in", "Hackney")),
        ("We sold the flat in Hackney and moved to a little terrace in Margate.", ("moved-to", "Margate")),
        ("I've been in Cardiff for about nine years now.", ("lives-in", "Cardiff")),
        ("I have shifted from Chennai to Gurgaon last month only.", ("moved-from", "Chennai")),
        ("Since then I've moved back to my childhood home in Galway.", ("moved-to", "Galway")),
        ("It has been a year since we moved from Bangalore to Austin.", ("moved-to", "Austin")),
    ],
)
def test_homes_left_and_moved_to_as_chat_says_them(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in moves(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "We sold the car in Leeds.",  # no home
        "We sold my mum's house in Leeds.",  # hers
        "We're selling the flat in Hackney.",  # not yet
    ],
)
def test_no_home_left_by_selling_something_else_or_not_yet(tier: SpacyTier, text: str) -> None:
    assert not {f for f in moves(tier, text) if f[0] == "lived-in"}


def test_a_state_dated_since_childhood_is_no_fact(tier: SpacyTier) -> None:
    assert not {f for f in moves(tier, "I've had type 1 diabetes since I was a kid.") if f[0] == "was-a"}


def test_a_relocation_from_a_place_leaves_it(tier: SpacyTier) -> None:
    text = "I relocated from Johannesburg to Durban in 2021 in order to be closer to family."
    assert ("moved-from", "Johannesburg") in moves(tier, text)


def test_a_pet_named_beside_the_dog_is_the_speakers(tier: SpacyTier) -> None:
    assert ("has-dog", "Moss") in moves(tier, "The dog, Moss, is loving the beach.")
    assert not {f for f in moves(tier, "The manager, Dan, is nice.") if f[0] == "has-manager"}


def test_studying_in_a_school_is_attending_it(tier: SpacyTier) -> None:
    facts = spoken(tier, "My younger son Arjun is studying in Bishop Cotton Boys' School.", "Eamon").facts
    assert ("Arjun", "studies-at", "Bishop Cotton Boys' School") in {
        (f.subject, f.predicate, f.object) for f in facts
    }
    assert ("studies-at", "Leeds") not in moves(tier, "I am studying in Leeds.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved out of my flat in Leeds.", {("moved-out-of", "Leeds", True)}),
        (
            "moved out of my parents place in phoenix finally, now in tempe w 3 roommates",
            {("moved-out-of", "Phoenix", True), ("lives-in", "Tempe", False)},
        ),
        ("We moved out of Lisbon in May.", {("moved-out-of", "Lisbon", True)}),
    ],
)
def test_a_home_moved_out_of_ends_its_place(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, bool]]
) -> None:
    """Before: "moved-in Leeds", and "lives-in Phoenix" for the parents' place just left."""
    facts = spoken(tier, text, "Eamon").facts
    said = {(f.predicate, f.object, f.ends) for f in facts if f.subject == "Eamon"}
    assert said == expected


def test_a_pet_listed_after_a_partner_is_no_partner(tier: SpacyTier) -> None:
    text = "Make me a packing list for moving to Vancouver next month with my fiancé Théo and our dog Bear."
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Eamon").facts if f.subject == "Eamon"}
    assert {("has-partner", "Théo"), ("has-dog", "Bear")} <= said
    assert ("has-partner", "Bear") not in said


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We pay £900 rent in Leeds.", "Leeds"),
        ("we currently pay £1,100 rent in Stockport, and my wife Ffion is on maternity leave.", "Stockport"),
    ],
)
def test_rent_the_speaker_pays_in_a_place_is_their_home(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lives-in", place) in homes(tier, text)


def test_rent_someone_else_pays_is_not_the_speakers_home(tier: SpacyTier) -> None:
    assert homes(tier, "My sister pays £900 rent in Leeds.") == set()


def test_a_place_the_model_tagged_a_date_after_other_dates_is_still_the_home(tier: SpacyTier) -> None:
    text = "I'm a 52-year-old truck driver, been with TransX for eleven years, and I live in Winnipeg."
    assert ("lives-in", "Winnipeg") in homes(tier, text)
    assert homes(tier, "We're moving in Spring.") == set()  # a season the gazetteer also lists


def test_a_home_in_a_trailing_clause_of_a_list_is_the_speakers(tier: SpacyTier) -> None:
    text = "I am 32 years, unmarried, working as CA in Deloitte, staying in Andheri with parents."
    assert ("lives-in", "Andheri") in homes(tier, text)
    assert ("lives-in", "Clifton") in homes(tier, "I'm a nurse at St Vincent's, living in Clifton.")
    # after a past clause the home was then, not now
    assert ("lives-in", "Leeds") not in homes(tier, "I met Tom at a party, living in Leeds at the time.")


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We signed a lease on a flat in Shoreditch.", "Shoreditch"),
        ("We've signed the tenancy for a house in Didsbury.", "Didsbury"),
        ("just signed a lease in hyde park in chicago, $1,100 a month", "Hyde Park"),
    ],
)
def test_a_lease_signed_is_a_move_to_its_place(tier: SpacyTier, text: str, place: str) -> None:
    found = {(p, o) for s, p, o in triples_of(tier, text)}
    assert ("moves-to", place) in found


def test_a_contract_or_an_office_lease_is_no_move(tier: SpacyTier) -> None:
    for text in ("We signed a contract in London.", "I signed the lease for my office in Leeds."):
        assert not {o for _, p, o in triples_of(tier, text) if p == "moves-to"}


def test_the_speakers_own_move_asked_about_is_a_move(tier: SpacyTier) -> None:
    found = said_by(tier, "Any tips for our move to Bristol in June?", "Eamon")  # Bristol: tagged ORG
    assert ("moves-to", "Bristol") in found
    for text in ("What do you think about the move to Glasgow next month?", "How did your move to Leeds go?"):
        assert not {o for p, o in said_by(tier, text, "Eamon") if p.startswith("move")}


def test_a_move_into_housing_and_a_home_sold_by_us(tier: SpacyTier) -> None:
    moved = homes(tier, "We moved into sheltered housing in Worthing last spring.")
    assert ("moved-to", "Worthing") in moved
    assert ("lived-in", "Croydon") in homes(tier, "We sold our house in Croydon last spring.")
    assert ("lived-in", "Leeds") not in homes(tier, "We sold my mum's house in Leeds.")


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "Hubby Rohan got transfer to Nagpur, so we are relocating in June.",
            {("Rohan", "moves-to", "Nagpur"), ("Lin", "moves-to", "Nagpur")},
        ),
        ("I got transferred to Glasgow last month.", {("Lin", "moved-to", "Glasgow")}),
    ],
)
def test_a_job_transfer_to_a_town_is_a_move(
    tier: SpacyTier, text: str, facts: set[tuple[str, str, str]]
) -> None:
    said = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert facts <= said


@pytest.mark.parametrize(
    "text", ["I've asked for a transfer to Bristol.", "She got a transfer to the accounts team."]
)
def test_no_move_from_a_transfer_asked_or_within_a_firm(tier: SpacyTier, text: str) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert not [p for p, _ in said if p in {"moves-to", "moved-to"}]


@pytest.mark.parametrize(
    ("text", "rent"),
    [
        ("We found a flat in Leith, 2 bed, £1,100 pm.", "£1,100"),
        ("and we found a place in obs thru zanele's sister, 2 bed, R14,200 pm, small yard", "R14,200"),
    ],
)
def test_a_home_found_with_its_amount_pm_is_the_rent(tier: SpacyTier, text: str, rent: str) -> None:
    assert ("has-rent", rent) in said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text", ["My sister's flat in Leith is £1,100 a month.", "The viewing is at 3 pm, flat in Leith."]
)
def test_no_rent_from_someone_elses_home_or_a_time(tier: SpacyTier, text: str) -> None:
    said = spoken(tier, text, "Lin").facts
    assert not [f for f in said if f.predicate == "has-rent" and f.subject == "Lin"]
    assert not [f for f in said if f.predicate == "has-sister"]  # "£1,100" is nobody's sister


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the truecaser leaves "melville" lower-case (WordNet lists it): the gazetteer knows the town
        ("finance prob. rent is R9,500 for my place in melville so i need to keep it low", "Melville"),
        ("our flat in cape town is small but cute", "Cape Town"),
        ("My flat in Hackney is tiny.", "Hackney"),  # the model tags it an organisation
    ],
)
def test_the_speakers_home_in_a_place_however_written_or_tagged(
    tier: SpacyTier, text: str, expected: str
) -> None:
    assert ("lives-in", expected) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    ["my place in town is small", "the rent for my flat in march was late", "My flat in the union is cold."],
)
def test_a_home_in_no_place_gives_no_home(tier: SpacyTier, text: str) -> None:
    assert not {p for p in homes(tier, text) if p[0] == "lives-in"}


def test_an_accepted_offer_on_a_house_is_a_move(tier: SpacyTier) -> None:
    """It read has-offer-from the river a few blocks away (a job offer from an organisation)."""
    text = (
        "And, to complete the upheaval, we have had an offer accepted on a house in Carleton Place: a"
        " semi-detached on a quiet street a few blocks from the Mississippi River."
    )
    assert said_by(tier, text, "Lindsay") == {("moves-to", "Carleton Place")}
    assert said_by(tier, "Our offer on the flat in Leith was accepted!", "Lindsay") == {("moves-to", "Leith")}
    assert said_by(tier, "We put an offer on a flat in Leith.", "Lindsay") == set()


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I live in Côte-des-Neiges.", ("lives-in", "Côte-des-Neiges")),  # the model tagged "des-Neiges"
        ("I live in a coloc in Côte-des-Neiges", ("lives-in", "Côte-des-Neiges")),
        ("We moved to Newcastle-upon-Tyne.", ("moved-to", "Newcastle-upon-Tyne")),  # not "Newcastle"
        ("I work at Rolls-Royce.", ("works-at", "Rolls-Royce")),
        # a common word split at its hyphen, each part parsed an object: one object, not "Co" and "op"
        ("I work at the Co-op in Middleton.", ("works-at", "Co-op")),
    ],
)
def test_a_name_joined_by_hyphens_is_one_name(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    said = said_by(tier, text, "Theo")
    assert fact in said
    assert not {o for p, o in said if p == fact[0] and o != fact[1] and o in fact[1]}  # no part alone


@pytest.mark.parametrize(
    "text", ["i live in a flat in côte-des-neiges", "We live in a flat.", "i live in a coloc"]
)
def test_a_kind_of_home_is_no_place_one_lives_in(tier: SpacyTier, text: str) -> None:
    assert not {o for p, o in said_by(tier, text, "Theo") if p == "lives-in"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Rent in Denver was $1,600 a month; here in Cape Town we pay R14,000 a month.", "Cape Town"),
        ("I am ICU staff nurse here in Dubai at Emirates Crescent Hospital.", "Dubai"),
        ("we love it here in Galway", "Galway"),
        ("The weather here in Glasgow is grim.", "Glasgow"),  # whoever the clause's subject is
        ("Here in Manchester it's been raining all week.", "Manchester"),
        ("my pal worked at the plant here in Ballina for years", "Ballina"),
    ],
)
def test_the_place_the_speaker_calls_here_is_home(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm here in London for a conference",  # a visit
        "I'm here in Leeds this week",
        "we were here in Paris last year",  # past
        "is it cold here in Leeds?",  # a question
        "The food here in Rome is amazing, best holiday ever.",  # a trip's word anywhere
        "We're here in Paris for a few days.",
    ],
)
def test_here_on_a_visit_in_the_past_or_in_a_question_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in homes(tier, text) if p == "lives-in"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We're no longer in Hackney, moved to Walthamstow in the spring.", "Hackney"),  # was "was-in"
        ("we aren't in Leeds anymore", "Leeds"),
    ],
)
def test_no_longer_in_a_place_is_a_home_left(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lived-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    ["shifting to bangalore next week. found a 1bhk in koramangala, 22k rent", "We found a villa in Sintra."],
)
def test_a_home_found_by_its_indian_or_other_kind_is_a_move(tier: SpacyTier, text: str) -> None:
    extraction = spoken(tier, text, "Eamon")
    places = {
        f.object.lower() for f in extraction.facts if f.predicate in {"moves-to", "lives-in", "moved-to"}
    }
    assert places & {"koramangala", "sintra"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We've been in Kentish Town five years.", "Kentish Town"),  # only "Kentish" tagged a place
        ("I moved out of London last year, I'm in Brighton now.", "Brighton"),  # "now", after a move
        ("We relocated for Tom's job. We're in Bristol now.", "Bristol"),
        ("The house move is done, we're in Leeds now.", "Leeds"),  # the move said by its noun
        ("Unpacking boxes - we're in Didsbury now.", "Didsbury"),
        ("My neighbours in Gateshead are lovely.", "Gateshead"),  # around one's home, now
        ("Our street in Hove is so noisy.", "Hove"),
        ("our landlord in Leith won't fix the boiler", "Leith"),  # his "won't", not a home in doubt
    ],
)
def test_a_home_said_by_a_stay_a_move_made_or_what_is_around_it(
    tier: SpacyTier, text: str, place: str
) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm in Leeds now.",  # no move said: as often a trip
        "I'm in Leeds now, might move there.",  # a move only thought of
        "Big career move: I'm in London now for the new job.",  # a move of job, not of home
        "Our neighbours in Spain were lovely.",  # a holiday's neighbours
        "Our old landlord in Leith was awful.",
    ],
)
def test_a_place_now_with_no_move_made_or_neighbours_then_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not {f for f in homes(tier, text) if f[0] == "lives-in"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Living in Brighton has been great for us.", "Brighton"),
        ("Living in Leeds is good for me.", "Leeds"),
    ],
)
def test_living_somewhere_as_what_a_clause_is_about_is_the_home(
    tier: SpacyTier, text: str, place: str
) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Living in London is so expensive.",  # anyone's
        "Living in London was so expensive.",  # maybe a home left
        "Living in Paris would be a dream for me.",
    ],
)
def test_living_somewhere_said_of_anyone_or_wished_is_no_home(tier: SpacyTier, text: str) -> None:
    # guards (read so before the rule too)
    assert not {h for h in homes(tier, text) if h[0] == "lives-in"}


def chosen(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    extraction = spoken(tier, text, "Eamon")
    return {
        (f.predicate, f.object)
        for f in extraction.facts
        if f.subject == "Eamon" and f.predicate in {"moves-to", "has-rent"}
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "In the end we took Brunswick, $560 a week, because of the courtyard.",
            {("moves-to", "Brunswick"), ("has-rent", "$560")},
        ),
        ("We went with the Brunswick one in the end, the rent is fine.", {("moves-to", "Brunswick")}),
        ("We're going with Coburg, 480 a week.", {("moves-to", "Coburg"), ("has-rent", "480")}),
    ],
)
def test_the_place_chosen_in_a_message_about_homes_is_where_one_moves(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert chosen(tier, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "We went with Acme for the house insurance.",  # a service chosen
        "We went with Sarah from the letting agent.",  # a person
        "In the end we took Brunswick, it was the better offer.",  # no word of a home: a firm, a team?
    ],
)
def test_a_choice_that_is_no_home_is_no_move(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {f for f in chosen(tier, text) if f[0] == "moves-to"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("The rent for our Footscray flat is going up.", "Footscray"),  # the model made "flat" an adjective
        ("My Coburg apartment has a balcony.", "Coburg"),
    ],
)
def test_a_known_place_right_before_the_speakers_home_is_where_they_live(
    tier: SpacyTier, text: str, place: str
) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "our old Leeds flat was damp",
        "we might sell our Leeds flat",
        "I miss our Leeds flat so much",
        "I miss our flat in Leeds so much",  # a home missed is one left
        "our Barratt house has cracks",  # a builder, no place
    ],
)
def test_no_home_from_a_place_before_a_home_left_wished_or_built(tier: SpacyTier, text: str) -> None:
    # "I miss our flat in Leeds" was a home before this change; the others guard the rule above
    assert not {h for h in homes(tier, text) if h[0] == "lives-in"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        (
            "I'm getting moved to the Swindon depot so I need to figure out the commute from Chippenham",
            "Chippenham",
        ),
        ("got moved to the leeds office so now i have 2 commute from york every day lol", "York"),
        ("The commute from Newport is way shorter now.", "Newport"),  # the model tagged it a firm
    ],
)
def test_one_commutes_from_home(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "His commute from Leeds is awful.",  # another's
        "The commute from work takes ages.",  # no place
        "I used to commute from Bath.",  # no more
    ],
)
def test_no_home_from_a_commute_not_mine_or_from_no_place(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {o for p, o in homes(tier, text) if p == "lives-in"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "We're hosting Thanksgiving for the first time since I moved to Portland from Phoenix.",
            ("moved-to", "Portland"),
        ),
        ("I sold my Peugeot 206 in 2018 when I moved from Lyon to Montreal.", ("moved-to", "Montreal")),
        ("When we lived in Leeds we had a dog.", ("lived-in", "Leeds")),
    ],
)
def test_a_move_in_a_clause_of_past_time_happened(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in said_by(tier, text, "Eamon")


@pytest.mark.parametrize(
    "text",
    [
        "When I move to Leeds I'll get a dog.",  # a plan
        "When did you move to Leeds?",  # a question
    ],
)
def test_a_move_in_a_clause_of_time_to_come_or_asked_is_none(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {o for p, o in said_by(tier, text, "Eamon") if p in {"moved-to", "lives-in", "lived-in"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My landlord in Leith allows pets but the rent's already £925.", ("lives-in", "Leith")),
        ("I'll probably keep my old Vespa even though I've moved to Milan.", ("moved-to", "Milan")),
        ("I moved to Bristol years ago.", ("moved-to", "Bristol")),  # not "Bristol years ago"
        ("Draft a complaint — I'm at 12 Elm Road in Reading and the water's off.", ("lives-in", "Reading")),
        ("We've been in Pietermaritzburg ten years now, since leaving Durban.", ("lived-in", "Durban")),
    ],
)
def test_a_home_said_beside_something_else(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in said_by(tier, text, "Rui")


def test_an_address_is_no_workplace(tier: SpacyTier) -> None:
    said = said_by(tier, "Draft a complaint — I'm at 12 Elm Road in Reading and the water's off.", "Rui")
    assert not {o for p, o in said if p == "works-at"}


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("They put the rent up from £1,300 to £1,450.", {("has-rent", "£1,450"), ("had-rent", "£1,300")}),
        ("landlord put rent up from 1300 to 1450 smh", {("has-rent", "1450"), ("had-rent", "1300")}),
    ],
)
def test_a_rent_changed_gives_the_rent_now_and_before(
    tier: SpacyTier, text: str, facts: set[tuple[str, str]]
) -> None:
    assert facts <= said_by(tier, text, "Rui")


def test_a_place_left_on_a_trip_was_no_home(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    assert ("lived-in", "Paris") not in said_by(tier, "After leaving Paris we drove south.", "Rui")


def test_a_home_named_by_its_place_and_said_to_be_ours_is_where_one_lives(tier: SpacyTier) -> None:
    assert ("lives-in", "Norbury") in homes(tier, "We moved! The Norbury house is ours since the 25th July.")
    assert not homes(tier, "The Norbury house was ours for years.")  # the past
    assert not homes(tier, "The Norbury house will be ours if the bank says yes.")  # supposed


@pytest.mark.parametrize(
    ("text", "place"),
    [("we're in Leeds 3 months now and loving it", "Leeds"), ("I'm in Bristol two years now", "Bristol")],
)
def test_in_a_place_months_or_years_up_to_now_is_home(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize(
    "text", ["I'm in London for 3 months now", "we're in Lisbon 2 weeks now", "I was in Bristol two years"]
)
def test_a_stay_set_or_of_weeks_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not {f for f in homes(tier, text) if f[0] == "lives-in"}


@pytest.mark.parametrize(
    ("text", "rent"),
    [
        ("The flat costs £1,100 a month.", "£1,100"),  # "flat" read an adjective, "costs" a noun
        ("The new flat costs £1,100 pcm.", "£1,100"),
        ("Rent increase came through so it's now £1,155.", "£1,155"),  # "it" is the rent risen
        ("rent will be 1,300 from May", "1,300"),  # an amount set from a date, not a plan
        ("Signed the lease, $1,650 rent.", "$1,650"),  # the rent's own number
        ("We're in a 2 bed near the station, $1,650 rent.", "$1,650"),
    ],
)
def test_a_rent_said_by_its_cost_rise_date_or_number_is_the_rent(
    tier: SpacyTier, text: str, rent: str
) -> None:
    assert ("has-rent", rent) in said_by(tier, text, "Rui")


@pytest.mark.parametrize(
    "text",
    [
        "Landlord wants another 150 a month, so 1,450 total.",  # the rise is no rent
        "They hit us with a £50 rent rise.",
        "Their £900 rent is a steal.",
        "We used to pay £700 rent.",
        "Is £1,650 rent too much for a 1 bed?",
        "Rent will be 1,300 if we stay.",
        "rent will be crazy from May",
    ],
)
def test_a_rise_anothers_rent_an_old_or_supposed_one_is_no_rent_now(tier: SpacyTier, text: str) -> None:
    assert not {o for p, o in said_by(tier, text, "Rui") if p == "has-rent"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("we're Leeds based", "Leeds"),
        ("I'm London-based but work remotely", "London"),
        ("Im Leeds based", "Leeds"),
        ("Leeds based, 35k.", "Leeds"),  # opening the line, alone before a stop
    ],
)
def test_a_place_the_speaker_is_based_in_by_its_name(tier: SpacyTier, text: str, place: str) -> None:
    assert ("is-based-in", place) in said_by(tier, text, "Theo")


@pytest.mark.parametrize(
    "text", ["we were Leeds based", "I'm plant based these days", "London based company hiring now."]
)
def test_a_base_that_was_or_no_place_is_no_base(tier: SpacyTier, text: str) -> None:
    assert not {o for p, o in said_by(tier, text, "Theo") if p == "is-based-in"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I'm paying 1,100 a month for a studio in Hackney.", "Hackney"),
        ("paying £875/month for a room in Headingley, bills included", "Headingley"),
        ("we pay 2100 for a 3 bed house in Walthamstow", "Walthamstow"),
        ("I rent a place in Shoreditch for 2k a month", "Shoreditch"),
        ("Rent on our 2-bed in Didsbury is 1,250 pcm.", "Didsbury"),
        ("Our rent in Brixton went up to 1,800.", "Brixton"),
        ("I pay 1,200 for a two bed in Chorlton.", "Chorlton"),  # the rent of a home told by its bedrooms
    ],
)
def test_a_home_a_rent_is_paid_for_is_where_one_lives(tier: SpacyTier, text: str, place: str) -> None:
    facts = said_by(tier, text, "Rowan")
    assert ("lives-in", place) in facts
    assert any(p == "has-rent" for p, _ in facts)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Just signed for a one bed in Clapham at 1,650 a month", "Clapham"),
        ("we signed a lease on a 2 bed in Roath", "Roath"),
        ("bought a two bed in Leith!", "Leith"),
    ],
)
def test_a_home_told_by_its_bedrooms_found_is_a_move(tier: SpacyTier, text: str, place: str) -> None:
    assert ("moves-to", place) in said_by(tier, text, "Saoirse")


@pytest.mark.parametrize(
    "text",
    [
        "My sister pays 900 for her studio in Leith.",
        "I was in bed in Leeds all day with flu.",
        "my old rent in Camden was 1,500",
    ],
)
def test_anothers_home_a_bed_or_an_old_rent_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in said_by(tier, text, "Tadhg")} & {"lives-in", "moves-to"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Originally from Belfast, living in Bristol now.",
            {("is-from", "Belfast"), ("lives-in", "Bristol")},
        ),
        ("living in Bristol now, originally from Belfast", {("is-from", "Belfast"), ("lives-in", "Bristol")}),
        ("From Belfast originally but living in Leeds.", {("is-from", "Belfast"), ("lives-in", "Leeds")}),
        ("I live in Leeds, originally from Sheffield.", {("is-from", "Sheffield"), ("lives-in", "Leeds")}),
    ],
)
def test_where_one_is_from_said_without_im(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= said_by(tier, text, "Ciara")


@pytest.mark.parametrize(
    "text",
    ["From London to Leeds in two hours.", "From Monday I start nights.", "I met Tom, originally from Cork."],
)
def test_a_journey_a_date_or_anothers_origin_is_no_origin(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in said_by(tier, text, "Ruairi")} & {"is-from", "lives-in"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I am a retired police sergeant living in Truro", ("lives-in", "Truro")),  # Truro tagged a firm
        ("We're a family of four living in Swindon", ("lives-in", "Swindon")),
        ("I'm a nurse who lives in Hull", ("lives-in", "Hull")),
        ("I'm a 31-year-old quantity surveyor in Leeds earning £50k.", ("lives-in", "Leeds")),
        ("I was a nurse living in Hull back then", ("lived-in", "Hull")),
    ],
)
def test_the_home_of_the_one_the_speaker_says_they_are(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in homes(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm a nurse in A&E",
        "I'm a manager in Sales",
        "I'm a big fan of pubs in Leeds",
        "I'm a nurse hoping to live in Hull",
    ],
)
def test_a_title_in_a_ward_or_a_team_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not homes(tier, text)


def test_the_pay_of_the_one_the_speaker_says_they_are(tier: SpacyTier) -> None:
    said = said_by(tier, "I'm a 31-year-old quantity surveyor in Leeds earning £50k.", "Eamon")
    assert ("has-salary", "£50k") in said


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("It's about 40 mins from ours in Horsforth", "Horsforth"),  # British chat's "ours": our home
        ("the kids are staying at ours in leeds", "Leeds"),
    ],
)
def test_ours_in_a_place_is_the_home(tier: SpacyTier, text: str, place: str) -> None:
    assert ("lives-in", place) in homes(tier, text)


@pytest.mark.parametrize("text", ["the choice is ours in the end", "ours in March was cheaper"])
def test_ours_in_no_place_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not homes(tier, text)


def test_from_one_place_to_another_is_a_change_not_an_origin(tier: SpacyTier) -> None:
    facts = spoken(tier, "Tom is nervous about the move, from Leeds to York.", "Eamon").facts
    assert not [f for f in facts if f.predicate == "is-from"]  # was "Tom is-from Leeds"
    # an origin with an infinitive after it is still one
    assert ("is-from", "Leeds") in said_by(tier, "I'm from Leeds to be honest.", "Eamon")
