"""Kinds of entity noise the engine no longer stores (issue 14): lengths of time, bare numbers and
clock times and lone weekdays the small model tags DATE/TIME, and other spans no name is; while
real dates, and the names beside them, stay."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.regex import find_mentions
from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.test_entity_noise import _raw_and_kept


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("The dog sleeps 20 hours a day.", "20 hours"),
        ("It should only take 15 minutes.", "15 minutes"),
        ("he's been off sick 2 days now", "2 days"),
        ("I've worked there for 34 years.", "34 years"),
        ("the car is a 14 year old Corsa", "14 year old"),
        ("she is 7, tabby, very dramatic", "7"),
        ("I was writing notes at 11pm after a shift.", "11pm"),
        ("The interview is on Thursday.", "Thursday"),  # a weekday alone is relative, like "today"
        ("Can we do it next Monday instead?", "Monday"),
    ],
)
def test_a_length_of_time_a_number_a_clock_time_or_a_weekday_alone_is_no_entity(
    spacy_tier: SpacyTier, text: str, span: str
) -> None:
    raw, kept = _raw_and_kept(spacy_tier, text)
    assert any(span in r for r in raw)  # the model does tag it
    assert not any(t == "date" and span in v for v, t in kept)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("I start at the new place on 1st July.", "1st July"),
        ("We met in 2019 at a climbing gym.", "2019"),
        ("The interview is on Thursday 12 June.", "Thursday 12 June"),
        ("We get married in October.", "October"),
    ],
)
def test_a_day_month_or_year_stays_a_date(spacy_tier: SpacyTier, text: str, span: str) -> None:
    _, kept = _raw_and_kept(spacy_tier, text)
    assert (span, "date") in kept


@pytest.mark.parametrize(
    ("text", "noise"),
    [
        ("I GOT IT. charge nurse from 1st July!!", "GOT IT"),  # shouting
        ("GUESS WHO GOT PROMOTED. Starting April 1 I'm the new manager", "GUESS WHO GOT PROMOTED"),
        ("Leave the rows out, keep daily_seasonality=True, and add a regressor", "True"),  # code
        ("Hiya, can ye help me write a note for the teacher?", "Hiya"),  # a greeting
        ("Congratulations Lena! Is the speech for the wedding itself?", "Congratulations Lena"),
        ("Here's a version you can send asking for remote Fridays.", "Fridays"),
        ("What you need:\n5. Small fridge\n6. Bucket, mug, mop\n7. Extension boards", "Bucket"),  # list item
    ],
)
def test_regex_noise_is_no_name(text: str, noise: str) -> None:
    assert noise not in {m.value for m in find_mentions(text)}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Congratulations Lena! Is the speech for the wedding itself?", "Lena"),
        ("Maya, that looks great", "Maya"),  # addressed before a comma
        ("The NHS UK site says so.", "NHS UK"),  # capitals without a function word
        ("I asked the WHO about it.", "WHO"),
        ("Sam's at the LGI. Biscuit, come here!", "Biscuit"),
    ],
)
def test_regex_names_beside_the_noise_stay(text: str, name: str) -> None:
    assert name in {m.value for m in find_mentions(text)}


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Sleeps 20 hours a day, honestly the perfect dog.", "Sleeps"),
        (
            "Project: rebuilt the dashboard in Tableau. Result: cut the reporting time from two days to "
            "about three hours. Skill: I finally learnt dbt properly.",
            "Skill",
        ),
    ],
)
def test_a_word_capitalised_as_a_sentence_opener_is_not_a_person(
    spacy_tier: SpacyTier, text: str, word: str
) -> None:
    raw, kept = _raw_and_kept(spacy_tier, text)
    assert word in raw  # the model calls it a PERSON
    assert not any(v == word for v, _ in kept)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Rob said yes. Will said no.", "Rob"),  # a first name that is also a verb
        ("Mum had a fall. Doc says it is mild.", "Mum"),
        ("Mum had a fall. Doc says it is mild.", "Doc"),  # tagged a proper noun
        ("My dad is Rob. Rob said yes.", "Rob"),
    ],
)
def test_a_name_opening_a_sentence_stays_a_person(spacy_tier: SpacyTier, text: str, name: str) -> None:
    _, kept = _raw_and_kept(spacy_tier, text)
    assert (name, "person") in kept


@pytest.mark.parametrize(
    ("text", "span", "value", "type_"),
    [
        ("budget is under 30k for the car", "under 30k", "under 30k", "money"),
        ("salary is around 40k per month now", "around 40k per month", "40k per month", "money"),
        ("For the user manual: EUR 1,680, payable within 14 days.", "EUR 1,680", "EUR 1,680", "money"),
    ],
)
def test_an_amount_the_model_tags_a_date_or_an_org_is_money(
    spacy_tier: SpacyTier, text: str, span: str, value: str, type_: str
) -> None:
    raw, kept = _raw_and_kept(spacy_tier, text)
    assert span in raw
    assert (value, type_) in kept
    assert not any(v == value and t != type_ for v, t in kept)


@pytest.mark.parametrize(
    ("text", "noise"),
    [
        ("Fantastic Mr Fox is the obvious winner there!", "Fantastic Mr"),  # cut after a title
        ("Callum starts S1 at Whitehill in August.", "S1"),  # a school year is no person
        ("The gym is open Tues/Thurs evenings.", "Tues/Thurs"),
        ("I paid in EUR.", "EUR"),
    ],
)
def test_a_span_that_cannot_be_a_name_is_no_entity(spacy_tier: SpacyTier, text: str, noise: str) -> None:
    raw, kept = _raw_and_kept(spacy_tier, text)
    assert noise in raw
    assert not any(v == noise for v, _ in kept)


def test_a_name_beside_a_title_stays(spacy_tier: SpacyTier) -> None:
    _, kept = _raw_and_kept(spacy_tier, "Mrs Baird said the class is full.")
    assert ("Mrs Baird", "person") in kept


def test_regex_a_letter_with_a_number_is_no_name() -> None:
    values = {m.value for m in find_mentions("so Isla is in P7 now, Callum in P1. The Q3 targets are set.")}
    assert values == {"Isla", "Callum"}


def test_a_person_with_a_number_beside_the_name_stays(spacy_tier: SpacyTier) -> None:
    _, kept = _raw_and_kept(spacy_tier, "Callum starts S1 at Whitehill in August.")
    assert not any(v == "S1" for v, _ in kept)
    _, kept = _raw_and_kept(spacy_tier, "Tom 2 is the younger one.")
    assert ("Tom 2", "person") in kept  # a name with a number: the name is in it
