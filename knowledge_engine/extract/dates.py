"""Dates in a message -> when its facts became true (`valid_at`), resolved against the message time.

"I start at Acme on June 8", "we moved to Leeds last March", "since 2021", "next Monday", "two years
ago": a date in the same sentence as a fact, nearest to that fact's object, becomes the fact's
`valid_at`. A date with no year (a day, a month, a weekday) is resolved against the message's
timestamp by tense: the next such date in a sentence about the future ("will", "going to", "I start
..."), the last one in a sentence about the past, else the nearest one. Periods resolve to their
start ("in 2021" -> 2021-01-01, "last month" -> the first of last month); a date on the message's
own day resolves to the message time itself (so "I started today" is not older than what was said
earlier that day). End dates ("until 2021", "by June") are not starts and are skipped.

The tiers' own date matches do not serve here: the regex tier finds only calendar dates and spaCy's
NER drops relative ones ("last March", "next Monday"), which are the common way people date a
change; so this module scans the sentence itself (plain `re`, no date library: none in the
environment is both well kept and aware of tense).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.retrieval import as_utc

MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = {
    name: i
    for i, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "a couple of": 2,
    "few": 3, "a few": 3,
}  # fmt: skip

_MONTH = (
    r"(?P<{}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAYNUM = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"
_WEEKDAY = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM = (
    r"(?P<{}>\d\d?\d?|a couple of|a few|couple|few|an?|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|eleven|twelve)"
)
_UNIT = r"(?P<{}>day|week|month|year)s?"
# one alternation, most specific first; named groups say which form matched
_DATE = re.compile(
    "|".join(
        [
            r"\b(?P<iso>(?P<iy>(?:19|20)\d\d)-(?P<im>[01]\d)-(?P<id>[0-3]\d))\b",
            rf"\b{_MONTH.format('m1')}\s+{_DAYNUM.format('d1')}(?![\d:])(?:,?\s+{_YEAR.format('y1')})?\b",
            rf"\b(?:the\s+)?{_DAYNUM.format('d2')}\s+(?:of\s+)?{_MONTH.format('m2')}(?:,?\s+{_YEAR.format('y2')})?\b",
            rf"\b{_MONTH.format('m3')}\s+(?:of\s+)?{_YEAR.format('y3')}\b",
            rf"\b(?P<mmod>last|next|this|in|since|from|during|early|late|mid|around|of)[\s-]+{_MONTH.format('m4')}(?!\w)(?!,?\s+(?:of\s+)?(?:[0-3]?\d\b|(?:19|20)\d\d))",
            rf"\b(?P<ymod>in|since|from|during|around|of|back in)\s+{_YEAR.format('y5')}(?![\w-])",
            rf"\b(?:(?P<wmod>last|next|this|on|coming)\s+)?{_WEEKDAY}\b",
            r"\b(?P<rel>today|tonight|yesterday|tomorrow)\b",
            r"\b(?P<pmod>last|next|this)\s+(?P<period>week|weekend|month|year)\b",
            rf"\b{_NUM.format('n')}\s+{_UNIT.format('unit')}\s+ago\b",
            rf"\bin\s+{_NUM.format('n2')}\s+{_UNIT.format('unit2')}\b(?!\s+ago)",
        ]
    ),
    re.IGNORECASE,
)
# cheap pre-check: a message without any of these has no date for this module
_ANY = re.compile(
    r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|today|tonight|"
    r"yesterday|tomorrow|week|month|year",
    re.IGNORECASE,
)
_END_WORDS = re.compile(
    r"\b(?:until|till|til|by|before|through|thru|between|due|payable|deadline)\s*$", re.IGNORECASE
)
# where a clause ends: a tense read next to a date stops here ("I took the job, it starts August 1")
_CLAUSE_END = re.compile(r"[,;:()\u2013\u2014]|\s-\s|\b(?:and|but|so|because|while|whereas)\b", re.IGNORECASE)
# between a fact's object and a date, these mean another clause: the date is not the fact's
_OTHER_CLAUSE = re.compile(
    r"[;]|\b(?:and|but|or|so|because|while|whereas|although|though)\b|,\s*(?:i|we|he|she|they|you|it|my|our)\b",
    re.IGNORECASE,
)
_NEAR = 48  # characters: a date this close to an object, in its clause, dates it too
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")

_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going to|gonna|about to|plan(?:s|ning)? to|due to|"
    r"(?:am|is|are|'m|'re|’m|’re)\s+(?:\w+ing)\b|starts|begins|starting|beginning)|'ll\b|’ll\b|"
    r"\b(?:i|we|he|she|they|you)\s+(?:start|begin|move|join|leave|arrive|fly|go)\b",
    re.IGNORECASE,
)
_IRREGULAR_PAST = (
    "was|were|did|had|went|got|began|left|took|came|became|bought|sold|found|made|met|quit|ran|gave|"
    "wrote|sent|spent|told|said|heard|saw|knew|thought|felt|kept|lost|paid|won|flew|drove|grew|"
    "fell|broke|chose|rode|sang|swam|taught|caught|brought|built|held|led|meant|put|set|sat|stood"
)
_PAST = re.compile(
    rf"\b(?:ago|yesterday|since|last)\b|\b(?:have|has|had|'ve|’ve|'d|’d)\s+(?:\w+ed|{_IRREGULAR_PAST}|been)\b|"
    rf"\b(?:i|we|he|she|they|you|it)\s+(?:\w+ly\s+|just\s+|already\s+)?(?:\w+ed|{_IRREGULAR_PAST})\b",
    re.IGNORECASE,
)
_NAMED_PAST = re.compile(rf"\b[A-Z][a-z]+\s+(?:\w+ly\s+|just\s+)?(?:[a-z]+ed|{_IRREGULAR_PAST})\b")


@dataclass(frozen=True, slots=True)
class DateHit:
    """A date expression in a text and the time it resolves to."""

    start: int
    end: int
    when: datetime


def tense(sentence: str) -> int:
    """+1 a sentence about the future, -1 about the past, 0 unknown (present or no verb seen)."""
    if _FUTURE.search(sentence):
        return 1
    if _PAST.search(sentence) or _NAMED_PAST.search(sentence):
        return -1
    return 0


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence: split after . ! ? followed by space, and at line breaks."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def find_dates(sentence: str, ref: datetime, offset: int = 0) -> list[DateHit]:
    """Date expressions in one sentence, resolved against `ref` (the message time) and the tense."""
    if not _ANY.search(sentence):
        return []
    ref = as_utc(ref)
    whole: int | None = None
    hits: list[DateHit] = []
    for m in _DATE.finditer(sentence):
        if _END_WORDS.search(sentence, 0, m.start()):
            continue
        g = m.groupdict()
        direction = 0
        if _needs_tense(g):
            # the clause around the date first ("I took the job, it starts August 1"), else the sentence
            direction = tense(_clause(sentence, m.start(), m.end()))
            if direction == 0:
                whole = tense(sentence) if whole is None else whole
                direction = whole
        day = _resolve(g, ref.date(), direction)
        if day is None:
            continue
        when = ref if day == ref.date() else datetime(day.year, day.month, day.day, tzinfo=UTC)
        hits.append(DateHit(offset + m.start(), offset + m.end(), when))
    return hits


def _clause(sentence: str, start: int, end: int) -> str:
    """The clause of the sentence around [start, end)."""
    left = 0
    for m in _CLAUSE_END.finditer(sentence, 0, start):
        left = m.end()
    right = _CLAUSE_END.search(sentence, end)
    return sentence[left : right.start() if right else len(sentence)]


def _needs_tense(g: dict[str, str | None]) -> bool:
    if g["m1"] or g["d2"]:
        return not (g["y1"] or g["y2"])
    if g["m4"]:
        return (g["mmod"] or "").lower() not in ("last", "next", "since", "this")
    if g["wd"]:
        return (g["wmod"] or "").lower() not in ("last", "next", "coming", "this")
    return False


def _resolve(g: dict[str, str | None], today: date, direction: int) -> date | None:
    try:
        if g["iso"]:
            return date(int(g["iy"] or 0), int(g["im"] or 0), int(g["id"] or 0))
        if g["m1"] or g["d2"]:
            month = MONTHS[(g["m1"] or g["m2"] or "").lower().rstrip(".")]
            day = int(g["d1"] or g["d2"] or 0)
            year = g["y1"] or g["y2"]
            if year:
                return date(int(year), month, day)
            return _pick([_safe(today.year + k, month, day) for k in (-1, 0, 1)], today, direction)
        if g["m3"]:
            return date(int(g["y3"] or 0), MONTHS[g["m3"].lower().rstrip(".")], 1)
        if g["m4"]:
            return _month(MONTHS[g["m4"].lower().rstrip(".")], (g["mmod"] or "").lower(), today, direction)
        if g["y5"]:
            return date(int(g["y5"]), 1, 1)
        if g["wd"]:
            return _weekday(g["wd"].lower(), (g["wmod"] or "").lower(), today, direction)
        if g["rel"]:
            shift = {"today": 0, "tonight": 0, "yesterday": -1, "tomorrow": 1}[g["rel"].lower()]
            return today + timedelta(days=shift)
        if g["period"]:
            return _period(g["period"].lower(), (g["pmod"] or "").lower(), today)
        if g["unit"] or g["unit2"]:
            word = (g["n"] or g["n2"] or "").lower()
            n = _NUMBERS.get(word) or int(word)
            return _shift(today, (g["unit"] or g["unit2"] or "").lower(), -n if g["unit"] else n)
    except (ValueError, KeyError, OverflowError):
        return None
    return None


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _pick(options: Iterable[date | None], today: date, direction: int) -> date | None:
    found = [d for d in options if d is not None]
    if direction > 0:
        ahead = [d for d in found if d >= today]
        return min(ahead) if ahead else None
    if direction < 0:
        behind = [d for d in found if d <= today]
        return max(behind) if behind else None
    return min(found, key=lambda d: (abs((d - today).days), d < today)) if found else None


def _month(month: int, mod: str, today: date, direction: int) -> date:
    this = date(today.year, month, 1)
    if mod == "this":
        return this
    if mod == "last" or mod == "since":
        return this if month < today.month else date(today.year - 1, month, 1)
    if mod == "next":
        return this if month > today.month else date(today.year + 1, month, 1)
    if month == today.month:
        return this
    before = this if month < today.month else date(today.year - 1, month, 1)
    after = this if month > today.month else date(today.year + 1, month, 1)
    if direction > 0:
        return after
    if direction < 0:
        return before
    return after if (after - today) < (today - before) else before


def _weekday(name: str, mod: str, today: date, direction: int) -> date:
    target = WEEKDAYS[name]
    ahead = (target - today.weekday()) % 7 or 7
    behind = (today.weekday() - target) % 7 or 7
    if mod in ("next", "coming") or (mod != "last" and direction > 0):
        return today + timedelta(days=ahead)
    if mod == "this":
        return today + timedelta(days=(target - today.weekday()) % 7)
    if mod == "last" or direction < 0:
        return today - timedelta(days=behind)
    return today + timedelta(days=ahead) if ahead <= behind else today - timedelta(days=behind)


def _period(period: str, mod: str, today: date) -> date:
    step = {"last": -1, "next": 1, "this": 0}[mod]
    if period in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday())
        start = monday + timedelta(days=5) if period == "weekend" else monday
        return start + timedelta(weeks=step) if step else max(start, today)
    if period == "month":
        return today if step == 0 else _shift(today.replace(day=1), "month", step)
    return today if step == 0 else date(today.year + step, 1, 1)


def _shift(day: date, unit: str, n: int) -> date:
    if unit == "day":
        return day + timedelta(days=n)
    if unit == "week":
        return day + timedelta(weeks=n)
    months = day.year * 12 + day.month - 1 + (n if unit == "month" else 12 * n)
    year, month = divmod(months, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def attach_valid_at(text: str, ref: datetime, facts: list[FactCandidate]) -> int:
    """Give each fact without a `valid_at` the date of its sentence nearest to its object.

    Each date goes to the fact object nearest to it in its sentence, and to other objects within
    `_NEAR` characters of it with no "and"/"but"/";" between (so in "I live in Leeds and start at Acme
    on June 8" the date is Acme's, not Leeds'); a fact whose object is not found in the text gets
    nothing. Returns how many facts got a date.
    """
    todo = [f for f in facts if f.valid_at is None]
    if not todo or not _ANY.search(text):
        return 0
    lowered = text.lower()
    where: dict[str, tuple[int, int]] = {}
    for f in todo:
        key = f.object.strip().lower()
        if key and key not in where:
            pos = lowered.find(key)
            if pos >= 0:
                where[key] = (pos, pos + len(key))
    if not where:
        return 0
    chosen: dict[str, tuple[int, datetime]] = {}  # object -> (distance, date)
    for s_start, s_end in sentences(text):
        objects = {k: span for k, span in where.items() if s_start <= span[0] < s_end}
        if not objects:
            continue
        for hit in find_dates(text[s_start:s_end], ref, s_start):
            if any(hit.start < e and s < hit.end for s, e in objects.values()):
                continue  # inside an object's name ("the 2019 Golf")
            gaps = {k: _gap(span, hit) for k, span in objects.items()}
            nearest = min(gaps, key=lambda k: gaps[k])
            for key, dist in gaps.items():
                # the nearest object's; another's too when close and in the same clause ("a job at
                # Lingua Nord as senior translator, starts August 1"), not across "and" ("I live in
                # Leeds and start at Acme on June 8")
                if key != nearest and (
                    dist > _NEAR or _OTHER_CLAUSE.search(_between(text, objects[key], hit))
                ):
                    continue
                if key not in chosen or dist < chosen[key][0]:
                    chosen[key] = (dist, hit.when)
    n = 0
    for f in todo:
        got = chosen.get(f.object.strip().lower())
        if got is not None:
            f.valid_at = got[1]
            n += 1
    return n


def _between(text: str, span: tuple[int, int], hit: DateHit) -> str:
    return text[span[1] : hit.start] if span[1] <= hit.start else text[hit.end : span[0]]


def _gap(span: tuple[int, int], hit: DateHit) -> int:
    return max(hit.start - span[1], span[0] - hit.end, 0)
