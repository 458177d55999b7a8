"""Incremental, crash-safe sync of a workspace's facts and messages into its Chroma index.

The source of truth for "what is already indexed" is the Chroma metadata itself
(`content_hash`, `synced_at` on every record), so the index can never disagree with its
own bookkeeping: a crash between two batches leaves exactly the written records marked,
and the next run embeds only the rest. Upserts are idempotent. A small state file in the
workspace keeps the last run's summary for `stats` without touching Chroma.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from knowledge_engine.fsio import write_atomic
from knowledge_engine.index.chroma import Metadata
from knowledge_engine.index.embed_text import ContextSpec, SessionWindow, batch_texts, in_log_order
from knowledge_engine.index.vector_index import VectorIndex, open_vector_index
from knowledge_engine.model.records import Fact, Message
from knowledge_engine.observe import counters, emit

if TYPE_CHECKING:
    from knowledge_engine.store.message_common import MessageLogContract
    from knowledge_engine.store.workspace import Workspace

STATE_FILE = "chroma-sync.json"
HASHES_FILE = "chroma-sync-hashes.json"
DEFAULT_CHUNK = 1000
Progress = Callable[[int, int], None]


@dataclass
class SyncReport:
    embedded: int = 0
    upserted: int = 0
    deleted: int = 0
    unchanged: int = 0
    skipped: int = 0
    duration_ms: float = 0.0
    per_kind: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Doc:
    id: str
    text: str
    meta: Metadata
    text_hash: str
    content_hash: str


@dataclass
class _Plan:
    embed: list[_Doc]
    meta_only: list[_Doc]
    delete: list[str]
    unchanged: int
    skipped: int = 0
    all_docs: list[_Doc] = field(default_factory=list)


def _epoch(dt: datetime | None) -> float | None:
    if dt is None:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return round(dt.timestamp(), 3)


def fact_metadata(fact: Fact) -> Metadata:
    return {
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "subject_id": fact.subject_id,
        "object_id": fact.object_id,
        "source": fact.source,
        "valid": fact.is_valid,
        "valid_at": _epoch(fact.valid_at),
        "invalid_at": _epoch(fact.invalid_at),
        "superseded_by": fact.superseded_by,
        "relevance": round(fact.relevance, 2),  # rounded so slow decay does not rewrite every fact
        "confidence": round(fact.confidence, 2),
    }


def message_metadata(msg: Message) -> Metadata:
    return {
        "session": msg.session,
        "role": msg.role,
        "speaker": msg.speaker,
        "timestamp": _epoch(msg.timestamp),
    }


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _doc(rid: str, text: str, meta: Metadata, model_id: str) -> _Doc:
    text_hash = _hash(f"{model_id}\x1f{text}".encode())
    meta_hash = _hash(orjson.dumps(meta, option=orjson.OPT_SORT_KEYS))
    return _Doc(rid, text, meta, text_hash, f"{text_hash}:{meta_hash}")


def _docs(
    kind: str,
    records: Iterable[Fact] | Iterable[Message],
    model_id: str,
    text_of: Callable[[Message], str] | None = None,
) -> tuple[list[_Doc], int]:
    """Index documents of the records, and how many were skipped (empty text, wrong type).
    `text_of`: what a message is embedded as (embed_text.py), by default its text."""
    out: dict[str, _Doc] = {}
    skipped = 0
    for rec in records:
        if isinstance(rec, Fact):
            text, meta = rec.text(), fact_metadata(rec)
        elif isinstance(rec, Message):
            text, meta = rec.text, message_metadata(rec)
        else:
            counters.inc(f"sync.{kind}.bad_record")
            skipped += 1
            continue
        if not text.strip():
            counters.inc(f"sync.{kind}.empty_text")
            skipped += 1
            continue
        if text_of is not None and isinstance(rec, Message):
            text = text_of(rec)
        out[rec.id] = _doc(rec.id, text, meta, model_id)  # a repeated id keeps its latest version
    return list(out.values()), skipped


def _message_docs(index: VectorIndex, messages: Iterable[Message]) -> tuple[list[_Doc], int]:
    """Documents of the whole log, passed in time order, each message composed with its earlier turns."""
    spec = ContextSpec.of(index.config.embeddings)
    text_of = None if spec.plain else SessionWindow(spec)
    return _docs("messages", in_log_order(messages, spec), index.embedder.model_id, text_of)


def _plan(docs_skipped: tuple[list[_Doc], int], stored: dict[str, str]) -> _Plan:
    docs, skipped = docs_skipped
    plan = _Plan([], [], [], 0, skipped, docs)
    for d in docs:
        old = stored.get(d.id)
        if old == d.content_hash:
            plan.unchanged += 1
        elif old is not None and old.split(":", 1)[0] == d.text_hash:
            plan.meta_only.append(d)
        else:
            plan.embed.append(d)
    current = {d.id for d in docs}
    plan.delete = [rid for rid in stored if rid not in current]
    return plan


def _full_meta(d: _Doc, now: float) -> Metadata:
    return {**d.meta, "content_hash": d.content_hash, "synced_at": now}


class _Tracker:
    def __init__(self, total: int, progress: Progress | None) -> None:
        self.done, self.total, self.progress = 0, total, progress

    def step(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done, self.total)


def _apply(index: VectorIndex, kind: str, plan: _Plan, tracker: _Tracker, chunk_size: int | None) -> None:
    """Deletes first, then metadata-only updates, then embed+upsert chunk by chunk (each chunk is durable)."""
    if plan.delete:
        index.delete(kind, plan.delete)
        tracker.step(len(plan.delete))
    size = min(index.max_batch(), chunk_size or DEFAULT_CHUNK)
    for s in range(0, len(plan.meta_only), size):
        chunk = plan.meta_only[s : s + size]
        index.update_metadata(kind, [d.id for d in chunk], [_full_meta(d, time.time()) for d in chunk])
        tracker.step(len(chunk))
    _embed_upsert(index, kind, plan.embed, size, tracker.step)


def _embed_upsert(
    index: VectorIndex, kind: str, docs: list[_Doc], size: int, step: Callable[[int], None] | None = None
) -> None:
    """Embed and upsert `docs` `size` at a time; each chunk is durable once written."""
    for s in range(0, len(docs), size):
        chunk = docs[s : s + size]
        vectors = index.embedder.embed([d.text for d in chunk])
        now = time.time()
        index.upsert(kind, [d.id for d in chunk], vectors, [_full_meta(d, now) for d in chunk])
        if step is not None:
            step(len(chunk))


def index_messages(index: VectorIndex, messages: Iterable[Message], log: MessageLogContract) -> int:
    """Embed and upsert these messages as a sync would (the same metadata, embedded text and content
    hash), so the next sync finds them unchanged; `log` gives their earlier turns (embeddings.
    contextTurns). The caller holds `index.lock`. Returns how many were written."""
    batch = [m for m in messages if isinstance(m, Message)]
    spec = ContextSpec.of(index.config.embeddings)
    texts = {} if spec.plain else batch_texts(batch, spec, log)
    docs, _ = _docs("messages", batch, index.embedder.model_id, (lambda m: texts[m.id]) if texts else None)
    _embed_upsert(index, "messages", docs, min(index.max_batch(), DEFAULT_CHUNK))
    return len(docs)


def index_facts(index: VectorIndex, facts: Iterable[Fact], gone: Iterable[str] = ()) -> int:
    """Write these facts as a sync would (the same text, metadata and content hash) and delete the
    `gone` ids, so an operator's edit is found by meaning at once and the next sync finds these
    records unchanged. The caller holds `index.lock`. Returns how many were written."""
    gone = list(gone)
    if gone:
        index.delete("facts", gone)
    docs, _ = _docs("facts", facts, index.embedder.model_id)
    _embed_upsert(index, "facts", docs, min(index.max_batch(), DEFAULT_CHUNK))
    _note_hashes(index, "facts", docs, gone)
    return len(docs)


def _note_hashes(index: VectorIndex, kind: str, docs: list[_Doc], gone: list[str]) -> None:
    """Keep a valid hash cache valid after writes outside a sync (else the next sync, trusting it,
    would update these records again)."""
    if index.shared:
        return
    path = Path(index.workspace) / HASHES_FILE
    data = _read_json(path)
    hashes = _cached_hashes(index, kind, data.get(kind))
    if hashes is None:
        return
    added = sum(1 for d in docs if d.id not in hashes)
    removed = sum(1 for g in gone if g in hashes)
    if len(hashes) + added - removed != index.count(kind):
        return  # it was stale already (or someone else wrote meanwhile): the count check rejects it
    hashes.update({d.id: d.content_hash for d in docs})
    for g in gone:
        hashes.pop(g, None)
    _atomic_write(path, orjson.dumps(data))


def sync(
    index: VectorIndex,
    facts: Iterable[Fact],
    messages: Iterable[Message],
    progress: Progress | None = None,
    chunk_size: int | None = None,
) -> SyncReport:
    """Bring the index in line with the store: embed new/changed, update metadata, delete the gone.

    Records are embedded and upserted `chunk_size` at a time (default 1000, Chroma's fastest
    upsert size here); each chunk is durable, so an interrupted sync loses at most one chunk.
    """
    start = time.perf_counter()
    report = SyncReport()
    model_id = index.embedder.model_id
    with index.lock:
        plans = {
            "facts": _plan(_docs("facts", facts, model_id), _stored(index, "facts")),
            "messages": _plan(_message_docs(index, messages), _stored(index, "messages")),
        }
        total = sum(len(p.embed) + len(p.meta_only) + len(p.delete) for p in plans.values())
        tracker = _Tracker(total, progress)
        if progress is not None:
            progress(0, total)
        for kind, plan in plans.items():
            _apply(index, kind, plan, tracker, chunk_size)
            report.per_kind[kind] = {
                "embedded": len(plan.embed),
                "updated": len(plan.meta_only),
                "deleted": len(plan.delete),
                "unchanged": plan.unchanged,
            }
            report.embedded += len(plan.embed)
            report.upserted += len(plan.embed) + len(plan.meta_only)
            report.deleted += len(plan.delete)
            report.unchanged += plan.unchanged
            report.skipped += plan.skipped
        _save_hashes(index, plans)
    report.duration_ms = round((time.perf_counter() - start) * 1000, 1)
    _write_state(index, report)
    emit(
        "chroma_sync",
        embedded=report.embedded,
        upserted=report.upserted,
        deleted=report.deleted,
        unchanged=report.unchanged,
        duration_ms=report.duration_ms,
    )
    return report


def status(index: VectorIndex, facts: Iterable[Fact], messages: Iterable[Message]) -> dict[str, Any]:
    """{synced, pending, facts: {...}, messages: {...}, last_sync} for `stats --json`; embeds nothing."""
    model_id = index.embedder.model_id
    out: dict[str, Any] = {"synced": 0, "pending": 0}
    docs = {"facts": _docs("facts", facts, model_id), "messages": _message_docs(index, messages)}
    for kind, kind_docs in docs.items():
        plan = _plan(kind_docs, _stored(index, kind))
        pending = len(plan.embed) + len(plan.meta_only) + len(plan.delete)
        # waiting: in the store, not (or not as it is now) in Chroma; stale: in Chroma only
        waiting = len(plan.embed) + len(plan.meta_only)
        out[kind] = {
            "synced": plan.unchanged,
            "pending": pending,
            "waiting": waiting,
            "stale": len(plan.delete),
        }
        out["synced"] += plan.unchanged
        out["pending"] += pending
    out["last_sync"] = read_state(index.workspace).get("last_sync")
    out["model"] = model_id
    return out


def workspace_status(ws: Workspace) -> dict[str, Any]:
    """A workspace's records not yet in its vector index (opens it, makes no collection, embeds nothing).

    Here, not in the CLI, because `validate` asks it too, and a lower module does not import the CLI.
    """
    from knowledge_engine.index.embeddings import make_embedder

    embedder = make_embedder(ws.config.embeddings)
    index = open_vector_index(ws.folder, ws.agent_id, ws.config, embedder, create=False)
    msgs = ws.messages.iter() if ws.has_message_log else iter(())
    return status(index, ws.facts.all(), msgs)


def rebuild(
    index: VectorIndex, facts: Iterable[Fact], messages: Iterable[Message], progress: Progress | None = None
) -> SyncReport:
    """Drop both collections (also after a model change) and embed everything again."""
    index.reset()
    return sync(index, facts, messages, progress)


def delete_facts(index: VectorIndex, ids: Iterable[str]) -> int:
    return index.delete_facts(ids)


def delete_messages(index: VectorIndex, ids: Iterable[str]) -> int:
    return index.delete_messages(ids)


def _stored(index: VectorIndex, kind: str) -> dict[str, str]:
    """Hashes from the local cache when it provably describes this collection, else read from Chroma.

    The cache is written only after a complete sync and is trusted only if the collection id
    (new after a rebuild) and the record count still match. After a crash the cache can only be
    older than Chroma, which costs redundant re-embedding, never a missed update.
    """
    if index.shared:  # other nodes write it too: a local cache could miss their writes
        return index.stored_hashes(kind)
    hashes = _cached_hashes(index, kind, _read_json(Path(index.workspace) / HASHES_FILE).get(kind))
    if hashes is not None and len(hashes) == index.count(kind):
        counters.inc("sync.hash_cache_hit")
        return {str(k): str(v) for k, v in hashes.items()}
    counters.inc("sync.hash_cache_miss")
    return index.stored_hashes(kind)


def _cached_hashes(index: VectorIndex, kind: str, entry: Any) -> dict[str, Any] | None:
    """The cache entry's hashes when it was written for this collection (its id is new after a
    rebuild) and model; the caller checks the record count."""
    if (
        isinstance(entry, dict)
        and entry.get("collection_id") == str(index.collection(kind).id)
        and entry.get("model") == index.embedder.model_id
        and isinstance(entry.get("hashes"), dict)
    ):
        return entry["hashes"]
    return None


def _save_hashes(index: VectorIndex, plans: dict[str, _Plan]) -> None:
    if index.shared:  # never read (see _stored)
        return
    out: dict[str, Any] = {}
    for kind, plan in plans.items():
        hashes = {d.id: d.content_hash for d in plan.all_docs}
        if len(hashes) != index.count(kind):  # someone else wrote meanwhile: let the next run read Chroma
            continue
        out[kind] = {
            "collection_id": str(index.collection(kind).id),
            "model": index.embedder.model_id,
            "hashes": hashes,
        }
    _atomic_write(Path(index.workspace) / HASHES_FILE, orjson.dumps(out))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = orjson.loads(path.read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data, durable=False)  # a cache and a summary: losing them costs a re-read of Chroma


def read_state(workspace: Path) -> dict[str, Any]:
    """The last sync's summary (model, counts, report) without touching Chroma."""
    return _read_json(Path(workspace) / STATE_FILE)


def _write_state(index: VectorIndex, report: SyncReport) -> None:
    """Atomic replace so a crash never leaves a torn file; the file is a summary, not the source of truth."""
    state = {
        "model": index.embedder.model_id,
        "dimensions": index.embedder.dimensions,
        "server": bool(index.config.chroma.url),
        "last_sync": datetime.now(UTC).isoformat(),
        "counts": {"facts": index.count("facts"), "messages": index.count("messages")},
        "last_report": report.to_dict(),
    }
    _atomic_write(Path(index.workspace) / STATE_FILE, orjson.dumps(state, option=orjson.OPT_INDENT_2))
