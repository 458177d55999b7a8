"""The speaker's partner told by how they are spoken of, never by a kin word (extract/partners.py), on
the real English pipeline through the spaCy tier's sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from knowledge_engine.extract.partners import PartnerTally
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


def _said(
    tier: SpacyTier, *lines: tuple[int, str], speaker: str = "Keith"
) -> list[set[tuple[str, str, str]]]:
    """The facts of each (day, text) user message, in one workspace scope, in order."""
    scope = f"partners-{abs(hash(lines))}-{speaker}"
    msgs = [
        Message(
            id=f"{scope}-{i}",
            text=text,
            role="user",
            speaker=speaker,
            session="agent:main:main",  # the host's key outlives a conversation: days tell them apart
            timestamp=T0 + timedelta(days=day),
        )
        for i, (day, text) in enumerate(lines)
    ]
    return [{(f.subject, f.predicate, f.object) for f in ex.facts} for ex in tier.extract(msgs, scope=scope)]


def test_a_name_whose_view_counts_on_two_days_is_the_partner(tier: SpacyTier) -> None:
    before = counters.get("extract.spacy.partner_by_company")
    facts = _said(
        tier,
        (0, "sound. carol says im mad, we want the kitchen done this year"),
        (9, "need some advice. carol had chest pains at work yesterday"),
        (20, "board money, how much is fair. carol says nothing, i say he needs to learn"),
    )
    assert not [f for f in facts[0] if f[1] == "has-partner"]  # one day is not enough
    assert ("Keith", "has-partner", "Carol") in facts[2]
    assert counters.get("extract.spacy.partner_by_company") == before + 1


def test_doing_things_together_counts_as_a_view_does(tier: SpacyTier) -> None:
    facts = _said(
        tier,
        (0, "me and leanne bought the cafe in Kiama about 18 months back"),
        (30, "the rent is jumping, which got leanne and me talking about selling the house"),
        speaker="Garry",
    )
    assert ("Garry", "has-partner", "Leanne") in facts[1]


def test_no_partner_from_a_name_tied_to_another_relation_or_when_one_is_named(tier: SpacyTier) -> None:
    tied = _said(
        tier,
        (0, "My sister Carol is visiting. Carol says the flat is lovely."),
        (5, "Carol says I should move."),
    )
    assert not [f for day in tied for f in day if f[1] == "has-partner"]
    named = _said(
        tier,
        (0, "My husband Tom works at Arup. Carol says hi."),
        (5, "Carol says I should move."),
    )
    assert not [f for day in named for f in day if f[1] == "has-partner" and f[2] == "Carol"]


def test_no_partner_when_two_names_are_spoken_of_as_much(tier: SpacyTier) -> None:
    facts = _said(
        tier,
        (0, "Carol says no. Jenny says yes."),
        (5, "Carol wants the red one and Jenny wants the blue one."),
    )
    assert not [f for day in facts for f in day if f[1] == "has-partner"]


def test_the_tally_outlives_a_restart() -> None:
    """What `state` gives, `restore` takes back: a cue before the restart still counts after it."""
    first = PartnerTally()
    msg = Message(id="a", text="sound. carol says im mad", role="user", speaker="Keith", timestamp=T0)
    assert first.one(msg, set(), False, scope="ws") == []
    second = PartnerTally()
    second.restore("ws", first.state("ws"))
    later = msg.model_copy(update={"id": "b", "timestamp": T0 + timedelta(days=7)})
    (fact,) = second.one(later, set(), False, scope="ws")
    assert (fact.subject, fact.predicate, fact.object) == ("Keith", "has-partner", "Carol")
    second.forget(lambda name: name == "Carol", scope="ws")
    assert second.state("ws")[0]["names"] == []


def test_a_message_read_again_counts_once() -> None:
    """A journal replays the messages after the memory's checkpoint: reading one twice is one cue."""
    tally = PartnerTally()
    msg = Message(id="a", text="sound. carol says im mad", role="user", speaker="Keith", timestamp=T0)
    assert tally.one(msg, set(), False) == []
    again = msg.model_copy(update={"timestamp": T0 + timedelta(days=7)})  # same id, read again
    assert tally.one(again, set(), False) == []


def test_a_name_no_english_list_holds_and_chats_n_count_too(tier: SpacyTier) -> None:
    # "Tunde" is in Faker's Yoruba list only; "me n tunde" is chat's "me and Tunde"
    facts = _said(
        tier,
        (0, "me n tunde are looking at houses in Croydon"),
        (12, "Tunde reckons we should wait till spring"),
        speaker="Bisi",
    )
    assert ("Bisi", "has-partner", "Tunde") in facts[1]
