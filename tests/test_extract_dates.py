"""Dates in a fact's sentence become its valid_at, resolved against the message time (issue 14)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.extract.dates import attach_valid_at, find_dates
from knowledge_engine.extract.pipeline import ExtractionPipeline
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import Message

# a Tuesday afternoon
REF = datetime(2025, 5, 20, 15, 30, tzinfo=UTC)


def resolved(sentence: str, ref: datetime = REF) -> list[tuple[str, date]]:
    return [(sentence[h.start : h.end], h.when.date()) for h in find_dates(sentence, ref)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # a day and month with no year: the tense picks the occurrence
        ("I start at Acme on June 8", date(2025, 6, 8)),
        ("I'm joining Monzo on the 2nd of September", date(2025, 9, 2)),
        ("We'll move to Utrecht on March 3rd", date(2026, 3, 3)),
        ("She left the firm on 14 April", date(2025, 4, 14)),
        ("I got the keys on December 12", date(2024, 12, 12)),
        # full dates
        ("We signed the lease on 2024-11-02", date(2024, 11, 2)),
        ("I joined Deloitte on July 1, 2019", date(2019, 7, 1)),
        ("He was hired in October 2023", date(2023, 10, 1)),
        # months and years
        ("we moved to Bristol last March", date(2025, 3, 1)),
        ("we moved to Bristol last August", date(2024, 8, 1)),
        ("I'm moving to Ghent next February", date(2026, 2, 1)),
        ("I'm moving to Ghent in March", date(2026, 3, 1)),
        ("My sister moved to Oslo in January", date(2025, 1, 1)),
        ("I've been at Globex since 2021", date(2021, 1, 1)),
        ("Back in 2016 I lived in Quito", date(2016, 1, 1)),
        # weekdays
        ("next Monday I start at Northwind", date(2025, 5, 26)),
        ("I'll see the new flat on Friday", date(2025, 5, 23)),
        ("Tom started there last Thursday", date(2025, 5, 15)),
        # relative
        ("Dana quit two years ago", date(2023, 5, 20)),
        ("we got a puppy a couple of weeks ago", date(2025, 5, 6)),
        ("my contract starts in 3 weeks", date(2025, 6, 10)),
        ("Leo starts nursery tomorrow", date(2025, 5, 21)),
        ("I handed in my notice yesterday", date(2025, 5, 19)),
        ("Priya got promoted last month", date(2025, 4, 1)),
        ("we move next year", date(2026, 1, 1)),
    ],
)
def test_a_date_resolves_against_the_message_time(sentence: str, expected: date) -> None:
    hits = resolved(sentence)
    assert [d for _, d in hits] == [expected], hits


def test_a_date_on_the_message_day_is_the_message_time() -> None:
    (hit,) = find_dates("I started at the clinic today", REF)
    assert hit.when == REF


@pytest.mark.parametrize(
    "sentence",
    [
        "I worked at Shell until 2021",  # an end, not a start
        "The report is due by June 3",
        "I sat in the sun with the May issue",  # no weekday or month here
        "I may go to the gym",
        "We drove the 2019 Golf to Wales",  # a model year is not a date
        "I have 2 kids and 3 cats",
        "the invoice is due Friday",  # a deadline
        "the deposit is payable in 10 days",
    ],
)
def test_no_start_date_in(sentence: str) -> None:
    assert resolved(sentence) == []


def test_same_day_and_month_without_tense_takes_the_nearest() -> None:
    late = datetime(2025, 12, 28, tzinfo=UTC)
    assert resolved("Rent is 900 from January 5", late) == [("January 5", date(2026, 1, 5))]
    assert resolved("Rent is 900 from December 1", late) == [("December 1", date(2025, 12, 1))]


def cand(obj: str, predicate: str = "works-at", subject: str = "Maya") -> FactCandidate:
    return FactCandidate(subject=subject, predicate=predicate, object=obj, tier="spacy")


def test_each_date_goes_to_the_fact_nearest_to_it() -> None:
    text = "I live in Leeds and start at Acme on June 8. Tom moved to Derby in 2019, he works at Boots."
    leeds, acme = cand("Leeds", "lives-in"), cand("Acme")
    derby, boots = cand("Derby", "moved-to", "Tom"), cand("Boots", "works-at", "Tom")
    assert attach_valid_at(text, REF, [leeds, acme, derby, boots]) == 2
    assert leeds.valid_at is None and boots.valid_at is None
    assert acme.valid_at == datetime(2025, 6, 8, tzinfo=UTC)
    assert derby.valid_at == datetime(2019, 1, 1, tzinfo=UTC)


def test_the_clause_around_the_date_sets_its_tense() -> None:
    # past in the sentence ("I signed"), future next to the date ("begins"): the next October 6
    july = datetime(2025, 7, 14, tzinfo=UTC)
    text = "I signed with Orbital as product lead, fully remote, begins October 6"
    assert resolved(text, july) == [("October 6", date(2025, 10, 6))]
    assert resolved("We found a flat in Graz, we got the keys on March 9", july) == [
        ("March 9", date(2025, 3, 9))
    ]


def test_a_date_also_dates_a_close_object_of_its_clause_but_not_across_a_new_clause() -> None:
    july = datetime(2025, 7, 14, tzinfo=UTC)
    org, role = cand("Orbital"), cand("product lead", "has-role")
    text = "I signed with Orbital as product lead, fully remote, begins October 6"
    assert attach_valid_at(text, july, [org, role]) == 2
    assert org.valid_at == role.valid_at == datetime(2025, 10, 6, tzinfo=UTC)
    home, job = cand("Utrecht", "moved-to"), cand("Philips")
    assert attach_valid_at("We moved to Utrecht in 2022, I joined Philips last week.", july, [home, job]) == 2
    assert home.valid_at == datetime(2022, 1, 1, tzinfo=UTC)
    assert job.valid_at == datetime(2025, 7, 7, tzinfo=UTC)


def test_a_date_in_another_sentence_or_a_given_valid_at_is_not_touched() -> None:
    given = datetime(2020, 2, 2, tzinfo=UTC)
    llm = FactCandidate(subject="Maya", predicate="works-at", object="Acme", tier="llm", valid_at=given)
    other = cand("Lisbon", "lives-in")
    assert attach_valid_at("I live in Lisbon. Next Monday I start at Acme.", REF, [llm, other]) == 0
    assert llm.valid_at == given and other.valid_at is None


class FactTier:
    """A tier double that proposes fixed facts for every message."""

    name = "spacy"
    out_of_process = False

    def __init__(self, *facts: tuple[str, str, str]) -> None:
        self.facts = facts

    def extract(self, messages: list[Message]) -> list[Extraction]:
        return [
            Extraction(
                message_id=m.id,
                facts=[
                    FactCandidate(subject=s, predicate=p, object=o, tier="spacy") for s, p, o in self.facts
                ],
            )
            for m in messages
        ]


def test_the_pipeline_dates_local_facts_by_their_message_time() -> None:
    tier = FactTier(("Maya", "moved-to", "Porto"), ("Maya", "works-at", "Farfetch"))
    pipeline = ExtractionPipeline(load_config({}).extraction, tiers=[tier])  # type: ignore[list-item]
    msgs = [
        Message(id="a", text="We moved to Porto last March, I work at Farfetch.", timestamp=REF),
        Message(
            id="b",
            text="We moved to Porto last March, I work at Farfetch.",
            timestamp=datetime(2025, 2, 1, tzinfo=UTC),
        ),
    ]
    out = pipeline.run(msgs)
    (porto_a, farfetch_a), (porto_b, _) = out["a"][0].facts, out["b"][0].facts
    assert porto_a.valid_at == datetime(2025, 3, 1, tzinfo=UTC) and farfetch_a.valid_at is None
    assert porto_b.valid_at == datetime(2024, 3, 1, tzinfo=UTC)  # "last March" seen from February
