"""The one fact query: filters and orders over stored facts, as records or as the raw dicts of facts.json.

Why both shapes: `FactStore.query` (and `show`, `demo`) hold `Fact` records, while `facts` reads the
raw file and builds records only for the rows it prints, because building all 100k records (pydantic)
takes seconds when the command prints 200 (`cli/rawfacts.py`). One `FactQuery` and one `select` serve
both, so the two listings cannot drift apart. A raw dict omits None and default-valued fields (older
files: every default): a missing key means the record's default.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, TypeVar, cast

from knowledge_engine.model.records import Fact, canonical

Row = TypeVar("Row", Fact, dict[str, Any])
DEFAULTS: dict[str, Any] = {
    name: f.default
    for name, f in Fact.model_fields.items()
    if f.default_factory is None and not f.is_required()
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def get(f: Fact | dict[str, Any], key: str) -> Any:
    """A field of either shape (a raw dict's missing key is the record's default)."""
    if type(f) is dict:
        return f.get(key, DEFAULTS.get(key))
    return getattr(f, key)


def as_time(value: Any) -> datetime | None:
    """A record's datetime as it is; a raw ISO string parsed (naive is UTC); anything else None."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _ts(value: Any) -> float:
    return (as_time(value) or _EPOCH).timestamp()


def _num(value: Any, default: float) -> float:
    return float(value) if isinstance(value, int | float) else default


def _session(e: Any) -> Any:
    return e.get("session") if isinstance(e, dict) else getattr(e, "session", None)


SORT_KEYS: dict[str, Callable[[Any], Any]] = {
    "relevance": lambda f: (-_num(get(f, "relevance"), 1.0), -_ts(get(f, "last_accessed"))),
    "confidence": lambda f: (-_num(get(f, "confidence"), 0.5), -_num(get(f, "relevance"), 1.0)),
    "created": lambda f: -_ts(get(f, "created_at")),
    "accessed": lambda f: -_ts(get(f, "last_accessed")),
    "valid-from": lambda f: -_ts(get(f, "valid_at") or get(f, "created_at")),
    "subject": lambda f: (str(get(f, "subject") or "").lower(), str(get(f, "predicate") or "")),
}
SORTS = tuple(SORT_KEYS)


@dataclass(frozen=True)
class FactQuery:
    """Every filter a fact listing knows; None (or False, 0) means no filter. `entity` is an id or a name."""

    subject: str | None = None
    predicate: str | None = None
    object_: str | None = None
    entity: str | None = None
    text: str | None = None
    tier: str | None = None
    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    history: bool = False
    min_relevance: float = 0.0

    @cached_property
    def _canon(self) -> tuple[str, str, str]:
        """subject, object and entity in canonical form, computed once per query, not once per row."""
        return canonical(self.subject or ""), canonical(self.object_ or ""), canonical(self.entity or "")

    def only_validity(self) -> bool:
        """The common listing: nothing but `history` to check, so the per-field checks are skipped."""
        return (
            self.min_relevance <= 0
            and not any(
                (self.subject, self.object_, self.predicate, self.entity, self.text, self.tier, self.session)
            )
            and self.since is None
            and self.until is None
        )

    def matches(self, f: Fact | dict[str, Any]) -> bool:
        if not self.history and get(f, "invalid_at") is not None:
            return False
        if _num(get(f, "relevance"), 1.0) < self.min_relevance:
            return False
        return (not self._by_name or self._names(f)) and (not self._by_extra or self._extras(f))

    @cached_property
    def _by_name(self) -> bool:
        return any((self.subject, self.predicate, self.object_, self.entity, self.text))

    @cached_property
    def _by_extra(self) -> bool:
        return any((self.tier, self.session)) or self.since is not None or self.until is not None

    def _names(self, f: Fact | dict[str, Any]) -> bool:
        subj, obj = str(get(f, "subject") or ""), str(get(f, "object") or "")
        c_subject, c_object, c_entity = self._canon
        if self.subject and canonical(subj) != c_subject and get(f, "subject_id") != self.subject:
            return False
        if self.predicate and get(f, "predicate") != self.predicate:
            return False
        if self.object_ and canonical(obj) != c_object and get(f, "object_id") != self.object_:
            return False
        ent = self.entity
        if (
            ent
            and ent not in (get(f, "subject_id"), get(f, "object_id"))
            and c_entity not in (canonical(subj), canonical(obj))
        ):
            return False
        if self.text:
            line = f"{subj} {str(get(f, 'predicate') or '').replace('-', ' ')} {obj}"
            return self.text.lower() in line.lower()
        return True

    def _extras(self, f: Fact | dict[str, Any]) -> bool:
        if self.tier and get(f, "source") != self.tier and self.tier not in (get(f, "sources") or ()):
            return False  # a fact some tier saw, whether or not a stronger one saw it too
        if self.session and not any(_session(e) == self.session for e in get(f, "evidence") or []):
            return False
        if self.since is not None or self.until is not None:
            when = as_time(get(f, "valid_at")) or as_time(get(f, "created_at")) or _EPOCH
            if (self.since and when < self.since) or (self.until and when >= self.until):
                return False
        return True


def select(
    rows: Iterable[Row], query: FactQuery, sort: str = "relevance", limit: int | None = None
) -> list[Row]:
    """The rows matching `query` in `sort` order (ties in relevance order), the first `limit` (0: all)."""
    if query.only_validity():  # the plain `facts` listing: no per-row call over 100k raw rows
        found = list(rows) if query.history else _valid_now(list(rows))
    else:
        found = [f for f in rows if query.matches(f)]
    if sort == "relevance" and limit:
        found = _top_by_relevance(found, limit)
    found.sort(key=SORT_KEYS["relevance"])  # the store's order first, so ties break the same way
    if sort != "relevance":
        found.sort(key=SORT_KEYS[sort])
    return found[:limit] if limit else found


def _top_by_relevance(rows: list[Row], limit: int) -> list[Row]:
    """The rows that can be in the first `limit` by relevance (ties at the cut kept), so the full sort
    key (which parses a timestamp) runs on a few hundred rows instead of 100k."""
    if len(rows) <= limit:
        return rows
    rels = [r if type(r) is float else _num(r, 1.0) for r in _column(rows, "relevance")]
    cut = heapq.nlargest(limit, rels)[-1]
    return [f for f, r in zip(rows, rels, strict=True) if r >= cut]


def _column(rows: list[Row], key: str) -> list[Any]:
    """One field of every row (all of one shape), without a function call per row."""
    if rows and isinstance(rows[0], dict):
        default = DEFAULTS.get(key)
        return [f.get(key, default) for f in cast("list[dict[str, Any]]", rows)]
    return [getattr(f, key) for f in rows]


def _valid_now(rows: list[Row]) -> list[Row]:
    """The rows not superseded (`invalid_at` unset), in one pass of one shape."""
    if rows and isinstance(rows[0], dict):
        raw = cast("list[dict[str, Any]]", rows)
        return cast("list[Row]", [f for f in raw if f.get("invalid_at") is None])
    return [f for f in rows if getattr(f, "invalid_at") is None]  # noqa: B009
