"""A child at a school or university is a pupil there, not an employee (extract/pupils.py), on the real
English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract import pupils
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from tests.fixtures.common import triples


def _session(tier: SpacyTier, *texts: str) -> set[tuple[str, str, str]]:
    """The facts of the last of `texts`, said by Alex in one session, in order."""
    msgs = [
        Message(
            id=f"p{i}-{abs(hash(t))}",
            text=t,
            role="user",
            speaker="Alex",
            session=f"pupils-{abs(hash(texts))}",
        )
        for i, t in enumerate(texts)
    ]
    return {(f.subject, f.predicate, f.object) for f in tier.extract(msgs)[-1].facts}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "Please note that my son, Rupert, is now at Durham University reading History.",
            ("Rupert", "attends", "Durham University"),
        ),
        (
            "My daughter's name is Niamh. She started at Scoil Bhríde in September.",
            ("Niamh", "attends", "Scoil Bhríde"),
        ),
    ],
)
def test_the_speakers_child_at_a_place_of_learning_attends_it(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    got = triples(tier, text, "Alex")
    assert fact in got
    assert (fact[0], "works-at", fact[2]) not in got


def test_a_child_named_in_an_earlier_message_attends_too(tier: SpacyTier) -> None:
    """Two sons: "my son" stands for neither, but both are children."""
    got = _session(
        tier,
        "My son Ben turned 19 last week.",
        "My son Oisín is 12.",
        "Ben is now at Leeds University, loving it.",
    )
    assert ("Ben", "attends", "Leeds University") in got
    assert ("Ben", "works-at", "Leeds University") not in got


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # a grown child may work at a university: the sentence says so
        ("My son Ben got a job at Leeds University.", ("Ben", "works-at", "Leeds University")),
        # a partner at a university is not a pupil
        ("My husband Tom is now at Durham University.", ("Tom", "works-at", "Durham University")),
    ],
)
def test_work_or_an_adult_at_a_university_stays_a_job(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    got = triples(tier, text, "Alex")
    assert fact in got
    assert (fact[0], "attends", fact[2]) not in got


@pytest.mark.parametrize(
    ("name", "learning"),
    [
        ("Durham University", True),
        ("Scoil Bhríde", True),
        ("Riverside Primary", True),
        ("Brookfield College", True),
        ("Tesco", False),
        ("Leeds", False),
    ],
)
def test_places_of_learning_are_known_by_a_word_of_their_name(name: str, learning: bool) -> None:
    assert pupils.learning_place(name) is learning


def test_a_childs_place_in_a_message_about_school_is_their_school(tier: SpacyTier) -> None:
    """No school word in the name, but the message speaks of school: a place, not a job."""
    text = "My daughter Amara starts at Bishop Challoner in September. The school is two buses away."
    got = triples(tier, text, "Alex")
    assert ("Amara", "attends", "Bishop Challoner") in got
    assert ("Amara", "works-at", "Bishop Challoner") not in got


def test_a_child_staying_at_a_place_beside_talk_of_a_primary_is_there_at_school(tier: SpacyTier) -> None:
    said = "megan got a place at heol wen primary, osian is staying at llys celyn, he can get the bus"
    assert ("Osian", "attends", "Llys Celyn") in _session(tier, "our son Osian is 12 now", said)
    stay = _session(tier, "our son Osian is 12 now", "Osian is staying at Gran's this weekend.")
    assert not {f for f in stay if f[1] == "attends"}  # no school talk: a stay


def test_work_said_of_someone_else_leaves_the_child_a_pupil(tier: SpacyTier) -> None:
    """Only the sentence naming the child's place decides whether it is work (blind-d d047)."""
    text = (
        "My daughter Amara starts at Bishop Challoner in September. The school is two buses away. "
        "My husband Kwame works nights at Heathrow."
    )
    got = triples(tier, text, "Alex")
    assert ("Amara", "attends", "Bishop Challoner") in got
    assert ("Kwame", "works-at", "Heathrow") in got


def test_without_school_talk_a_childs_unnamed_place_stays_as_said(tier: SpacyTier) -> None:
    got = triples(tier, "My daughter Amara starts at Bishop Challoner in September.", "Alex")
    assert ("Amara", "attends", "Bishop Challoner") not in got


def test_a_first_name_opening_a_sentence_is_its_subject(tier: SpacyTier) -> None:
    """The small model tags "Theo" a common noun at the start of a sentence."""
    assert ("Theo", "goes-to", "Clapham Terrace") in triples(
        tier, "Theo goes to Clapham Terrace, which he loves.", "Alex"
    )


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Our Kacper's off to Westbrook Grammar next year.", ("Kacper", "attends", "Westbrook Grammar")),
        ("Maya is off to Greenfield Academy in September.", ("Maya", "attends", "Greenfield Academy")),
    ],
)
def test_off_to_a_named_school_is_attending_it(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in triples(tier, text, "Lin")


def test_off_to_a_country_is_no_school(tier: SpacyTier) -> None:
    assert not [f for f in triples(tier, "I'm off to Spain next week.", "Lin") if f[1] == "attends"]


def test_his_teacher_at_a_school_is_the_one_named_childs(tier: SpacyTier) -> None:
    text = "My son Jayden has ADHD and his teacher at St Joseph's says he's disruptive."
    assert ("Jayden", "attends", "St Joseph's") in triples(tier, text, "Bo")


def test_his_teacher_with_two_children_named_is_no_ones(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    text = "My sons Sam and Leo are great, his teacher at St Mary's said so."
    assert not [f for f in triples(tier, text, "Bo") if f[1] == "attends"]


@pytest.mark.parametrize(
    ("text", "child"),
    [
        ("lily is at little acorns nursery 3 days a week", "Lily"),  # a nursery named in English words
        ("Maya is at Little Acorns Nursery 3 days a week.", "Maya"),  # how often she is there: no visit
    ],
)
def test_a_child_at_a_nursery_some_days_a_week_attends_it(tier: SpacyTier, text: str, child: str) -> None:
    got = triples(tier, text, "Alex")
    assert (child, "attends", "Little Acorns Nursery") in got
    assert ("Alex", "has-child", child) in got


def test_a_count_of_days_after_a_firm_is_no_part_of_its_name(tier: SpacyTier) -> None:
    got = triples(tier, "I work at Tesco 3 days a week", "Alex")
    assert ("Alex", "works-at", "Tesco") in got
    assert not [f for f in got if "days" in f[2]]
    assert not triples(tier, "I'm at Tesco this week, the big shop", "Alex")  # still a visit
