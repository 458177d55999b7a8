"""Time expressions in a query ("yesterday", "in May 2023", "two years ago") as a time window.

Questions about *when* ("what did we decide last week?") are poorly served by text
similarity alone: the right messages share words with many others. Resolving the
expression against the turn's reference time (not the wall clock, so replays work)
lets ranking favour that window. Parsing is conservative: an ambiguous phrase yields
None, and nothing here ever raises.

Windows are half-open [start, end), timezone-aware, with calendar boundaries in the
reference time's timezone (UTC when naive). "recently"/"lately" mean the last 14 days,
"the other day" the last 7 days.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from knowledge_engine import observe
from knowledge_engine.model.retrieval import RetrievedItem
from knowledge_engine.retrieve.fuse import apply_boost, as_utc, copy_item

Window = tuple[datetime, datetime]

RECENT_DAYS = 14
OTHER_DAY_DAYS = 7

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|december|" \
       r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_NUM = r"(\d{1,3}|" + "|".join(sorted((re.escape(k) for k in _NUMBERS), key=len, reverse=True)) + r")"
_UNIT = r"(day|week|month|year)s?"
_YEAR = r"((?:19|20)\d{2})"
_ORD = r"(?:st|nd|rd|th)?"


def _num(word: str) -> int | None:
    return int(word) if word.isdigit() else _NUMBERS.get(word)


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    idx = year * 12 + (month - 1) + delta
    return idx // 12, idx % 12 + 1


class _Ctx:
    """Calendar helpers bound to one reference time."""

    def __init__(self, ref: datetime) -> None:
        self.ref = ref
        self.tz = ref.tzinfo or UTC
        self.today = ref.date()

    def at(self, d: date, t: time = time.min) -> datetime:
        return datetime.combine(d, t, tzinfo=self.tz)

    def day(self, d: date, days: int = 1) -> Window:
        return self.at(d), self.at(d + timedelta(days=days))

    def month(self, year: int, month: int) -> Window:
        ny, nm = _add_months(year, month, 1)
        return self.at(date(year, month, 1)), self.at(date(ny, nm, 1))

    def year(self, year: int) -> Window:
        return self.at(date(year, 1, 1)), self.at(date(year + 1, 1, 1))

    def monday(self) -> date:
        return self.today - timedelta(days=self.today.weekday())

    def last_n(self, n: int, unit: str) -> Window:
        if unit == "day":
            return self.ref - timedelta(days=n), self.ref
        if unit == "week":
            return self.ref - timedelta(weeks=n), self.ref
        y, m = _add_months(self.today.year, self.today.month, -n * (12 if unit == "year" else 1))
        start = date(y, m, min(self.today.day, 28))
        return self.at(start, self.ref.timetz().replace(tzinfo=None)), self.ref

    def ago(self, n: int, unit: str) -> Window:
        if unit == "day":
            return self.day(self.today - timedelta(days=n))
        if unit == "week":
            centre = self.today - timedelta(weeks=n)
            return self.day(centre - timedelta(days=3), days=7)
        if unit == "month":
            return self.month(*_add_months(self.today.year, self.today.month, -n))
        return self.year(self.today.year - n)


def _explicit_date(q: str, c: _Ctx) -> Window | None:
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", q)
    if m:
        return c.day(date(int(m[1]), int(m[2]), int(m[3])))
    m = re.search(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MON}\s*,?\s+{_YEAR}\b", q)
    if m:
        return c.day(date(int(m[3]), _MONTHS[m[2]], int(m[1])))
    m = re.search(rf"\b{_MON}\s+(\d{{1,2}}){_ORD}\s*,?\s+{_YEAR}\b", q)
    if m:
        return c.day(date(int(m[3]), _MONTHS[m[1]], int(m[2])))
    m = re.search(rf"\b{_MON}\s*,?\s+(?:of\s+)?{_YEAR}\b", q)
    if m:
        return c.month(int(m[2]), _MONTHS[m[1]])
    lead = r"(?:in|during|of|from|throughout|year|since|early|late|mid-?)"
    m = re.search(rf"\b{lead}\s+(?:the\s+year\s+)?{_YEAR}\b", q)
    if m:
        return c.year(int(m[1]))
    return None


def _day_without_year(q: str, c: _Ctx) -> Window | None:
    """'on 8 May' / 'on May 8th': the most recent such date on or before the reference day."""
    m = re.search(rf"\bon\s+(?:the\s+)?(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MON}(?!\s*,?\s*\d)", q)
    day_month = (int(m[1]), _MONTHS[m[2]]) if m else None
    if day_month is None:
        m = re.search(rf"\bon\s+{_MON}\s+(\d{{1,2}}){_ORD}\b(?!\s*,?\s*\d)", q)
        day_month = (int(m[2]), _MONTHS[m[1]]) if m else None
    if day_month is None:
        return None
    day, month = day_month
    candidate = date(c.today.year, month, day)
    if candidate > c.today:
        candidate = date(c.today.year - 1, month, day)
    return c.day(candidate)


def _month_without_year(q: str, c: _Ctx) -> Window | None:
    m = re.search(rf"\b(in|during|last|early|late|mid-?|this past|back in)\s+{_MON}(?!\s*\d)\b", q)
    if not m:
        return None
    month = _MONTHS[m[2]]
    year = c.today.year
    if month > c.today.month or (m[1] in ("last", "this past") and month == c.today.month):
        year -= 1
    return c.month(year, month)


def _relative(q: str, c: _Ctx) -> Window | None:
    m = re.search(rf"\b(?:the\s+)?(?:last|past|previous)\s+{_NUM}\s+{_UNIT}\b", q)
    if m and (n := _num(m[1])) is not None:
        return c.last_n(n, m[2])
    m = re.search(rf"\b{_NUM}\s+{_UNIT}\s+(?:ago|back|earlier)\b", q)
    if m and (n := _num(m[1])) is not None:
        return c.ago(n, m[2])
    return None


def _named_day(q: str, c: _Ctx) -> Window | None:
    t = c.today
    if re.search(r"\b(the\s+)?day\s+before\s+yesterday\b", q):
        return c.day(t - timedelta(days=2))
    if re.search(r"\blast\s+night\b", q):
        return c.at(t - timedelta(days=1), time(18)), c.at(t, time(6))
    if re.search(r"\byesterday\b", q):
        return c.day(t - timedelta(days=1))
    if re.search(r"\bthis\s+morning\b", q):
        return c.at(t), c.at(t, time(12))
    if re.search(r"\bthis\s+afternoon\b", q):
        return c.at(t, time(12)), c.at(t, time(18))
    if re.search(r"\b(this\s+evening|tonight)\b", q):
        return c.at(t, time(18)), c.day(t)[1]
    if re.search(r"\b(today|earlier\s+today)\b", q):
        return c.day(t)
    m = re.search(rf"\b(?:last|this\s+past|on)\s+({'|'.join(_WEEKDAYS)})\b", q)
    if m:
        back = (t.weekday() - _WEEKDAYS[m[1]]) % 7 or 7
        return c.day(t - timedelta(days=back))
    return None


def _named_period(q: str, c: _Ctx) -> Window | None:
    mon = c.monday()
    rules: list[tuple[str, Callable[[], Window]]] = [
        (r"\b(last|previous|past)\s+weekend\b", lambda: c.day(mon - timedelta(days=2), days=2)),
        (r"\bthis\s+weekend\b", lambda: c.day(mon + timedelta(days=5), days=2)),
        (r"\b(last|previous)\s+week\b", lambda: c.day(mon - timedelta(days=7), days=7)),
        (r"\bthis\s+week\b", lambda: c.day(mon, days=7)),
        (r"\b(last|previous)\s+month\b", lambda: c.month(*_add_months(c.today.year, c.today.month, -1))),
        (r"\bthis\s+month\b", lambda: c.month(c.today.year, c.today.month)),
        (r"\b(last|previous)\s+year\b", lambda: c.year(c.today.year - 1)),
        (r"\bthis\s+year\b", lambda: c.year(c.today.year)),
        (r"\b(recently|lately|of\s+late)\b", lambda: (c.ref - timedelta(days=RECENT_DAYS), c.ref)),
        (r"\bthe\s+other\s+day\b", lambda: (c.ref - timedelta(days=OTHER_DAY_DAYS), c.ref)),
    ]
    for pattern, make in rules:
        if re.search(pattern, q):
            return make()
    return None


_PARSERS = (_explicit_date, _day_without_year, _named_day, _relative, _named_period, _month_without_year)


def parse_time_window(query: str, reference_time: datetime | None = None) -> Window | None:
    """The time window a query refers to, resolved at `reference_time`, or None."""
    if not query or not isinstance(query, str):
        return None
    ref = reference_time or datetime.now(UTC)
    if ref.tzinfo is None:
        ref = ref.replace(tzinfo=UTC)
    q = " ".join(query.lower().replace("\u2019", "'").split())
    c = _Ctx(ref)
    for parser in _PARSERS:
        try:
            window = parser(q, c)
        except (ValueError, OverflowError):  # e.g. "31 February 2023"
            observe.counters.inc("retrieval.temporal.invalid_date")
            return None
        if window is not None:
            return _open_ended(q, window, ref)
    return None


def _open_ended(q: str, window: Window, ref: datetime) -> Window:
    """'since May 2023' means from the start of that window up to the reference time."""
    if re.search(rf"\bsince\s+(?:the\s+)?(?:\d|{_MON}|last|early|late|mid)", q) and window[0] < ref:
        return window[0], max(window[1], ref)
    return window


def item_time(item: RetrievedItem) -> datetime | None:
    """When an item happened: its timestamp, else a fact's `valid_at` (datetime or ISO text)."""
    if item.timestamp is not None:
        return as_utc(item.timestamp)
    raw: Any = item.extra.get("valid_at")
    if isinstance(raw, datetime):
        return as_utc(raw)
    if isinstance(raw, str):
        try:
            return as_utc(datetime.fromisoformat(raw))
        except ValueError:
            return None
    return None


def in_window(ts: datetime, window: Window) -> bool:
    return as_utc(window[0]) <= as_utc(ts) < as_utc(window[1])


def temporal_boost(
    items: Sequence[RetrievedItem], window: Window | None, weight: float, *, hard: bool = False
) -> list[RetrievedItem]:
    """Favour items whose time falls inside `window` (score *= 1 + weight).

    Soft by default: nothing is dropped. With `hard=True`, items whose time is known and
    outside the window are dropped; items without a time are kept (a fact with no date
    may still answer the question).
    """
    if window is None:
        return [copy_item(it) for it in items]
    signals: dict[str, float] = {}
    kept = []
    for item in items:
        ts = item_time(item)
        inside = ts is not None and in_window(ts, window)
        if hard and ts is not None and not inside:
            continue
        kept.append(item)
        if inside:
            signals[item.id] = 1.0
    return apply_boost(kept, signals, weight, "temporal")
