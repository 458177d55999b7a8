"""A keyed set of records persisted as one JSON document, merged on write.

Concurrency model ("lock + merge"): every process keeps the records it changed (dirty) and
deleted (tombstones) since its last write. A write takes the workspace lock, re-reads the
file if another process replaced it, merges (per record the newer `updated_at` wins; a
tombstone newer than a record deletes it), writes atomically, and adopts the merged result.
So an update made by the host is never lost by the CLI's next write, and vice versa.

A record that fails validation is quarantined, not dropped: it is kept verbatim in the file's
`quarantined` list (carried through every merge and write) and counted. A file the engine cannot
read as its own (`StoreUnreadableError`) leaves the table empty and `unreadable` set: nothing is
written over it until it reads again, so the host keeps running and the user's file is safe.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from knowledge_engine.fsio import write_atomic
from knowledge_engine.gcpause import gc_paused
from knowledge_engine.observe import counters
from knowledge_engine.store.persistence import (
    SCHEMA_VERSION,
    StoreUnreadableError,
    WorkspaceLock,
    file_signature,
    log,
    read_backup,
    read_json_document,
)

R = TypeVar("R", bound=BaseModel)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
CHANGE_LOG = 50_000  # structural changes remembered for derived indexes that update incrementally


def updated_at(rec: BaseModel) -> datetime:
    """A record's `updated_at` (the epoch when it has none): the newer of two versions wins a plain merge."""
    value = getattr(rec, "updated_at", None)
    return value if isinstance(value, datetime) else _EPOCH


def _document_model(key: str, model: type[BaseModel]) -> type[BaseModel]:
    """The whole file as one pydantic model, so loading is a single pass in pydantic-core."""
    fields: dict[str, Any] = {
        "schema_": (int, Field(SCHEMA_VERSION, alias="schema")),
        "meta": (dict[str, Any], Field(default_factory=dict)),
        "tombstones": (dict[str, str], Field(default_factory=dict)),
        "quarantined": (list[Any], Field(default_factory=list)),
        key: (list[model], ...),  # type: ignore[valid-type]  # required: a file without it is not ours
    }
    return create_model(f"{model.__name__}Document", __config__=ConfigDict(extra="ignore"), **fields)


class BaseTable(Generic[R]):
    """The contract every record table keeps, whatever holds it (a JSON file, a database).

    Why a base and not only a protocol: the in-memory half (records by id, dirty and deleted sets,
    tombstones, meta, the change log derived indexes follow, the quarantine list) is the same for
    every backend; only load, flush and refresh talk to the storage. Callers are typed against this.
    """

    def __init__(self, key: str, model: type[R]) -> None:
        self.key = key
        self.model = model
        self.records: dict[str, R] = {}
        self.meta: dict[str, Any] = {}
        self.tombstones: dict[str, datetime] = {}
        self.dirty: set[str] = set()
        self.deleted: set[str] = set()
        self.meta_dirty = False
        self.mutex = threading.RLock()
        self.quarantined: list[Any] = []  # records that failed validation, verbatim (never dropped)
        self._quarantine_keys: set[bytes] = set()
        self._released: set[bytes] = set()  # taken out of quarantine here: a merge must not bring it back
        self.unreadable: StoreUnreadableError | None = None  # set: the file is not ours; never written
        # set when the file was corrupt at a load: the copy loaded instead (".bak") or "empty"; the
        # newest write is lost, so the host extracts its messages again (ingest/reapply.py)
        self.recovered: str | None = None
        self.generation = 0  # bumped on wholesale replacement (load, merge)
        self.version = 0  # bumped on changes other than relevance upkeep: "did anything change" for indexes
        self.on_put: Callable[[R], None] | None = None  # keeps a derived index current on single changes
        self.on_delete: Callable[[str], None] | None = None
        # (mine, theirs, base) -> merged: how two writers' versions of one record combine (None: newer wins)
        self.merge: Callable[[R, R, R | None], R] | None = None
        self.merge_blind = False  # the hook is also right without a base (the file store keeps none)
        self._changes: deque[tuple[int, str]] = deque(maxlen=CHANGE_LOG)  # (version, record id)

    @property
    def name(self) -> str:
        """What messages call this table (a file name, or the kind in the database)."""
        return self.key

    def load(self) -> None:
        raise NotImplementedError

    def flush(self, force: bool = False) -> bool:
        raise NotImplementedError

    def refresh(self) -> None:
        raise NotImplementedError

    @property
    def reachable(self) -> bool:
        """Whether the storage answered the last look (a local file always does)."""
        return True

    def applied_keys(self, limit: int) -> list[str]:
        """The newest `limit` applied-message keys stored with these records, oldest first: how a
        message replayed after an unclean stop is recognised (Workspace.apply)."""
        raise NotImplementedError

    def note_applied(self, key: str, window: Iterable[str]) -> None:
        """Store `key` (a message's extraction is in these records) with the next flush, in the same
        write as the records it stands for. `window` is every key remembered, oldest first, for a
        backend that stores them as one value."""
        raise NotImplementedError

    def backup_applied_keys(self) -> list[str] | None:
        """The applied keys of the last good copy, one write behind (None: no readable copy, or a
        backend without one): what the newest write added is what this holds and that does not."""
        return None

    @property
    def invalid_records(self) -> int:
        """Records kept in quarantine because they failed validation."""
        return len(self.quarantined)

    def _quarantine(self, raws: list[Any]) -> int:
        """Keep records that failed validation (deduplicated by content); returns how many were new."""
        added = 0
        for raw in raws:
            try:
                k = orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)
            except TypeError:
                continue
            if k not in self._quarantine_keys and k not in self._released:
                self._quarantine_keys.add(k)
                self.quarantined.append(raw)
                added += 1
        return added

    def _reset_quarantine(self) -> None:
        self.quarantined, self._quarantine_keys = [], set()

    def restore_quarantined(self) -> int:
        """Put back the quarantined records that now validate (fixed by hand); returns how many."""
        with self.mutex:
            keep: list[Any] = []
            restored = 0
            for raw in self.quarantined:
                try:
                    rec = self.model.model_validate(raw)
                except ValidationError:
                    keep.append(raw)
                    continue
                self._released.add(orjson.dumps(raw, option=orjson.OPT_SORT_KEYS))
                self.put(rec)
                restored += 1
            if restored:
                self._reset_quarantine()
                self._quarantine(keep)
                self.meta_dirty = True
            return restored

    def drop_quarantined(self, match: Callable[[Any], bool]) -> int:
        """Forget the quarantined records `match` selects; no later merge brings them back here."""
        with self.mutex:
            keep = [raw for raw in self.quarantined if not match(raw)]
            dropped = len(self.quarantined) - len(keep)
            if dropped:
                for raw in self.quarantined:
                    if match(raw):
                        with contextlib.suppress(TypeError):
                            self._released.add(orjson.dumps(raw, option=orjson.OPT_SORT_KEYS))
                self._reset_quarantine()
                self._quarantine(keep)
                self.meta_dirty = True
            return dropped

    # ------------------------------------------------------------------ mutation
    def put(self, rec: R, structural: bool = True) -> None:
        """Store a record; `structural=False` (relevance upkeep) leaves `version` alone for text indexes."""
        with self.mutex:
            rid = rec.id  # type: ignore[attr-defined]
            self.records[rid] = rec
            if structural:
                self.version += 1
                self._changes.append((self.version, rid))
            if self.on_put is not None:
                self.on_put(rec)
            self.dirty.add(rid)
            self.deleted.discard(rid)
            self.tombstones.pop(rid, None)

    def delete(self, rid: str) -> bool:
        with self.mutex:
            existed = self.records.pop(rid, None) is not None
            self.version += 1
            self._changes.append((self.version, rid))
            if existed and self.on_delete is not None:
                self.on_delete(rid)
            self.deleted.add(rid)
            self.dirty.discard(rid)
            self.tombstones[rid] = datetime.now(UTC)
            return existed

    def changed_since(self, generation: int, version: int) -> set[str] | None:
        """Ids put or deleted (structurally) since (generation, version); None when only a full rebuild
        can tell (the table was reloaded or merged, or the change log no longer reaches back that far)."""
        with self.mutex:
            if generation != self.generation or version > self.version:
                return None
            if version == self.version:
                return set()
            if not self._changes or self._changes[0][0] > version + 1:
                return None
            out: set[str] = set()
            for v, rid in reversed(self._changes):
                if v <= version:
                    break
                out.add(rid)
            return out

    def set_meta(self, key: str, value: Any) -> None:
        with self.mutex:
            self.meta[key] = value
            self.meta_dirty = True

    @property
    def has_changes(self) -> bool:
        return bool(self.dirty or self.deleted or self.meta_dirty)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[R]:
        return iter(list(self.records.values()))

    def get(self, rid: str) -> R | None:
        return self.records.get(rid)

    def drop_tombstones(self, older_than: datetime) -> int:
        with self.mutex:
            old = [k for k, v in self.tombstones.items() if v < older_than and k not in self.deleted]
            for k in old:
                del self.tombstones[k]
            if old:
                self.meta_dirty = True
            return len(old)


class RecordTable(BaseTable[R]):
    """Records of one type, keyed by id, stored in `path` under `key`."""

    def __init__(self, path: Path, key: str, model: type[R], lock: WorkspaceLock) -> None:
        super().__init__(key, model)
        self.path = path
        self.lock = lock
        self._sig: tuple[int, int, int] | None = None
        self._adapter = TypeAdapter(list[model])  # type: ignore[valid-type]
        self._doc_adapter = TypeAdapter(_document_model(key, model))

    @property
    def name(self) -> str:
        return self.path.name

    # ------------------------------------------------------------------ reading
    def _decode(self, doc: dict[str, Any]) -> tuple[dict[str, R], dict[str, Any], dict[str, datetime]]:
        items = doc.get(self.key, [])
        kept = doc.get("quarantined")
        self._quarantine(kept if isinstance(kept, list) else [])
        try:
            recs = self._adapter.validate_python(items)
        except ValidationError:
            recs, bad = [], []
            for raw in items if isinstance(items, list) else []:
                try:
                    recs.append(self.model.model_validate(raw))
                except ValidationError:
                    bad.append(raw)
            new = self._quarantine(bad)
            if new:
                counters.inc("store.quarantined", new)
                log.error(
                    "%s: %d records failed validation; kept in its 'quarantined' list (see validate)",
                    self.path.name,
                    new,
                )
        tomb_raw: dict[str, Any] = doc["tombstones"] if isinstance(doc.get("tombstones"), dict) else {}
        tombs: dict[str, datetime] = {}
        for rid, ts in tomb_raw.items():
            try:
                tombs[rid] = datetime.fromisoformat(ts)
            except (TypeError, ValueError):
                continue
        meta = doc.get("meta", {}) if isinstance(doc.get("meta"), dict) else {}
        return {r.id: r for r in recs}, meta, tombs  # type: ignore[attr-defined]

    def _fast_load(self) -> bool:
        """One pass in pydantic-core (parse + validate); False sends the caller to the careful path."""
        if self.path.is_symlink():
            return False
        try:
            raw = self.path.read_bytes()
            doc: Any = self._doc_adapter.validate_json(raw)
        except (OSError, ValidationError, ValueError):
            return False
        if not 1 <= doc.schema_ <= SCHEMA_VERSION:
            return False
        self.records = {r.id: r for r in getattr(doc, self.key)}
        self._reset_quarantine()
        self._quarantine(doc.quarantined)
        self.generation += 1
        self.version += 1
        self.meta = doc.meta
        self.tombstones = {}
        for rid, ts in doc.tombstones.items():
            try:
                self.tombstones[rid] = datetime.fromisoformat(ts)
            except ValueError:
                continue
        return True

    def load(self) -> None:
        """Read the file (or its backup); a missing file is an empty table."""
        with self.mutex, gc_paused():
            sig = file_signature(self.path)
            if self._fast_load():
                self.unreadable = None
                self._sig = sig
                self.dirty.clear()
                self.deleted.clear()
                return
            self._reset_quarantine()
            self.unreadable = None
            fell_back: list[str] = []
            try:
                doc = read_json_document(self.path, self.key, fell_back)
            except StoreUnreadableError as exc:
                self._refuse(exc)
                doc = None
            if doc is None:
                self.records, self.meta, self.tombstones = {}, {}, {}
            else:
                self.records, self.meta, self.tombstones = self._decode(doc)
            if fell_back:
                self.recovered = fell_back[0]
            self.generation += 1
            self.version += 1
            self._sig = sig
            self.dirty.clear()
            self.deleted.clear()

    def _refuse(self, exc: StoreUnreadableError) -> None:
        """Remember that the file is not ours: logged once (file and reason), counted, never written."""
        if self.unreadable is None:
            counters.inc("store.unreadable")
            log.error(
                "%s; it is left untouched and nothing is written to it until it is fixed or moved "
                "(new knowledge is kept in memory and accepted messages in the ingest journal)",
                exc,
            )
        self.unreadable = exc

    def _readable_again(self) -> bool:
        """Whether a refused file now reads as ours (then the next write merges with it)."""
        try:
            read_json_document(self.path, self.key)
        except StoreUnreadableError as exc:
            self.unreadable = exc
            return False
        log.warning("%s reads again; pending changes are merged into it", self.path.name)
        self.unreadable = None
        self._sig = (-1, -1, -1)  # forces the merge with what is on disk now (or in its backup)
        return True

    def applied_keys(self, limit: int) -> list[str]:
        keys = self.meta.get("applied", [])  # the file keeps the window in its meta
        return list(keys[-limit:]) if isinstance(keys, list) else []

    def note_applied(self, key: str, window: Iterable[str]) -> None:
        self.set_meta("applied", list(window))

    def backup_applied_keys(self) -> list[str] | None:
        doc = read_backup(self.path, self.key)
        meta = doc.get("meta") if doc is not None else None
        keys = meta.get("applied") if isinstance(meta, dict) else None
        return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else None

    def changed_on_disk(self) -> bool:
        return file_signature(self.path) != self._sig

    # ------------------------------------------------------------------ writing
    def _merge_from_disk(self) -> None:
        with gc_paused():
            try:
                doc = read_json_document(self.path, self.key)
            except StoreUnreadableError as exc:
                self._refuse(exc)
                raise
            if doc is None:
                return
            disk, disk_meta, disk_tombs = self._decode(doc)
        merged: dict[str, R] = {}
        for rid, rec in disk.items():
            tomb = self.tombstones.get(rid) if rid in self.deleted else None
            if tomb is not None and tomb >= updated_at(rec):
                continue
            merged[rid] = rec
        for rid in self.dirty:
            mine = self.records.get(rid)
            if mine is None:
                continue
            theirs = merged.get(rid)
            if theirs is not None and self.merge is not None and self.merge_blind:
                merged[rid] = mine = self.merge(mine, theirs, None)  # e.g. facts: no reinforcement lost
            elif theirs is None or updated_at(mine) >= updated_at(theirs):
                merged[rid] = mine
            other_tomb = disk_tombs.get(rid)
            if other_tomb is not None and other_tomb > updated_at(mine):
                merged.pop(rid, None)
        for rid, ts in disk_tombs.items():
            self.tombstones.setdefault(rid, ts)
        meta = {**disk_meta, **(self.meta if self.meta_dirty else {})}
        self.records, self.meta = merged, meta
        self.generation += 1
        self.version += 1

    def serialise(self) -> bytes:
        body = {
            "schema": SCHEMA_VERSION,
            "updated": datetime.now(UTC).isoformat(),
            "meta": self.meta,
            "tombstones": {k: v.isoformat() for k, v in self.tombstones.items()},
        }
        if self.quarantined:
            body["quarantined"] = self.quarantined
        head = orjson.dumps(body)[:-1]
        # exclude_none (every optional field of a record defaults to None) keeps the file ~25% smaller than
        # a full dump at half the cost of exclude_defaults, which compares every field with its default
        recs = self._adapter.dump_json(list(self.records.values()), exclude_none=True)
        return head + b',"' + self.key.encode() + b'":' + recs + b"}"

    def flush(self, force: bool = False) -> bool:
        """Merge with what is on disk and write; True when a write happened."""
        with self.mutex:
            if not (self.has_changes or force):
                return False
            with self.lock.hold():
                if self.unreadable is not None and not self._readable_again():
                    raise self.unreadable
                if self.changed_on_disk():
                    self._merge_from_disk()
                data = self.serialise()
                write_atomic(self.path, data, backup=True)
                self._sig = file_signature(self.path)
                self.dirty.clear()
                self.deleted.clear()
                self.meta_dirty = False
            return True

    def refresh(self) -> None:
        """Adopt changes other processes wrote, keeping this process's pending ones."""
        with self.mutex:
            if self.unreadable is None and self.changed_on_disk():
                with self.lock.hold():
                    try:
                        self._merge_from_disk()
                    except StoreUnreadableError:
                        return  # logged once; the next write refuses until the file is fixed
                    self._sig = file_signature(self.path)


class TableFollower(Generic[R]):
    """An in-memory index kept in step with one RecordTable through its change log.

    Why one base: every derived index (fact terms, fact subjects) must catch up the same way: apply
    the ids changed since its last look, or rebuild from every record when the log cannot tell (a
    reload or merge, or a log that no longer reaches back). Subclasses say how to clear, add, remove.
    """

    def __init__(self) -> None:
        self.sig: tuple[int, int] = (-1, -1)
        self.rebuilds = 0

    def refresh(self, table: BaseTable[R]) -> None:
        """Catch up with the table: apply its recent changes, or rebuild when they are unknown."""
        with table.mutex:
            sig = (table.generation, table.version)
            if sig == self.sig:
                return
            changed = table.changed_since(*self.sig)
            if changed is None:
                self._clear()
                with gc_paused():  # a rebuild makes many long-lived sets and dicts (see gcpause)
                    for record in table.records.values():
                        self._add(record)
                self.rebuilds += 1
            else:
                for rid in changed:
                    self._remove(rid)
                    now = table.records.get(rid)
                    if now is not None:
                        self._add(now)
            self.sig = sig

    def _clear(self) -> None:
        raise NotImplementedError

    def _add(self, record: R) -> None:
        raise NotImplementedError

    def _remove(self, rid: str) -> None:
        raise NotImplementedError


def post(index: dict[str, set[str]], keys: Iterable[str], rid: str) -> None:
    """Add `rid` to the posting set of every key (a derived index's add)."""
    for key in keys:
        ids = index.get(key)  # not setdefault: it would build an empty set per call
        if ids is None:
            index[key] = {rid}
        else:
            ids.add(rid)


def unpost(index: dict[str, set[str]], keys: Iterable[str], rid: str) -> None:
    """Take `rid` out of every key's posting set, dropping sets that become empty."""
    for key in keys:
        ids = index.get(key)
        if ids is not None:
            ids.discard(rid)
            if not ids:
                del index[key]
