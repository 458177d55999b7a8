"""Regex tier, proper nouns at the start of a sentence: names addressed, "is"/"has" contractions, titles.

The sentences are written for these tests (everyday chat about work, family, hobbies), not taken from
any benchmark conversation.
"""

from __future__ import annotations

import pytest

from knowledge_engine.extract.regex import find_mentions


def names(text: str) -> list[str]:
    return [m.value for m in find_mentions(text) if m.type == "unknown"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Priya, that sounds wonderful! Send me the pictures.", "Priya"),
        ("Tomasz, did you ever hear back from the landlord?", "Tomasz"),
        ("Thanks for the tip. Henrik, I owe you one.", "Henrik"),
        ("Aisha, congrats on the new job!", "Aisha"),
        ("Okay! Bartholomew, your turn to cook.", "Bartholomew"),
    ],
)
def test_a_name_addressed_at_the_start_is_found(text: str, name: str) -> None:
    assert name in names(text)


@pytest.mark.parametrize(
    "text",
    [
        "Wow, that was close.",
        "Honestly, I forgot all about it.",
        "Seriously, stop worrying.",
        "Sooo, how did the interview go?",
        "Hahaha, good one.",
        "Hmm, maybe after lunch.",
        "Congratulations, you earned it!",
        "Dude, no way.",
        "Mom, where are my keys?",
        "Unfortunately, the flat was gone.",
        "Anyways, back to the plan.",
        "Together, we painted the whole fence.",
        "Morning, everyone!",
        "Btw, the rent went up.",
        "Regardless, we signed the lease.",
        "Eventually, the train came.",
    ],
)
def test_a_sentence_opening_interjection_or_adverb_is_not_a_name(text: str) -> None:
    assert names(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Work's been crazy this week.",
        "Cooking's my favourite way to unwind.",
        "Weather's awful today.",
        "Rent's too high, honestly.",
        "Money's tight, but we manage.",
        "Gardening's so calming.",
        "Traffic's getting worse every year.",
        "Running's helped me sleep better.",
        "Commuting's exhausting.",
        "Swimming's great for my back, I find.",
    ],
)
def test_a_sentence_opening_is_or_has_contraction_is_not_a_name(text: str) -> None:
    assert names(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Priya's brother moved to Leeds last spring.", "Priya"),
        ("Tomasz's car broke down again.", "Tomasz"),
        ("Work's been crazy. Aisha's team shipped it though.", "Aisha"),
        ("Ines's been great. I told Ines so.", "Ines"),  # a contraction, but the name is used elsewhere
    ],
)
def test_a_sentence_opening_possessive_still_names_its_owner(text: str, name: str) -> None:
    assert name in names(text)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("We watched Schindler's List last night.", "Schindler's List"),
        ("I'm rereading Gulliver's Travels on the train", "Gulliver's Travels"),
        ("she binged Grey’s Anatomy all weekend", "Grey’s Anatomy"),
        ("Ocean's Eleven is on tonight", "Ocean's Eleven"),
    ],
)
def test_a_possessive_title_is_kept_whole(text: str, title: str) -> None:
    found = [m for m in find_mentions(text) if m.type == "unknown"]
    assert [m.value for m in found] == [title]
    (m,) = found
    assert text[m.start : m.end] == title


def test_a_possessive_before_a_family_word_still_ends_the_name() -> None:
    values = names("We met Priya's Mom at the market.")
    assert "Priya" in values
    assert not any("'" in v for v in values)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Mia's birthday!", "Mia"),
        ("Charles's brother", "Charles"),
        ("Leo's four now.", "Leo"),
        ("Dana's wedding today, so I'm off.", "Dana"),
    ],
)
def test_a_possessive_noun_ending_the_clause_still_names_its_owner(text: str, name: str) -> None:
    assert name in names(text)
