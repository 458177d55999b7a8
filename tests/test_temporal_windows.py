"""Time expressions resolved against the reference time, and the soft window boost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.retrieve.temporal import parse_time_window, temporal_boost

# Wednesday 2023-06-14 15:30 UTC
REF = datetime(2023, 6, 14, 15, 30, tzinfo=UTC)


def d(y: int, m: int, day: int, h: int = 0) -> datetime:
    return datetime(y, m, day, h, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did I do yesterday?", d(2023, 6, 13), d(2023, 6, 14)),
        ("anything new today", d(2023, 6, 14), d(2023, 6, 15)),
        ("what did we eat this morning", d(2023, 6, 14), d(2023, 6, 14, 12)),
        ("the day before yesterday", d(2023, 6, 12), d(2023, 6, 13)),
        ("last week's meeting", d(2023, 6, 5), d(2023, 6, 12)),
        ("this week", d(2023, 6, 12), d(2023, 6, 19)),
        ("last month", d(2023, 5, 1), d(2023, 6, 1)),
        ("last year", d(2022, 1, 1), d(2023, 1, 1)),
        ("what happened two years ago", d(2021, 1, 1), d(2022, 1, 1)),
        ("3 months ago", d(2023, 3, 1), d(2023, 4, 1)),
        ("a month ago", d(2023, 5, 1), d(2023, 6, 1)),
        ("five days ago", d(2023, 6, 9), d(2023, 6, 10)),
        ("two weeks ago", d(2023, 5, 28), d(2023, 6, 4)),
        ("in May 2023", d(2023, 5, 1), d(2023, 6, 1)),
        ("May 2023", d(2023, 5, 1), d(2023, 6, 1)),
        ("back in December, 2022", d(2022, 12, 1), d(2023, 1, 1)),
        ("in 2022", d(2022, 1, 1), d(2023, 1, 1)),
        ("on 8 May 2023", d(2023, 5, 8), d(2023, 5, 9)),
        ("on the 8th of May 2023", d(2023, 5, 8), d(2023, 5, 9)),
        ("May 8, 2023", d(2023, 5, 8), d(2023, 5, 9)),
        ("what happened on 8 May", d(2023, 5, 8), d(2023, 5, 9)),
        ("on July 20th", d(2022, 7, 20), d(2022, 7, 21)),  # not yet this year at the reference time
        ("on May 20th", d(2023, 5, 20), d(2023, 5, 21)),
        ("on the 1st of June", d(2023, 6, 1), d(2023, 6, 2)),
        ("2023-05-08", d(2023, 5, 8), d(2023, 5, 9)),
        ("last Friday", d(2023, 6, 9), d(2023, 6, 10)),
        ("last Wednesday", d(2023, 6, 7), d(2023, 6, 8)),
        ("last weekend", d(2023, 6, 10), d(2023, 6, 12)),
        ("in March", d(2023, 3, 1), d(2023, 4, 1)),
        ("in September", d(2022, 9, 1), d(2022, 10, 1)),
        ("recently", REF - timedelta(days=14), REF),
        ("since May 2023", d(2023, 5, 1), REF),
        ("since 2021", d(2021, 1, 1), REF),
        ("late 2021", d(2021, 1, 1), d(2022, 1, 1)),
        ("a couple of weeks ago", d(2023, 5, 28), d(2023, 6, 4)),
        ("in the last 3 days", REF - timedelta(days=3), REF),
        ("over the past two weeks", REF - timedelta(weeks=2), REF),
    ],
)
def test_expressions(query: str, start: datetime, end: datetime) -> None:
    assert parse_time_window(query, REF) == (start, end)


@pytest.mark.parametrize(
    "query",
    [
        "where does Alice work?",
        "may I ask something",
        "I have 2022 apples",
        "",
        "31 February 2023",
        "the year is young",
        "ago",
        "call me in a week",
    ],
)
def test_no_window(query: str) -> None:
    assert parse_time_window(query, REF) is None


def test_reference_timezone_sets_calendar_days() -> None:
    paris = timezone(timedelta(hours=2))
    ref = datetime(2023, 6, 14, 0, 30, tzinfo=paris)  # still 13 June in UTC
    start, end = parse_time_window("yesterday", ref)  # type: ignore[misc]
    assert start == datetime(2023, 6, 13, tzinfo=paris) and end == datetime(2023, 6, 14, tzinfo=paris)
    naive = parse_time_window("yesterday", datetime(2023, 6, 14, 10))
    assert naive == (d(2023, 6, 13), d(2023, 6, 14))


@settings(max_examples=200)
@given(st.text(max_size=80), st.datetimes(min_value=datetime(1900, 3, 1), max_value=datetime(2200, 1, 1)))
def test_never_raises(query: str, ref: datetime) -> None:
    window = parse_time_window(query, ref)
    if window is not None:
        assert window[0] < window[1]


def _item(id_: str, score: float, ts: datetime | None = None, valid_at: str | None = None) -> RetrievedItem:
    extra = {"valid_at": valid_at} if valid_at else {}
    return RetrievedItem(
        id=id_, kind="memory", source="memory", text=id_, score=score, timestamp=ts, extra=extra
    )


def test_boost_is_soft_and_uses_valid_at() -> None:
    window = parse_time_window("in May 2023", REF)
    items = [
        _item("outside", 1.0, d(2023, 4, 20)),
        _item("inside", 0.8, d(2023, 5, 8)),
        _item("fact", 0.7, valid_at="2023-05-20T00:00:00+00:00"),
        _item("undated", 0.9),
    ]
    out = temporal_boost(items, window, 0.5)
    assert [it.id for it in out] == ["inside", "fact", "outside", "undated"]
    assert out[0].score == pytest.approx(1.2) and out[0].scores["temporal"] == 1.0
    assert len(out) == 4


def test_hard_filter_drops_only_dated_outside() -> None:
    window = parse_time_window("in May 2023", REF)
    items = [
        _item("outside", 1.0, d(2023, 4, 20)),
        _item("inside", 0.8, d(2023, 5, 8)),
        _item("undated", 0.9),
    ]
    assert {it.id for it in temporal_boost(items, window, 0.5, hard=True)} == {"inside", "undated"}
    assert [it.id for it in temporal_boost(items, None, 0.5)] == ["outside", "inside", "undated"]
