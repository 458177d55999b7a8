"""forget against a Chroma *server* (chroma.url): the records leave the server's collections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.index.chroma import collection_name, index_agent_key, make_client
from tests.test_cli_support import SECRET, cli, secret_messages


@pytest.mark.slow
def test_forget_deletes_from_the_server_collections(chroma_server: str, tmp_path: Path) -> None:
    raw = {"chroma": {"url": chroma_server}, "storage": {"writeDebounceMs": 0}}
    cfg_file = tmp_path / "config.json"
    cfg_file.write_text(json.dumps(raw))
    cfg = load_config(raw)
    folder = tmp_path / "ws"
    engine = KnowledgeEngine(cfg)
    ws = engine.open_workspace(folder, "default")
    engine.ingest(ws, secret_messages())
    assert engine.flush(timeout_s=120)
    engine.stop(timeout_s=30)
    plan = json.loads(
        cli("forget", "--entity", SECRET, "-w", str(folder), "-c", str(cfg_file), "--dry-run", "--json")[1]
    )
    doomed = plan["ids"]["facts"] + plan["ids"]["messages_delete"] + plan["ids"]["messages_redact"]
    assert doomed
    client = make_client(folder, cfg)
    key = index_agent_key(folder, "default", cfg)
    cols = [client.get_collection(collection_name("knowledge", key, k)) for k in ("facts", "messages")]
    assert sum(len(c.get(ids=doomed, include=[])["ids"]) for c in cols) == len(doomed)
    code, out, err = cli("forget", "--entity", SECRET, "-w", str(folder), "-c", str(cfg_file), "-y", "--json")
    assert code == 0, err
    assert json.loads(out)["chroma_deleted"] == len(doomed)
    assert sum(len(c.get(ids=doomed, include=[])["ids"]) for c in cols) == 0
    left = [m.get("subject") for m in cols[0].get(include=["metadatas"])["metadatas"]]
    assert left and not any(SECRET in str(s) for s in left)
