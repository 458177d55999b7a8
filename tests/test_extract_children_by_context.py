"""The speaker's children told by context, never by a kin word (extract/children_by_context.py), on the
real English pipeline through the spaCy tier's sessions."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters


def _session(tier: SpacyTier, *texts: str) -> list[set[tuple[str, str, str]]]:
    """The facts of each of `texts`, said by Alex in one session, in order."""
    session = f"ctx-{abs(hash(texts))}"
    msgs = [
        Message(id=f"{session}-{i}", text=t, role="user", speaker="Alex", session=session)
        for i, t in enumerate(texts)
    ]
    out = tier.extract(msgs, scope=session)
    return [{(f.subject, f.predicate, f.object) for f in ex.facts} for ex in out]


@pytest.mark.parametrize(
    ("text", "child"),
    [
        ("Isla's staying at Wee Sparrows nursery for now, mum does the pick up", "Isla"),
        ("Sofia is 5 now and she loves her new school", "Sofia"),
        ("Callum starts at Whitehill Secondary next week, he's dead nervous", "Callum"),
        # the child's own teacher or friends, not beside the name
        ("Maya is 7 now and her teacher says she's reading really well", "Maya"),
        ("Leo starts at Hillside Primary next week, his friends from nursery are going too", "Leo"),
        # a first name's age alone, in a message with no animal in it
        ("Ella turns 8 next week and wants a unicorn cake", "Ella"),
        # a name no list of first names holds, which the model tags a person
        ("Wanjiru turned 9 on Sunday.", "Wanjiru"),
        ("Leo's four now and obsessed with dinosaurs.", "Leo"),  # the age in words
    ],
)
def test_a_person_with_a_school_or_a_childs_age_is_the_speakers_child(
    tier: SpacyTier, text: str, child: str
) -> None:
    before = counters.get("extract.spacy.child_by_context")
    assert ("Alex", "has-child", child) in _session(tier, text)[0]
    assert counters.get("extract.spacy.child_by_context") == before + 1


@pytest.mark.parametrize(
    "text",
    [
        "Biscuit turned 4 yesterday, can't believe it",  # an age alone: a pet's as well as a child's
        "Max turned 4 yesterday, we got him a new chew toy from the vet",  # a first name, an animal's things
        "Acme is 5 years old this month, they threw a party",  # no first name
        "Tom turned forty on Saturday, we had a party at the pub",  # an adult's age in words
        "she has a son too, Jaylen, he's 10 and in year 5",  # her son
        "his pal Ryan goes to Thornwood Primary too",  # a friend of someone's
        "Ryan, Leo's best friend, goes to Thornwood Primary too",
        "Ryan's a classmate of Leo's, he goes to Thornwood Primary",
        "Mrs Okafor is at Horace Mann Elementary, she's lovely",  # a teacher
        "I teach year 2 now. Maya is 7 and loves school",  # the speaker's pupil
    ],
)
def test_someone_elses_child_a_friend_a_teacher_or_a_pet_is_not(tier: SpacyTier, text: str) -> None:
    facts = _session(tier, text)[0]
    assert not {f for f in facts if f[1] == "has-child"}, facts


def test_a_name_tied_to_another_relation_before_stays_so(tier: SpacyTier) -> None:
    """The niece named in an earlier message is no child of the speaker when her school comes up."""
    for first in ("My niece Ava is 6.", "My niece Ava is staying with us this week."):
        facts = _session(tier, first, "Ava starts at Riverside Primary in May.")
        assert {f for f in facts[1] if f[0] == "Ava" and f[2] == "Riverside Primary"}, facts[1]
        assert not {f for f in facts[1] if f[1] == "has-child"}, facts[1]


def test_a_child_found_by_context_is_remembered_as_one(tier: SpacyTier) -> None:
    """Once a child, a later age or school adds no second has-child, and the school is a pupil's."""
    facts = _session(
        tier,
        "Isla's staying at Wee Sparrows nursery for now",
        "Isla is 4 now and loves nursery",
    )
    assert ("Alex", "has-child", "Isla") in facts[0]
    assert ("Isla", "is-aged", "4") in facts[1]
    assert ("Alex", "has-child", "Isla") not in facts[1]
