"""An offer, then its acceptance (issue 14): 'Helix offered me a job' ... 'I accepted it' is works-at Helix,
through the real spaCy tier and a workspace, across sessions; an acceptance with no offer stores nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from knowledge_engine.config import SpacyConfig, load_config
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.store.workspace import Workspace

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def tier() -> SpacyTier:
    return SpacyTier(SpacyConfig(workers=0))


def tell(tier: SpacyTier, ws: Workspace, lines: list[tuple[int, str, str]], speaker: str = "Maya") -> None:
    """(day, session, text) user messages, extracted and applied in order."""
    msgs = [
        Message(
            id=f"{speaker}{i}",
            text=t,
            role="user",
            session=s,
            speaker=speaker,
            timestamp=T0 + timedelta(days=d),
        )
        for i, (d, s, t) in enumerate(lines)
    ]
    for msg, ex in zip(msgs, tier.extract(msgs), strict=True):
        ws.apply(msg, [ex])


def jobs(ws: Workspace, subject: str) -> set[tuple[str, str]]:
    return {
        (f.predicate, f.object)
        for f in ws.facts.query(subject=subject)
        if f.predicate in {"works-at", "worked-at"}
    }


def test_an_accepted_offer_is_the_new_job_across_sessions(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I work at Northwind Labs as a data engineer."),
            (10, "s2", "Big news: Helix Robotics offered me a job in Berlin!"),
            (12, "s2", "Paul's been offered a job with Sunshine Coast Council."),
            (12, "s2", "He took the Council one!"),
            (30, "s3", "I accepted it."),
        ],
    )
    assert jobs(ws, "Maya") == {("works-at", "Helix Robotics")}  # Northwind went to history
    assert jobs(ws, "Paul") == {("works-at", "Sunshine Coast Council")}
    offers = {f.object for f in ws.facts.query(predicate="has-offer-from")}
    assert offers == {"Helix Robotics", "Sunshine Coast Council"}
    ws.close()


def test_an_acceptance_with_no_offer_stores_nothing(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    before = counters.snapshot().get("facts.acceptances_unresolved", 0)
    tell(
        tier,
        ws,
        [(0, "s1", "I got an offer from Monzo!"), (2, "s1", "I took the Google one.")],
        speaker="Ann",
    )
    tell(tier, ws, [(3, "s1", "I accepted it.")], speaker="Bob")  # Ann's offer is not Bob's
    assert jobs(ws, "Ann") == set() and jobs(ws, "Bob") == set()
    assert not [f for f in ws.facts.all() if f.predicate == "accepted-offer"]
    assert counters.snapshot().get("facts.acceptances_unresolved", 0) == before + 2
    ws.close()


def test_the_role_an_offer_named_becomes_the_role_once_accepted(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I'm a clinical pharmacist at the General."),
            (10, "s2", "Queensway Carleton offered me the Pharmacy Clinical Coordinator position."),
            (12, "s2", "I accepted, and my start date is January 6th."),  # accepted, no object said
        ],
        speaker="Lin",
    )
    facts = [f for f in ws.facts.all() if f.subject == "Lin"]  # with history
    current = {(f.predicate, f.object) for f in facts if f.invalid_at is None}
    assert {("works-at", "Queensway Carleton"), ("has-role", "Pharmacy Clinical Coordinator")} <= current
    assert ("has-offered-role", "Pharmacy Clinical Coordinator") in current
    # the old job and role went to history when the offer was accepted, not when it was made
    ended = {(f.predicate, f.object): f.invalid_at for f in facts if f.invalid_at is not None}
    assert ended.keys() == {("works-at", "General"), ("has-role", "clinical pharmacist")}
    assert set(ended.values()) == {T0 + timedelta(days=12)}
    ws.close()


def test_the_pay_an_offer_named_becomes_the_salary_once_accepted(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I'm an intern at Zoho, my stipend is 40k per month."),
            (10, "s2", "GOT IT!!! I got an offer from Freshworks. 18 LPA CTC"),
            (12, "s2", "I accepted, I start in June."),
        ],
        speaker="Meera",
    )
    facts = [f for f in ws.facts.all() if f.subject == "Meera"]
    current = {(f.predicate, f.object) for f in facts if f.invalid_at is None}
    assert {("works-at", "Freshworks"), ("has-salary", "18 LPA")} <= current
    ended = {(f.predicate, f.object) for f in facts if f.invalid_at is not None}
    assert ("has-salary", "40k") in ended  # the stipend went to history with the acceptance
    ws.close()
