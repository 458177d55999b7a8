"""Notes a user pastes, one "key: value" per line (dependency/notes.py, sentences._fragments): the
key says what the value is; a bullet line is read whole; a CV's years say what is and what was."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import triples

ME = "Ines"


def facts(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return triples(tier, text, ME)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Notes from my 1:1, turn these into an email to myself:\n"
            "- mgr: Dana Whitfield\n- wants the deck by Fri",
            {(ME, "has-manager", "Dana Whitfield")},
        ),  # the parser cut the bullet line after its key
        ("tidy:\n- wife: Agnieszka\n- me: nights at the depot", {(ME, "is-married-to", "Agnieszka")}),
        ("- child: Oluchi, age 5", {(ME, "has-child", "Oluchi"), ("Oluchi", "is-aged", "5")}),
        ("- kids: Reuben 9, Hattie 4", {("Reuben", "is-aged", "9"), ("Hattie", "is-aged", "4")}),
    ],
)
def test_a_note_names_a_person_by_its_key(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert expected <= facts(tier, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "- job: Data analyst, Aviva (since 2020)",
            {(ME, "has-role", "Data analyst"), (ME, "works-at", "Aviva")},
        ),
        ("Work: KPMG (tax associate)", {(ME, "works-at", "KPMG"), (ME, "has-role", "tax associate")}),
        ("- previous job: cashier at Lidl", {(ME, "worked-as", "cashier"), (ME, "worked-at", "Lidl")}),
        (
            "- now: support engineer at Halden\n- before that: junior role at Zurich",
            {(ME, "worked-at", "Zurich")},
        ),
        ("• Me – nurse at Royal Derby", {(ME, "has-role", "nurse"), (ME, "works-at", "Royal Derby")}),
        ("• Husband Idris – plumber", {(ME, "is-married-to", "Idris"), ("Idris", "has-role", "plumber")}),
        (
            "job: Junior dev @ Kinetiq Labs",
            {(ME, "has-role", "Junior dev"), (ME, "works-at", "Kinetiq Labs")},
        ),
    ],
)
def test_a_job_note_gives_the_title_and_the_employer(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert expected <= facts(tier, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My CV:\n- 2017-2020 Support analyst @ Halden Bank\n- 2020-present Team lead @ Corvid Labs",
            {
                (ME, "worked-as", "Support analyst"),
                (ME, "worked-at", "Halden Bank"),
                (ME, "has-role", "Team lead"),
                (ME, "works-at", "Corvid Labs"),
            },
        ),
        ("2012 - 2016: Sales assistant, Boots", {(ME, "worked-at", "Boots")}),
        ("Timeline:\n- 2016 moved to Dundee\n- 2019 started at Skyscanner", {(ME, "works-at", "Skyscanner")}),
    ],
)
def test_a_cv_line_says_by_its_years_what_is_and_what_was(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert expected <= facts(tier, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Home: Leith", (ME, "lives-in", "Leith")),
        ("home: leeds", (ME, "lives-in", "Leeds")),
        ("• Car: 2016 Ford Focus", (ME, "has-car", "Ford Focus")),
        ("Old car: Vauxhall Corsa", (ME, "had-car", "Vauxhall Corsa")),
    ],
)
def test_a_home_or_car_note(tier: SpacyTier, text: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(tier, text)


def test_a_move_between_two_places_the_model_ran_together(tier: SpacyTier) -> None:
    got = facts(tier, "We moved from Cluj to Bucharest in 2015.")
    assert (ME, "moved-to", "Bucharest") in got
    assert (ME, "moved-to", "Cluj to Bucharest") not in got


@pytest.mark.parametrize(
    ("text", "not_expected"),
    [
        ("Job: Nurse", (ME, "works-at", "Nurse")),  # a title, not a firm
        ("current job: Product Manager at Monzo", (ME, "works-at", "Product Manager")),
    ],
)
def test_a_title_in_a_job_note_is_no_employer(
    tier: SpacyTier, text: str, not_expected: tuple[str, str, str]
) -> None:
    assert not_expected not in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Notes:\n- hobbies: sailing, sourdough\n- wants the deck by Friday",
        "1999 was a great year",
        "- wife: lovely as ever",  # no name
    ],
)
def test_a_note_without_a_fact_gives_none(tier: SpacyTier, text: str) -> None:
    # guards for the rules above (they hold on the code before them too)
    assert not {f for f in facts(tier, text) if f[0] == ME}


@pytest.mark.parametrize(
    ("text", "expected", "not_expected"),
    [
        (
            "tidy this for the newsletter:\n- Hana: in Osaka now, loving it\n- Dmitri: still at Gazprom Neft",
            {("Hana", "lives-in", "Osaka"), ("Dmitri", "works-at", "Gazprom Neft")},
            {(ME, "lives-in", "Osaka"), (ME, "works-at", "Gazprom Neft")},
        ),
        (
            "Team:\n- Aisha – designer at Figma\n- Priya: accountant at KPMG",
            {
                ("Aisha", "has-role", "designer"),
                ("Aisha", "works-at", "Figma"),
                ("Priya", "works-at", "KPMG"),
            },
            {(ME, "works-at", "Figma"), (ME, "has-role", "accountant")},
        ),
        ("- Dad: in Galway now", set(), {(ME, "lives-in", "Galway")}),  # someone unnamed: no one's fact
        (
            "Contacts to update:\nRavi – now at Wipro\nLiesl – moved to Stellenbosch\nDad – in Galway now",
            {("Ravi", "works-at", "Wipro"), ("Liesl", "moved-to", "Stellenbosch")},
            {(ME, "works-at", "Wipro"), (ME, "moved-to", "Stellenbosch"), (ME, "lives-in", "Galway")},
        ),
        ("- Husband Karl – electrician", {(ME, "is-married-to", "Karl")}, set()),  # the key's relation stays
        ("- Me: designer at Figma", {(ME, "works-at", "Figma")}, set()),
        ("Job: designer at Figma", {(ME, "works-at", "Figma")}, {("Job", "works-at", "Figma")}),  # a key word
        ("Work: still at Aviva", {(ME, "works-at", "Aviva")}, set()),
    ],
)
def test_a_line_led_by_a_person_is_about_that_person(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, str]], not_expected: set[tuple[str, str, str]]
) -> None:
    got = facts(tier, text)
    assert expected <= got
    assert not not_expected & got


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Carpool list:\n- Rosa – VW Golf\n- Tom – a Honda Civic",
            {("Rosa", "has-car", "VW Golf"), ("Tom", "has-car", "Honda Civic")},
        ),
        (
            "School run rota:\n- Ayesha: Bradford Girls' Grammar",
            {("Ayesha", "attends", "Bradford Girls' Grammar")},
        ),
        ("Housemates and pets:\n- Grete: cat called Pixel", {("Grete", "has-cat", "Pixel")}),
        ("- Mark: still at Tesco", {("Mark", "works-at", "Tesco")}),  # a first name English also spells
    ],
)
def test_a_line_led_by_a_person_names_their_things(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert expected <= facts(tier, text)
