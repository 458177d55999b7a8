"""`knowledge-engine migrate` (issue 17): a workspace to PostgreSQL and back, losslessly, on a real server.

The round trip folder -> database -> new folder must give back every stored thing: facts with their
history and evidence, entities with aliases, messages (every role, odd text), deletion markers,
quarantined records, applied-message keys and maintenance run records.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.maintenance.runs import read_runs, save_run
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.store.messages import MessageLog
from knowledge_engine.store.workspace import Workspace
from tests.fixtures.postgres import database_fixture, fresh_database, store_config_file

PASSWORD = "s3cret-pw-never-shown"
AGENT = "mover"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


url = database_fixture("ke_cli_migrate", PASSWORD)  # the server ignores the password; output must not show it


def _messages() -> list[Message]:
    texts = ["I moved to Berlin last spring", "Tell me more", "NUL\x00inside and emoji \U0001f600", "ok"]
    return [
        Message(id=f"m{i}", text=t, role=("user", "assistant")[i % 2], session=f"s{i % 2}",
                speaker="Alice" if i % 3 == 0 else None, agent_id=AGENT, timestamp=T0 + timedelta(minutes=i))
        for i, t in enumerate(texts)
    ]  # fmt: skip


def make_workspace(folder: Path) -> None:
    """A file workspace holding one of each stored kind."""
    cfg = load_config({"embeddings": {"enabled": False}, "storage": {"writeDebounceMs": 0}})
    ws = Workspace(folder, cfg, AGENT)
    ev = [Evidence(message_id=f"m{i}", session="s0", role="user", timestamp=T0) for i in range(3)]
    alice = ws.entities.observe("Alice Smith", "person", "regex", ev[0])
    alice.aliases.append("Ali")
    ws.entities.table.put(alice)
    ws.entities.observe("Zeta Corp", "organization", "spacy", ev[0])
    ws.facts.add("Alice Smith", "lives-in", "Paris", source="regex", evidence=[ev[0]], now=T0)
    ws.facts.add(
        "Alice Smith", "lives-in", "Berlin", source="llm", evidence=ev[1:], now=T0 + timedelta(days=1)
    )
    gone, _ = ws.facts.add("Alice Smith", "likes", "tea", now=T0)
    ws.facts.forget(gone.id)  # a deletion marker
    ws._mark_applied("m0|regex")
    ws._mark_applied("m1|llm,regex")
    ws.messages.append_many(_messages())
    ws.close()
    doc = orjson.loads((folder / "facts.json").read_bytes())
    facts = doc.pop("facts")  # the store writes the quarantined list before the records
    doc.update(quarantined=[{"id": "broken", "subject": 7}], facts=facts)  # kept verbatim by the store
    (folder / "facts.json").write_bytes(orjson.dumps(doc))
    save_run(folder, {"job": "decay", "status": "ok", "started_at": T0.isoformat(), "duration_ms": 1.0,
                      "changed": {"intervals": 2}, "pid": 1, "last_ok_at": T0.isoformat()})  # fmt: skip


def _doc(folder: Path, kind: str) -> dict[str, Any]:
    doc = orjson.loads((folder / f"{kind}.json").read_bytes())
    meta = {k: v for k, v in doc["meta"].items() if k != "maintenance_runs"}  # the runs' mirror is added
    return {
        "records": sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in doc[kind]),
        "tombstones": doc["tombstones"],
        "meta": meta,
        "quarantined": sorted(
            orjson.dumps(q, option=orjson.OPT_SORT_KEYS) for q in doc.get("quarantined", [])
        ),
    }


def _log(folder: Path) -> list[dict[str, Any]]:
    log = MessageLog(folder / "messages.sqlite3")
    try:
        return [m.model_dump() for m in log.iter()]
    finally:
        log.close()


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["migrate", *args, "--agent", AGENT, "--json"])


def test_a_workspace_goes_to_postgres_and_back_unchanged(tmp_path: Path, url: str) -> None:
    src, back = tmp_path / "src", tmp_path / "back"
    make_workspace(src)

    out = _run("--from", str(src), "--to", url)
    assert out.exit_code == 0, out.output
    counts = json.loads(out.stdout)["counts"]
    assert counts["facts"] == 2 and counts["entities"] == 2 and counts["messages"] == 4
    assert counts["facts_tombstones"] == 1 and counts["facts_quarantined"] == 1
    assert counts["applied_keys"] == 2 and counts["maintenance_runs"] == 1
    assert PASSWORD not in out.output  # the summary names the server, never the password

    node = Workspace(
        tmp_path / "node", load_config({"storage": {"backend": "postgres", "postgres": {"url": url}}}), AGENT
    )
    try:  # an engine on the database sees what was moved
        assert len(node.facts) == 2 and {e.value for e in node.entities.all()} == {"Alice Smith", "Zeta Corp"}
        assert node.was_applied("m1", "llm,regex") and node.messages.count() == 4
        assert node.entities.resolve("Ali") is not None  # the alias came along
    finally:
        node.close()

    out = _run("--from", url, "--to", str(back))
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["counts"] == counts
    for kind in ("facts", "entities"):
        assert _doc(back, kind) == _doc(src, kind)
    facts = orjson.loads((back / "facts.json").read_bytes())["facts"]
    berlin = next(f for f in facts if f["object"] == "Berlin")
    paris = next(f for f in facts if f["object"] == "Paris")
    assert paris["superseded_by"] == berlin["id"] and len(berlin["evidence"]) == 2  # history and evidence
    assert _log(back) == _log(src)
    assert read_runs(back) == read_runs(src)


def test_a_non_empty_target_is_refused_unless_forced_and_a_forced_rerun_gives_the_same(
    tmp_path: Path, pg_url: str
) -> None:
    url = fresh_database(pg_url, "ke_cli_migrate_force", PASSWORD)
    src = tmp_path / "src"
    make_workspace(src)
    first = _run("--from", str(src), "--to", url)
    assert first.exit_code == 0, first.output

    again = _run("--from", str(src), "--to", url)
    assert again.exit_code == 1 and "not empty" in again.output and "--force" in again.output
    assert PASSWORD not in again.output

    forced = _run("--from", str(src), "--to", url, "--force")
    assert forced.exit_code == 0, forced.output
    assert json.loads(forced.stdout)["counts"] == json.loads(first.stdout)["counts"]
    with psycopg.connect(pg_url.replace("/postgres?", "/ke_cli_migrate_force?"), autocommit=True) as conn:
        n = conn.execute("SELECT count(*) FROM ke_records WHERE agent = %s", (AGENT,)).fetchone()
        m = conn.execute("SELECT count(*) FROM ke_messages WHERE agent = %s", (AGENT,)).fetchone()
    assert n == (4,) and m == (4,)  # replaced, not doubled

    folder = tmp_path / "taken"
    make_workspace(folder)
    refused = _run("--from", url, "--to", str(folder))
    assert refused.exit_code == 1 and "not empty" in refused.output


def test_the_url_comes_from_an_environment_variable_or_the_config(
    tmp_path: Path, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    make_workspace(src)
    monkeypatch.setenv("KE_TEST_PG_URL", url)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"storage": {"postgres": {"url": "${KE_TEST_PG_URL}"}}}))
    out = CliRunner().invoke(
        app, ["migrate", "--from", str(src), "--to", "postgres", "-c", str(cfg), "--agent", "via-config"]
    )
    assert out.exit_code == 0, out.output
    assert PASSWORD not in out.output and "agent via-config" in out.output
    out = _run("--from", "${KE_TEST_PG_URL}", "--to", str(tmp_path / "env-back"))
    assert out.exit_code == 0, out.output  # agent "mover": copied by the first test of this module

    missing = _run("--from", "${KE_NOT_SET_ANYWHERE}", "--to", str(tmp_path / "x"))
    assert missing.exit_code == 2 and "KE_NOT_SET_ANYWHERE" in missing.output


def test_an_unreachable_server_is_a_clear_error_without_the_password(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_workspace(src)
    dead = f"postgresql://ke:{PASSWORD}@127.0.0.1:1/nowhere?connect_timeout=1"
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"storage": {"postgres": {"connectTimeoutMs": 1000}}}))
    out = _run("--from", str(src), "--to", dead, "-c", str(cfg))
    assert out.exit_code == 4, out.output
    assert "127.0.0.1:1/nowhere" in out.output and PASSWORD not in out.output


def test_stats_and_validate_agree_on_both_backends(tmp_path: Path, pg_url: str) -> None:
    url = fresh_database(pg_url, "ke_cli_stats", PASSWORD)
    src = tmp_path / "src"
    make_workspace(src)
    assert _run("--from", str(src), "--to", url).exit_code == 0
    cfg = store_config_file(tmp_path, url)
    cli = CliRunner()

    files = json.loads(cli.invoke(app, ["stats", "-w", str(src), "--json"]).stdout)
    out = cli.invoke(
        app, ["stats", "-c", str(cfg), "-w", str(tmp_path / "new-node"), "--agent", AGENT, "--json"]
    )
    assert out.exit_code == 0, out.output
    shared = json.loads(out.stdout)
    same = ["entities", "entities_by_type", "facts", "facts_valid", "facts_superseded", "facts_by_tier",
            "facts_quarantined", "entities_quarantined", "messages", "message_sessions", "messages_first",
            "messages_last"]  # fmt: skip
    assert {k: shared[k] for k in same} == {k: files[k] for k in same}
    assert shared["backend"] == "postgres" and PASSWORD not in out.output
    assert shared["maintenance"]["decay"]["status"] == "ok"  # the run records came along
    table = cli.invoke(app, ["stats", "-c", str(cfg), "-w", str(tmp_path / "new-node"), "--agent", AGENT])
    assert table.exit_code == 0 and PASSWORD not in table.output

    args = ["-c", str(cfg), "-w", str(tmp_path / "node"), "--agent", AGENT, "--json"]
    (tmp_path / "node").mkdir()
    checked = cli.invoke(app, ["validate", *args])
    report = json.loads(checked.stdout)
    assert report["checked"]["facts"] == 2 and report["checked"]["evidence_messages"] == 3
    assert [p["kind"] for p in report["problems"]] == ["schema"]  # the quarantined record, as on files
    assert "ke_quarantine" in report["problems"][0]["detail"]
    files_report = json.loads(cli.invoke(app, ["validate", "-w", str(src), "--no-index", "--json"]).stdout)
    assert [p["kind"] for p in files_report["problems"]] == ["schema"]

    with psycopg.connect(pg_url.replace("/postgres?", "/ke_cli_stats?"), autocommit=True) as conn:
        conn.execute(  # a fact pointing at an entity that is not there (written by hand, or an old bug)
            "UPDATE ke_records SET body = jsonb_set(body, '{subject_id}', '\"ghost\"'),"
            " row_version = row_version + 1"
            " WHERE agent = %s AND kind = 'facts' AND body->>'object' = 'Paris'",
            (AGENT,),
        )
    broken = json.loads(cli.invoke(app, ["validate", *args]).stdout)
    assert "dangling_entity" in [p["kind"] for p in broken["problems"]]
    repaired = json.loads(cli.invoke(app, ["validate", "--repair", "--no-index", *args]).stdout)
    assert repaired["repaired"]["entity_refs"] == 1
    assert "dangling_entity" not in [p["kind"] for p in repaired["problems"]]
