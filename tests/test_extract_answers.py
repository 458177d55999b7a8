"""A terse reply to the assistant's question fills the slot it asked about (extract/answers.py)."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.answers import SessionAnswers, Slot, answer, asked
from knowledge_engine.extract.lexicon import PRONOUN
from knowledge_engine.model.extraction import Extraction
from knowledge_engine.model.records import Message
from tests.test_extract_spacy import _session


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("The Fabia has a big boot. What's the dog's name?", Slot("has-dog", "unknown")),
        ("Lovely! What do you call your kitten?", Slot("has-kitten", "unknown")),
        ("Who is your new manager?", Slot("has-manager", "person")),
        ("And what's your husband called?", Slot("is-married-to", "person")),
        ("Where are you working now?", Slot("works-at", "organization")),
        ("How are you settling in?", None),
        ("What's the dog's name? Anyway, how was the move.", Slot("has-dog", "unknown")),
        ("Who is your new manager? How is the commute?", None),  # the last question is what is answered
        ("Where do you live now?", Slot("lives-in", "location")),
        ("Which area do you live in?", Slot("lives-in", "location")),
        ("Which area are you looking at?", None),  # a plan, not a home
        ("Which school will Isla go to?", Slot("attends", "organization", subject="Isla")),
        ("what school does she go to?", Slot("attends", "organization", subject=f"{PRONOUN}:f")),
        ("Where does Tom work these days?", Slot("works-at", "organization", subject="Tom")),
        ("And what does he do for a living?", Slot("has-role", None, subject=f"{PRONOUN}:m", kind="role")),
        ("What does he do with his weekends?", None),
        ("Is Mochi your only pet?", Slot("has-pet", "unknown", confirms="Mochi")),
        ("Is Tom your husband?", Slot("is-married-to", "person", confirms="Tom")),
        ("Is that your dog?", None),
        (
            "Is Priyanka your manager? If so, ask her first.",
            Slot("has-manager", "person", confirms="Priyanka"),
        ),
        # "that" is the one first name the turn said before its question
        (
            "Sounds like Gareth's sold on the garage! Is that your husband? Good luck with the viewings.",
            Slot("is-married-to", "person", confirms="Gareth"),
        ),
        ("Tom and Sue sound lovely. Is that your husband?", None),  # two names: whose?
        ("Rhiwbina is a lovely area. Is Bryn the dog?", Slot("has-dog", "unknown", confirms="Bryn")),
        ("Is Mr Bevan your headteacher?", Slot("has-manager", "person", confirms="Mr Bevan")),
        ("Is Tom the manager?", None),  # "the" only for the household's pet
        (
            "Congrats! So you're at Helix Robotics now?",
            Slot("works-at", "organization", confirms="Helix Robotics", corrects=True),
        ),
        ("Are you still working for Acme?", Slot("works-at", "organization", confirms="Acme", corrects=True)),
        ("Are you still living in Leeds?", Slot("lives-in", "location", confirms="Leeds", corrects=True)),
        ("Are you at the airport?", None),  # a visit
        ("Are you in London this week?", None),
    ],
)
def test_the_last_question_names_the_slot(question: str, slot: Slot | None) -> None:
    assert asked(question) == slot


@pytest.mark.parametrize(
    ("reply", "name"),
    [
        ("Bonnie. she'd take up the whole boot of anything smaller", "Bonnie"),
        ("Nadia Brooks, she's lovely", "Nadia Brooks"),
        ("Copperleaf Energy in Leeds.", "Copperleaf Energy"),
        ("Mochi", "Mochi"),
        ("Yes, he is great", None),
        ("I work at Acme", None),
        ("Monday I start at Acme", None),
        ("she is called Mochi", None),
        ("Mum", None),
    ],
)
def test_only_a_reply_that_opens_with_a_name_answers(reply: str, name: str | None) -> None:
    assert answer(reply, Slot("has-dog", "unknown")) == name


def test_the_next_user_turn_answers_and_only_it() -> None:
    facts = _session(
        [
            ("assistant", "A Fabia would suit you. What's the dog's name?"),
            ("user", "Bonnie. she'd take up the whole boot of anything smaller"),
            ("assistant", "Who is your new manager?"),
            ("user", "not sure yet"),
            ("user", "Elaine Duffy, I think."),  # not the very next turn: no answer
        ]
    )
    assert ("Lena", "has-dog", "Bonnie") in facts[1]
    assert not any(p == "has-manager" for _, p, _ in facts[3] | facts[4])


@pytest.mark.parametrize(
    ("reply", "name"), [("yes just mochi. she is 7", "Mochi"), ("yep!", "Mochi"), ("No, two cats", None)]
)
def test_a_yes_confirms_what_the_question_named(reply: str, name: str | None) -> None:
    assert answer(reply, Slot("has-pet", "unknown", confirms="Mochi")) == name


@pytest.mark.parametrize(
    ("reply", "name"),
    [
        ("No, Monzo.", "Monzo"),
        ("nope, I'm at Monzo now", "Monzo"),
        ("No - still Helix Robotics", "Helix Robotics"),
        ("No, not yet", None),
        ("No, I think I'll stay", None),
        ("yes, since May", "Helix Robotics"),
    ],
)
def test_a_no_to_a_restatement_may_name_the_right_one(reply: str, name: str | None) -> None:
    assert answer(reply, asked("So you're at Helix Robotics now?")) == name


def test_a_no_to_a_pet_question_names_nothing_new() -> None:
    assert answer("No, Biscuit too", asked("Is Mochi your only pet?")) is None


def test_a_he_or_she_asked_about_is_who_the_session_means_then() -> None:
    facts = _session(
        [
            ("user", "My daughter Ella started school in September."),
            ("assistant", "Lovely! How old is she now?"),
            ("user", "Six."),
            ("assistant", "Which school does she go to?"),
            ("user", "Riverside Primary, just round the corner."),
            ("user", "My husband Tom is fed up with his job though."),
            ("assistant", "Sorry to hear that. What does he do?"),
            ("user", "Nurse, at the Royal."),
            ("assistant", "How old is she?"),  # the session's last named is Tom: not a she
            ("user", "Seven."),
        ]
    )
    assert ("Ella", "is-aged", "6") in facts[2]
    assert ("Ella", "attends", "Riverside Primary") in facts[4]
    assert ("Tom", "has-role", "nurse") in facts[7]
    assert not any(p == "is-aged" for _, p, _ in facts[9])


def test_a_he_or_she_asked_about_before_anyone_was_named_asks_nothing() -> None:
    facts = _session([("assistant", "How old is he?"), ("user", "Seven.")])
    assert facts[1] == set()


def test_a_named_person_asked_about_gets_the_answer() -> None:
    facts = _session(
        [
            ("assistant", "Where does Tom work these days?"),
            ("user", "Brightline, in the warehouse."),
            ("assistant", "So you're at Helix now?"),
            ("user", "No, Monzo."),
        ]
    )
    assert ("Tom", "works-at", "Brightline") in facts[1]
    assert ("Lena", "works-at", "Monzo") in facts[3]
    assert not any(o == "Helix" for _, _, o in facts[3])


@pytest.mark.parametrize(
    ("reply", "age"),
    [("Seven.", "7"), ("92 on Sunday", "92"), ("she's 6", "6"), ("just turned 40", "40"), ("no idea", None)],
)
def test_an_age_asked_is_the_number_the_reply_opens_with(reply: str, age: str | None) -> None:
    slot = asked("Happy birthday to her! How old is Joan now?")
    assert slot == Slot("is-aged", None, subject="Joan", kind="age")
    assert answer(reply, slot) == age


@pytest.mark.parametrize(
    ("reply", "role"),
    [
        ("Nurse, at the Royal.", "nurse"),
        ("I'm a data engineer at Helix", "data engineer"),
        ("I work as a charge nurse", "charge nurse"),
        ("Not much these days", None),
        ("Whatever pays the bills", None),
    ],
)
def test_a_job_asked_is_the_title_the_reply_opens_with(reply: str, role: str | None) -> None:
    slot = asked("Nice to meet you. What do you do for work?")
    assert slot == Slot("has-role", None, kind="role")
    assert answer(reply, slot) == role


def test_a_question_about_a_child_names_its_subject() -> None:
    facts = _session(
        [
            ("assistant", "Which school will Isla go to?"),
            ("user", "Brudenell Primary, fingers crossed"),
            ("assistant", "Which school is Isla at now?"),
            ("user", "Isla is at home this week"),  # the reply opens with the child, not a school
        ]
    )
    assert ("Isla", "attends", "Brudenell Primary") in facts[1]
    assert not any(p == "attends" and o == "Isla" for _, p, o in facts[3])


def test_no_session_no_answer() -> None:
    facts = _session([("assistant", "What's the dog's name?"), ("user", "Bonnie.")], session=None)
    assert facts[1] == set()


def test_sessions_stay_bounded() -> None:
    answers = SessionAnswers(limit=2)
    for i in range(5):
        msg = Message(id=f"q{i}", text="What's the dog's name?", role="assistant", session=f"s{i}")
        answers.one(msg, Extraction(message_id=msg.id))
    assert len(answers) == 2


def test_a_he_or_she_after_the_user_spoke_of_an_animal_is_not_a_person() -> None:
    facts = _session(
        [
            ("user", "My manager Kavya says she will push my review to Monday."),
            ("user", "Also adopted a kitten!! named her Biscuit"),
            ("assistant", "Lovely! How old is she?"),
            ("user", "3, she sleeps on my keyboard"),
        ]
    )
    assert not any(p == "is-aged" for _, p, _ in facts[3])


@pytest.mark.parametrize("reply", ["2 months", "ten weeks old", "3 days"])
def test_an_age_in_months_or_weeks_is_not_years(reply: str) -> None:
    assert answer(reply, asked("How old is Biscuit?")) is None


@pytest.mark.parametrize(
    ("reply", "fact"),
    [
        ("Waffles hated the drive but now he's sleeping in the sun all day", ("Lena", "has-cat", "Waffles")),
        ("Pretty good, he sleeps all day", None),
        ("Everything's fine, thanks", None),
        ("Honestly he hated the drive", None),
    ],
)
def test_a_name_opening_the_reply_to_how_is_the_cat_is_the_cat(
    reply: str, fact: tuple[str, str, str] | None
) -> None:
    facts = _session([("assistant", "Lots of firsts. How's the cat handling the move?"), ("user", reply)])
    cats = {f for f in facts[1] if f[1] == "has-cat"}
    assert cats == ({fact} if fact else set())


def test_a_name_opening_the_reply_to_how_is_your_sister_is_the_sister() -> None:
    facts = _session(
        [("assistant", "How's your sister getting on in Munich?"), ("user", "Katrin's loving it")]
    )
    assert ("Lena", "has-sister", "Katrin") in facts[1]
