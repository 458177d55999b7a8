"""`facts`, `entities` and `messages` on the postgres backend list the agent's rows in the database.

They read the workspace files directly for speed; on the shared store those files do not exist, and
the listings printed "0 facts" and "0 messages" for an agent whose database held both.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import database_fixture, store_config, store_config_file

AGENT = "lister"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

url = database_fixture("ke_cli_pg_listings")


def _fill(folder: Path, db: str) -> None:
    ws = Workspace(folder, load_config(store_config(db)), AGENT)
    ev = Evidence(message_id="m0", session="s1", role="user", timestamp=T0)
    ws.entities.observe("Alice Smith", "person", "spacy", ev)
    ws.facts.add("Alice Smith", "lives-in", "Paris", source="spacy", evidence=[ev], now=T0)
    later = Evidence(message_id="m2", session="s1", role="user", timestamp=T0 + timedelta(days=1))
    ws.facts.add("Alice Smith", "lives-in", "Berlin", source="spacy", evidence=[later], now=later.timestamp)
    texts = ["Alice moved to Berlin", "Noted", "She works at Acme"]
    ws.messages.append_many(
        [
            Message(id=f"m{i}", text=t, role=("user", "assistant")[i % 2], session="s1", agent_id=AGENT,
                    timestamp=T0 + timedelta(minutes=i))
            for i, t in enumerate(texts)
        ]
    )  # fmt: skip
    ws.close()


def _json(*args: str) -> Any:
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_listings_read_the_shared_store(tmp_path: Path, url: str) -> None:
    node = tmp_path / "node"
    node.mkdir()
    _fill(tmp_path / "writer", url)
    opts = ["-c", str(store_config_file(tmp_path, url)), "-w", str(node), "--agent", AGENT, "--json"]

    facts = _json("facts", *opts)
    assert [(f["predicate"], f["object"]) for f in facts] == [("lives-in", "Berlin")]
    assert len(_json("facts", "--history", *opts)) == 2
    assert len(_json("facts", "--subject", "alice smith", "--history", "--predicate", "lives-in", *opts)) == 2
    assert [e["value"] for e in _json("entities", *opts)] == ["Alice Smith"]
    assert [m["id"] for m in _json("messages", *opts)] == ["m2", "m1", "m0"]
    assert [m["id"] for m in _json("messages", "--role", "user", "--sort", "oldest", *opts)] == ["m0", "m2"]
    assert [m["id"] for m in _json("messages", "--text", "Acme", *opts)] == ["m2"]
    assert [m["id"] for m in _json("messages", "--entity", "Alice Smith", *opts)] == ["m0"]


def test_edit_on_the_shared_store_writes_the_vectors_a_sync_would(tmp_path: Path, url: str) -> None:
    """pgvector is the index on this backend: an edit keeps it in line there too."""
    node = tmp_path / "node"
    node.mkdir()
    _fill(tmp_path / "writer", url)
    cfg = {**store_config(url), "embeddings": {"enabled": True}}
    (tmp_path / "embedded.json").write_text(json.dumps(cfg))
    opts = ["-c", str(tmp_path / "embedded.json"), "-w", str(node), "--agent", AGENT]
    _json("sync", *opts, "--json")
    fact = _json("facts", *opts, "--json")[0]
    edited = _json("edit", *opts, "--fact", fact["id"], "--object", "Berlin Mitte", "--json")
    assert edited["object"] == "Berlin Mitte"
    facts = _json("sync", *opts, "--json")["per_kind"]["facts"]
    assert (facts["embedded"], facts["updated"], facts["deleted"]) == (0, 0, 0)
