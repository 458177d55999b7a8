"""Maintenance jobs on real workspaces: exact decay catch-up, prune, compact, retention, locks, records."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from freezegun import freeze_time
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.maintenance import read_runs, run_all, run_job
from knowledge_engine.maintenance.runs import META_KEY, SKIPPED_ELSEWHERE, read_history
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.store.workspace import Workspace

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def config(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"embeddings": {"enabled": False}, "storage": {"writeDebounceMs": 0}}
    for k, v in extra.items():
        base[k] = {**base.get(k, {}), **v}
    return base


def engine_ws(folder: Path, **extra: Any) -> tuple[KnowledgeEngine, Workspace]:
    engine = KnowledgeEngine(load_config(config(**extra)))
    return engine, engine.open_workspace(folder)


def fact_doc(i: int, when: datetime, evidence: int = 1, relevance: float = 1.0) -> dict[str, Any]:
    ts = when.isoformat()
    return {
        "id": f"f-{i:016x}", "subject": f"Person {i}", "predicate": "likes", "object": f"Thing {i % 97}",
        "source": "spacy", "confidence": 0.5, "relevance": relevance, "created_at": ts, "last_accessed": ts,
        "evidence": [{"message_id": f"m{i}-{j}", "session": "s", "role": "user", "timestamp": ts}
                     for j in range(evidence)],
        "updated_at": ts,
    }


def make_store(folder: Path, n: int, last_decay_at: datetime | None = None, evidence: int = 1) -> None:
    """A facts.json as the engine writes it, built directly (fast even for tens of thousands of facts)."""
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"last_decay_at": last_decay_at.isoformat()} if last_decay_at else {}
    facts = [fact_doc(i, T0, evidence) for i in range(n)]
    doc = {"schema": 1, "meta": meta, "tombstones": {}, "facts": facts}
    (folder / "facts.json").write_bytes(orjson.dumps(doc))


def relevances(folder: Path) -> set[float]:
    return {round(f["relevance"], 9) for f in json.loads((folder / "facts.json").read_text())["facts"]}


# --------------------------------------------------------------------------- decay
def test_a_day_of_downtime_then_one_run_applies_exactly_one_day_of_decay(workspace: Path) -> None:
    make_store(workspace, 20)
    engine, ws = engine_ws(workspace, decay={"intervalHours": 24, "rate": 0.02, "floor": 0.1})
    with freeze_time(T0):
        first = run_job(engine, ws, "decay")
    assert first["status"] == "ok" and first["changed"]["intervals"] == 0  # starts the clock
    with freeze_time(T0 + timedelta(days=1, hours=7)):  # down for a day and a bit: one whole interval
        rec = run_job(engine, ws, "decay")
        again = run_job(engine, ws, "decay")
    assert rec["changed"] == {"intervals": 1, "facts_updated": 20}
    assert again["changed"]["intervals"] == 0
    assert relevances(workspace) == {0.98}
    meta = json.loads((workspace / "facts.json").read_text())["meta"]
    assert meta["last_decay_at"] == (T0 + timedelta(days=1)).isoformat()  # the remainder counts next time
    with freeze_time(T0 + timedelta(days=4, hours=1)):  # three more whole days, caught up in one run
        rec = run_job(engine, ws, "decay")
    assert rec["changed"]["intervals"] == 3
    assert relevances(workspace) == {round(0.98**4, 9)}
    engine.stop(5)


def test_a_stale_process_never_rolls_back_last_decay_at_or_decays_twice(workspace: Path) -> None:
    """Two processes' views of one workspace: the plugin's and a cron run's (two engines here)."""
    make_store(workspace, 10, last_decay_at=T0)
    eng_a, ws_a = engine_ws(workspace)
    eng_b, ws_b = engine_ws(workspace)  # loaded before A decays: its meta is stale
    with freeze_time(T0 + timedelta(days=2, hours=1)):
        assert run_job(eng_a, ws_a, "decay")["changed"]["intervals"] == 2
        assert run_job(eng_b, ws_b, "prune")["status"] == "ok"
        assert run_job(eng_b, ws_b, "compact")["status"] == "ok"  # rewrites the file from B's copy
        assert run_job(eng_b, ws_b, "decay")["changed"]["intervals"] == 0
    assert relevances(workspace) == {round(0.98**2, 9)}
    reloaded = Workspace(workspace, eng_a.config).facts.table.meta
    assert reloaded["last_decay_at"] == (T0 + timedelta(days=2)).isoformat()
    eng_a.stop(5)
    eng_b.stop(5)


# --------------------------------------------------------------------------- prune, compact, retention
def test_prune_drops_the_least_relevant_above_the_limits(workspace: Path) -> None:
    make_store(workspace, 12)
    doc = json.loads((workspace / "facts.json").read_text())
    for i, f in enumerate(doc["facts"]):
        f["relevance"] = 0.2 if i < 4 else 0.9
    (workspace / "facts.json").write_text(json.dumps(doc))
    engine, ws = engine_ws(workspace, storage={"maxFacts": 8})
    rec = run_job(engine, ws, "prune")
    assert rec["changed"]["facts_pruned"] == 4
    assert relevances(workspace) == {0.9}
    assert run_job(engine, ws, "prune")["changed"]["facts_pruned"] == 0
    engine.stop(5)


def test_compact_trims_evidence_and_drops_only_old_tombstones(workspace: Path) -> None:
    make_store(workspace, 6, evidence=8)
    engine, ws = engine_ws(workspace, storage={"maxEvidence": 3}, maintenance={"tombstoneDays": 7})
    with freeze_time(T0):
        ws.facts.forget("f-0000000000000000")
        ws.flush()
    with freeze_time(T0 + timedelta(days=1)):
        ws.facts.forget("f-0000000000000001")
        ws.flush()
    with freeze_time(T0 + timedelta(days=7, hours=12)):
        rec = run_job(engine, ws, "compact")
    assert rec["changed"]["records_trimmed"] == 4 and rec["changed"]["tombstones_dropped"] == 1
    doc = json.loads((workspace / "facts.json").read_text())
    assert list(doc["tombstones"]) == ["f-0000000000000001"]
    assert {len(f["evidence"]) for f in doc["facts"]} == {3}
    assert [e["message_id"] for e in doc["facts"][0]["evidence"]] == ["m2-5", "m2-6", "m2-7"]  # newest kept
    assert Workspace(workspace, engine.config).facts.table.tombstones.keys() == {"f-0000000000000001"}
    engine.stop(5)


def test_compact_vacuums_the_message_log_so_deleted_text_is_gone(workspace: Path) -> None:
    engine, ws = engine_ws(workspace, memory={"maxMessages": 2})
    secret = "zebra-passphrase-7781"
    for i in range(5):
        ws.store_message(Message(id=f"m{i}", text=f"{secret} number {i}" if i == 0 else f"hello {i}",
                                 role="user", session="s", timestamp=T0 + timedelta(minutes=i)))
    recs = run_all(engine, ws, ["retention", "compact"])
    assert [r["status"] for r in recs] == ["ok", "ok"]
    assert recs[0]["changed"]["messages_deleted"] == 3 and recs[1]["changed"]["messages_vacuumed"] == 1
    engine.stop(5)
    for p in workspace.rglob("*"):
        if p.is_file():
            assert secret.encode() not in p.read_bytes(), p.name


# --------------------------------------------------------------------------- locks and records
HOLD_LOCK = """
import sys, time
from pathlib import Path
from knowledge_engine.maintenance.runs import job_lock
with job_lock(Path(sys.argv[1]), sys.argv[2]) as got:
    assert got
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_job_running_in_another_process_is_skipped_and_recorded(workspace: Path) -> None:
    make_store(workspace, 5, last_decay_at=T0)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(workspace), "decay"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        engine, ws = engine_ws(workspace)
        with freeze_time(T0 + timedelta(days=3)):
            rec = run_job(engine, ws, "decay")
        assert rec["status"] == "skipped" and rec["reason"] == SKIPPED_ELSEWHERE
        assert relevances(workspace) == {1.0}  # not decayed by the skipped run
        assert read_runs(workspace)["decay"]["reason"] == SKIPPED_ELSEWHERE
    finally:
        holder.communicate("\n", timeout=10)
    with freeze_time(T0 + timedelta(days=3)):
        assert run_job(engine, ws, "decay")["changed"]["intervals"] == 3  # free again: it runs
    engine.stop(5)


def test_a_failing_job_is_recorded_with_its_error_category(workspace: Path) -> None:
    engine, ws = engine_ws(workspace, memory={"retentionDays": 30})
    (workspace / "messages.sqlite3").write_bytes(b"this is not a database" * 100)
    rec = run_job(engine, ws, "retention")
    assert rec["status"] == "error" and rec["error"]  # a class name, never a message text
    assert read_runs(workspace)["retention"]["status"] == "error"
    engine.stop(5)


def test_runs_are_recorded_and_shown_by_stats_json(workspace: Path, tmp_path: Path) -> None:
    make_store(workspace, 30, last_decay_at=T0 - timedelta(days=2))
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config(storage={"maxFacts": 25})))
    cli = CliRunner()
    result = cli.invoke(app, ["maintain", "--once", "-w", str(workspace), "-c", str(cfg), "--json"])
    assert result.exit_code == 0, result.output
    printed = {r["job"]: r for r in json.loads(result.stdout)}
    assert printed["decay"]["changed"]["intervals"] >= 2 and printed["prune"]["changed"]["facts_pruned"] == 5
    stats = cli.invoke(app, ["stats", "-w", str(workspace), "-c", str(cfg), "--json"])
    assert stats.exit_code == 0, stats.output
    shown = json.loads(stats.stdout)["maintenance"]
    assert set(shown) == {"llm_retry", "retention", "decay", "prune", "sync", "compact"}
    assert shown["prune"]["changed"] == {"facts_pruned": 5, "entities_pruned": 0}
    assert shown["sync"]["status"] == "skipped" and shown["compact"]["status"] == "ok"
    for rec in shown.values():
        assert {"job", "status", "started_at", "duration_ms", "changed"} <= set(rec)
    assert [h["job"] for h in read_history(workspace)] == list(printed)
    assert json.loads((workspace / "facts.json").read_text())["meta"][META_KEY]["decay"]["status"] == "ok"


def test_single_job_commands_and_bad_arguments(workspace: Path, tmp_path: Path) -> None:
    make_store(workspace, 3)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config()))
    cli = CliRunner()
    for name in ("decay", "prune", "compact"):
        result = cli.invoke(app, [name, "-w", str(workspace), "-c", str(cfg), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)[0]["job"] == name
    table = cli.invoke(app, ["prune", "-w", str(workspace), "-c", str(cfg)])
    assert table.exit_code == 0 and "facts_pruned=0" in table.stdout
    assert cli.invoke(app, ["maintain", "-w", str(workspace)]).exit_code != 0  # neither --once nor --daemon
    bad = cli.invoke(app, ["maintain", "--once", "--job", "nope", "-w", str(workspace)])
    assert bad.exit_code != 0 and "unknown job" in bad.output
    missing = cli.invoke(app, ["decay", "-w", str(tmp_path / "absent")])
    assert missing.exit_code != 0


def test_llm_retry_without_the_llm_tier_keeps_parked_batches(workspace: Path) -> None:
    (workspace / "llm-pending").mkdir()
    (workspace / "llm-pending" / "batch-1.json").write_text("{}")
    engine, ws = engine_ws(workspace)
    rec = run_job(engine, ws, "llm_retry")
    assert rec["status"] == "skipped" and "parked batches kept" in rec["reason"]
    assert (workspace / "llm-pending" / "batch-1.json").exists()
    engine.stop(5)


def test_evidence_kept_by_add_is_unchanged_by_compact(workspace: Path) -> None:
    """Compaction only trims what exceeds the cap; facts added through the store keep all their evidence."""
    engine, ws = engine_ws(workspace, storage={"maxEvidence": 5})
    ev = [Evidence(message_id=f"m{i}", timestamp=T0) for i in range(4)]
    ws.facts.add("Ada", "works-at", "Acme", evidence=ev, now=T0)
    ws.flush()
    assert run_job(engine, ws, "compact")["changed"]["records_trimmed"] == 0
    assert len(Workspace(workspace, engine.config).facts.all()[0].evidence) == 4
    engine.stop(5)


def test_sync_then_retention_removes_the_dropped_messages_from_chroma(workspace: Path) -> None:
    """Real local embedder, real embedded Chroma."""
    engine = KnowledgeEngine(load_config({"storage": {"writeDebounceMs": 0}, "memory": {"maxMessages": 2}}))
    ws = engine.open_workspace(workspace, "agent-x")
    for i in range(5):
        ws.store_message(Message(id=f"m{i}", text=f"message about topic {i}", role="user", session="s",
                                 timestamp=T0 + timedelta(minutes=i)))
    ws.facts.add("Ada", "works-at", "Acme", evidence=[Evidence(message_id="m0", timestamp=T0)], now=T0)
    ws.flush()
    sync = run_job(engine, ws, "sync")
    assert sync["status"] == "ok" and sync["changed"]["embedded"] == 6
    ret = run_job(engine, ws, "retention")
    assert ret["changed"] == {"messages_deleted": 3, "index_deleted": 3}
    index = engine.chroma(ws)
    assert index.count("messages") == 2 and index.count("facts") == 1
    assert run_job(engine, ws, "sync")["changed"]["embedded"] == 0  # nothing left to do
    engine.stop(5)
