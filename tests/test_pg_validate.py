"""`knowledge-engine validate` on the postgres backend needs no local folder (issue 17), as `stats`.

A node that never ran the engine (no workspace folder on this machine) checks and repairs an agent's
records in the shared database; validate leaves no folder behind, names `ke_quarantine` (not a file's
list) for quarantined records, and never shows the URL's password.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import database_fixture, store_config

PASSWORD = "pw-of-validate-never-shown"
AGENT = "checker"

url = database_fixture("ke_pg_validate", PASSWORD)  # the test server ignores the password


def seed(url: str, folder: Path) -> None:
    """Two facts of the agent in the database (written by a node whose folder is then removed), one with
    a subject entity that is not there, and one record that fails validation (quarantined on load)."""
    ws = Workspace(folder, load_config(store_config(url)), AGENT)
    try:
        ws.facts.add("Alice Smith", "lives-in", "Paris")
        ghost, _ = ws.facts.add("Bob Jones", "works-at", "Zeta Corp")
        ghost.subject_id = "ghost-entity"
        ws.facts.table.put(ghost)
        ws.flush()
    finally:
        ws.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO ke_records (agent, kind, id, body, updated_at)"
            " VALUES (%s, 'facts', 'broken', '{\"id\": \"broken\", \"subject\": 7}', now())",
            (AGENT,),
        )


def config_file(tmp_path: Path, url: str) -> tuple[Path, Path]:
    """A config whose workspace template points at a folder that does not exist on this machine."""
    nowhere = tmp_path / "never-created"
    cfg = {**store_config(url), "workspace": str(nowhere / "{agentId}")}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return path, nowhere


def run(*args: str) -> Any:
    return CliRunner().invoke(app, ["validate", *args])


def test_validate_on_the_shared_store_needs_no_local_folder(tmp_path: Path, url: str) -> None:
    seed(url, tmp_path / "writer")
    cfg, nowhere = config_file(tmp_path, url)
    out = run("-c", str(cfg), "--agent", AGENT, "--no-index", "--json")
    assert out.exit_code == 1, out.output  # problems found (not "workspace ... does not exist")
    report = json.loads(out.stdout)
    assert report["checked"]["facts"] == 2
    kinds = sorted(p["kind"] for p in report["problems"])
    assert kinds == ["dangling_entity", "schema"]
    (schema,) = [p for p in report["problems"] if p["kind"] == "schema"]
    assert "ke_quarantine" in schema["detail"] and "file" not in schema["detail"]
    assert not nowhere.exists(), "validate made a local folder"
    assert PASSWORD not in out.output

    table = run("-c", str(cfg), "--agent", AGENT, "--no-index")  # the human-readable table
    assert table.exit_code == 1 and "ke_quarantine" in table.output and PASSWORD not in table.output

    repaired = run("-c", str(cfg), "--agent", AGENT, "--repair", "--no-index", "--json")
    fixed = json.loads(repaired.stdout)
    assert fixed["repaired"]["entity_refs"] == 1
    assert fixed["repaired"]["quarantine_restored"] == 0  # still invalid: stays in ke_quarantine
    assert "dangling_entity" not in [p["kind"] for p in fixed["problems"]]
    assert not nowhere.exists(), "validate --repair made a local folder"
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT body->>'subject_id' FROM ke_records WHERE agent = %s AND kind = 'facts'"
            " AND body->>'object' = 'Zeta Corp'",
            (AGENT,),
        ).fetchone()
    assert row == (None,), "the repair reached the database"


def test_validate_on_the_file_backend_still_refuses_a_missing_folder(tmp_path: Path) -> None:
    out = run("-w", str(tmp_path / "typo"), "--no-index")
    assert out.exit_code == 1 and "does not exist" in out.output
    assert not (tmp_path / "typo").exists()
