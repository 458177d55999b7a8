"""The CLI on a node that never ran the engine, against the shared PostgreSQL store (new-user pass 3).

The README says the inspection commands take `--config` with the postgres backend and `--agent`. After
`migrate`, on a machine without the agent's local folder, only `stats` and `validate` worked: `entities`,
`facts`, `messages`, `show`, `search`, `export`, `forget`, `maintain` ended in "workspace ... does not
exist" and `context` said "nothing is stored yet", while the database held the agent's knowledge. The
folder holds only a node's journal and caches; the CLI must not make it (another user's folder would
lock the gateway out), so it reads through a throwaway one.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import database_fixture, store_config

AGENT = "nodeless"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

url = database_fixture("ke_cli_pg_newnode")


def _fill(folder: Path, db: str) -> None:
    ws = Workspace(folder, load_config(store_config(db)), AGENT)
    ev = Evidence(message_id="m0", session="s1", role="user", timestamp=T0)
    ws.entities.observe("Alice Smith", "person", "spacy", ev)
    ws.facts.add("Alice Smith", "works-at", "Initech", source="spacy", evidence=[ev], now=T0)
    ws.messages.append_many(
        [Message(id="m0", text="Alice Smith works at Initech", role="user", session="s1", agent_id=AGENT,
                 timestamp=T0)]
    )  # fmt: skip
    ws.close()


def _run(*args: str) -> str:
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == 0, out.output
    return out.stdout


def test_a_node_without_the_agents_folder_reads_the_shared_store(tmp_path: Path, url: str) -> None:
    _fill(tmp_path / "writer", url)
    node = tmp_path / "node"  # never created: this machine never ran the engine
    cfg = {**store_config(url), "workspace": str(node / "agents" / "{agentId}")}
    cfg_file = tmp_path / "config.json"
    cfg_file.write_text(json.dumps(cfg))
    opts = ["-c", str(cfg_file), "--agent", AGENT]

    facts = json.loads(_run("facts", *opts, "--json"))
    triples = [(f["subject"], f["predicate"], f["object"]) for f in facts]
    assert triples == [("Alice Smith", "works-at", "Initech")]
    assert [e["value"] for e in json.loads(_run("entities", *opts, "--json"))] == ["Alice Smith"]
    assert [m["id"] for m in json.loads(_run("messages", *opts, "--json"))] == ["m0"]
    assert "Initech" in _run("show", *opts, "person:alice-smith")
    assert "works-at" in _run("context", *opts, "--no-semantic", "Where does Alice Smith work?")
    out = tmp_path / "export.jsonl"
    _run("export", *opts, "--format", "jsonl", "--output", str(out))
    assert "Initech" in out.read_text()
    assert not node.exists()


def test_files_backend_still_refuses_a_missing_folder(tmp_path: Path) -> None:
    out = CliRunner().invoke(app, ["facts", "-w", str(tmp_path / "typo")])
    assert out.exit_code == 1 and "does not exist" in out.output
    assert not (tmp_path / "typo").exists()
