"""Regex tier: positives and negatives per pattern, overlaps, importance, the tier protocol."""

from __future__ import annotations

import itertools

import pytest

from knowledge_engine.config import RegexConfig
from knowledge_engine.extract.regex import MAX_MENTIONS, RegexTier, find_mentions, initial_importance
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters


def found(text: str) -> set[tuple[str, str]]:
    return {(m.value, m.type) for m in find_mentions(text)}


def values_of(text: str, type_: str) -> list[str]:
    return [m.value for m in find_mentions(text) if m.type == type_]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("write to john.doe@example.com today", "john.doe@example.com"),
        ("Mail: a_b+tag@mail.co.uk.", "a_b+tag@mail.co.uk"),
    ],
)
def test_email_positive(text: str, value: str) -> None:
    assert values_of(text, "email") == [value]


@pytest.mark.parametrize("text", ["user@localhost", "@handle on x", "a@b.c", "no email here", "x@@y.com"])
def test_email_negative(text: str) -> None:
    assert values_of(text, "email") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("see https://example.com/path?q=1.", "https://example.com/path?q=1"),
        ("(docs at https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)"),
        ("go to www.example.org, then", "www.example.org"),
        ("HTTP://EXAMPLE.COM/A", "HTTP://EXAMPLE.COM/A"),
    ],
)
def test_url_positive(text: str, value: str) -> None:
    assert values_of(text, "url") == [value]


@pytest.mark.parametrize("text", ["http:// nothing", "the www is big", "mailto:someone"])
def test_url_negative(text: str) -> None:
    assert values_of(text, "url") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("released 2024-03-05 at noon", "2024-03-05"),
        ("at 2024-03-05T10:00:00Z sharp", "2024-03-05T10:00:00Z"),
        ("due 12/03/2024", "12/03/2024"),
        ("am 17.02.2026 um", "17.02.2026"),
        ("am 17. Februar 2026 in Wien", "17. Februar 2026"),
        ("on March 1st, 2025 we", "March 1st, 2025"),
        ("on Dec. 24 we", "Dec. 24"),
        ("the 1st of May 2023 was", "1st of May 2023"),
        ("since May 2024", "May 2024"),
        ("on 5 June 2021", "5 June 2021"),
    ],
)
def test_date_positive(text: str, value: str) -> None:
    assert values_of(text, "date") == [value]


@pytest.mark.parametrize(
    "text",
    [
        "Python 3.11.12 is out",  # version, not a date
        "build 2024-13-45 failed",  # month 13
        "ratio 45/67/2020",  # neither reading is a valid day/month
        "I may 5 times",  # lower-case "may" is a verb
        "version 1.2.33",
        "we met in March",  # a month alone is not a date
    ],
)
def test_date_negative(text: str) -> None:
    assert values_of(text, "date") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("it cost $1,200 in total", "$1,200"),
        ("salary 85,000 EUR per year", "85,000 EUR"),
        ("only €12.50!", "€12.50"),
        ("about 3k USD", "3k USD"),
        ("paid 12 dollars", "12 dollars"),
        ("raised $3.5M from", "$3.5M"),
        ("le loyer est de 1 200 € par mois", "1 200 €"),
        ("fee of USD 100", "USD 100"),
        ("£20 each", "£20"),
        ("$5 million deal", "$5 million"),
        ("My salary here is AED 11,500 monthly.", "AED 11,500"),
        ("theyre talking R62k a month", "R62k"),
        ("R12 500 for the deposit", "R12 500"),
        ("salary is 19k reais per month", "19k reais"),
        ("18 LPA CTC", "18 LPA"),
        ("I earn Rs 45,000 a month", "Rs 45,000"),
        ("rent is ₱18,000", "₱18,000"),
        ("My salary is ₹18 lakh.", "₹18 lakh"),  # a sign and India's hundred thousand: one amount
        ("a flat for Rs 1.2 crore", "Rs 1.2 crore"),
    ],
)
def test_money_positive(text: str, value: str) -> None:
    assert values_of(text, "money") == [value]


@pytest.mark.parametrize(
    "text",
    [
        "I have 12 apples",
        "call 555 1234",
        "5 months later",
        "$ sign alone",
        "USDA approved",
        "R2D2 and R&D",  # the rand's R wants an amount in thousands
        "she's in grade R2",
        "the R 500 bus",
    ],
)
def test_money_negative(text: str) -> None:
    assert values_of(text, "money") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I work for Stark Industries, LLC now", "Stark Industries"),
        ("She joined Acme GmbH.", "Acme"),
        ("Shares of Apple Inc. rose", "Apple"),
        ("at Siemens AG and", "Siemens"),
        ("Johnson & Johnson Inc sells", "Johnson & Johnson"),
        ("Procter & Gamble Co. reported", "Procter & Gamble"),
        ("between Alice Consulting and Acme Corp. for", "Acme"),
        ("the CEO of Acme Ltd said", "Acme"),
        ("BNP Paribas SA said", "BNP Paribas"),
        ("The Tesco PLC board", "Tesco"),
    ],
)
def test_organization_positive(text: str, value: str) -> None:
    assert values_of(text, "organization") == [value]


def test_organization_span_covers_suffix() -> None:
    text = "joined Acme GmbH today"
    (m,) = [m for m in find_mentions(text) if m.type == "organization"]
    assert text[m.start : m.end] == "Acme GmbH"
    assert m.importance == pytest.approx(0.8)


@pytest.mark.parametrize("text", ["the ag sector", "an inc file", "Acme is great", "AG alone"])
def test_organization_negative(text: str) -> None:
    assert values_of(text, "organization") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I bought an iPhone 15 yesterday", "iPhone 15"),
        ("we use GPT-4 daily", "GPT-4"),
        ("upgrade to Python 3.12 now", "Python 3.12"),
        ("it runs Windows 11 fine", "Windows 11"),
        ("try GPT-4o today", "GPT-4o"),
        ("my iPhone 15 Pro broke", "iPhone 15 Pro"),
        ("Claude 3.5 Sonnet answered", "Claude 3.5 Sonnet"),
        ("Python 3.12 is out", "Python 3.12"),
        ("my new Pixel 7 is great", "Pixel 7"),
    ],
)
def test_product_positive(text: str, value: str) -> None:
    assert values_of(text, "product") == [value]


@pytest.mark.parametrize(
    "text",
    [
        "see page 15",
        "Chapter 3 starts",
        "Bought 3 apples",
        "I have 3 kids",
        "in Q3 2024",
        "room 101",
        "COVID-19",
        "marker HX-2026-0042 here",
        "# Runs 94 tests",
        "our two, Ella 7 and Noah 4, are off school",  # children and their ages
    ],
)
def test_product_negative(text: str) -> None:
    assert values_of(text, "product") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I met Jean-Luc Picard yesterday", "Jean-Luc Picard"),
        ("aboard the USS Enterprise now", "USS Enterprise"),
        ("Alice's brother lives here", "Alice"),
        ("We drove to Zürich with Zoë", "Zürich"),
        ("Thanks Alice!", "Alice"),
        ("She called O'Brien twice", "O'Brien"),
        ("Berlin is big. I love Berlin.", "Berlin"),
        ("# Install LightRAG here", "LightRAG"),
        ("API keys", "API"),
    ],
)
def test_proper_noun_positive(text: str, value: str) -> None:
    assert value in values_of(text, "unknown")


@pytest.mark.parametrize(
    "text",
    [
        "The weather is nice.",
        "Hello there, I think so.",
        "On Monday we talked.",
        "Working late again.",
        "Install it. Default settings apply.\n# Runs 94 tests",
        "Yesterday it rained. However nothing happened.",
        "i am all lower case",
        "東京に行きました",
        "Bring your passport or ID card.",
        "Thank you for the offer. Best, ",
    ],
)
def test_proper_noun_negative(text: str) -> None:
    assert values_of(text, "unknown") == []


def test_proper_noun_typed_unknown_with_low_importance() -> None:
    (single,) = find_mentions("we met Alice there")
    assert (single.type, single.importance) == ("unknown", pytest.approx(0.3))
    (multi,) = find_mentions("we met Alice Smith there")
    assert (multi.value, multi.importance) == ("Alice Smith", pytest.approx(0.5))


def test_offsets_point_at_the_surface_text() -> None:
    text = "On 2024-03-05 Bob Marley paid $40 via bob@example.org at https://x.example.com/a."
    for m in find_mentions(text):
        assert m.tier == "regex"
        assert 0 <= m.start < m.end <= len(text)
        assert text[m.start : m.end].startswith(m.value.split()[0])


def test_no_overlapping_mentions_and_stronger_pattern_wins() -> None:
    text = (
        "Contact Anna.Berg@Example.COM or visit https://Example.COM/Team, founded March 3, 2020 by Acme Corp."
    )
    mentions = find_mentions(text)
    spans = sorted((m.start, m.end) for m in mentions)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))
    kinds = {(m.value, m.type) for m in mentions}
    assert ("Anna.Berg@Example.COM", "email") in kinds
    assert ("https://Example.COM/Team", "url") in kinds
    assert ("March 3, 2020", "date") in kinds
    assert ("Acme", "organization") in kinds
    assert not any(m.type == "unknown" and m.value in {"Example", "Team", "Anna", "Acme"} for m in mentions)


def test_the_issue_sentence() -> None:
    text = "I moved to Berlin last March and started working at Siemens for $85,000 a year."
    assert found(text) == {("Berlin", "unknown"), ("Siemens", "unknown"), ("$85,000", "money")}


def test_importance_table() -> None:
    assert initial_importance("organization", "x") == 0.8
    assert initial_importance("person", "x") == 0.7
    assert initial_importance("product", "x") == 0.6
    assert initial_importance("location", "x") == 0.5
    for t in ("date", "email", "url", "money"):
        assert initial_importance(t, "x") == 0.4
    assert initial_importance("concept", "Big Idea") == 0.5
    assert initial_importance("unknown", "Idea") == 0.3


def test_tier_keeps_order_and_ids_and_skips_junk() -> None:
    tier = RegexTier()
    msgs = [
        Message(id="a", text="Email bob@example.com"),
        Message(id="b", text="🎉🎉🎉 !!!"),
        Message(id="c", text="   "),
        Message(id="d", text="Met Carol Danvers"),
    ]
    out = tier.extract(msgs)
    assert [e.message_id for e in out] == ["a", "b", "c", "d"]
    assert [m.value for m in out[0].mentions] == ["bob@example.com"]
    assert out[1].mentions == [] and out[2].mentions == []
    assert [m.value for m in out[3].mentions] == ["Carol Danvers"]
    assert all(e.facts == [] for e in out)


def test_disabled_tier_returns_empty_extractions() -> None:
    out = RegexTier(RegexConfig(enabled=False)).extract([Message(id="x", text="bob@example.com")])
    assert [(e.message_id, e.mentions) for e in out] == [("x", [])]


def test_mention_cap_is_counted() -> None:
    before = counters.get("extract.regex.mentions_capped")
    text = " and ".join(f"user{i}@example.com" for i in range(MAX_MENTIONS + 20))
    mentions = find_mentions(text)
    assert len(mentions) == MAX_MENTIONS
    assert counters.get("extract.regex.mentions_capped") - before == 20
