"""Corrections in chat (issue 14): "sorry, I meant Leeds not Leicester" replaces the wrong value, whatever
the relation; the wrong fact is forgotten, not kept in history."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.extract.corrections import Correction, parse_correction
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace


def day(month: int, d: int = 1) -> datetime:
    return datetime(2025, month, d, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "right", "wrong"),
    [
        ("sorry, I meant Bath not Bristol", "Bath", "Bristol"),
        ("no wait, it's Portobello, not Leith", "Portobello", "Leith"),
        ("Oops. Hartley Wintney rather than Hook!", "Hartley Wintney", "Hook"),
        ("my bad, in Ghent not in Bruges", "Ghent", "Bruges"),
        ("wait no, not Tim but Tom", "Tom", "Tim"),
        ("typo - the Octavia, not the Fabia", "Octavia", "Fabia"),
        ("Correction: Friday instead of Thursday", "Friday", "Thursday"),
    ],
)
def test_a_swap_names_the_right_and_the_wrong_value(text: str, right: str, wrong: str) -> None:
    assert parse_correction(text) == Correction(right=right, wrong=wrong)


@pytest.mark.parametrize(
    "text",
    [
        "sorry, I'm not sure yet",
        "Sorry I did not reply sooner",
        "sorry to hear that, not great",
        "I mean it is not easy to find a flat",
        "I meant to call you, not text",
        "We moved to Bath, not far from Bristol",  # no correction cue
        "Actually the job is not in Bristol",
    ],
)
def test_not_a_correction(text: str) -> None:
    assert parse_correction(text) is None


def test_a_restatement_is_a_correction_without_values() -> None:
    assert parse_correction("Correction: my boss is Anika Shah") == Correction()
    assert parse_correction("scratch that - we rent in Hove") == Correction()


@pytest.fixture
def ws(workspace: Path) -> Iterator[Workspace]:
    w = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    yield w
    w.close()


def say(
    ws: Workspace, mid: str, text: str, when: datetime, *facts: tuple[str, str, str], session: str = "s1"
) -> None:
    msg = Message(id=mid, session=session, text=text, speaker="Ana", timestamp=when)
    cands = [FactCandidate(subject=s, predicate=p, object=o, tier="spacy") for s, p, o in facts]
    ws.apply(msg, [Extraction(message_id=mid, facts=cands)])


def triples(ws: Workspace, history: bool = False) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in ws.facts.query(include_history=history)}


def test_a_swap_replaces_the_wrong_home_and_forgets_it(ws: Workspace) -> None:
    say(ws, "m1", "We live in Hull.", day(1), ("Ana", "lives-in", "Hull"))
    say(ws, "m2", "We moved to Bristol last month.", day(5), ("Ana", "moved-to", "Bristol"))
    say(ws, "m3", "sorry, I meant Bath not Bristol", day(5, 2))
    assert ("Ana", "moved-to", "Bath") in triples(ws)
    everything = triples(ws, history=True)
    assert not any("Bristol" in o for _, _, o in everything)  # forgotten, not history
    # Hull is still history, now ended by Bath
    (hull,) = [f for f in ws.facts.all() if f.object == "Hull"]
    (bath,) = [f for f in ws.facts.all() if f.object == "Bath"]
    assert hull.invalid_at is not None and hull.superseded_by == bath.id
    assert {e.message_id for e in bath.evidence} == {"m2", "m3"}


def test_a_swap_works_for_any_relation_and_inside_a_longer_value(ws: Workspace) -> None:
    say(
        ws,
        "m1",
        "Tom got a job at Leicester Royal Infirmary.",
        day(2),
        ("Tom", "works-at", "Leicester Royal Infirmary"),
    )
    say(ws, "m2", "Our cat is called Miso.", day(2, 3), ("Ana", "has-cat", "Miso"))
    say(ws, "m3", "oops, Leeds not Leicester", day(2, 4))
    assert triples(ws) == {("Tom", "works-at", "Leeds Royal Infirmary"), ("Ana", "has-cat", "Miso")}
    say(ws, "m4", "no wait, it's Mochi, not Miso", day(2, 5))
    assert ("Ana", "has-cat", "Mochi") in triples(ws) and ("Ana", "has-cat", "Miso") not in triples(ws, True)


def test_only_the_last_statement_of_the_wrong_value_is_corrected(ws: Workspace) -> None:
    say(ws, "m1", "My sister lives in York.", day(1), ("Jo", "lives-in", "York"))
    say(ws, "m2", "I'm starting at York Minster Trust.", day(3), ("Ana", "works-at", "York Minster Trust"))
    say(ws, "m3", "sorry, I meant Ripon not York", day(3, 2))
    assert triples(ws) == {("Jo", "lives-in", "York"), ("Ana", "works-at", "Ripon Minster Trust")}


def test_a_swap_that_matches_nothing_changes_nothing(ws: Workspace) -> None:
    say(ws, "m1", "I work at Arla.", day(1), ("Ana", "works-at", "Arla"))
    say(ws, "m2", "sorry, I meant Tuesday not Monday", day(2))
    assert triples(ws) == {("Ana", "works-at", "Arla")}


def test_the_correcting_message_does_not_state_the_wrong_value(ws: Workspace) -> None:
    say(ws, "m1", "we live in Hove", day(1), ("Ana", "lives-in", "Hove"))
    say(
        ws,
        "m2",
        "my bad, in Brighton not in Hove",
        day(2),
        ("Ana", "lives-in", "Hove"),
        ("Ana", "lives-in", "Brighton"),
    )
    assert triples(ws, history=True) == {("Ana", "lives-in", "Brighton")}


def test_a_restatement_forgets_what_it_replaces(ws: Workspace) -> None:
    say(ws, "m1", "My manager is Dana.", day(1), ("Ana", "has-manager", "Dana"))
    say(ws, "m2", "Correction: my manager is Anika.", day(1, 2), ("Ana", "has-manager", "Anika"))
    assert triples(ws, history=True) == {("Ana", "has-manager", "Anika")}


def test_a_restatement_of_a_many_valued_relation_replaces_the_last_one_of_the_session(ws: Workspace) -> None:
    say(ws, "m0", "I have a son, Max.", day(1), ("Ana", "has-son", "Max"), session="s0")
    say(ws, "m1", "Our son is Leon.", day(2), ("Ana", "has-son", "Leon"))
    say(ws, "m2", "correction: our son is Leo", day(2, 2), ("Ana", "has-son", "Leo"))
    assert triples(ws, history=True) == {("Ana", "has-son", "Max"), ("Ana", "has-son", "Leo")}


def test_an_ordinary_update_still_keeps_history(ws: Workspace) -> None:
    say(ws, "m1", "My manager is Dana.", day(1), ("Ana", "has-manager", "Dana"))
    say(ws, "m2", "My new manager is Anika.", day(4), ("Ana", "has-manager", "Anika"))
    assert ("Ana", "has-manager", "Dana") in triples(ws, history=True)


@pytest.fixture(scope="module")
def spacy_tier() -> SpacyTier:
    return SpacyTier()


def test_end_to_end_with_the_spacy_tier(ws: Workspace, spacy_tier: SpacyTier) -> None:
    lines = [
        "We just moved to Norwich, the new flat is lovely.",
        "no wait, it's Ipswich, not Norwich. long day",
    ]
    for i, text in enumerate(lines):
        msg = Message(id=f"m{i}", session="s1", text=text, speaker="Ana", timestamp=day(3, i + 1))
        ws.apply(msg, spacy_tier.extract_here([msg]))
    objects = {f.object for f in ws.facts.query(subject="Ana", include_history=True)}
    assert "Ipswich" in objects and "Norwich" not in objects


def test_an_assistants_correction_changes_nothing(ws: Workspace) -> None:
    say(ws, "m1", "We live in Hove.", day(1), ("Ana", "lives-in", "Hove"))
    msg = Message(id="m2", session="s1", role="assistant", text="Sorry, Brighton not Hove!", timestamp=day(2))
    ws.apply(msg, [Extraction(message_id="m2", facts=[])])
    assert triples(ws) == {("Ana", "lives-in", "Hove")}
