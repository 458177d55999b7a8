"""What `stats` reports, gathered in one place so the CLI and tests agree."""

from __future__ import annotations

from typing import Any

from knowledge_engine.store.workspace import Workspace


def _size(ws: Workspace) -> int:
    return sum(p.stat().st_size for p in ws.folder.rglob("*") if p.is_file())


def _maintenance_runs(ws: Workspace) -> dict[str, Any]:
    """The last run of each maintenance job: the live record file, else its mirror in the facts meta."""
    try:
        from knowledge_engine.maintenance.runs import read_runs

        live = read_runs(ws.folder)
    except ImportError:
        live = {}
    mirror = ws.facts.table.meta.get("maintenance_runs", {})
    return {**(mirror if isinstance(mirror, dict) else {}), **live}


def workspace_status(ws: Workspace) -> dict[str, Any]:
    """Counts from the stores and the small state files only: no Chroma, no embedder (fast at 100k facts)."""
    from knowledge_engine.index.sync import read_state

    data: dict[str, Any] = dict(ws.stats())
    if (ws.folder / "messages.sqlite3").exists():
        info = ws.messages.stats()
        data["messages"] = info["messages"]
        data["message_sessions"] = info["sessions"]
        data["messages_first"], data["messages_last"] = info["first"], info["last"]
    else:
        data["messages"] = 0
    pending_dir = ws.folder / "llm-pending"
    data["llm_pending_batches"] = len(list(pending_dir.glob("*.json"))) if pending_dir.is_dir() else 0
    data["store_bytes"] = _size(ws)
    data["maintenance"] = _maintenance_runs(ws)
    data["last_decay_at"] = ws.facts.table.meta.get("last_decay_at")
    state = read_state(ws.folder)
    data["chroma"] = {
        "last_sync": state.get("last_sync"),
        "model": state.get("model"),
        "indexed_facts": (state.get("counts") or {}).get("facts"),
        "indexed_messages": (state.get("counts") or {}).get("messages"),
    }
    return data


def index_status(ws: Workspace) -> dict[str, Any]:
    """Records not yet in Chroma (opens the index; embeds nothing)."""
    from knowledge_engine.index.chroma import open_index
    from knowledge_engine.index.sync import status

    index = open_index(ws.folder, ws.agent_id, ws.config)
    msgs = ws.messages.iter() if (ws.folder / "messages.sqlite3").exists() else iter(())
    return status(index, ws.facts.all(), msgs)
