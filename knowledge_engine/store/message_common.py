"""What the SQLite and PostgreSQL message logs share: the contract's logic, not its SQL.

Why one module: `MessageLog` (SQLite + FTS5) and `PgMessageLog` (tsvector) keep one contract:
which roles are kept, how filters, keyset paging, redaction and retention behave, how the
match budget prunes common words, how long a document count is trusted. Each such rule is
written here once; the subclasses supply only the statements of their dialect.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, Literal, NamedTuple, Protocol, Self

from knowledge_engine.config import MemoryConfig
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit
from knowledge_engine.store.keyword import DEFAULT_MAX_TERMS, KeywordQuery, QueryBuilder

CHUNK = 500  # ids per statement and rows per page of iter()
MAX_LIMIT = 1000
DEFAULT_MATCH_BUDGET = 5000
SURROGATE_RE = re.compile("[\ud800-\udfff]")

Order = Literal["asc", "desc"]
Predicate = Callable[[Message], bool]
Row = Sequence[Any]
Cursor = tuple[Any, int] | None  # (ts, seq) of the last row read; None before the first page
# (cmp, direction, cursor, page size) -> the next page of rows
PageFetch = Callable[[str, str, Cursor, int], list[tuple[Any, ...]]]


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def query_settings(memory: MemoryConfig) -> dict[str, Any]:
    """The keyword-query keywords of either log's constructor, from a MemoryConfig."""
    return {
        "roles": memory.roles,
        "max_query_terms": memory.max_query_terms,
        "extra_stop_words": memory.extra_stop_words,
        "match_budget": memory.keyword_match_budget,
    }


class Filters(NamedTuple):
    """The filters of iter/count/search (None = any); `since` inclusive, `until` exclusive."""

    session: str | None = None
    role: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def terms(self) -> list[tuple[str, Any]]:
        """The set filters as (column and operator, raw value), in one order for both dialects."""
        pairs = (
            ("session =", self.session),
            ("role =", self.role),
            ("ts >=", self.since),
            ("ts <", self.until),
        )
        return [(column, value) for column, value in pairs if value is not None]


def keyset_pages(fetch: PageFetch, order: Order, limit: int | None) -> Iterator[Row]:
    """Rows by (ts, seq) in `order`, at most `limit`, one `fetch` per page (no lock held across yields).

    Rows carry seq at index 0 and ts at index 6 in both logs' column lists.
    """
    if order not in ("asc", "desc"):
        raise ValueError("order must be 'asc' or 'desc'")
    cmp, direction = (">", "ASC") if order == "asc" else ("<", "DESC")
    cursor: Cursor = None
    left = limit if limit is not None else -1
    while left != 0:
        page = CHUNK if left < 0 else min(CHUNK, left)
        rows = fetch(cmp, direction, cursor, page)
        yield from rows
        if len(rows) < page:
            return
        cursor = (rows[-1][6], rows[-1][0])
        left = left - len(rows) if left > 0 else left


def keep_within_budget(ranked: Sequence[tuple[int, str]], budget: int) -> tuple[list[str], int]:
    """The parts to score and their summed document counts; `ranked` is (count, part), rarest first.

    Like Lucene's high-frequency cutoff: the rarest part is always kept, then others from rare to
    common while the sum stays within `budget`. A sum still above it means even the rarest part is
    too common: the caller then searches only the newest rows.
    """
    keep, total = [ranked[0][1]], ranked[0][0]
    for df, part in ranked[1:]:
        if total + df > budget:
            break
        keep.append(part)
        total += df
    if total > budget:
        counters.inc("memory.search_newest_only")
    if len(keep) < len(ranked):
        counters.inc("memory.search_terms_pruned", len(ranked) - len(keep))
    return keep, total


class DocFreqCache:
    """Document counts by key, each trusted until the log's top seq grows 5% (at least 100) past it."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._items: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, top: int) -> int | None:
        cached = self._items.get(key)
        if cached is not None and top - cached[1] <= max(100, top // 20):
            return cached[0]
        return None

    def put(self, key: str, value: int, top: int) -> None:
        with self._lock:
            if len(self._items) >= self._size:
                self._items.clear()
            self._items[key] = (value, top)

    def clear(self) -> None:
        self._items.clear()


class MessageLogContract(Protocol):
    """The public API of either message log (`MessageLog`, `PgMessageLog`): what callers may use of
    the log `Workspace.messages` opens, whichever backend it is. Dialect details (`path`, a SQLite
    connection) are not part of it."""

    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...
    def require_writable(self) -> None: ...
    def iter(
        self,
        since: datetime | None = None,
        session: str | None = None,
        role: str | None = None,
        limit: int | None = None,
        order: Order = "asc",
        until: datetime | None = None,
    ) -> Iterator[Message]: ...
    def count(
        self,
        session: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> int: ...
    def search(
        self,
        query: str,
        limit: int = 20,
        session: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[tuple[Message, float]]: ...
    def get(self, id: str) -> Message | None: ...
    def get_many(self, ids: Iterable[str]) -> list[Message]: ...
    def has_text_near(
        self, session: str | None, role: str, text: str, at: datetime, within_s: float
    ) -> bool: ...
    def speakers(self, limit: int = 1000) -> list[str]: ...
    def stats(self) -> dict[str, Any]: ...
    def append(self, msg: Message) -> bool: ...
    def append_many(self, msgs: Iterable[Message]) -> int: ...
    def delete(self, ids: Iterable[str]) -> int: ...
    def delete_session(self, session: str) -> int: ...
    def redact(
        self, ids_or_predicate: Iterable[str] | Predicate, replacement: str | Callable[[str], str]
    ) -> list[str]: ...
    def retain(
        self, max_age_days: float = 0, max_count: int = 0, now: datetime | None = None
    ) -> list[str]: ...
    def rebuild_index(self) -> None: ...
    def check_index(self) -> bool: ...
    def vacuum(self) -> bool: ...


class MessageLogBase:
    """The dialect-free half of a message log; subclasses implement the underscored hooks."""

    def _init_search(
        self,
        roles: Collection[str] | None,
        max_query_terms: int = DEFAULT_MAX_TERMS,
        extra_stop_words: Iterable[str] = (),
        match_budget: int = DEFAULT_MATCH_BUDGET,
    ) -> None:
        self.roles = frozenset(roles) if roles is not None else None
        self._query = QueryBuilder(max_terms=max_query_terms, extra_stop_words=extra_stop_words)
        self.match_budget = match_budget
        self._df_cache = DocFreqCache()

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def require_writable(self) -> None:
        """Raise the log's clear error when it can only be read here (a read-only folder): a command
        that writes fails at once, not once per batch. A database log is always written."""

    # ------------------------------------------------------------------ reads

    def iter(
        self,
        since: datetime | None = None,
        session: str | None = None,
        role: str | None = None,
        limit: int | None = None,
        order: Order = "asc",
        until: datetime | None = None,
    ) -> Iterator[Message]:
        """Messages by event time (then arrival), read in pages (keyset on (ts, seq)), so no lock or
        connection is held across yields."""
        fetch = partial(self._page, Filters(session, role, since, until))
        for row in keyset_pages(fetch, order, limit):
            yield self._message(row)

    def count(
        self,
        session: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> int:
        return self._count(Filters(session, role, since, until))

    def search(
        self,
        query: str,
        limit: int = 20,
        session: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[tuple[Message, float]]:
        """Keyword search ranked by BM25 (SQLite) or BM25-like (PostgreSQL); higher is better.
        An empty query (nothing searchable left) or limit <= 0 -> no results."""
        built = self._query.build(query)
        if limit <= 0:
            return []
        if built.empty:
            counters.inc("memory.search_empty_query")
            return []
        return self._search(built, limit, Filters(session, role, since, until))

    def _search_failed(self, error: str) -> list[tuple[Message, float]]:
        """A search the store refused: counted, and no results (never crash a turn)."""
        counters.inc("memory.search_error")
        emit("memory.search_error", error=error)
        return []

    def get_many(self, ids: Iterable[str]) -> list[Message]:
        """Messages in the order of `ids`; unknown ids are left out."""
        wanted = list(dict.fromkeys(ids))
        keys = {i: self._key(i) for i in wanted}
        found: dict[str, Message] = {}
        for chunk in chunks(self._unique_ids(wanted)):
            for r in self._rows_by_id(chunk):
                found[r[1]] = self._message(r)
        return [found[k] for i in wanted if (k := keys[i]) is not None and k in found]

    def _unique_ids(self, ids: Iterable[str]) -> list[str]:
        """Ids as stored, each once, in first-seen order."""
        return [k for k in dict.fromkeys(self._key(i) for i in ids) if k is not None]

    def _key(self, id: str) -> str | None:
        """An id as the store compares it."""
        return id

    def _message(self, row: Row) -> Message:
        raise NotImplementedError

    def _rows_by_id(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """The rows of up to CHUNK ids, in any order."""
        raise NotImplementedError

    def _rows_after(self, seq: int, size: int) -> list[tuple[Any, ...]]:
        """Up to `size` rows with a higher seq, by seq."""
        raise NotImplementedError

    def _page(
        self, filters: Filters, cmp: str, direction: str, cursor: Cursor, size: int
    ) -> list[tuple[Any, ...]]:
        """One page of `iter`: rows after `cursor` ordered by (ts, seq) (`cmp` and `direction` agree)."""
        raise NotImplementedError

    def _count(self, filters: Filters) -> int:
        raise NotImplementedError

    def _search(self, built: KeywordQuery, limit: int, filters: Filters) -> list[tuple[Message, float]]:
        """Search a non-empty query for at most `limit` (> 0) hits."""
        raise NotImplementedError

    # ------------------------------------------------------------------ writes

    def _accepts(self, msg: Message) -> bool:
        if self.roles is not None and msg.role not in self.roles:
            counters.inc("memory.role_skipped")
            return False
        return True

    def append(self, msg: Message) -> bool:
        """Store one message; False when its id is already stored (idempotent) or its role is not kept."""
        return self.append_many([msg]) == 1

    def append_many(self, msgs: Iterable[Message]) -> int:
        raise NotImplementedError

    def _changed(self, event: str, **fields: Any) -> None:
        """After a delete, redaction or retention: counts are stale; say what happened (counts only)."""
        self._df_cache.clear()
        emit(event, **fields)

    def redact(
        self, ids_or_predicate: Iterable[str] | Predicate, replacement: str | Callable[[str], str]
    ) -> list[str]:
        """Rewrite the text of chosen messages (the index follows); returns the ids that changed.

        `replacement` is the new whole text, or a function of the old text (e.g. one that masks
        an entity's name). Call `vacuum()` afterwards so the old text leaves the stored files.
        """
        changed: list[str] = []
        for batch in self._redact_candidates(ids_or_predicate):
            updates: list[tuple[int, str]] = []
            for seq, msg in batch:
                new = replacement(msg.text) if callable(replacement) else replacement
                new = self._redacted_text(new)
                if new != msg.text:
                    updates.append((seq, new))
                    changed.append(msg.id)
            if updates:
                self._rewrite(updates)
        self._changed("memory.redacted", messages=len(changed))
        return changed

    def _redact_candidates(
        self, ids_or_predicate: Iterable[str] | Predicate
    ) -> Iterator[list[tuple[int, Message]]]:
        """Batches of (seq, message): the chosen ids, or every message the predicate picks (by seq)."""
        if callable(ids_or_predicate):
            pred = ids_or_predicate
            last = 0
            while rows := self._rows_after(last, CHUNK):
                last = rows[-1][0]
                yield [(r[0], m) for r in rows if pred(m := self._message(r))]
            return
        for chunk in chunks(self._unique_ids(ids_or_predicate)):
            yield [(r[0], self._message(r)) for r in self._rows_by_id(chunk)]

    def _redacted_text(self, text: str) -> str:
        """A replacement text as it will be compared and stored."""
        raise NotImplementedError

    def _rewrite(self, updates: list[tuple[int, str]]) -> None:
        """Store new texts by seq, in one transaction."""
        raise NotImplementedError

    def rebuild_index(self) -> None:
        """Re-derive the keyword index from the stored texts (for `validate --repair`)."""
        self._reindex()
        self._changed("memory.index_rebuilt", messages=self.count())

    def _reindex(self) -> None:
        raise NotImplementedError

    def retain(self, max_age_days: float = 0, max_count: int = 0, now: datetime | None = None) -> list[str]:
        """Apply retention (0 = no limit): drop messages older than max_age_days, then the oldest beyond
        max_count. Returns the deleted ids so the vector index can drop them too."""
        doomed = self._retain(max_age_days, max_count, now or datetime.now(UTC))
        self._changed("memory.retention", deleted=len(doomed), max_age_days=max_age_days, max_count=max_count)
        return doomed

    def _retain(self, max_age_days: float, max_count: int, now: datetime) -> list[str]:
        """Delete what retention drops, in one transaction; returns the deleted ids."""
        raise NotImplementedError
