"""Names and relations in brackets ("Leo (4)", "Tom (my husband)"), on the real English pipeline through
the spaCy tier: the small model runs an entity into an opening bracket, and the parse hangs a
bracketed kin word apart from its name."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.observe import counters
from tests.fixtures.common import spoken, triples


def test_an_entity_run_into_a_bracket_ends_before_it(tier: SpacyTier) -> None:
    before = counters.get("extract.spacy.bracket_entities")
    ex = spoken(tier, "Leo (4) started nursery this week", "Alex")
    assert not [m.value for m in ex.mentions if "(" in m.value or ")" in m.value]
    assert ("Leo", "person") in {(m.value, m.type) for m in ex.mentions}
    assert counters.get("extract.spacy.bracket_entities") > before


def test_children_with_their_ages_in_brackets(tier: SpacyTier) -> None:
    got = triples(tier, "our kids Leo (4) and Mia (7) love it", "Alex")
    assert {("Alex", "has-child", "Leo"), ("Alex", "has-child", "Mia")} <= got
    assert {("Leo", "is-aged", "4"), ("Mia", "is-aged", "7")} <= got


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Tom (my husband) starts at the city library next week.", ("Alex", "is-married-to", "Tom")),
        ("my husband (Tom) got a job at Arup", ("Alex", "is-married-to", "Tom")),
        ("Dave (my boss) is leaving in May", ("Alex", "has-manager", "Dave")),
    ],
)
def test_a_name_and_the_speakers_kin_word_in_brackets(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in triples(tier, text, "Alex")


def test_a_bracketed_kin_word_of_someone_else_names_no_kin_of_the_speaker(tier: SpacyTier) -> None:
    got = triples(tier, "Tom (her husband) starts at the city library next week.", "Alex")
    assert not {f for f in got if f[0] == "Alex" and f[2] == "Tom"}
