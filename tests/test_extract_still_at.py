"""Where the speaker is, said without a verb ("Nope, still at Sainsbury's", "In Leeds now") and an
amount followed by "base" (issue 14); on the real English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import said_by

WHERE = {"works-at", "lives-in", "attends"}


def where(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    return {(p, o) for p, o in said_by(tier, text, "Ife") if p in WHERE}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Nope, still at Sainsbury's.", ("works-at", "Sainsbury's")),
        ("Still at Tesco, sadly.", ("works-at", "Tesco")),
        ("At Aviva now, since March.", ("works-at", "Aviva")),
        ("In Leeds now.", ("lives-in", "Leeds")),
        ("used to live in lagos, in abuja now", ("lives-in", "Abuja")),
        ("In Hamburg these days.", ("lives-in", "Hamburg")),
    ],
)
def test_a_verbless_place_held_now_is_the_speakers(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in where(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "At Tesco right now.",  # a visit
        "In London now, flying back Monday.",  # a trip
        "In Paris for the weekend.",  # no word that it holds now
        "At the gym now.",  # no name
        "Nope, still at Sainsbury's?",  # asked
        "Still at Tesco with Sam, waiting for the bus.",  # more than a place
        "Maybe in Leeds now.",
    ],
)
def test_no_place_from_a_visit_a_question_or_a_longer_clause(tier: SpacyTier, text: str) -> None:
    assert where(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "salary"),
    [
        ("I'm starting at Google on August 4th as a software engineer, $165k base.", "$165k"),
        ("I start Monday, 48k base.", "48k"),
    ],
)
def test_an_amount_called_base_is_the_salary(tier: SpacyTier, text: str, salary: str) -> None:
    assert ("has-salary", salary) in said_by(tier, text, "Ife")


def test_a_base_price_is_no_salary(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "The 2019 model is $30k base price.", "Ife") if f[0] == "has-salary"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm 62 and still working. Part-time at B&Q, after 30 years at Ford.", ("works-at", "B&Q")),
        ("Nope - still at Tesco.", ("works-at", "Tesco")),
    ],
)
def test_hours_worked_say_the_job_holds(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in where(tier, text)


def test_hours_worked_in_a_town_are_no_home(tier: SpacyTier) -> None:
    assert where(tier, "Part-time in Leeds these days.") == set()


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("Currently at Google as a PM.", {("works-at", "Google"), ("has-role", "PM")}),
        ("5 years at Boots now.", {("works-at", "Boots")}),  # how long, then a word of now
    ],
)
def test_a_verbless_job_with_its_role_or_how_long(
    tier: SpacyTier, text: str, facts: set[tuple[str, str]]
) -> None:
    assert facts <= said_by(tier, text, "Ife")


@pytest.mark.parametrize("text", ["5 years at Boots.", "Still at the gym as usual."])
def test_how_long_alone_or_a_visit_as_usual_is_no_job(tier: SpacyTier, text: str) -> None:
    assert not where(tier, text)
