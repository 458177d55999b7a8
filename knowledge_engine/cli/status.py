"""What `stats` reports, gathered in one place so the CLI and tests agree.

`stats` reads the store files as plain JSON (orjson, no record validation) and the message log
with SQL counts: at 100k facts that is a fraction of a second, where building every record
would take seconds. It never opens Chroma or loads an embedder unless asked (`--index`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from knowledge_engine.store.workspace import Workspace

SYNC_STATE_FILE = "chroma-sync.json"  # written by knowledge_engine.index.sync


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _records(folder: Path, name: str, key: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Raw records and meta of a store file (the backup when the file is unreadable, like the store)."""
    from knowledge_engine.store.persistence import read_json_document

    doc = read_json_document(folder / name) or {}
    items = doc.get(key)
    meta = doc.get("meta")
    return ([r for r in items if isinstance(r, dict)] if isinstance(items, list) else []), (
        meta if isinstance(meta, dict) else {}
    )


def _maintenance_runs(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """The last run of each maintenance job: the live record file, else its mirror in the facts meta."""
    try:
        from knowledge_engine.maintenance.runs import read_runs

        live = read_runs(folder)
    except ImportError:
        live = {}
    mirror = meta.get("maintenance_runs", {})
    return {**(mirror if isinstance(mirror, dict) else {}), **live}


def _sync_state(folder: Path) -> dict[str, Any]:
    try:
        state = orjson.loads((folder / SYNC_STATE_FILE).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return state if isinstance(state, dict) else {}


def folder_status(folder: Path, config: Any) -> dict[str, Any]:
    """Counts from the store files and the small state files only: no Chroma, no embedder."""
    ents, _ = _records(folder, "entities.json", "entities")
    facts, meta = _records(folder, "facts.json", "facts")
    by_type: dict[str, int] = {}
    for e in ents:
        by_type[str(e.get("type"))] = by_type.get(str(e.get("type")), 0) + 1
    by_tier: dict[str, int] = {}
    valid = 0
    for f in facts:
        by_tier[str(f.get("source"))] = by_tier.get(str(f.get("source")), 0) + 1
        valid += f.get("invalid_at") is None
    data: dict[str, Any] = {
        "workspace": str(folder),
        "entities": len(ents),
        "entities_by_type": by_type,
        "facts": len(facts),
        "facts_valid": valid,
        "facts_superseded": len(facts) - valid,
        "facts_by_tier": by_tier,
    }
    data.update(_message_counts(folder, config))
    pending_dir = folder / "llm-pending"
    data["llm_pending_batches"] = len(list(pending_dir.glob("*.json"))) if pending_dir.is_dir() else 0
    data["store_bytes"] = _size(folder)
    data["maintenance"] = _maintenance_runs(folder, meta)
    data["last_decay_at"] = meta.get("last_decay_at")
    state = _sync_state(folder)
    counts = state.get("counts") or {}
    data["chroma"] = {
        "last_sync": state.get("last_sync"),
        "model": state.get("model"),
        "indexed_facts": counts.get("facts"),
        "indexed_messages": counts.get("messages"),
    }
    return data


def _message_counts(folder: Path, config: Any) -> dict[str, Any]:
    if not (folder / "messages.sqlite3").exists():
        return {"messages": 0}
    from knowledge_engine.store.messages import MessageLog

    log = MessageLog.from_config(folder, config.memory)
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


def workspace_status(ws: Workspace) -> dict[str, Any]:
    return folder_status(ws.folder, ws.config)


def index_status(ws: Workspace) -> dict[str, Any]:
    """Records not yet in Chroma (opens the index; embeds nothing)."""
    from knowledge_engine.index.chroma import open_index
    from knowledge_engine.index.sync import status

    index = open_index(ws.folder, ws.agent_id, ws.config)
    msgs = ws.messages.iter() if (ws.folder / "messages.sqlite3").exists() else iter(())
    return status(index, ws.facts.all(), msgs)
