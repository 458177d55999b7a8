"""Copying one agent's workspace between the file backend and the shared PostgreSQL store (`migrate`).

Why a copy of the stored form, not a replay through the engine: moving must be lossless. Facts keep
their history (superseded versions, validity, evidence), entities their aliases and mentions, and the
store's bookkeeping comes along: deletion markers (a record another process still holds must not come
back), quarantined records (kept verbatim, never dropped), the applied-message keys (a journal replayed
after the move is not applied twice) and the maintenance run records. Records go as the JSON the file
store writes; messages through the two message logs' common API (`iter`, `append_many`), every role
kept, text byte for byte.

The file side: `facts.json` / `entities.json` (tombstones, meta, quarantined in the same document;
the applied keys and a mirror of the run records in the facts meta), `messages.sqlite3`,
`maintenance/runs.json`, the parked LLM batches in `llm-pending/` (batch-<id>.json, .failed, .corrupt).
The database side: ke_records, ke_tombstones, ke_meta, ke_quarantine, ke_applied, ke_messages, ke_parked,
and ke_meta kind `maintenance` for the run records. Not copied: `llm-pending/inbox.jsonl` (messages a
stopped node's tier still held in memory; that node re-queues them at its next start).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import orjson
from pydantic import BaseModel

from knowledge_engine.config import MemoryConfig, PostgresStorageConfig
from knowledge_engine.fsio import write_atomic
from knowledge_engine.maintenance.runs import (
    META_KEY,
    RUNS_FILE,
    RUNS_KIND,
    read_runs,
    read_shared_runs,
)
from knowledge_engine.model.records import Entity, Fact, Message
from knowledge_engine.store.messages import MESSAGES_FILE
from knowledge_engine.store.persistence import SCHEMA_VERSION, read_json_document

KINDS: dict[str, type[BaseModel]] = {"facts": Fact, "entities": Entity}
APPLIED_KEY = "applied"  # facts meta key of the file store's applied-message keys
MESSAGE_BATCH = 1000
Advance = Callable[[int], None]


class TransferError(RuntimeError):
    """The copy cannot start (a non-empty target without --force, an unreadable source)."""


class MessageStore(Protocol):
    """What the copy needs of a message log (MessageLog and PgMessageLog both have it)."""

    def iter(self) -> Iterator[Message]: ...
    def count(self) -> int: ...
    def append_many(self, msgs: list[Message]) -> int: ...
    def delete(self, ids: list[str]) -> int: ...
    def close(self) -> None: ...


@dataclass
class TableData:
    """One record kind as stored: records (JSON bodies, oldest write first), tombstones, meta, quarantine."""

    records: list[dict[str, Any]] = field(default_factory=list)
    tombstones: dict[str, str] = field(default_factory=dict)  # id -> ISO time of the deletion
    meta: dict[str, Any] = field(default_factory=dict)
    quarantined: list[Any] = field(default_factory=list)


@dataclass
class Content:
    """Everything of one agent but its messages (those are streamed)."""

    tables: dict[str, TableData] = field(default_factory=lambda: {k: TableData() for k in KINDS})
    applied: list[str] = field(default_factory=list)  # oldest first
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    parked: list[tuple[str, str, str]] = field(default_factory=list)  # (batch id, state, JSON body), by id

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for kind, t in self.tables.items():
            out[kind] = len(t.records)
            out[f"{kind}_tombstones"] = len(t.tombstones)
            out[f"{kind}_quarantined"] = len(t.quarantined)
            out[f"{kind}_meta_keys"] = len(t.meta)
        out["applied_keys"] = len(self.applied)
        out["maintenance_runs"] = len(self.runs)
        out["llm_parked_batches"] = len(self.parked)
        return out


def split_invalid(kind: str, raws: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """(records, the rest): anything that is not an object with a string id is carried as quarantined,
    never dropped. Records are not validated here (70 us each, 7 s at 100k facts): the target store
    validates on load and quarantines what fails, as the source did."""
    good: list[dict[str, Any]] = []
    bad: list[Any] = []
    for raw in raws:
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            good.append(raw)
        else:
            bad.append(raw)
    return good, bad


def _updated_at(body: dict[str, Any]) -> datetime:
    try:
        value = datetime.fromisoformat(str(body["updated_at"]))
    except (KeyError, TypeError, ValueError):
        return datetime.now(UTC)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------- files

PARKED_DIR = "llm-pending"
_PARKED_STATES = {".json": "waiting", ".failed": "failed", ".corrupt": "corrupt"}


def _read_parked(folder: Path) -> list[tuple[str, str, str]]:
    """The parked LLM batches of a folder. A corrupt one may not be UTF-8 JSON: its undecodable bytes
    (and NUL, which a PostgreSQL text cannot hold) become U+FFFD; a valid body is copied exactly."""
    out: list[tuple[str, str, str]] = []
    d = folder / PARKED_DIR
    if not d.is_dir():
        return out
    for path in sorted(d.glob("batch-*")):
        state = _PARKED_STATES.get(path.suffix)
        if state is None:
            continue
        text = path.read_bytes().decode("utf-8", "replace").replace("\x00", "\ufffd")
        out.append((path.stem[len("batch-") :], state, text))
    return out



class FileSide:
    """A workspace folder of the file backend."""

    def __init__(self, folder: Path, memory: MemoryConfig) -> None:
        self.folder = folder
        self.memory = memory

    def describe(self) -> str:
        return str(self.folder)

    def _log(self) -> Any:
        from knowledge_engine.store.messages import MessageLog

        return MessageLog(self.folder / MESSAGES_FILE, busy_timeout_ms=self.memory.busy_timeout_ms)

    @contextlib.contextmanager
    def messages(self) -> Iterator[MessageStore]:
        """The message log with every role kept (the copy keeps what the source kept)."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        log = self._log()
        try:
            yield log
        finally:
            log.close()

    def has_messages(self) -> bool:
        return (self.folder / MESSAGES_FILE).exists()

    def is_empty(self) -> bool:
        if not self.folder.exists():
            return True
        content = self.read()
        if any(t.records or t.tombstones or t.quarantined for t in content.tables.values()) or content.parked:
            return False
        if not self.has_messages():
            return True
        with self.messages() as log:
            return log.count() == 0

    def read(self) -> Content:
        out = Content()
        for kind in KINDS:
            doc = read_json_document(self.folder / f"{kind}.json", kind) or {}
            raws = doc.get(kind)
            good, bad = split_invalid(kind, raws if isinstance(raws, list) else [])
            kept = doc.get("quarantined")
            tombs = doc.get("tombstones")
            meta = doc.get("meta")
            out.tables[kind] = TableData(
                records=good,
                tombstones=dict(tombs) if isinstance(tombs, dict) else {},
                meta=dict(meta) if isinstance(meta, dict) else {},
                quarantined=[*(kept if isinstance(kept, list) else []), *bad],
            )
        facts_meta = out.tables["facts"].meta
        applied = facts_meta.pop(APPLIED_KEY, [])
        out.applied = [str(k) for k in applied] if isinstance(applied, list) else []
        mirror = facts_meta.pop(META_KEY, {})
        out.runs = {**(mirror if isinstance(mirror, dict) else {}), **read_runs(self.folder)}
        out.parked = _read_parked(self.folder)
        return out

    def clear(self) -> None:
        """--force: the target's store files go before the copy is written (the folder's other files stay)."""
        names = [f"{k}.json" for k in KINDS] + [f"{k}.json.bak" for k in KINDS]
        names += [MESSAGES_FILE, MESSAGES_FILE + "-wal", MESSAGES_FILE + "-shm", f"maintenance/{RUNS_FILE}"]
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                (self.folder / name).unlink()
        for path in (self.folder / PARKED_DIR).glob("batch-*"):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def write(self, content: Content, advance: Advance) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for kind, t in content.tables.items():
            meta = dict(t.meta)
            if kind == "facts":
                meta[APPLIED_KEY] = content.applied
                if content.runs:
                    meta[META_KEY] = content.runs
            doc: dict[str, Any] = {
                "schema": SCHEMA_VERSION,
                "updated": datetime.now(UTC).isoformat(),
                "meta": meta,
                "tombstones": t.tombstones,
            }
            if t.quarantined:
                doc["quarantined"] = t.quarantined
            doc[kind] = t.records
            write_atomic(self.folder / f"{kind}.json", orjson.dumps(doc), backup=True)
            advance(len(t.records))
        if content.runs:
            d = self.folder / "maintenance"
            d.mkdir(mode=0o700, exist_ok=True)
            write_atomic(d / RUNS_FILE, orjson.dumps(content.runs, option=orjson.OPT_INDENT_2))
        if content.parked:
            d = self.folder / PARKED_DIR
            d.mkdir(mode=0o700, exist_ok=True)
            suffix = {state: ext for ext, state in _PARKED_STATES.items()}
            for key, state, body in content.parked:
                write_atomic(d / f"batch-{key}{suffix.get(state, '.json')}", body.encode())


# ---------------------------------------------------------------------------------------------- postgres

# every table holding an agent's rows: checked by is_empty, emptied in one transaction by clear
_AGENT_TABLES = (
    "ke_records",
    "ke_tombstones",
    "ke_meta",
    "ke_quarantine",
    "ke_applied",
    "ke_parked",
    "ke_messages",
)


class PgSide:
    """One agent in the shared PostgreSQL store."""

    def __init__(self, cfg: PostgresStorageConfig, agent: str, memory: MemoryConfig) -> None:
        self.cfg = cfg
        self.agent = agent
        self.memory = memory

    def describe(self) -> str:
        from knowledge_engine.store.postgres.connect import describe

        return f"{describe(self.cfg.url)} (agent {self.agent})"

    @contextlib.contextmanager
    def messages(self) -> Iterator[MessageStore]:
        from knowledge_engine.store.postgres.messages import PgMessageLog

        log: Any = PgMessageLog(self.cfg, self.agent)
        try:
            yield log
        finally:
            log.close()

    def has_messages(self) -> bool:
        return True

    def is_empty(self) -> bool:
        from knowledge_engine.store.postgres.connect import connection

        with connection(self.cfg) as conn:
            for table in _AGENT_TABLES:
                row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table} WHERE agent = %s)", (self.agent,))
                if (found := row.fetchone()) and found[0]:
                    return False
        return True

    def read(self) -> Content:
        from knowledge_engine.store.postgres.connect import connection

        out = Content()
        with connection(self.cfg) as conn:
            for kind in KINDS:
                t = out.tables[kind]
                rows = conn.execute(  # text, parsed by orjson: psycopg's json loader is several times slower
                    "SELECT body::text FROM ke_records WHERE agent = %s AND kind = %s ORDER BY seq",
                    (self.agent, kind),
                ).fetchall()
                t.records, bad = split_invalid(kind, [orjson.loads(r[0]) for r in rows])
                tombs = conn.execute(
                    "SELECT id, deleted_at FROM ke_tombstones WHERE agent = %s AND kind = %s ORDER BY seq",
                    (self.agent, kind),
                ).fetchall()
                t.tombstones = {rid: ts.astimezone(UTC).isoformat() for rid, ts in tombs}
                meta = conn.execute(
                    "SELECT key, value FROM ke_meta WHERE agent = %s AND kind = %s ORDER BY key",
                    (self.agent, kind),
                ).fetchall()
                t.meta = {k: v for k, v in meta}
                kept = conn.execute(
                    "SELECT body FROM ke_quarantine WHERE agent = %s AND kind = %s ORDER BY digest",
                    (self.agent, kind),
                ).fetchall()
                t.quarantined = [r[0] for r in kept] + bad
            applied = conn.execute(
                "SELECT key FROM ke_applied WHERE agent = %s ORDER BY applied_at, key", (self.agent,)
            ).fetchall()
            out.applied = [r[0] for r in applied]
            parked = conn.execute(
                "SELECT id, state, body FROM ke_parked WHERE agent = %s ORDER BY id", (self.agent,)
            ).fetchall()
            out.parked = [(r[0], r[1], r[2]) for r in parked]
        out.tables["facts"].meta.pop(APPLIED_KEY, None)  # the keys live in ke_applied
        out.runs = read_shared_runs(self.cfg, self.agent)
        return out

    def clear(self) -> None:
        from knowledge_engine.store.postgres.connect import connection
        from knowledge_engine.store.postgres.table import lock_kind

        with connection(self.cfg) as conn, conn.transaction():
            for kind in KINDS:
                lock_kind(conn, self.agent, kind)  # record writers' order of change numbers (see table)
            for table in _AGENT_TABLES:
                conn.execute(f"DELETE FROM {table} WHERE agent = %s", (self.agent,))

    def write(self, content: Content, advance: Advance) -> None:
        """Everything but the messages in one transaction: another node sees all of it or nothing."""
        from psycopg.types.json import Jsonb

        from knowledge_engine.store.postgres.connect import connection
        from knowledge_engine.store.postgres.table import lock_kind

        a = self.agent
        with connection(self.cfg) as conn, conn.transaction(), conn.cursor() as cur:
            for kind, t in content.tables.items():
                lock_kind(conn, a, kind)  # record writers' order of change numbers (see table)
                with cur.copy("COPY ke_records (agent, kind, id, body, updated_at) FROM STDIN") as copy:
                    for body in t.records:
                        # orjson text: a jsonb column takes it, at a fraction of json.dumps' cost
                        copy.write_row((a, kind, body["id"], orjson.dumps(body).decode(), _updated_at(body)))
                advance(len(t.records))
                cur.executemany(
                    "INSERT INTO ke_tombstones (agent, kind, id, deleted_at) VALUES (%s, %s, %s, %s)",
                    [(a, kind, rid, datetime.fromisoformat(ts)) for rid, ts in t.tombstones.items()],
                )
                cur.executemany(
                    "INSERT INTO ke_meta (agent, kind, key, value) VALUES (%s, %s, %s, %s)",
                    [(a, kind, k, Jsonb(v)) for k, v in t.meta.items()],
                )
                cur.executemany(
                    "INSERT INTO ke_quarantine (agent, kind, body) VALUES (%s, %s, %s)"
                    " ON CONFLICT DO NOTHING",
                    [(a, kind, Jsonb(raw)) for raw in t.quarantined],
                )
            base = datetime.now(UTC) - timedelta(microseconds=len(content.applied))
            cur.executemany(  # applied_at keeps the keys' order (the newest window is what a node loads)
                "INSERT INTO ke_applied (agent, key, applied_at) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(a, key, base + timedelta(microseconds=i)) for i, key in enumerate(content.applied)],
            )
            cur.executemany(
                "INSERT INTO ke_meta (agent, kind, key, value) VALUES (%s, %s, %s, %s)",
                [(a, RUNS_KIND, job, Jsonb(rec)) for job, rec in content.runs.items()],
            )
            cur.executemany(  # unclaimed: any node of the target sends them
                "INSERT INTO ke_parked (agent, id, state, body) VALUES (%s, %s, %s, %s)",
                [(a, key, state, body) for key, state, body in content.parked],
            )


# ---------------------------------------------------------------------------------------------- the copy

Side = FileSide | PgSide


@dataclass
class Summary:
    source: str
    target: str
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "counts": self.counts}


def count_work(source: Side) -> tuple[Content, int]:
    """The source's content and how many records and messages the copy moves (for progress)."""
    content = source.read()
    n = sum(len(t.records) for t in content.tables.values())
    if source.has_messages():
        with source.messages() as log:
            n += log.count()
    return content, n


def copy(
    source: Side, target: Side, force: bool, advance: Advance, content: Content | None = None
) -> Summary:
    """Copy `source` into `target`; refuses a target that holds anything unless `force` (then it is
    replaced, so running the same copy again gives the same target)."""
    if not target.is_empty():
        if not force:
            raise TransferError(
                f"the target {target.describe()} is not empty; give --force to replace what it holds"
            )
        target.clear()
    content = content or source.read()
    target.write(content, advance)
    counts = content.counts()
    counts["messages"] = _copy_messages(source, target, advance) if source.has_messages() else 0
    return Summary(source.describe(), target.describe(), counts)


def _copy_messages(source: Side, target: Side, advance: Advance) -> int:
    copied = 0
    with source.messages() as src, target.messages() as dst:
        batch: list[Message] = []
        for msg in src.iter():
            batch.append(msg)
            if len(batch) >= MESSAGE_BATCH:
                copied += _flush(dst, batch, advance)
        copied += _flush(dst, batch, advance)
    return copied


def _flush(dst: MessageStore, batch: list[Message], advance: Advance) -> int:
    if not batch:
        return 0
    n = len(batch)
    dst.append_many(list(batch))
    batch.clear()
    advance(n)
    return n
