"""What `stats` reports, gathered in one place so the CLI and tests agree."""

from __future__ import annotations

from typing import Any

from knowledge_engine.store.workspace import Workspace


def _size(ws: Workspace) -> int:
    return sum(p.stat().st_size for p in ws.folder.rglob("*") if p.is_file())


def workspace_status(ws: Workspace) -> dict[str, Any]:
    data: dict[str, Any] = dict(ws.stats())
    msg_db = ws.folder / "messages.sqlite3"
    data["messages"] = ws.messages.count() if msg_db.exists() else 0
    pending_dir = ws.folder / "llm-pending"
    data["llm_pending_batches"] = len(list(pending_dir.glob("*.json"))) if pending_dir.is_dir() else 0
    data["store_bytes"] = _size(ws)
    data["maintenance"] = ws.facts.table.meta.get("maintenance_runs", {})
    try:
        from knowledge_engine.index.sync import read_state

        data["chroma"] = read_state(ws.folder)
    except Exception:
        data["chroma"] = {}
    return data
