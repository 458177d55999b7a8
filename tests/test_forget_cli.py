"""The right to be forgotten: after `forget`, no byte of the name remains anywhere in the workspace."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import chromadb
import pytest
from chromadb.api.client import SharedSystemClient
from chromadb.config import Settings

from knowledge_engine.forget.stores import scan
from tests.test_cli_support import SECRET, SECRET_FIRST, cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return workspace_copy("secret", tmp_path)


def _files_with(folder: Path, needle: str) -> list[str]:
    """Every file (Chroma sqlite and binaries, WAL, backups) whose bytes hold the needle, in any case."""
    low = needle.lower().encode()
    return [
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and low in p.read_bytes().lower()
    ]


def test_forget_entity_leaves_no_byte_of_the_name(ws: Path, caplog: pytest.LogCaptureFixture) -> None:
    before = _files_with(ws, SECRET)
    assert "chroma/chroma.sqlite3" in before and "messages.sqlite3" in before and "facts.json" in before
    assert "facts.json.bak" in before or "entities.json.bak" in before
    code, out, err = cli(
        "forget", "--entity", SECRET, "--also", SECRET_FIRST, "-w", str(ws), "--yes", "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["remaining"] == [] and report["entities"] >= 2 and report["facts"] >= 3
    assert report["chroma_deleted"] >= 3
    assert _files_with(ws, SECRET_FIRST) == []
    assert SECRET_FIRST.lower() not in caplog.text.lower()
    # the workspace still works: other knowledge is intact and searchable, Chroma opens
    facts = json.loads(cli("facts", "-w", str(ws), "--json")[1])
    assert any(f["subject"] == "Carla Mendes" for f in facts)
    msgs = {m["id"]: m for m in json.loads(cli("messages", "-w", str(ws), "--json", "--limit", "0")[1])}
    assert "z-04" not in msgs  # spoken by the forgotten person: deleted (the speaker column holds the name)
    assert msgs["z-00"]["text"] == "My colleague [redacted] works at Acme Corp in Lisbon."
    assert msgs["z-03"]["text"] == "I bought a new bike for the commute."
    code, out, err = cli("search", "who works at Globex", "-w", str(ws), "--json")
    assert code == 0, err
    code, _, err = cli("sync", "-w", str(ws), "--json")
    assert code == 0, err
    assert _files_with(ws, SECRET_FIRST) == []  # re-embedding the redacted messages brings nothing back


def test_forget_full_name_only_removes_the_full_name(ws: Path) -> None:
    code, _, err = cli("forget", "--entity", SECRET, "-w", str(ws), "--yes", "--json")
    assert code == 0, err
    assert _files_with(ws, SECRET) == []
    # a bare first name is another entity the store cannot know is the same person: --also covers it
    assert _files_with(ws, SECRET_FIRST)


def test_delete_messages_instead_of_redacting(ws: Path) -> None:
    code, out, _ = cli("forget", "--entity", SECRET, "--delete-messages", "-w", str(ws), "-y", "--json")
    assert code == 0
    ids = {m["id"] for m in json.loads(cli("messages", "-w", str(ws), "--json", "--limit", "0")[1])}
    assert not ids & {"z-00", "z-01", "z-04"} and {"z-03", "z-05"} <= ids
    assert json.loads(out)["messages_deleted"] == 3


def test_dry_run_and_declined_confirmation_change_nothing(ws: Path) -> None:
    def files() -> dict[Path, bytes]:  # SQLite's -wal/-shm side files appear when a reader opens the log
        return {
            p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and not p.name.endswith(("-wal", "-shm"))
        }

    snapshot = files()
    code, out, _ = cli("forget", "--entity", SECRET, "-w", str(ws), "--dry-run", "--json")
    assert code == 0 and json.loads(out)["dry_run"] is True
    assert SECRET not in out  # reports carry ids and counts, never the name
    code, _, err = cli("forget", "--entity", SECRET, "-w", str(ws), input="n\n")
    assert code != 0 and "nothing forgotten" in err
    assert files() == snapshot


def test_forget_one_fact_message_and_session(ws: Path) -> None:
    facts = json.loads(cli("facts", "-w", str(ws), "--json", "--subject", "Ana")[1])
    bike = next(f for f in facts if f["predicate"] == "bought")
    code, _, err = cli("forget", "--fact", bike["id"], "-w", str(ws), "-y")
    assert code == 0, err
    assert cli("show", bike["id"], "-w", str(ws))[0] != 0
    code, _, _ = cli("forget", "--message", "z-03", "-w", str(ws), "-y")
    assert code == 0
    assert b"new bike" not in (ws / "messages.sqlite3").read_bytes()
    code, out, _ = cli("forget", "--session", "zs2", "-w", str(ws), "-y", "--json")
    assert code == 0 and json.loads(out)["messages_deleted"] == 2
    left = json.loads(cli("messages", "-w", str(ws), "--json", "--limit", "0")[1])
    assert {m["session"] for m in left} == {"zs1"}
    db = sqlite3.connect(ws / "chroma" / "chroma.sqlite3")
    try:
        ids = {r[0] for r in db.execute("SELECT embedding_id FROM embeddings")}
    finally:
        db.close()
    assert not ids & {bike["id"], "z-03", "z-04", "z-05"}  # gone from the vector index too


def test_forget_by_filter_and_errors(ws: Path) -> None:
    code, out, _ = cli("forget", "--predicate", "works-in", "-w", str(ws), "-y", "--json")
    assert code == 0 and json.loads(out)["facts"] == 1
    assert not json.loads(cli("facts", "-w", str(ws), "--predicate", "works-in", "--json")[1])
    code, _, err = cli("forget", "--entity", "Nobody Anywhere", "-w", str(ws), "-y")
    assert code != 0 and "no entity" in err
    code, _, err = cli("forget", "-w", str(ws), "-y")
    assert code != 0 and "say what to forget" in err


def test_scan_is_case_insensitive(tmp_path: Path) -> None:
    (tmp_path / "a.bin").write_bytes(b"\x00\x01ZORBLAX\x00")
    (tmp_path / "b.txt").write_text("nothing here")
    assert scan(tmp_path, ["Zorblax"]) == ["a.bin"]


def test_unprocessed_spill_and_parked_batches_are_cleaned(ws: Path) -> None:
    from knowledge_engine.model.records import Message

    lines = [
        Message(id="sp-1", text=f"Lunch with {SECRET} tomorrow", speaker="Ana"),
        Message(id="sp-2", text="Unrelated note about the garden", speaker="Ana"),
        Message(id="sp-3", text="Hi, it is me", speaker=SECRET),
    ]
    (ws / "ingest-spill.jsonl").write_bytes(b"".join(m.model_dump_json().encode() + b"\n" for m in lines))
    (ws / "llm-pending").mkdir()
    (ws / "llm-pending" / "batch-1.json").write_text(json.dumps({"messages": [{"text": f"{SECRET} again"}]}))
    (ws / "llm-pending" / "batch-2.json").write_text(json.dumps({"messages": [{"text": "nothing to see"}]}))
    inbox = ws / "llm-pending" / "inbox.jsonl"  # messages waiting for an LLM batch
    inbox.write_bytes(b"".join(m.model_dump_json().encode() + b"\n" for m in lines))
    code, out, err = cli("forget", "--entity", SECRET, "-w", str(ws), "--yes", "--json")
    assert code == 0, (err, out)
    assert _files_with(ws, SECRET) == []
    spill = [json.loads(x) for x in (ws / "ingest-spill.jsonl").read_text().splitlines()]
    assert [m["id"] for m in spill] == ["sp-1", "sp-2"]
    assert spill[0]["text"] == "Lunch with [redacted] tomorrow" and spill[1]["text"].startswith("Unrelated")
    # only the forgotten content leaves a parked batch: the message stays for the LLM, redacted
    assert json.loads((ws / "llm-pending" / "batch-1.json").read_text())["messages"][0]["text"] == (
        "[redacted] again"
    )
    assert json.loads((ws / "llm-pending" / "batch-2.json").read_text())["messages"][0]["text"] == (
        "nothing to see"
    )
    waiting = [json.loads(x) for x in inbox.read_text().splitlines()]
    assert [m["id"] for m in waiting] == ["sp-1", "sp-2"]  # no host owns it: a message by them goes
    assert waiting[0]["text"] == "Lunch with [redacted] tomorrow"
    assert json.loads(out)["pending_applied_by"] == "this process" and json.loads(out)["final"] is True


def test_a_name_in_chroma_segment_files_is_removed_by_a_rebuild(ws: Path) -> None:
    """Embedded Chroma writes uninitialised process memory into its HNSW files, which can hold a name
    being forgotten. Planting the name in a segment folder stands in for that: forget rewrites the
    collections in a fresh process and drops the old segment folders, so no byte of it remains."""
    segments = [p for p in (ws / "chroma").iterdir() if p.is_dir()]
    assert segments
    (segments[0] / "garbage.bin").write_bytes(b"\x00" * 64 + SECRET.encode() + b"\x00" * 64)
    before = _chroma_counts(ws)
    code, out, err = cli("forget", "--entity", SECRET, "-w", str(ws), "--yes", "--json")
    assert code == 0, (err, out)
    report = json.loads(out)
    assert report["remaining"] == [] and report["chroma_rebuilt"] > 0
    assert _files_with(ws, SECRET) == []
    assert not segments[0].exists()
    after = _chroma_counts(ws)
    assert sum(after.values()) == sum(before.values()) - report["chroma_deleted"] == report["chroma_rebuilt"]
    client = chromadb.PersistentClient(path=str(ws / "chroma"), settings=Settings(anonymized_telemetry=False))
    for name in after:  # the rewritten index answers: a stored vector finds itself
        col = client.get_collection(name, embedding_function=None)
        one = col.get(limit=1, include=["embeddings"])
        assert col.query(query_embeddings=[one["embeddings"][0]], n_results=1)["ids"][0] == one["ids"]


def _chroma_counts(ws: Path) -> dict[str, int]:
    client = chromadb.PersistentClient(path=str(ws / "chroma"), settings=Settings(anonymized_telemetry=False))
    try:
        return {c.name: c.count() for c in client.list_collections()}
    finally:
        SharedSystemClient.clear_system_cache()
