"""What `stats` reports, gathered in one place so the CLI and tests agree.

`stats` reads the store files as plain JSON (orjson, no record validation) and the message log
with SQL counts: at 100k facts that is a fraction of a second, where building every record
would take seconds. It never opens Chroma or loads an embedder unless asked (`--index`).

On the shared store (`storage.backend = postgres`) the same figures come from SQL counts over the
agent's rows (grouped in the database, no record built), and the run records from every node.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

import orjson

from knowledge_engine.cli.common import nested_hint
from knowledge_engine.extract.inbox import INBOX_NAME
from knowledge_engine.store.messages import MESSAGES_FILE
from knowledge_engine.store.workspace import Workspace

SYNC_STATE_FILE = "chroma-sync.json"  # written by knowledge_engine.index.sync
NO_SYNC_NOTE = (
    "no full sync yet (maintenance, or `knowledge-engine sync`); a running host indexes new records "
    "as they come: `stats --index` counts what the index holds"
)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _records(folder: Path, name: str, key: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Raw records and header (meta, quarantined) of a store file (the backup when the file is
    unreadable, like the store; a file that is not the engine's raises StoreUnreadableError)."""
    from knowledge_engine.store.persistence import read_json_document

    doc = read_json_document(folder / name, key) or {}
    items = doc.get(key)
    return ([r for r in items if isinstance(r, dict)] if isinstance(items, list) else []), doc


def _meta(head: dict[str, Any]) -> dict[str, Any]:
    meta = head.get("meta")
    return meta if isinstance(meta, dict) else {}


def _quarantined(head: dict[str, Any]) -> int:
    """Records the store keeps aside because they failed validation (see validate)."""
    kept = head.get("quarantined")
    return len(kept) if isinstance(kept, list) else 0


def _maintenance_runs(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """The last run of each maintenance job: the live record file, else its mirror in the facts meta;
    a run a dead process left unfinished (its marker, no lock holder) shows as "interrupted"."""
    mirror = meta.get("maintenance_runs", {})
    last = dict(mirror) if isinstance(mirror, dict) else {}
    try:
        from knowledge_engine.maintenance.runs import interrupted_runs, read_runs
    except ImportError:
        return last
    last |= read_runs(folder)
    return {**last, **interrupted_runs(folder, last)}


def _sync_state(folder: Path) -> dict[str, Any]:
    try:
        state = orjson.loads((folder / SYNC_STATE_FILE).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return state if isinstance(state, dict) else {}


_FACT_TIER = re.compile(rb'"source":"([a-z_]+)"')
_ENTITY_TYPE = re.compile(rb'"type":"([a-z_]+)"')
_RECORDS_AT = {"facts.json": b',"facts":[', "entities.json": b',"entities":['}


def _quick_scan(
    path: Path, pattern: re.Pattern[bytes], default: str
) -> tuple[Counter[str], int, dict[str, Any]] | None:
    """Counts straight from the bytes the store writes (compact JSON, header first), without parsing
    100k records: (records per value of `pattern`, records with a set "invalid_at", header meta).
    Older files omit default-valued fields, so records without the key count under `default`.
    None when the file does not look like the store's own output: the caller then parses it.

    Sound because inside a JSON string every quote is escaped, so `"source":"` can only be a key, and
    every record (only records: evidence has `message_id`) starts with `{"id":"`.
    """
    if path.is_symlink():
        return None  # the careful path refuses it with a clear error
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    cut = raw.find(_RECORDS_AT[path.name])
    if not raw.startswith(b'{"schema":') or cut < 0 or not raw.endswith(b"]}"):
        return None
    try:
        head = orjson.loads(raw[:cut] + b"}")
    except orjson.JSONDecodeError:
        return None
    if not isinstance(head, dict) or head.get("schema") != 1:
        return None  # another schema: the careful path refuses it with a clear error
    body = raw[cut:]
    total = body.count(b'{"id":"')
    counts = Counter(m.decode() for m in pattern.findall(body))
    if total < sum(counts.values()):
        return None
    if total > sum(counts.values()):
        counts[default] += total - sum(counts.values())
    return counts, body.count(b'"invalid_at":"'), head


def _default(field: str) -> str:
    from knowledge_engine.model.records import Fact

    return str(Fact.model_fields[field].default)


def _entity_counts(folder: Path) -> tuple[dict[str, int], int]:
    quick = _quick_scan(folder / "entities.json", _ENTITY_TYPE, "unknown")
    if quick is not None:
        return dict(quick[0]), _quarantined(quick[2])
    ents, head = _records(folder, "entities.json", "entities")
    return dict(Counter(str(e.get("type")) for e in ents)), _quarantined(head)


def _fact_counts(folder: Path) -> tuple[dict[str, int], int, dict[str, Any]]:
    quick = _quick_scan(folder / "facts.json", _FACT_TIER, _default("source"))
    if quick is not None:
        tiers, invalid, head = quick
        return dict(tiers), sum(tiers.values()) - invalid, head
    facts, head = _records(folder, "facts.json", "facts")
    tiers = Counter(str(f.get("source", _default("source"))) for f in facts)
    return dict(tiers), sum(1 for f in facts if f.get("invalid_at") is None), head


def stats_for(config: Any, workspace: Path | None, agent: str | None) -> dict[str, Any]:
    """`stats` of the workspace the options name, on either backend. The shared store needs no local
    folder (a node that never ran the engine can look), only the agent."""
    from knowledge_engine.cli.common import agent_of, existing_folder, resolve_folder
    from knowledge_engine.store.backend import is_shared

    folder = resolve_folder(config, workspace, agent)
    if not is_shared(config.storage):
        return folder_status(existing_folder(folder), config)
    return folder_status(folder, config, agent_of(folder, config, agent))


def folder_status(folder: Path, config: Any, agent: str = "default") -> dict[str, Any]:
    """Counts from the store files and the small state files only: no Chroma, no embedder. With the
    shared store, the agent's counts from the database and the folder's local state."""
    from knowledge_engine.store.backend import is_shared, parked_store

    shared = is_shared(config.storage)
    data = _shared_counts(config, agent) if shared else _file_counts(folder)
    meta = data.pop("_meta")
    head: dict[str, Any] = {"workspace": str(folder)}
    if not shared and (hint := nested_hint(folder)):
        head["hint"] = hint
    data = {**head, **data}
    data.update(_shared_messages(config, agent) if shared else _message_counts(folder, config))
    # the folder's parked batch files, or the database's rows whichever node parked them
    data["llm_pending_batches"] = len(parked_store(config.storage, folder, agent).waiting())
    data["llm_waiting_messages"] = _line_count(folder / "llm-pending" / INBOX_NAME)
    data["store_bytes"] = _size(folder) if folder.is_dir() else 0
    data["maintenance"] = _shared_runs(config, agent) if shared else _maintenance_runs(folder, meta)
    data["last_decay_at"] = meta.get("last_decay_at")
    state = _sync_state(folder)
    counts = state.get("counts") or {}
    data["chroma"] = {
        "last_sync": state.get("last_sync"),
        "model": state.get("model"),
        "indexed_facts": counts.get("facts"),
        "indexed_messages": counts.get("messages"),
    }
    if state.get("last_sync") is None and config.embeddings.enabled:
        # blank counts read as an empty index: a host indexes new records live, before any sync
        data["chroma"]["note"] = NO_SYNC_NOTE
    return data


def _file_counts(folder: Path) -> dict[str, Any]:
    by_type, ents_quarantined = _entity_counts(folder)
    by_tier, valid, head = _fact_counts(folder)
    n_facts = sum(by_tier.values())
    return {
        "entities": sum(by_type.values()),
        "entities_by_type": by_type,
        "facts": n_facts,
        "facts_valid": valid,
        "facts_superseded": n_facts - valid,
        "facts_by_tier": by_tier,
        "facts_quarantined": _quarantined(head),
        "entities_quarantined": ents_quarantined,
        "_meta": _meta(head),
    }


def _shared_counts(config: Any, agent: str) -> dict[str, Any]:
    """The same counts as `_file_counts`, grouped by the database over the agent's rows."""
    from knowledge_engine.store.postgres.connect import connection, describe

    pg = config.storage.postgres
    with connection(pg) as conn:
        types = conn.execute(
            "SELECT coalesce(body->>'type', 'unknown'), count(*) FROM ke_records"
            " WHERE agent = %s AND kind = 'entities' GROUP BY 1",
            (agent,),
        ).fetchall()
        tiers = conn.execute(
            "SELECT coalesce(body->>'source', %s), count(*),"
            " count(*) FILTER (WHERE body->>'invalid_at' IS NULL)"
            " FROM ke_records WHERE agent = %s AND kind = 'facts' GROUP BY 1",
            (_default("source"), agent),
        ).fetchall()
        kept = dict(
            conn.execute(
                "SELECT kind, count(*) FROM ke_quarantine WHERE agent = %s GROUP BY kind", (agent,)
            ).fetchall()
        )
        meta = dict(
            conn.execute(
                "SELECT key, value FROM ke_meta"
                " WHERE agent = %s AND kind = 'facts' AND key = 'last_decay_at'",
                (agent,),
            ).fetchall()
        )
        size = conn.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
            " WHERE c.relkind = 'r' AND c.relname LIKE 'ke\\_%%'"
        ).fetchone()
    n_facts = sum(int(n) for _, n, _ in tiers)
    valid = sum(int(v) for _, _, v in tiers)
    return {
        "backend": "postgres",
        "database": describe(pg.url),
        "agent": agent,
        "database_bytes": int(size[0] or 0) if size else 0,  # every agent's tables, with indexes
        "entities": sum(int(n) for _, n in types),
        "entities_by_type": {str(t): int(n) for t, n in types},
        "facts": n_facts,
        "facts_valid": valid,
        "facts_superseded": n_facts - valid,
        "facts_by_tier": {str(t): int(n) for t, n, _ in tiers},
        "facts_quarantined": int(kept.get("facts", 0)),
        "entities_quarantined": int(kept.get("entities", 0)),
        "_meta": meta,
    }


class _StatsLog(Protocol):
    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


def _message_summary(log: _StatsLog) -> dict[str, Any]:
    """The message counts `status` shows, read from either backend's log (which it closes)."""
    try:
        info = log.stats()
    finally:
        log.close()
    return {
        "messages": info["messages"],
        "message_sessions": info["sessions"],
        "messages_first": info["first"],
        "messages_last": info["last"],
    }


def _shared_messages(config: Any, agent: str) -> dict[str, Any]:
    if not config.memory.enabled:
        return {"messages": 0}
    from knowledge_engine.store.postgres.messages import PgMessageLog

    log = PgMessageLog(config.storage.postgres, agent)
    return _message_summary(log)


def _shared_runs(config: Any, agent: str) -> dict[str, Any]:
    from knowledge_engine.maintenance.runs import read_shared_runs

    return read_shared_runs(config.storage.postgres, agent)


def _line_count(path: Path) -> int:
    """Messages in the LLM inbox: waiting for a batch, or delivered and waiting for a store flush."""
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _message_counts(folder: Path, config: Any) -> dict[str, Any]:
    if not (folder / MESSAGES_FILE).exists():
        return {"messages": 0}
    from knowledge_engine.store.messages import MessageLog

    log = MessageLog.from_config(folder, config.memory)
    return _message_summary(log)


def workspace_status(ws: Workspace) -> dict[str, Any]:
    return folder_status(ws.folder, ws.config, ws.agent_id)
