"""The right to be forgotten: remove facts, entities, messages or sessions from every place they live.

A workspace keeps the same knowledge in several places: facts.json and entities.json (and their
last-good `.bak` copies), the SQLite message log (with its FTS index and WAL), the Chroma
collections (metadata rows, and Chroma's own write-ahead queue `embeddings_queue`, which keeps
every upsert's metadata until Chroma purges it) and parked LLM batches. `forget` plans what goes,
then removes it from each, rewrites the backups, vacuums the SQLite files so freed pages do not keep
the text, and reports any file that still contains a forgotten name so nothing is silently left.

What cannot be scrubbed by bytes: Chroma's HNSW files keep the *vectors* of deleted records
(marked deleted, never the text) until Chroma compacts them; a Chroma *server* keeps its own log.

On the shared store (`storage.backend = postgres`) the records, messages and vectors are rows: they
are deleted, the deletion markers named after a forgotten entity are dropped, and the tables are
rewritten with VACUUM FULL (see pgstore for what plain VACUUM would leave); the final check asks the
database whether any row of the agent still names a term, beside the scan of the local folder.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from knowledge_engine.ingest.redact import MIN_TERM as _MIN_TERM
from knowledge_engine.ingest.redact import REDACTED, Tally, term_pattern
from knowledge_engine.maintenance.locks import store_jobs_lock
from knowledge_engine.model.records import Entity, Message, utcnow
from knowledge_engine.observe import emit
from knowledge_engine.store.backend import is_shared
from knowledge_engine.store.workspace import Workspace

__all__ = ["REDACTED", "term_pattern"]
_CHROMA_DELETE_OP = 3  # embeddings_queue.operation of a delete (chromadb Operation.DELETE)


@dataclass
class ForgetPlan:
    """What a forget removes; `terms` are the names whose bytes must leave the workspace."""

    facts: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    messages_delete: list[str] = field(default_factory=list)
    messages_redact: list[str] = field(default_factory=list)
    aliases_removed: dict[str, list[str]] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)
    delete_matching: bool = False  # messages naming the terms are deleted, not redacted
    session: str | None = None  # a session forget: its messages, also those still pending

    def message_ids(self) -> list[str]:
        """Messages forgotten by id (not found by the terms)."""
        return [] if self.terms else list(self.messages_delete)

    @property
    def empty(self) -> bool:
        return not (
            self.facts
            or self.entities
            or self.messages_delete
            or self.messages_redact
            or self.aliases_removed
        )

    def summary(self) -> dict[str, int]:
        return {
            "facts": len(self.facts),
            "entities": len(self.entities),
            "messages_deleted": len(self.messages_delete),
            "messages_redacted": len(self.messages_redact),
            "aliases_removed": sum(len(v) for v in self.aliases_removed.values()),
        }

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("terms", "delete_matching", "session"):  # the names stay out of reports and logs
            data.pop(key)
        return data


@dataclass
class ForgetReport:
    plan: dict[str, int]
    chroma_deleted: int = 0
    chroma_scrubbed: int = 0
    files_removed: list[str] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)  # files that still contain a forgotten name
    chroma_rebuilt: int = 0  # vectors rewritten because Chroma's segment files held a forgotten name
    wal_truncated: bool = True
    # who applied the forget to pending work (journal, queue, spill, LLM inbox and batches): "this process"
    # (no host owned it), "host" (the owning host acknowledged), "host_timeout" / "host_failed" (it did
    # not, or answered that it could not: not final)
    pending_by: str = "this process"
    pending: Tally = field(default_factory=Tally)
    vacuumed: list[str] = field(default_factory=list)  # shared store: tables rewritten by VACUUM FULL

    @property
    def final(self) -> bool:
        """True only when nothing forgotten remains and nothing pending can bring it back."""
        return self.pending_by in ("this process", "host") and not self.remaining


class ForgetError(ValueError):
    """The thing to forget does not exist or the request is ambiguous."""


# ---------------------------------------------------------------------------------------------- planning


def plan_fact(ws: Workspace, fid: str) -> ForgetPlan:
    if ws.facts.get(fid) is None:
        raise ForgetError(f"no fact {fid!r}")
    return ForgetPlan(facts=[fid])


def find_entity(ws: Workspace, name_or_id: str) -> Entity:
    ent = ws.entities.get(name_or_id) or ws.entities.resolve(name_or_id)
    if ent is None:
        raise ForgetError(f"no entity {name_or_id!r}")
    return ent


def plan_entity(
    ws: Workspace, name_or_id: str, delete_messages: bool = False, also: Iterable[str] = ()
) -> ForgetPlan:
    """The entity, every fact naming it, entities named after it, and the messages mentioning it.

    `also` adds names the store does not know as aliases (a first name, a nickname): they are
    matched like aliases, so entities, facts and messages using them go too.
    """
    ent = find_entity(ws, name_or_id)
    plan = plan_terms(ws, [ent.id], [ent.value, *ent.aliases, *also])
    plan.delete_matching = delete_messages
    pat = term_pattern(plan.terms)
    if pat is not None and ws.has_message_log:
        _plan_messages(ws, pat, plan.terms, delete_messages, plan)
    return plan


def plan_terms(ws: Workspace, entity_ids: Iterable[str], terms: list[str]) -> ForgetPlan:
    """The entities and facts of a forget by name (no messages): the given entities, entities named
    after the terms, aliases that use them, and every fact naming any of them."""
    pat = term_pattern(terms)
    plan = ForgetPlan(entities=list(dict.fromkeys(entity_ids)), terms=terms)
    for other in ws.entities.all():
        if other.id in plan.entities or pat is None:
            continue
        if pat.search(other.value):
            plan.entities.append(other.id)
        elif hits := [a for a in other.aliases if pat.search(a)]:
            plan.aliases_removed[other.id] = hits
    ids = set(plan.entities)
    for f in ws.facts.all():
        if ids & {f.subject_id, f.object_id} or (pat and (pat.search(f.subject) or pat.search(f.object))):
            plan.facts.append(f.id)
    return plan


def replan_messages(ws: Workspace, plan: ForgetPlan) -> None:
    """Plan the message log again just before applying: a host may have logged more meanwhile."""
    if not ws.has_message_log:
        return
    pat = term_pattern(plan.terms)
    if pat is not None:
        plan.messages_delete, plan.messages_redact = [], []
        _plan_messages(ws, pat, plan.terms, plan.delete_matching, plan)
    elif plan.session is not None:
        plan.messages_delete = [m.id for m in ws.messages.iter(session=plan.session)]


def _plan_messages(
    ws: Workspace, pat: re.Pattern[str], terms: list[str], delete: bool, plan: ForgetPlan
) -> None:
    """Messages whose text names the entity are redacted (or deleted); a message *spoken by* it is deleted,
    because the log's speaker column cannot be rewritten through the store API."""
    speakers = {t.strip().lower() for t in terms}
    for msg in ws.messages.iter():
        by_them = (msg.speaker or "").strip().lower() in speakers
        if by_them or (delete and pat.search(msg.text)):
            plan.messages_delete.append(msg.id)
        elif pat.search(msg.text):
            plan.messages_redact.append(msg.id)


def plan_messages(ws: Workspace, ids: list[str]) -> ForgetPlan:
    found = [m.id for m in ws.messages.get_many(ids)] if ws.has_message_log else []
    missing = sorted(set(ids) - set(found))
    if missing:
        raise ForgetError(f"no message {missing[0]!r}")
    return ForgetPlan(messages_delete=found)


def plan_session(ws: Workspace, session: str) -> ForgetPlan:
    """A session's messages, and facts whose only evidence is that session."""
    msgs = [m.id for m in ws.messages.iter(session=session)] if ws.has_message_log else []
    facts = [f.id for f in ws.facts.all() if f.evidence and all(e.session == session for e in f.evidence)]
    if not msgs and not facts:
        raise ForgetError(f"no messages or facts of session {session!r}")
    return ForgetPlan(facts=facts, messages_delete=msgs, session=session)


def session_facts(ws: Workspace, session: str) -> list[str]:
    return [f.id for f in ws.facts.all() if f.evidence and all(e.session == session for e in f.evidence)]


def plan_filter(ws: Workspace, facts: Iterable[str], messages: Iterable[Message] = ()) -> ForgetPlan:
    return ForgetPlan(facts=list(facts), messages_delete=[m.id for m in messages])


# ---------------------------------------------------------------------------------------------- applying


def apply(ws: Workspace, plan: ForgetPlan, stores_done: Callable[[], None] | None = None) -> ForgetReport:
    """Remove everything in the plan from every store and index, then make it physical.

    `stores_done` runs once the stores and the message log hold nothing forgotten (the caller then
    releases the workspace's pending work it held, so a host can start while Chroma is cleaned).
    """
    replan_messages(ws, plan)
    report = ForgetReport(plan=plan.summary())
    shared = is_shared(ws.config.storage)
    with store_jobs_held(ws):
        _remove_from_stores(ws, plan)
        if shared:
            _write_shared(ws, plan)
        else:
            _rewrite_json(ws, plan)
    deleted_msgs = (
        plan.messages_delete + plan.messages_redact
    )  # redacted ones are re-embedded by the next sync
    report.chroma_deleted, report.chroma_scrubbed = forget_in_chroma(
        ws, plan.facts, deleted_msgs, plan.entities
    )
    if ws.has_message_log and (plan.messages_delete or plan.messages_redact):
        report.wal_truncated = ws.messages.vacuum()
    if shared:
        report.chroma_deleted += _forget_shared_rows(ws, plan, deleted_msgs, report)
    if stores_done is not None:
        stores_done()
    report.files_removed = _remove_stale_copies(ws, plan.terms)
    report.remaining = scan(ws.folder, plan.terms)
    if shared:
        from knowledge_engine.forget import pgstore

        report.remaining += pgstore.remaining(ws.config.storage.postgres, ws.agent_id, plan.terms, _MIN_TERM)
    if any(_is_segment_file(p) for p in report.remaining) and not ws.config.chroma.url:
        report.chroma_rebuilt = rebuild_chroma_segments(ws)
        report.remaining = scan(ws.folder, plan.terms)
    emit(
        "forget",
        facts=len(plan.facts),
        entities=len(plan.entities),
        messages_deleted=len(plan.messages_delete),
        messages_redacted=len(plan.messages_redact),
        chroma_deleted=report.chroma_deleted,
        files_removed=len(report.files_removed),
        remaining=len(report.remaining),
    )
    return report


@contextlib.contextmanager
def store_jobs_held(ws: Workspace) -> Iterator[None]:
    """Hold the lock maintenance store jobs (decay, prune, compact) run under, in any process.

    Why: such a job refreshes, changes every record and writes; one that read the store before the
    forget would write the forgotten records back. Under this lock it runs before or after, never across.
    """
    timeout = ws.config.maintenance.lock_timeout_seconds
    with store_jobs_lock(ws.folder, ws.config.storage, ws.agent_id, timeout):
        yield


def _remove_from_stores(ws: Workspace, plan: ForgetPlan) -> None:
    ws.refresh()  # adopt what the host wrote since we loaded, so the rewrite keeps it
    gone = set(plan.facts)
    for fid in plan.facts:
        ws.facts.forget(fid)
    for f in ws.facts.all():  # history stays valid: a fact superseded by a forgotten one keeps its end date
        if f.superseded_by in gone:
            f.superseded_by = None
            f.updated_at = utcnow()
            ws.facts.table.put(f)
    for eid in plan.entities:
        if ws.entities.get(eid) is not None:  # a tombstone of an entity already gone would only keep its name
            ws.entities.table.delete(eid)
    pat = term_pattern(plan.terms)
    for eid, aliases in plan.aliases_removed.items():
        ent = ws.entities.get(eid)
        if ent is not None:
            ent.aliases = [a for a in ent.aliases if a not in aliases]
            ent.updated_at = utcnow()
            ws.entities.table.put(ent)
    ws.entities.reindex()
    _drop_quarantined(ws, plan, pat)
    if ws.has_message_log:
        if plan.messages_delete:
            ws.messages.delete(plan.messages_delete)
        if plan.messages_redact and pat is not None:
            ws.messages.redact(plan.messages_redact, lambda text: pat.sub(REDACTED, text))


def _drop_quarantined(ws: Workspace, plan: ForgetPlan, pat: re.Pattern[str] | None) -> None:
    """Quarantined records (kept verbatim because they failed validation) are forgotten like the rest."""
    ids = set(plan.facts) | set(plan.entities)

    def match(raw: Any) -> bool:
        if isinstance(raw, dict) and raw.get("id") in ids:
            return True
        return pat is not None and pat.search(orjson.dumps(raw).decode("utf-8", "replace")) is not None

    for table in (ws.facts.table, ws.entities.table):
        table.drop_quarantined(match)


def _rewrite_json(ws: Workspace, plan: ForgetPlan) -> None:
    """Write, then rewrite so the `.bak` copy (the last good file) holds no forgotten record either.

    A deleted record leaves a tombstone keyed by its id, so a process still holding it cannot write it
    back. An entity id is made from its name, so once the tombstone has been written (other processes
    adopt the deletion on their next write), it is dropped too and the file rewritten twice: no copy keeps
    the name. The cost: a host that had this entity *unflushed* in memory at that moment may write it back;
    the final scan then reports it (exit code 3) and running forget again removes it.
    """
    ws.flush()
    pat = term_pattern(plan.terms)
    table = ws.entities.table
    if pat is not None:
        with table.mutex:
            for eid in plan.entities:
                if pat.search(eid.replace("-", " ")) or pat.search(eid):
                    table.tombstones.pop(eid, None)
            table.meta_dirty = True
    for _ in range(2):
        ws.facts.table.flush(force=True)
        table.flush(force=True)


def _write_shared(ws: Workspace, plan: ForgetPlan) -> None:
    """The shared store's version of `_rewrite_json`: the deletions written (a database error raises,
    the forget is not reported done), then the deletion markers whose ids are made from a forgotten
    name dropped, here and in the database. As with the files, a node that had such an entity
    unflushed in memory may write it back: the final check then reports it and forget runs again."""
    from knowledge_engine.forget import pgstore

    ws.entities.table.flush()
    ws.facts.table.flush()
    pat = term_pattern(plan.terms)
    if pat is None:
        return
    table = ws.entities.table
    named = [eid for eid in plan.entities if pat.search(eid.replace("-", " ")) or pat.search(eid)]
    pgstore.drop_tombstones(ws.config.storage.postgres, ws.agent_id, "entities", named)
    with table.mutex:
        for eid in named:
            table.tombstones.pop(eid, None)


def _forget_shared_rows(ws: Workspace, plan: ForgetPlan, messages: list[str], report: ForgetReport) -> int:
    """Vectors of the forgotten records deleted, then the record tables rewritten (VACUUM FULL);
    returns the vector rows deleted."""
    from knowledge_engine.forget import pgstore
    from knowledge_engine.index.pgvector_index import forget_vectors

    pg = ws.config.storage.postgres
    deleted = forget_vectors(pg, ws.agent_id, plan.facts, messages, plan.entities)
    report.vacuumed = pgstore.vacuum_full(pg)
    return deleted


def _remove_stale_copies(ws: Workspace, terms: list[str]) -> list[str]:
    """Corrupt copies set aside, backups and temp files holding a forgotten name are removed.

    Pending work (the ingest journal and spill files, the LLM inbox and parked batches) is not
    touched here: forget_coord redacted it message by message, through the host that owns it.
    """
    if not terms:
        return []
    removed = []
    for path in scan(ws.folder, terms):
        p = ws.folder / path
        if ".corrupt-" in p.name or p.name.endswith((".bak", ".tmp")):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
            removed.append(path)
    return removed


def scan(folder: Path, terms: Iterable[str]) -> list[str]:
    """Workspace files (relative paths) that still hold any term, in UTF-8, any letter case.

    The engine's own JSON files are read as JSON: a term counts as a whole word in a key or a value, as
    the redaction matches it. Everything else (SQLite, Chroma's segment files) is searched as bytes, for
    the term inside anything, except inside the lower-case keys of JSON objects those files embed: the
    format's own words. Before, "Tom" was found in "tombstones" and Chroma's "automatically_purge", in
    every workspace, so forgetting a short name never ended final (exit 3 however often it ran)."""
    words = {t.strip() for t in terms if len(t.strip()) >= _MIN_TERM}
    whole = term_pattern(words)
    if whole is None:
        return []
    needles = {w.lower().encode() for w in words} | {w.encode() for w in words}
    hits = []
    for p in sorted(folder.rglob("*")):
        if not p.is_file():
            continue
        try:
            data = p.read_bytes()
        except OSError:
            continue
        strings = _json_strings(p, data)
        if any(whole.search(s) for s in strings) if strings is not None else _in_bytes(data, needles):
            hits.append(str(p.relative_to(folder)))
    return hits


_FORMAT_KEY = re.compile(rb'(?<=[{,])"[a-z_]+"(?=:)')  # {"automatically_purge": ..., "tombstones": ...


def _in_bytes(data: bytes, needles: set[bytes]) -> bool:
    masked = _FORMAT_KEY.sub(lambda m: b" " * len(m.group()), data)
    low = masked.lower()
    return any(n in masked or n in low for n in needles)


def _json_strings(path: Path, data: bytes) -> list[str] | None:
    """Every key and string value of a .json or .jsonl file; None when it is not one (read as bytes)."""
    if path.suffix not in (".json", ".jsonl"):
        return None
    try:
        docs = [orjson.loads(line) for line in data.splitlines() if line.strip()] if path.suffix == ".jsonl" \
            else [orjson.loads(data)]
    except orjson.JSONDecodeError:  # a torn or foreign file: every byte counts
        return None
    out: list[str] = []
    stack: list[Any] = docs
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


# ---------------------------------------------------------------------------------------------- Chroma


def forget_in_chroma(
    ws: Workspace, facts: list[str], messages: list[str], entities: list[str]
) -> tuple[int, int]:
    """Delete the records from every collection of this workspace, scrub Chroma's queue, vacuum its file.

    Only chromadb (no embedder) is loaded. Returns (records deleted, queue rows scrubbed).
    """
    cfg = ws.config
    embedded = ws.folder / "chroma"
    if not (facts or messages or entities) or (
        not cfg.chroma.url and not (embedded / "chroma.sqlite3").exists()
    ):
        return 0, 0
    from knowledge_engine.index.chroma import index_agent_key, index_owner, make_client

    client = make_client(ws.folder, cfg)
    deleted = 0
    key = index_agent_key(ws.folder, index_owner(client, ws.folder, ws.agent_id, cfg), cfg)
    for col in _collections(client, cfg.embeddings.collection_name, key, bool(cfg.chroma.url)):
        ids = facts if col.name.endswith("-facts") else messages
        if col.name.endswith("-facts") and entities:
            ids = list(dict.fromkeys([*ids, *_facts_naming(col, entities)]))
        for s in range(0, len(ids), 1000):
            chunk = ids[s : s + 1000]
            deleted += len(col.get(ids=chunk, include=[])["ids"])
            col.delete(ids=chunk)
    scrubbed = 0 if cfg.chroma.url else scrub_chroma_sqlite(embedded / "chroma.sqlite3", [*facts, *messages])
    return deleted, scrubbed


def _is_segment_file(rel: str) -> bool:
    parts = Path(rel).parts
    return len(parts) == 3 and parts[0] == "chroma" and parts[2] != "chroma.sqlite3"


def rebuild_chroma_segments(ws: Workspace) -> int:
    """Rewrite this workspace's embedded collections in a fresh process (see index.chroma_rebuild).

    Embedded Chroma fills unused slots of its HNSW files with whatever its process had in memory,
    which can be a forgotten name; the rewrite runs where that text never was. Returns the number
    of vectors rewritten (0 when it could not run: the caller's re-scan then still reports the file).
    """
    import subprocess
    import sys

    from chromadb.api.client import SharedSystemClient

    from knowledge_engine.index.chroma import make_client

    cfg = ws.config
    folder = ws.folder / "chroma"
    client = make_client(ws.folder, cfg)
    names = [c.name for c in _collections(client, cfg.embeddings.collection_name, "", server=False)]
    del client
    SharedSystemClient.clear_system_cache()  # this process's handles must not write the old files later
    if not names:
        return 0
    cmd = [sys.executable, "-m", "knowledge_engine.index.chroma_rebuild", str(folder), *names]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        emit("forget.chroma_rebuild_failed", exit_code=done.returncode)
        return 0
    rewritten = int((done.stdout.strip().splitlines() or ["0"])[-1])
    emit("forget.chroma_rebuilt", collections=len(names), vectors=rewritten)
    return rewritten


def _collections(client: Any, prefix: str, agent_id: str, server: bool) -> list[Any]:
    from knowledge_engine.index.chroma import collection_name

    if server:
        names = [collection_name(prefix, agent_id, k) for k in ("facts", "messages")]
    else:
        names = [c.name if hasattr(c, "name") else str(c) for c in client.list_collections()]
        names = [n for n in names if n.startswith(prefix + "-") and n.endswith(("-facts", "-messages"))]
    out = []
    for n in names:
        try:
            out.append(client.get_collection(n, embedding_function=None))
        except Exception:
            continue
    return out


def _facts_naming(col: Any, entities: list[str]) -> list[str]:
    """Indexed facts that still point at a forgotten entity (the store may have dropped them earlier)."""
    ids: list[str] = []
    for key in ("subject_id", "object_id"):
        res = col.get(where={key: {"$in": entities}}, include=[])
        ids.extend(res["ids"])
    return ids


def scrub_chroma_sqlite(db: Path, ids: list[str]) -> int:
    """Blank the queued upserts of deleted records, then VACUUM so freed pages keep no text.

    Chroma's `embeddings_queue` is its write-ahead log: each upsert row keeps the record's metadata
    (fact subject/object, message speaker) until Chroma purges the log. The later delete row for the
    same id stays, so replaying the log still ends with the record deleted; blanking the upsert's
    metadata and vector changes no outcome. Then VACUUM rebuilds the file without the freed pages.
    """
    if not ids or not db.exists():
        return 0
    conn = sqlite3.connect(db, timeout=30, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 30000")
        n = 0
        conn.execute("BEGIN IMMEDIATE")
        for s in range(0, len(ids), 500):
            chunk = ids[s : s + 500]
            marks = ",".join("?" * len(chunk))
            n += conn.execute(
                f"UPDATE embeddings_queue SET metadata = '{{}}', vector = zeroblob(length(vector))"
                f" WHERE operation != ? AND id IN ({marks})",
                [_CHROMA_DELETE_OP, *chunk],
            ).rowcount
        conn.execute("COMMIT")
        conn.execute("VACUUM")
        with contextlib.suppress(sqlite3.Error):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return n
    except sqlite3.Error as exc:
        emit("forget.chroma_scrub_failed", error=type(exc).__name__)
        return 0
    finally:
        conn.close()
