"""validate: integrity problems are listed with a non-zero exit; --repair fixes what it can."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence, Fact, fact_id
from knowledge_engine.store.workspace import Workspace
from tests.test_cli_support import SECRET, cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return workspace_copy("sample", tmp_path)


def _validate(ws: Path, *extra: str) -> tuple[int, dict]:
    code, out, _ = cli("validate", "-w", str(ws), "--json", *extra)
    return code, json.loads(out)


def test_a_fresh_workspace_is_valid(ws: Path) -> None:
    code, report = _validate(ws)
    assert code == 0 and report["ok"] and report["checked"]["facts"] > 0 and report["checked"]["indexed"] > 0


def _break(ws: Path) -> str:
    """A fact pointing at a missing entity and a missing successor, plus an un-indexed fact (drift)."""
    store = Workspace(ws, load_config({}))
    fid = fact_id("Ghost", "knows", "Maya")
    store.facts.table.put(
        Fact(
            id=fid,
            subject="Ghost",
            predicate="knows",
            object="Maya",
            subject_id="person:ghost",
            object_id="person:maya",
            superseded_by="f-missing",
            evidence=[Evidence(message_id="m-gone")],
        )
    )
    store.close()
    return fid


def test_problems_are_listed_and_exit_non_zero(ws: Path) -> None:
    fid = _break(ws)
    code, report = _validate(ws)
    assert code == 1 and not report["ok"]
    kinds = {(p["kind"], p["id"]) for p in report["problems"]}
    assert ("dangling_entity", fid) in kinds and ("dangling_fact", fid) in kinds
    assert ("missing_evidence", fid) in kinds
    assert any(p["kind"] == "index_drift" and p["id"] == "facts" for p in report["problems"])
    code, out, _ = cli("validate", "-w", str(ws))
    assert code == 1 and "dangling_entity" in out


def test_repair_fixes_references_and_resyncs(ws: Path) -> None:
    fid = _break(ws)
    code, report = _validate(ws, "--repair")
    assert code == 0, report
    assert report["repaired"]["entity_refs"] == 1 and report["repaired"]["superseded_by"] == 1
    assert report["repaired"]["index"] >= 1
    fact = json.loads(cli("show", fid, "-w", str(ws), "--json")[1])["fact"]
    assert fact["subject_id"] is None and fact["object_id"] == "person:maya" and fact["superseded_by"] is None
    assert _validate(ws)[0] == 0


def test_no_index_skips_chroma(ws: Path) -> None:
    _break(ws)
    code, report = _validate(ws, "--no-index")
    assert code == 1 and not any(p["kind"] == "index_drift" for p in report["problems"])


def test_corrupt_store_file_is_reported(ws: Path) -> None:
    (ws / "facts.json").write_bytes(b"{ this is not json")
    code, report = _validate(ws, "--no-index")
    assert code == 1 and any(p["kind"] == "schema" and p["id"] == "facts.json" for p in report["problems"])
    assert any(p["id"].startswith("facts.json.corrupt-") and p["warning"] for p in report["problems"])
    code, report = _validate(ws, "--no-index", "--repair")
    assert code == 0 and report["repaired"]["store_files"] == 1  # rewritten from the last good copy
    assert (ws / "facts.json").exists()


def test_validate_right_after_forget_is_ok_and_notes_the_pending_sync(tmp_path: Path) -> None:
    """forget deletes vectors but embeds nothing (no model): the redacted messages wait for the next
    sync. That is a note, not an integrity error."""
    ws = workspace_copy("secret", tmp_path)
    code, _, err = cli("forget", "-w", str(ws), "--entity", SECRET, "--yes", "--json")
    assert code == 0, err
    code, report = _validate(ws)
    assert code == 0 and report["ok"], report
    drift = [p for p in report["problems"] if p["kind"] == "index_drift"]
    assert drift and all(p["warning"] and "next sync" in p["detail"] for p in drift)
    code, out, _ = cli("validate", "-w", str(ws))
    assert code == 0 and "warning" in out
    assert cli("sync", "-w", str(ws))[0] == 0
    code, report = _validate(ws)
    assert code == 0 and report["problems"] == []


def test_vectors_of_records_gone_from_the_stores_are_an_error(ws: Path) -> None:
    store = Workspace(ws, load_config({}))
    gone = store.facts.all()[0].id
    store.facts.table.delete(gone)
    store.close()
    code, report = _validate(ws)
    assert code == 1
    assert any(p["kind"] == "index_drift" and not p["warning"] for p in report["problems"])


def test_inspections_of_a_never_synced_workspace_create_no_collection(ws: Path) -> None:
    import shutil
    import sqlite3

    shutil.rmtree(ws / "chroma")
    (ws / "chroma-index.json").unlink(missing_ok=True)
    code, report = _validate(ws)
    assert code == 0 and all(p["warning"] for p in report["problems"]), report
    assert {p["id"] for p in report["problems"] if p["kind"] == "index_drift"} == {"facts", "messages"}
    code, out, err = cli("stats", "--index", "-w", str(ws), "--json")
    assert code == 0 and json.loads(out)["chroma_pending"]["synced"] == 0, err
    assert cli("context", "Where does Maya work now?", "-w", str(ws), "--json")[0] == 0
    db = ws / "chroma" / "chroma.sqlite3"
    if db.exists():
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM collections").fetchone() == (0,)
