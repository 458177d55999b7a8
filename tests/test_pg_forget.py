"""`forget` on the shared PostgreSQL store leaves no trace (issue 17): the rows are deleted and the
tables rewritten, checked by reading the table files themselves (heap, TOAST and every index) for a
distinctive name, as the SQLite forget tests read the workspace files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.forget import pgstore
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import (
    database_fixture,
    files_holding,
    relation_files,
    store_config,
    store_config_file,
)

AGENT = "forgetful"
NAME = "Zorblatt Quennington"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TABLES = ("ke_records", "ke_tombstones", "ke_quarantine", "ke_messages")


url = database_fixture("ke_pg_forget")


def _fill(folder: Path, url: str) -> None:
    ws = Workspace(folder, load_config(store_config(url)), AGENT)
    ev = Evidence(message_id="m1", session="s1", role="user", timestamp=T0)
    ent = ws.entities.observe(NAME, "person", "regex", ev)
    ent.aliases.append("Zorbo")
    ws.entities.table.put(ent)
    ws.entities.observe("Keepme Person", "person", "regex", ev)
    ws.facts.add(NAME, "works-at", "Quasar Mills", source="regex", evidence=[ev], subject_id=ent.id, now=T0)
    ws.facts.add("Keepme Person", "likes", "tea", source="regex", evidence=[ev], now=T0)
    noise = " ".join(f"{i:x}{i * 7919 % 10007:x}" for i in range(2500))  # hardly compressible: TOASTed
    ws.messages.append_many(
        [
            Message(id="m1", text=f"I met {NAME} at the mill", session="s1", timestamp=T0),
            Message(
                id="m2", text=f"{noise} {NAME} {noise}", session="s1", timestamp=T0 + timedelta(minutes=1)
            ),
            Message(
                id="m3",
                text="nothing to see",
                speaker=NAME,
                session="s1",
                timestamp=T0 + timedelta(minutes=2),
            ),
            Message(
                id="m4", text="Keepme Person likes tea", session="s1", timestamp=T0 + timedelta(minutes=3)
            ),
        ]
    )
    ws.close()


def test_forget_leaves_no_trace_in_the_table_files(tmp_path: Path, url: str) -> None:
    folder = tmp_path / "node"
    _fill(folder, url)
    needles = [NAME.lower().encode(), b"zorblatt", b"quennington"]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # the pages reach the files
        assert files_holding(relation_files(conn, *TABLES), needles)  # the scan sees the name before

    cfg = store_config_file(tmp_path, url)
    out = CliRunner().invoke(
        app,
        ["forget", "--entity", NAME, "-w", str(folder), "-c", str(cfg), "--agent", AGENT, "--yes", "--json"],
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["final"] is True and report["remaining"] == []

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        assert files_holding(relation_files(conn, *TABLES), needles) == []
        kept = conn.execute(
            "SELECT count(*) FROM ke_records WHERE agent = %s AND body::text LIKE '%%Keepme%%'", (AGENT,)
        ).fetchone()
        tombs = conn.execute("SELECT id FROM ke_tombstones WHERE agent = %s", (AGENT,)).fetchall()
        messages = conn.execute(
            "SELECT id FROM ke_messages WHERE agent = %s ORDER BY id", (AGENT,)
        ).fetchall()
    assert kept == (2,)  # the other entity and its fact stay
    assert all("zorblatt" not in t[0] for t in tombs)  # markers named after it are gone too
    assert [m[0] for m in messages] == ["m1", "m2", "m4"]  # spoken by it: deleted; naming it: redacted


def test_the_final_check_finds_a_row_that_names_a_forgotten_term(url: str) -> None:
    pg = load_config(store_config(url)).storage.postgres
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO ke_tombstones (agent, kind, id, deleted_at) VALUES (%s, 'entities', %s, now())",
            ("checker", "person:wexford-plunkett"),
        )
    assert pgstore.remaining(pg, "checker", ["Wexford Plunkett"], 3) == ["postgres:ke_tombstones"]
    assert pgstore.remaining(pg, "other-agent", ["Wexford Plunkett"], 3) == []  # per agent
    assert pgstore.drop_tombstones(pg, "checker", "entities", ["person:wexford-plunkett"]) == 1
    assert pgstore.remaining(pg, "checker", ["Wexford Plunkett"], 3) == []
